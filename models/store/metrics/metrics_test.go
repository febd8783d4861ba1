package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// metricEnv is a tenant with a Gold partner (two customers), a Silver partner (one customer)
// and an unattributed customer.
type metricEnv struct {
	s                *stores.Set
	owner            *models.Principal
	sc               *stores.Scoped
	gold, silver     string
	c1, c2, c3, c4   string
	goldSc, silverSc *stores.Scoped
	base             time.Time
	tenantID         string
	ctx              context.Context
}

func newMetricEnv(t *testing.T, s *stores.Set, slug string) *metricEnv {
	t.Helper()
	ctx := context.Background()
	env := &metricEnv{s: s, ctx: ctx, owner: storetest.Tenant(t, s.Core(), slug)}
	env.sc = s.For(env.owner)
	env.tenantID = env.owner.TenantID
	for _, p := range []struct {
		id    *string
		level string
	}{{&env.gold, "Gold"}, {&env.silver, "Silver"}} {
		rec := &models.Partner{Name: p.level, Type: models.PartnerAgency, Level: p.level}
		if err := env.sc.CreatePartner(ctx, rec); err != nil {
			t.Fatal(err)
		}
		*p.id = rec.ID
	}
	env.goldSc = s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: env.tenantID, UserID: "u-gold", PartnerID: env.gold})
	env.silverSc = s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: env.tenantID, UserID: "u-silver", PartnerID: env.silver})
	customer := func(sc *stores.Scoped, email string) string {
		c := &models.Customer{Email: &email}
		if err := sc.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	env.c1 = customer(env.goldSc, "c1@"+slug+".test")
	env.c2 = customer(env.goldSc, "c2@"+slug+".test")
	env.c3 = customer(env.silverSc, "c3@"+slug+".test")
	env.c4 = customer(env.sc, "c4@"+slug+".test")
	env.base = time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3).Add(10 * time.Hour)
	return env
}

func (env *metricEnv) ingest(t *testing.T, customer, typ, payload string, at time.Time) string {
	t.Helper()
	res, err := env.sc.Ingest(env.ctx, []models.IngestEvent{{CustomerID: customer, Type: typ, Payload: payload, OccurredAt: at}})
	if err != nil || res[0].Err != nil {
		t.Fatalf("ingest: %v %+v", err, res)
	}
	return res[0].EventID
}

func (env *metricEnv) metric(t *testing.T, name, kind, eventType, field string, filters ...models.MetricFilter) *models.Metric {
	t.Helper()
	m := &models.Metric{Name: name, Kind: kind, EventType: eventType, Field: field}
	if err := env.sc.CreateMetric(models.WithPrincipal(env.ctx, env.owner), m, filters); err != nil {
		t.Fatal(err)
	}
	return m
}

func (env *metricEnv) compute(t *testing.T, sc *stores.Scoped, id string, q models.MetricQuery) *models.MetricResult {
	t.Helper()
	if q.From.IsZero() {
		q.From = env.base.AddDate(0, 0, -1)
	}
	res, err := sc.ComputeMetric(env.ctx, id, q)
	if err != nil {
		t.Fatalf("compute: %v", err)
	}
	return res
}

