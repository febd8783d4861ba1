package health_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// event writes an event of partner ("" for none) that occurred at.
func event(t *testing.T, s *stores.Set, e *storetest.Partners, partner, typ, payload string, at time.Time) {
	t.Helper()
	ev := &models.Event{ID: models.NewID(), TenantID: e.TenantID, Type: typ, Source: "ingest", ActorKind: "system", Payload: payload, OccurredAt: at, ReceivedAt: time.Now().UTC()}
	if partner != "" {
		ev.PartnerID = &partner
	}
	if err := s.Core().DB(e.Ctx).Create(ev).Error; err != nil {
		t.Fatal(err)
	}
}

func metric(t *testing.T, e *storetest.Partners, m models.Metric) *models.Metric {
	t.Helper()
	if err := e.Op.CreateMetric(e.Ctx, &m, nil); err != nil {
		t.Fatal(err)
	}
	return &m
}

// metricEvents writes, for partner, n events of each kind the test metrics read, occurring
// within the last days, plus some outside the 30-day window.
func metricEvents(t *testing.T, s *stores.Set, e *storetest.Partners, partner string, n int, at time.Time) {
	for i := range n {
		when := at.Add(-time.Duration(i) * 37 * time.Hour)
		event(t, s, e, partner, "user.login", `{}`, when)
		event(t, s, e, partner, "invoice.paid", fmt.Sprintf(`{"amount": %d}`, 1999*(i+1)), when)
		event(t, s, e, partner, "feature.used", fmt.Sprintf(`{"feature": "f%d"}`, i%3), when)
		event(t, s, e, partner, models.EventSurveyResponded, fmt.Sprintf(`{"kind": "csat", "score": %d}`, 1+i%5), when)
		event(t, s, e, partner, models.EventSurveyResponded, fmt.Sprintf(`{"kind": "nps", "score": %d}`, (3*i)%11), when)
	}
	old := at.AddDate(0, 0, -45)
	event(t, s, e, partner, "user.login", `{}`, old)
	event(t, s, e, partner, "invoice.paid", `{"amount": 100000}`, old)
}

// A metric component scores, for each partner, exactly what the metric's compute answers for
// that partner over the component's window, for every kind of metric, from the rollup and from
// the events not rolled up yet, with pages of one partner and of many.
func TestAMetricComponentScoresWhatTheMetricComputesForThePartner(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ms := []*models.Metric{
			metric(t, e, models.Metric{Name: "Sign-ins", Kind: models.MetricCount, EventType: "user.login"}),
			metric(t, e, models.Metric{Name: "Invoiced", Kind: models.MetricSum, EventType: "invoice.*", Field: "amount", Unit: models.UnitMoney, Currency: "EUR"}),
			metric(t, e, models.Metric{Name: "Features used", Kind: models.MetricUnique, EventType: "feature.used", Field: "feature"}),
			metric(t, e, models.Metric{Name: "Support CSAT", Kind: models.MetricCSAT}),
			metric(t, e, models.Metric{Name: "Partner NPS", Kind: models.MetricNPS}),
		}
		now := time.Now().UTC()
		// A: events in the rollup and after it; B: logins, invoices and features only, so its
		// csat and nps have no answers; an unattributed event counts for nobody.
		metricEvents(t, s, e, e.PartnerA, 6, now.Add(-2*time.Hour))
		event(t, s, e, e.PartnerB, "user.login", `{}`, now.Add(-3*time.Hour))
		event(t, s, e, e.PartnerB, "invoice.paid", `{"amount": 500}`, now.Add(-50*time.Hour))
		event(t, s, e, e.PartnerB, "invoice.paid", `{"amount": "oops"}`, now.Add(-50*time.Hour))
		event(t, s, e, e.PartnerB, "feature.used", `{"feature": "f1"}`, now.Add(-50*time.Hour))
		event(t, s, e, "", "user.login", `{}`, now.Add(-time.Hour))
		for _, m := range ms[:3] {
			if err := s.RollUpMetric(e.Ctx, models.System(e.TenantID), m.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Millisecond)
		metricEvents(t, s, e, e.PartnerA, 2, now.Add(-time.Hour)) // not rolled up
		event(t, s, e, e.PartnerB, "feature.used", `{"feature": "f2"}`, now.Add(-time.Hour))

		model := models.HealthModel{Tiers: []models.HealthTier{{Name: "healthy", MinScore: 60}, {Name: "critical", MinScore: 0}}}
		for _, m := range ms {
			model.Components = append(model.Components, models.HealthComponent{Source: models.HealthMetric, MetricID: m.ID, Weight: 1, ZeroAt: 0, FullAt: 50, WindowDays: 30})
		}
		if _, err := e.Op.PutHealthModel(e.Ctx, model); err != nil {
			t.Fatal(err)
		}
		for _, page := range []int{1, 1000} {
			r, err := e.Op.RequestHealthRun(e.Ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n, _, err := s.ScoreHealthRun(e.Ctx, models.System(e.TenantID), r.ID, page); err != nil || n != 2 {
				t.Fatalf("pages of %d: scored %d, %v", page, n, err)
			}
			for _, partner := range []string{e.PartnerA, e.PartnerB} {
				cur, comps, err := e.Op.ExplainPartnerHealth(e.Ctx, partner)
				if err != nil || cur.RunID != r.ID || len(comps) != len(ms) {
					t.Fatalf("explain %s: %+v %d, %v", partner, cur, len(comps), err)
				}
				for i, m := range ms {
					want, err := e.Op.ComputeMetric(e.Ctx, m.ID, models.MetricQuery{PartnerID: partner, From: cur.ComputedAt.AddDate(0, 0, -30), To: cur.ComputedAt})
					if err != nil {
						t.Fatal(err)
					}
					c := comps[i]
					if c.MetricName != m.Name || c.MetricKind != m.Kind || c.MetricUnit != m.Unit || c.MetricCurrency != m.Currency || c.MetricDeleted {
						t.Fatalf("%s: the component names %+v", m.Name, c.HealthMetricInfo)
					}
					switch {
					case !want.HasValue():
						if c.Value != nil || c.Contribution != 0 {
							t.Fatalf("pages of %d, %s of %s: %s without a compute value", page, m.Name, partner, mustJSON(c))
						}
					case c.Value == nil || *c.Value != want.Value:
						t.Fatalf("pages of %d, %s of %s: scored %v, compute says %d", page, m.Name, partner, c.Value, want.Value)
					}
				}
			}
		}
		// The numbers themselves, for A: 8 sign-ins in the window (the old one out), the 6+2
		// invoices, 3 features, CSAT and NPS of its 8 answers; B: no answers.
		_, a, _ := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerA)
		if *a[0].Value != 8 || *a[1].Value != 1999*(1+2+3+4+5+6)+1999*(1+2) || *a[2].Value != 3 {
			t.Fatalf("A %s", mustJSON(a))
		}
		_, b, _ := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerB)
		if *b[0].Value != 1 || *b[1].Value != 500 || *b[2].Value != 2 || b[3].Value != nil || b[4].Value != nil {
			t.Fatalf("B %s", mustJSON(b))
		}
	})
}