// rollUp folds every event received so far into the metric's rollup, lag or not.
func (env *metricEnv) rollUp(t *testing.T, id string) {
	t.Helper()
	if err := env.s.RollUpMetric(env.ctx, models.System(env.tenantID), id, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // later events get ids above the watermark
}

func (env *metricEnv) seed(t *testing.T) {
	h := time.Hour
	env.ingest(t, env.c1, "invoice.paid", `{"amount": 100, "currency": "EUR"}`, env.base)
	env.ingest(t, env.c1, "invoice.paid", `{"amount": 250, "currency": "EUR"}`, env.base.Add(h))
	env.ingest(t, env.c1, "invoice.paid", `{"amount": 12.5, "currency": "EUR"}`, env.base.Add(2*h)) // not an integer: skipped
	env.ingest(t, env.c2, "invoice.paid", `{"amount": "70", "currency": "EUR"}`, env.base.Add(2*h)) // a string: skipped
	env.ingest(t, env.c2, "invoice.paid", `{"currency": "USD", "amount": 9007199254740993}`, env.base.Add(26*h))
	env.ingest(t, env.c3, "invoice.paid", `{"amount": 1000, "currency": "EUR"}`, env.base.Add(24*h))
	env.ingest(t, env.c4, "invoice.paid", `{"amount": 5, "currency": "EUR"}`, env.base.Add(25*h))
	env.ingest(t, env.c3, "feature.used", `{"feature": "export"}`, env.base.Add(3*h))
	env.ingest(t, env.c1, "feature.used", `{"feature": "export"}`, env.base.Add(3*h))
	env.ingest(t, env.c1, "feature.used", `{"feature": "import"}`, env.base.Add(30*h))
	env.ingest(t, env.c1, "invoice.paid", `{"amount": 1}`, env.base.AddDate(0, 0, -10)) // before the range
}

func TestMetricsCountSumAndUniqueOverEventsWithAndWithoutRollup(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "metrics")
		env.seed(t)
		count := env.metric(t, "Invoices", models.MetricCount, "invoice.paid", "")
		sum := env.metric(t, "Revenue EUR", models.MetricSum, "invoice.paid", "amount",
			models.MetricFilter{Path: "currency", Op: models.FilterEq, Value: json.RawMessage(`"EUR"`)})
		sumAll := env.metric(t, "Revenue", models.MetricSum, "invoice.*", "amount")
		customers := env.metric(t, "Active customers", models.MetricUnique, "*", models.MetricFieldCustomer)
		features := env.metric(t, "Features", models.MetricUnique, "feature.used", "feature")
		notExport := env.metric(t, "Not export", models.MetricCount, "feature.used", "",
			models.MetricFilter{Path: "feature", Op: models.FilterNeq, Value: json.RawMessage(`"export"`)})

		type want struct{ value, skipped int64 }
		cases := []struct {
			name string
			sc   *stores.Scoped
			m    *models.Metric
			q    models.MetricQuery
			want want
		}{
			{"an operator counts every invoice in the range", env.sc, count, models.MetricQuery{}, want{7, 0}},
			{"an operator sums EUR integer amounts and skips the rest", env.sc, sum, models.MetricQuery{}, want{1355, 2}},
			{"a sum keeps every digit of a large integer", env.sc, sumAll, models.MetricQuery{}, want{9007199254740993 + 1355, 2}},
			{"partnerId limits to one partner", env.sc, sum, models.MetricQuery{PartnerID: env.silver}, want{1000, 0}},
			{"partnerLevel limits to the partners of a level", env.sc, sum, models.MetricQuery{PartnerLevel: "Gold"}, want{350, 2}},
			{"an unknown level matches nothing", env.sc, count, models.MetricQuery{PartnerLevel: "Platinum"}, want{0, 0}},
			{"a partner sees only its own customers' events", env.goldSc, count, models.MetricQuery{}, want{5, 0}},
			{"a partner naming itself gets its own data", env.goldSc, sum, models.MetricQuery{PartnerID: env.gold}, want{350, 2}},
			{"a partner filtering by another level gets nothing", env.goldSc, sum, models.MetricQuery{PartnerLevel: "Silver"}, want{0, 0}},
			{"unique customers over every event type", env.sc, customers, models.MetricQuery{}, want{4, 0}},
			{"unique customers of a partner", env.silverSc, customers, models.MetricQuery{}, want{1, 0}},
			{"unique payload values", env.sc, features, models.MetricQuery{}, want{2, 0}},
			{"neq filters keep other values", env.sc, notExport, models.MetricQuery{}, want{1, 0}},
			{"a range excludes events outside it", env.sc, count, models.MetricQuery{From: env.base, To: env.base.Add(2 * time.Hour)}, want{2, 0}},
		}
		check := func(t *testing.T, stage string) {
			for _, c := range cases {
				res := env.compute(t, c.sc, c.m.ID, c.q)
				if res.Value != c.want.value || res.Skipped != c.want.skipped {
					t.Errorf("%s, %s: value %d skipped %d, want %d and %d", stage, c.name, res.Value, res.Skipped, c.want.value, c.want.skipped)
				}
			}
		}
		check(t, "from raw events")
		for _, m := range []*models.Metric{count, sum, sumAll, customers, features, notExport} {
			env.rollUp(t, m.ID)
		}
		check(t, "from the rollup")
		// A late event with an old time lands in its bucket, first from the raw events, then
		// from the rollup.
		env.ingest(t, env.c3, "invoice.paid", `{"amount": 1, "currency": "EUR"}`, env.base.Add(-time.Hour))
		for i := range cases {
			switch cases[i].m {
			case count:
				if cases[i].q.From.IsZero() && cases[i].sc == env.sc && cases[i].q.PartnerLevel != "Gold" && cases[i].q.PartnerLevel != "Platinum" {
					cases[i].want.value++
				}
			case sum, sumAll:
				if cases[i].q.PartnerLevel == "" && (cases[i].sc == env.sc || cases[i].sc == env.silverSc) {
					cases[i].want.value++
				}
			}
		}
		check(t, "with a late event not rolled up")
		env.rollUp(t, count.ID)
		env.rollUp(t, sum.ID)
		check(t, "with a late event rolled up")
	})
}

func TestMetricSeriesFillEmptyBuckets(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "series")
		env.seed(t)
		sum := env.metric(t, "Revenue EUR", models.MetricSum, "invoice.paid", "amount",
			models.MetricFilter{Path: "currency", Op: models.FilterEq, Value: json.RawMessage(`"EUR"`)})
		customers := env.metric(t, "Customers", models.MetricUnique, "invoice.paid", models.MetricFieldCustomer)
		from := env.base.Truncate(24*time.Hour).AddDate(0, 0, -1)
		to := from.AddDate(0, 0, 4)
		for _, stage := range []string{"raw", "rolled up"} {
			res := env.compute(t, env.sc, sum.ID, models.MetricQuery{From: from, To: to, Interval: models.IntervalDay})
			got := []int64{}
			for _, p := range res.Series {
				got = append(got, p.Value)
			}
			if want := []int64{0, 350, 1005, 0}; !equal(got, want) || !res.Series[0].Start.Equal(from) {
				t.Errorf("%s: daily series %v from %v, want %v from %v", stage, got, res.Series[0].Start, want, from)
			}
			hourly := env.compute(t, env.sc, sum.ID, models.MetricQuery{From: env.base, To: env.base.Add(3 * time.Hour), Interval: models.IntervalHour})
			got = got[:0]
			for _, p := range hourly.Series {
				got = append(got, p.Value)
			}
			if want := []int64{100, 250, 0}; !equal(got, want) {
				t.Errorf("%s: hourly series %v, want %v", stage, got, want)
			}
			u := env.compute(t, env.sc, customers.ID, models.MetricQuery{From: from, To: to, Interval: models.IntervalDay})
			got = got[:0]
			for _, p := range u.Series {
				got = append(got, p.Value)
			}
			if want := []int64{0, 2, 3, 0}; !equal(got, want) || u.Value != 4 {
				t.Errorf("%s: unique series %v total %d, want %v total 4", stage, got, u.Value, want)
			}
			env.rollUp(t, sum.ID)
			env.rollUp(t, customers.ID)
		}
		// Ranges widen to whole hours, and to whole days for unique metrics.
		res := env.compute(t, env.sc, sum.ID, models.MetricQuery{From: env.base.Add(30 * time.Minute), To: env.base.Add(90 * time.Minute)})
		if !res.From.Equal(env.base) || !res.To.Equal(env.base.Add(2*time.Hour)) || res.Value != 350 {
			t.Errorf("unaligned range computed %v..%v = %d", res.From, res.To, res.Value)
		}
		week := env.compute(t, env.sc, sum.ID, models.MetricQuery{From: from, To: to, Interval: models.IntervalWeek})
		var total int64
		for _, p := range week.Series {
			total += p.Value
			if p.Start.Weekday() != time.Monday {
				t.Errorf("a week starts on %v", p.Start)
			}
		}
		if total != week.Value {
			t.Errorf("weekly series adds up to %d, value %d", total, week.Value)
		}
	})
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMetricRulesAndScope(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "rules")
		ctx := models.WithPrincipal(env.ctx, env.owner)
		env.seed(t)
		code := func(err error) string {
			if e, ok := models.AsError(err); ok {
				return e.Code
			}
			return ""
		}
		t.Run("validation reports every problem at once", func(t *testing.T) {
			err := env.sc.CreateMetric(ctx, &models.Metric{Kind: "avg", EventType: "Bad Type"}, []models.MetricFilter{{Path: "", Op: "lt", Value: json.RawMessage(`{}`)}})
			e, ok := models.AsError(err)
			if !ok || e.Code != "INVALID_METRIC" || len(e.Fields) != 6 {
				t.Fatalf("err = %v (%d fields)", err, len(e.Fields))
			}
			if err := env.sc.CreateMetric(ctx, &models.Metric{Name: "x", Kind: models.MetricSum, EventType: "a.b", Field: models.MetricFieldCustomer}, nil); code(err) != "INVALID_METRIC" {
				t.Fatalf("a sum of customers: %v", err)
			}
		})
		m := env.metric(t, "Invoices", models.MetricCount, "invoice.paid", "")
		t.Run("a partner naming another partner is refused", func(t *testing.T) {
			_, err := env.goldSc.ComputeMetric(env.ctx, m.ID, models.MetricQuery{PartnerID: env.silver})
			if models.ErrorKind(err) != models.KindForbidden || code(err) != "OTHER_PARTNER" {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("another tenant's metric reads as missing", func(t *testing.T) {
			other := s.For(storetest.Tenant(t, s.Core(), "rules-other"))
			if _, err := other.ComputeMetric(env.ctx, m.ID, models.MetricQuery{}); code(err) != "METRIC_NOT_FOUND" {
				t.Fatalf("err = %v", err)
			}
			if _, err := other.UpdateMetric(env.ctx, m.ID, models.MetricChanges{}); code(err) != "METRIC_NOT_FOUND" {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("bad queries are refused", func(t *testing.T) {
			u := env.metric(t, "U", models.MetricUnique, "invoice.paid", models.MetricFieldCustomer)
			if _, err := env.sc.ComputeMetric(env.ctx, u.ID, models.MetricQuery{Interval: models.IntervalHour}); code(err) != "INVALID_METRIC_QUERY" {
				t.Fatalf("hourly uniques: %v", err)
			}
			if _, err := env.sc.ComputeMetric(env.ctx, m.ID, models.MetricQuery{From: env.base, To: env.base.Add(-time.Hour)}); code(err) != "INVALID_METRIC_QUERY" {
				t.Fatalf("from after to: %v", err)
			}
			if _, err := env.sc.ComputeMetric(env.ctx, m.ID, models.MetricQuery{From: env.base.AddDate(-1, 0, 0), To: env.base, Interval: models.IntervalHour}); code(err) != "TOO_MANY_POINTS" {
				t.Fatalf("a year of hours: %v", err)
			}
		})
		t.Run("a definition change resets the rollup", func(t *testing.T) {
			env.rollUp(t, m.ID)
			if got := env.compute(t, env.sc, m.ID, models.MetricQuery{}).Value; got != 7 {
				t.Fatalf("count = %d", got)
			}
			typ := "feature.used"
			m2, err := env.sc.UpdateMetric(ctx, m.ID, models.MetricChanges{EventType: &typ})
			if err != nil || m2.RolledUpTo != "" {
				t.Fatalf("update: %v %+v", err, m2)
			}
			if got := env.compute(t, env.sc, m.ID, models.MetricQuery{}).Value; got != 3 {
				t.Fatalf("count after the change = %d, want 3", got)
			}
			env.rollUp(t, m.ID)
			if got := env.compute(t, env.sc, m.ID, models.MetricQuery{}).Value; got != 3 {
				t.Fatalf("count after the change, rolled up = %d, want 3", got)
			}
		})
		t.Run("changes and deletes are audited", func(t *testing.T) {
			if err := env.sc.DeleteMetric(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
			entries, _, err := env.sc.ListAudit(env.ctx, models.AuditFilter{TargetID: m.ID}, models.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var actions []string
			for _, e := range entries {
				actions = append(actions, e.Action)
			}
			if len(actions) != 3 || actions[0] != "metric.created" || actions[1] != "metric.updated" || actions[2] != "metric.deleted" {
				t.Fatalf("audit = %v", actions)
			}
			if _, err := env.sc.Metric(env.ctx, m.ID); code(err) != "METRIC_NOT_FOUND" {
				t.Fatalf("deleted metric: %v", err)
			}
		})
	})
}

func TestConcurrentCatchUpsCountEveryEventOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "concurrent")
		var batch []models.IngestEvent
		for i := range 300 {
			batch = append(batch, models.IngestEvent{CustomerID: env.c1, Type: "seat.added", Payload: `{"n": 2}`, OccurredAt: env.base.Add(time.Duration(i) * time.Minute)})
		}
		if _, err := env.sc.Ingest(env.ctx, batch); err != nil {
			t.Fatal(err)
		}
		m := env.metric(t, "Seats", models.MetricSum, "seat.added", "n")
		errs := make(chan error, 4)
		for range 4 {
			go func() { errs <- s.RollUpMetric(env.ctx, models.System(env.tenantID), m.ID, time.Now()) }()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if got := env.compute(t, env.sc, m.ID, models.MetricQuery{}).Value; got != 600 {
			t.Fatalf("sum = %d, want 600", got)
		}
	})
}

func TestUniqueCountsAgreeAcrossMonthAndDaySetsAndLateValues(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "months")
		// Four months back, three customers on scattered days; c1 in every month.
		start := time.Date(env.base.Year(), env.base.Month(), 1, 12, 0, 0, 0, time.UTC).AddDate(0, -4, 0)
		plan := []struct {
			customer string
			days     int
		}{{env.c1, 0}, {env.c1, 33}, {env.c1, 64}, {env.c1, 95}, {env.c2, 40}, {env.c2, 41}, {env.c3, 70}, {env.c4, 100}}
		for _, p := range plan {
			env.ingest(t, p.customer, "invoice.paid", `{"amount": 1}`, start.AddDate(0, 0, p.days))
		}
		m := env.metric(t, "Payers", models.MetricUnique, "invoice.paid", models.MetricFieldCustomer)
		from, to := start.AddDate(0, 0, 10), start.AddDate(0, 0, 99) // from mid-month to mid-month
		want := int64(3)                                             // c1, c2, c3; c4 after to
		check := func(t *testing.T, stage string, want int64) {
			t.Helper()
			for _, interval := range []string{"", models.IntervalMonth, models.IntervalWeek, models.IntervalDay} {
				res := env.compute(t, env.sc, m.ID, models.MetricQuery{From: from, To: to, Interval: interval})
				if res.Value != want {
					t.Errorf("%s, interval %q: %d distinct, want %d", stage, interval, res.Value, want)
				}
			}
			gold := env.compute(t, env.goldSc, m.ID, models.MetricQuery{From: from, To: to, Interval: models.IntervalMonth})
			if gold.Value != 2 {
				t.Errorf("%s: gold sees %d distinct, want 2", stage, gold.Value)
			}
		}
		check(t, "raw", want)
		env.rollUp(t, m.ID)
		check(t, "rolled up", want)
		// Late events: a value the rollup knows (c2) and one it has never seen (a new customer).
		env.ingest(t, env.c2, "invoice.paid", `{"amount": 1}`, start.AddDate(0, 0, 50))
		email := "late@months.test"
		late := &models.Customer{Email: &email}
		if err := env.sc.CreateCustomer(env.ctx, late); err != nil {
			t.Fatal(err)
		}
		env.ingest(t, late.ID, "invoice.paid", `{"amount": 1}`, start.AddDate(0, 0, 20))
		check(t, "late events raw", want+1)
		env.rollUp(t, m.ID)
		check(t, "late events rolled up", want+1)
		monthly := env.compute(t, env.sc, m.ID, models.MetricQuery{From: from, To: to, Interval: models.IntervalMonth})
		var got []int64
		for _, p := range monthly.Series {
			got = append(got, p.Value)
		}
		// Months 0..3 from start: c1 (day 0) is before from; late (20) in month 0; c1 (33),
		// c2 (40, 41, 50) in month 1; c1 (64), c3 (70) in month 2; c1 (95) in month 3.
		if !equal(got, []int64{1, 2, 2, 1}) {
			t.Errorf("monthly series %v, want [1 2 2 1]", got)
		}
	})
}