// A model names metrics of its own tenant only; a metric deleted after a model named it gives
// the component no value (left out of the total, the explanation says why), and saving the
// model again is refused until the component goes.
func TestAMetricComponentNamesAMetricOfTheTenantAndADeletedOneHasNoValue(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		foreign := &models.Metric{Name: "Theirs", Kind: models.MetricCount, EventType: "user.login"}
		if err := s.For(storetest.Tenant(t, s.Core(), "other")).CreateMetric(e.Ctx, foreign, nil); err != nil {
			t.Fatal(err)
		}
		logins := metric(t, e, models.Metric{Name: "Sign-ins", Kind: models.MetricCount, EventType: "user.login"})
		tiers := []models.HealthTier{{Name: "healthy", MinScore: 50}, {Name: "critical", MinScore: 0}}
		bad := models.HealthModel{Tiers: tiers, Components: []models.HealthComponent{
			{Source: models.HealthMetric, MetricID: foreign.ID, Weight: 1, ZeroAt: 0, FullAt: 10},
			{Source: models.HealthMetric, Weight: 1, ZeroAt: 0, FullAt: 10},
			{Source: models.HealthOpenTickets, MetricID: logins.ID, Weight: 1, ZeroAt: 2, FullAt: 0},
			{Source: models.HealthMetric, MetricID: models.NewID(), Weight: 1, ZeroAt: 0, FullAt: 10},
		}}
		_, err := e.Op.PutHealthModel(e.Ctx, bad)
		var me *models.Error
		if code(err) != "INVALID_HEALTH_MODEL" || !asError(err, &me) || len(me.Fields) != 4 {
			t.Fatalf("bad metric components: %v %+v", err, me)
		}
		for i, f := range me.Fields {
			if f.Location != fmt.Sprintf("body.components[%d].metricId", i) {
				t.Fatalf("problem %d at %s", i, f.Location)
			}
		}
		good := models.HealthModel{Tiers: tiers, Components: []models.HealthComponent{
			{Source: models.HealthMetric, MetricID: logins.ID, Weight: 3, ZeroAt: 0, FullAt: 10},
			{Source: models.HealthOpenTickets, Weight: 1, ZeroAt: 2, FullAt: 0},
		}}
		m, err := e.Op.PutHealthModel(e.Ctx, good)
		if err != nil || m.Components[0].WindowDays != models.DefaultHealthWindow {
			t.Fatalf("a metric component: %+v, %v", m, err)
		}
		for range 5 {
			event(t, s, e, e.PartnerA, "user.login", `{}`, time.Now().UTC().Add(-time.Hour))
		}
		run(t, s, e)
		// A: 5 sign-ins → 50 × 3, no open ticket → 100 × 1: 62.5.
		cur, a, err := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerA)
		if err != nil || cur.Score != 62.5 || *a[0].Value != 5 || a[0].MetricName != "Sign-ins" || a[0].Contribution != 37.5 {
			t.Fatalf("A %+v %s, %v", cur, mustJSON(a), err)
		}

		if err := e.Op.DeleteMetric(e.Ctx, logins.ID); code(err) != "METRIC_IN_USE" {
			t.Fatalf("deleting a metric the health model scores: %v", err)
		}
		// A metric gone all the same (removed before this rule, or by hand) scores as no value.
		if err := s.Core().DB(e.Ctx).Where("id = ?", logins.ID).Delete(&models.Metric{}).Error; err != nil {
			t.Fatal(err)
		}
		run(t, s, e)
		cur, a, err = e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerA)
		if err != nil || cur.Score != 100 || a[0].Value != nil || a[0].Score != nil || a[0].Contribution != 0 || !a[0].MetricDeleted || a[0].MetricName != "" ||
			a[1].Contribution != 100 {
			t.Fatalf("A after the metric went %+v %s, %v", cur, mustJSON(a), err)
		}
		if _, err := e.Op.PutHealthModel(e.Ctx, good); code(err) != "INVALID_HEALTH_MODEL" || !asError(err, &me) || len(me.Fields) != 1 ||
			me.Fields[0].Location != "body.components[0].metricId" {
			t.Fatalf("saving the model naming the deleted metric: %v", err)
		}
	})
}