func TestRolledUpSumsRefuseToOverflow(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "overflow")
		m := env.metric(t, "Revenue", models.MetricSum, "invoice.paid", "amount")
		env.ingest(t, env.c1, "invoice.paid", `{"amount": 9000000000000000000}`, env.base)
		env.rollUp(t, m.ID)
		if got := env.compute(t, env.sc, m.ID, models.MetricQuery{}).Value; got != 9000000000000000000 {
			t.Fatalf("sum = %d", got)
		}
		// A second batch into the same hour would pass 2^63 - 1 in the stored row.
		env.ingest(t, env.c1, "invoice.paid", `{"amount": 300000000000000000}`, env.base)
		time.Sleep(5 * time.Millisecond) // the catch-up takes events of earlier milliseconds
		err := env.s.RollUpMetric(env.ctx, models.System(env.tenantID), m.ID, time.Now())
		if e, ok := models.AsError(err); !ok || e.Code != "METRIC_OVERFLOW" {
			t.Fatalf("catch-up past 64 bits: %v", err)
		}
		if _, err := env.sc.ComputeMetric(env.ctx, m.ID, models.MetricQuery{}); models.ErrorKind(err) != models.KindConflict {
			t.Fatalf("compute past 64 bits: %v", err)
		}
	})
}

// TestYearComputesAgreeWithTheRawEventsInEveryScope computes over more than a year, from an
// hour in the middle of a month, before and after the rollup: the rollup's monthly rows, the
// rows of all partners together and the unique bitmaps answer exactly what the raw events
// answer, for the operator over the tenant, per partner, per level and for a partner itself.
func TestYearComputesAgreeWithTheRawEventsInEveryScope(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "year")
		customers := []string{env.c1, env.c2, env.c3, env.c4}
		from := env.base.AddDate(0, 0, -400).Add(7 * time.Hour)
		to := env.base.AddDate(0, 0, 1)
		var count, sum int64
		for i := range 90 {
			at := from.Add(time.Duration(i*4391%(400*24)) * time.Hour).Add(time.Duration(i) * time.Minute)
			env.ingest(t, customers[i%4], "invoice.paid", fmt.Sprintf(`{"amount": %d}`, i*7+1), at)
			count++
			sum += int64(i*7 + 1)
		}
		// Outside the range on both sides.
		env.ingest(t, env.c1, "invoice.paid", `{"amount": 1000}`, from.Add(-time.Hour))
		env.ingest(t, env.c3, "invoice.paid", `{"amount": 1000}`, to.Add(time.Hour))
		metrics := []*models.Metric{
			env.metric(t, "Invoices", models.MetricCount, "invoice.paid", ""),
			env.metric(t, "Revenue", models.MetricSum, "invoice.paid", "amount"),
			env.metric(t, "Payers", models.MetricUnique, "invoice.paid", models.MetricFieldCustomer),
		}
		type view struct {
			name string
			sc   *stores.Scoped
			q    models.MetricQuery
		}
		views := []view{
			{"operator", env.sc, models.MetricQuery{}},
			{"operator, gold", env.sc, models.MetricQuery{PartnerID: env.gold}},
			{"operator, silver", env.sc, models.MetricQuery{PartnerID: env.silver}},
			{"operator, level Gold", env.sc, models.MetricQuery{PartnerLevel: "Gold"}},
			{"gold itself", env.goldSc, models.MetricQuery{}},
			{"silver itself", env.silverSc, models.MetricQuery{}},
		}
		answers := func(t *testing.T) map[string][]int64 {
			out := map[string][]int64{}
			for _, m := range metrics {
				for _, v := range views {
					for _, interval := range []string{"", models.IntervalMonth, models.IntervalWeek, models.IntervalDay} {
						q := v.q
						q.From, q.To, q.Interval = from, to, interval
						res := env.compute(t, v.sc, m.ID, q)
						got := []int64{res.Value}
						for _, p := range res.Series {
							got = append(got, p.Value)
						}
						out[m.Kind+" / "+v.name+" / "+interval] = got
					}
				}
			}
			return out
		}
		raw := answers(t)
		if got := raw["count / operator / "][0]; got != count {
			t.Fatalf("raw count %d, want %d", got, count)
		}
		if got := raw["sum / operator / "][0]; got != sum {
			t.Fatalf("raw sum %d, want %d", got, sum)
		}
		if got := raw["unique / operator / "][0]; got != 4 {
			t.Fatalf("raw unique %d, want 4", got)
		}
		for _, m := range metrics {
			env.rollUp(t, m.ID)
		}
		rolled := answers(t)
		for k, want := range raw {
			if !equal(rolled[k], want) {
				t.Errorf("%s: rolled up %v, raw %v", k, rolled[k], want)
			}
		}
		// The tenant's rows are the partners' rows and the unattributed events together.
		for _, kind := range []string{"count", "sum"} {
			gold, silver, all := rolled[kind+" / gold itself / "][0], rolled[kind+" / silver itself / "][0], rolled[kind+" / operator / "][0]
			if gold == 0 || silver == 0 || gold+silver >= all {
				t.Errorf("%s: gold %d + silver %d against all %d (c4 is unattributed)", kind, gold, silver, all)
			}
		}
		// Computed by partner (as the health model reads a metric), each partner's year is what
		// it computes itself, from its own monthly, daily and hourly rows, whether the partners
		// are named or not: the rows of all partners together never count as a partner's.
		for _, ids := range [][]string{{env.gold, env.silver}, nil} {
			for _, m := range metrics {
				err := s.Core().DB(env.ctx).Transaction(func(tx *gorm.DB) error {
					r, err := s.ComputeForPartners(tx, models.System(env.tenantID), m.ID, from, to, ids)
					if err != nil {
						return err
					}
					for name, partner := range map[string]string{"gold": env.gold, "silver": env.silver} {
						if v, ok := r.Value(partner); !ok || v != rolled[m.Kind+" / "+name+" itself / "][0] {
							t.Errorf("%s by partner %v, %s: %d %v, want %d", m.Kind, ids, name, v, ok, rolled[m.Kind+" / "+name+" itself / "][0])
						}
					}
					if v, _ := r.Value("*"); v != 0 {
						t.Errorf("%s by partner %v: the rows of all partners read as a partner's (%d)", m.Kind, ids, v)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