// Snapshots of runs older than the retention are pruned in bounded batches, except each
// partner's latest; a run left without snapshots goes too.
func TestSnapshotsPastTheRetentionArePrunedInBatches(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		if _, err := e.Op.PutHealthModel(e.Ctx, testModel()); err != nil {
			t.Fatal(err)
		}
		old1, _, _ := run(t, s, e)
		old2, _, _ := run(t, s, e)
		recent, _, _ := run(t, s, e)
		db := s.Core().DB(e.Ctx)
		retention := time.Now().UTC().AddDate(0, 0, -models.HealthSnapshotRetentionDays)
		for i, id := range []string{old1.ID, old2.ID} {
			if err := db.Model(&models.HealthRun{}).Where("id = ?", id).Update("started_at", retention.AddDate(0, 0, -10+i)).Error; err != nil {
				t.Fatal(err)
			}
		}
		// B was not scored since old2 (as if offboarded then): its current health is old2's.
		if err := db.Model(&models.PartnerHealth{}).Where("partner_id = ?", e.PartnerB).Update("run_id", old2.ID).Error; err != nil {
			t.Fatal(err)
		}
		sys := models.System(e.TenantID)
		var batches []int
		for {
			n, more, err := s.PruneHealthSnapshots(e.Ctx, sys, retention, 1)
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, n)
			if !more {
				break
			}
			if len(batches) > 10 {
				t.Fatalf("pruning does not end: %v", batches)
			}
		}
		// old1's A and B, old2's A, one a batch; then the empty pass that deletes old1.
		if fmt.Sprint(batches) != "[1 1 1 0]" {
			t.Fatalf("batches %v", batches)
		}
		count := func(run string) int64 {
			var n int64
			if err := db.Model(&models.HealthSnapshot{}).Where("run_id = ?", run).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		if count(old1.ID) != 0 || count(old2.ID) != 1 || count(recent.ID) != 2 {
			t.Fatalf("left %d, %d, %d", count(old1.ID), count(old2.ID), count(recent.ID))
		}
		runs, _, err := e.Op.ListHealthRuns(e.Ctx, models.Page{})
		if err != nil || len(runs) != 2 || runs[0].ID != recent.ID || runs[1].ID != old2.ID {
			t.Fatalf("runs %+v, %v", runs, err)
		}
		if cur, _, err := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerB); err != nil || cur.RunID != old2.ID {
			t.Fatalf("B still explains itself: %+v, %v", cur, err)
		}
		if hist, _, err := e.Op.PartnerHealthHistory(e.Ctx, e.PartnerA, models.Page{}); err != nil || len(hist) != 1 || hist[0].RunID != recent.ID {
			t.Fatalf("A's history %+v, %v", hist, err)
		}
		if n, more, err := s.PruneHealthSnapshots(e.Ctx, sys, retention, 100); err != nil || n != 0 || more {
			t.Fatalf("nothing left to prune: %d %v %v", n, more, err)
		}
	})
}
