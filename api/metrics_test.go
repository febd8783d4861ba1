package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// metricsEnv is a tenant with partner Alpha (level Gold) and partner Bravo (level Silver), a
// customer of each plus an unattributed one, the owner's token, a partner user of Alpha and a
// key bound to Alpha, and an unbound operator key.
type metricsEnv struct {
	h                     http.Handler
	owner                 *stores.Scoped
	ownerToken            string
	alpha, bravo          string // partner ids
	alphaUser, alphaKey   string // credentials acting for Alpha
	bravoUser             string
	opKey                 string
	alphaCust, bravoCust  string // customer ids
	looseCust             string // an unattributed customer
	alphaEmail, bravoMail string
	base                  time.Time // 10:00 UTC three days ago
}

func newMetricsEnv(t *testing.T, st *stores.Set, slug string) *metricsEnv {
	t.Helper()
	ctx := context.Background()
	s, _ := identityServer(t, st)
	env := &metricsEnv{h: s.Handler()}
	tenantID, ownerEmail := seedTenant(t, st, slug)
	users, err := st.UsersByEmail(ctx, ownerEmail, slug)
	if err != nil || len(users) != 1 {
		t.Fatalf("owner: %v", err)
	}
	env.owner = st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: users[0].ID})
	env.ownerToken = login(t, env.h, ownerEmail, ownerPassword).AccessToken
	for _, p := range []struct {
		id          *string
		name, level string
	}{{&env.alpha, "Alpha", "Gold"}, {&env.bravo, "Bravo", "Silver"}} {
		rec := &models.Partner{Name: p.name, Type: models.PartnerAgency, Level: p.level}
		if err := env.owner.CreatePartner(ctx, rec); err != nil {
			t.Fatal(err)
		}
		*p.id = rec.ID
	}
	hash, _ := authn.HashPassword(ownerPassword)
	user := func(email, partner string) string {
		u := &models.User{Email: email, Name: email, PasswordHash: hash, PartnerID: &partner, Status: models.UserStatusActive}
		if err := env.owner.CreateUser(ctx, u, []string{authz.RolePartnerUser}); err != nil {
			t.Fatal(err)
		}
		return login(t, env.h, email, ownerPassword).AccessToken
	}
	env.alphaUser = user("user@alpha-"+slug+".test", env.alpha)
	env.bravoUser = user("user@bravo-"+slug+".test", env.bravo)
	mint := func(partner string, scopes ...authz.Permission) string {
		k, err := authn.NewMachineKey()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(scopes)
		rec := &models.APIKey{Name: "metrics", LookupID: k.LookupID, Hash: k.Hash, Scopes: string(b)}
		if partner != "" {
			rec.PartnerID = &partner
		}
		if err := env.owner.CreateAPIKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		return k.Plaintext
	}
	env.alphaKey = mint(env.alpha, authz.MetricsRead, authz.DashboardsRead)
	env.opKey = mint("", authz.MetricsRead, authz.MetricsWrite, authz.DashboardsRead, authz.DashboardsWrite)
	customer := func(email string, partner *string) string {
		c := &models.Customer{Email: &email, PartnerID: partner}
		if err := env.owner.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	env.alphaEmail, env.bravoMail = "ada@alpha-customer.test", "bob@bravo-customer.test"
	env.alphaCust = customer(env.alphaEmail, &env.alpha)
	env.bravoCust = customer(env.bravoMail, &env.bravo)
	env.looseCust = customer("lou@nobody.test", nil)
	env.base = time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3).Add(10 * time.Hour)
	return env
}

func (env *metricsEnv) ingest(t *testing.T, customer, typ, payload string, at time.Time) string {
	t.Helper()
	res, err := env.owner.Ingest(context.Background(), []models.IngestEvent{{CustomerID: customer, Type: typ, Payload: payload, OccurredAt: at}})
	if err != nil || res[0].Err != nil {
		t.Fatalf("ingest: %v %+v", err, res)
	}
	return res[0].EventID
}

func (env *metricsEnv) createMetric(t *testing.T, body map[string]any) Metric {
	t.Helper()
	res := do(t, env.h, http.MethodPost, "/api/metrics", jsonBody(t, body), bearer(env.ownerToken)...)
	if res.Status != http.StatusCreated {
		t.Fatalf("create metric %v = %d %s", body, res.Status, res.Body)
	}
	return decode[Metric](t, res)
}

func (env *metricsEnv) compute(t *testing.T, token, id string, query url.Values) response {
	t.Helper()
	return do(t, env.h, http.MethodGet, "/api/metrics/"+id+"/compute?"+query.Encode(), nil, bearer(token)...)
}

func (env *metricsEnv) value(t *testing.T, token, id string, query url.Values) MetricValue {
	t.Helper()
	res := env.compute(t, token, id, query)
	if res.Status != http.StatusOK {
		t.Fatalf("compute %s = %d %s", query.Encode(), res.Status, res.Body)
	}
	return decode[MetricValue](t, res)
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func TestMetricDefinitionsAreCheckedAndManaged(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "metric-crud")
		for _, tc := range []struct {
			name     string
			body     map[string]any
			code     string
			location string
		}{
			{"an unknown kind", map[string]any{"name": "x", "kind": "avg", "eventType": "invoice.paid"}, "VALIDATION_FAILED", "body.kind"},
			{"a sum without a field", map[string]any{"name": "x", "kind": "sum", "eventType": "invoice.paid"}, "INVALID_METRIC", "body.field"},
			{"a sum of customers", map[string]any{"name": "x", "kind": "sum", "eventType": "invoice.paid", "field": "customer"}, "INVALID_METRIC", "body.field"},
			{"a unique count without a field", map[string]any{"name": "x", "kind": "unique", "eventType": "invoice.paid"}, "INVALID_METRIC", "body.field"},
			{"a count with a field", map[string]any{"name": "x", "kind": "count", "eventType": "invoice.paid", "field": "amount"}, "INVALID_METRIC", "body.field"},
			{"a field path with an empty step", map[string]any{"name": "x", "kind": "sum", "eventType": "invoice.paid", "field": "invoice..total"}, "INVALID_METRIC", "body.field"},
			{"a field path with spaces", map[string]any{"name": "x", "kind": "sum", "eventType": "invoice.paid", "field": "the amount"}, "INVALID_METRIC", "body.field"},
			{"a malformed event type", map[string]any{"name": "x", "kind": "count", "eventType": "Invoice Paid"}, "INVALID_METRIC", "body.eventType"},
			{"a filter with a bad path", map[string]any{"name": "x", "kind": "count", "eventType": "invoice.paid",
				"filters": []any{map[string]any{"path": "a..b", "op": "eq", "value": "EUR"}}}, "INVALID_METRIC", "body.filters[0].path"},
			{"a filter with an unknown operator", map[string]any{"name": "x", "kind": "count", "eventType": "invoice.paid",
				"filters": []any{map[string]any{"path": "currency", "op": "lt", "value": 3}}}, "VALIDATION_FAILED", "body.filters[0].op"},
			{"a filter comparing with an object", map[string]any{"name": "x", "kind": "count", "eventType": "invoice.paid",
				"filters": []any{map[string]any{"path": "currency", "op": "eq", "value": map[string]any{"a": 1}}}}, "INVALID_METRIC", "body.filters[0].value"},
			{"a filter without a value", map[string]any{"name": "x", "kind": "count", "eventType": "invoice.paid",
				"filters": []any{map[string]any{"path": "currency", "op": "eq"}}}, "VALIDATION_FAILED", "body.filters[0]"},
			{"no name", map[string]any{"name": "", "kind": "count", "eventType": "invoice.paid"}, "VALIDATION_FAILED", "body.name"},
		} {
			t.Run(tc.name+" is 422 naming the field", func(t *testing.T) {
				res := do(t, env.h, http.MethodPost, "/api/metrics", jsonBody(t, tc.body), bearer(env.ownerToken)...)
				if res.Status != http.StatusUnprocessableEntity {
					t.Fatalf("status = %d: %s", res.Status, res.Body)
				}
				p := res.problem(t)
				found := false
				for _, e := range p.Errors {
					found = found || e.Location == tc.location
				}
				if p.Code != tc.code || !found {
					t.Fatalf("code %s, errors %+v; want %s at %s", p.Code, p.Errors, tc.code, tc.location)
				}
			})
		}
		t.Run("a definition is created, read, listed, changed and deleted", func(t *testing.T) {
			m := env.createMetric(t, map[string]any{"name": "Revenue", "kind": "sum", "eventType": "invoice.*", "field": "invoice.total",
				"filters": []any{map[string]any{"path": "currency", "op": "eq", "value": "EUR"}, map[string]any{"path": "test", "op": "neq", "value": true}}})
			if m.ID == "" || m.Kind != "sum" || m.Field != "invoice.total" || len(m.Filters) != 2 || string(m.Filters[1].Value) != "true" {
				t.Fatalf("created = %+v", m)
			}
			got := decode[Metric](t, do(t, env.h, http.MethodGet, "/api/metrics/"+m.ID, nil, bearer(env.ownerToken)...))
			if got.ID != m.ID || got.Name != "Revenue" || string(got.Filters[0].Value) != `"EUR"` {
				t.Fatalf("read = %+v", got)
			}
			list := decode[ListBody[Metric]](t, do(t, env.h, http.MethodGet, "/api/metrics", nil, bearer(env.alphaUser)...))
			if len(list.Data) != 1 || list.Data[0].ID != m.ID {
				t.Fatalf("a partner lists %+v", list.Data)
			}
			res := do(t, env.h, http.MethodPatch, "/api/metrics/"+m.ID, jsonBody(t, map[string]any{"kind": "count"}), bearer(env.ownerToken)...)
			if res.Status != 422 || res.problem(t).Code != "INVALID_METRIC" {
				t.Fatalf("a count keeping its field = %d %s", res.Status, res.Body)
			}
			res = do(t, env.h, http.MethodPatch, "/api/metrics/"+m.ID, jsonBody(t, map[string]any{"kind": "count", "field": "", "name": "Invoices", "filters": []any{}}), bearer(env.ownerToken)...)
			changed := decode[Metric](t, res)
			if res.Status != 200 || changed.Kind != "count" || changed.Field != "" || changed.Name != "Invoices" || len(changed.Filters) != 0 {
				t.Fatalf("changed = %d %s", res.Status, res.Body)
			}
			if r := do(t, env.h, http.MethodPatch, "/api/metrics/"+m.ID, jsonBody(t, map[string]any{"name": "x"}), bearer(env.alphaUser)...); r.Status != http.StatusForbidden {
				t.Fatalf("a partner changes a metric = %d", r.Status)
			}
			if r := do(t, env.h, http.MethodDelete, "/api/metrics/"+m.ID, nil, bearer(env.ownerToken)...); r.Status != http.StatusNoContent {
				t.Fatalf("delete = %d %s", r.Status, r.Body)
			}
			if r := do(t, env.h, http.MethodGet, "/api/metrics/"+m.ID, nil, bearer(env.ownerToken)...); r.Status != 404 || r.problem(t).Code != "METRIC_NOT_FOUND" {
				t.Fatalf("deleted metric = %d %s", r.Status, r.Body)
			}
		})
	})
}

func TestMetricComputeValuesSeriesAndLimits(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "metric-compute")
		h := time.Hour
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 100}`, env.base)
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 20}`, env.base.Add(h))
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 3}`, env.base.Add(48*h))
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": "4"}`, env.base.Add(48*h)) // not a number: skipped
		env.ingest(t, env.looseCust, "invoice.refunded", `{"amount": 1000}`, env.base)
		sum := env.createMetric(t, map[string]any{"name": "Revenue", "kind": "sum", "eventType": "invoice.paid", "field": "amount"})
		count := env.createMetric(t, map[string]any{"name": "Invoices", "kind": "count", "eventType": "invoice.*"})
		customers := env.createMetric(t, map[string]any{"name": "Payers", "kind": "unique", "eventType": "invoice.*", "field": "customer"})
		day0 := env.base.Truncate(24 * h)
		from, to := day0.AddDate(0, 0, -1), day0.AddDate(0, 0, 4)
		span := url.Values{"from": {rfc(from)}, "to": {rfc(to)}}

		t.Run("without interval the value alone is returned", func(t *testing.T) {
			v := env.value(t, env.ownerToken, sum.ID, span)
			if num(v.Value) != 123 || v.Skipped != 1 || v.Series != nil || !v.From.Equal(from) || !v.To.Equal(to) || v.Kind != "sum" {
				t.Fatalf("value = %+v", v)
			}
			if v := env.value(t, env.ownerToken, count.ID, span); num(v.Value) != 5 {
				t.Fatalf("count = %d", v.Value)
			}
			if v := env.value(t, env.ownerToken, customers.ID, span); num(v.Value) != 3 {
				t.Fatalf("unique customers = %d", v.Value)
			}
		})
		t.Run("with interval every bucket is present and empty ones hold zero", func(t *testing.T) {
			q := url.Values{"from": {rfc(from)}, "to": {rfc(to)}, "interval": {"day"}}
			v := env.value(t, env.ownerToken, sum.ID, q)
			var got []int64
			for i, p := range v.Series {
				got = append(got, num(p.Value))
				if !p.Start.Equal(from.AddDate(0, 0, i)) {
					t.Fatalf("point %d starts %v", i, p.Start)
				}
			}
			if fmt.Sprint(got) != "[0 120 0 3 0]" || num(v.Value) != 123 || v.Interval != "day" {
				t.Fatalf("daily series %v, value %d", got, v.Value)
			}
			hourly := env.value(t, env.ownerToken, sum.ID, url.Values{"from": {rfc(env.base.Add(-h))}, "to": {rfc(env.base.Add(3 * h))}, "interval": {"hour"}})
			got = got[:0]
			for _, p := range hourly.Series {
				got = append(got, num(p.Value))
			}
			if fmt.Sprint(got) != "[0 100 20 0]" {
				t.Fatalf("hourly series %v", got)
			}
			u := env.value(t, env.ownerToken, customers.ID, q)
			got = got[:0]
			for _, p := range u.Series {
				got = append(got, num(p.Value))
			}
			if fmt.Sprint(got) != "[0 2 0 1 0]" || num(u.Value) != 3 {
				t.Fatalf("unique series %v, value %d", got, u.Value)
			}
		})
		t.Run("the range defaults to the last 30 days", func(t *testing.T) {
			v := env.value(t, env.ownerToken, sum.ID, nil)
			if num(v.Value) != 123 || v.To.Before(time.Now().Add(-time.Hour)) || v.To.Sub(v.From) < 30*24*h {
				t.Fatalf("default range = %+v", v)
			}
		})
		for _, tc := range []struct {
			name, id string
			query    url.Values
			code     string
		}{
			{"from after to", sum.ID, url.Values{"from": {rfc(to)}, "to": {rfc(from)}}, "INVALID_METRIC_QUERY"},
			{"from equal to to", sum.ID, url.Values{"from": {rfc(from)}, "to": {rfc(from)}}, "INVALID_METRIC_QUERY"},
			{"a from that is not a time", sum.ID, url.Values{"from": {"yesterday"}}, "VALIDATION_FAILED"},
			{"an unknown interval", sum.ID, url.Values{"interval": {"minute"}}, "VALIDATION_FAILED"},
			{"hourly unique counts", customers.ID, url.Values{"interval": {"hour"}}, "INVALID_METRIC_QUERY"},
			{"more than 1000 buckets", sum.ID, url.Values{"from": {rfc(from.AddDate(-1, 0, 0))}, "to": {rfc(to)}, "interval": {"hour"}}, "TOO_MANY_POINTS"},
		} {
			t.Run(tc.name+" is refused with 422", func(t *testing.T) {
				res := env.compute(t, env.ownerToken, tc.id, tc.query)
				if res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != tc.code {
					t.Fatalf("= %d %s, want 422 %s", res.Status, res.Body, tc.code)
				}
			})
		}
		t.Run("an unknown metric is 404", func(t *testing.T) {
			if r := env.compute(t, env.ownerToken, models.NewID(), nil); r.Status != 404 || r.problem(t).Code != "METRIC_NOT_FOUND" {
				t.Fatalf("= %d %s", r.Status, r.Body)
			}
		})
	})
}

func TestPartnersComputeOnlyOverTheirOwnCustomersEvents(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "metric-scope")
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 11}`, env.base)
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 13}`, env.base.Add(time.Hour))
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 700}`, env.base)
		env.ingest(t, env.looseCust, "invoice.paid", `{"amount": 5000}`, env.base)
		sum := env.createMetric(t, map[string]any{"name": "Revenue", "kind": "sum", "eventType": "invoice.paid", "field": "amount"})
		count := env.createMetric(t, map[string]any{"name": "Invoices", "kind": "count", "eventType": "invoice.paid"})
		customers := env.createMetric(t, map[string]any{"name": "Payers", "kind": "unique", "eventType": "invoice.paid", "field": "customer"})
		q := func(kv ...string) url.Values {
			v := url.Values{"interval": {"day"}}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		total := func(v MetricValue) int64 {
			var n int64
			for _, p := range v.Series {
				n += num(p.Value)
			}
			return n
		}
		t.Run("an operator sees everything and can narrow to a partner or a level", func(t *testing.T) {
			for _, tc := range []struct {
				query url.Values
				want  int64
			}{
				{q(), 5724},
				{q("partnerId", env.bravo), 700},
				{q("partnerLevel", "Gold"), 24},
				{q("partnerLevel", "Platinum"), 0},
			} {
				if v := env.value(t, env.ownerToken, sum.ID, tc.query); num(v.Value) != tc.want || total(v) != tc.want {
					t.Errorf("%s: %d (series %d), want %d", tc.query.Encode(), v.Value, total(v), tc.want)
				}
			}
		})
		for _, who := range []struct{ name, token string }{{"Alpha's user", env.alphaUser}, {"a key bound to Alpha", env.alphaKey}} {
			t.Run(who.name+" gets Alpha's numbers whatever it passes", func(t *testing.T) {
				for _, tc := range []struct {
					query               url.Values
					sum, count, uniques int64
				}{
					{q(), 24, 2, 1},
					{q("partnerId", env.alpha), 24, 2, 1},
					{q("partnerLevel", "Gold"), 24, 2, 1},
					{q("partnerLevel", "Silver"), 0, 0, 0},
					{q("partnerLevel", ""), 24, 2, 1},
				} {
					for _, m := range []struct {
						id   string
						want int64
					}{{sum.ID, tc.sum}, {count.ID, tc.count}, {customers.ID, tc.uniques}} {
						v := env.value(t, who.token, m.id, tc.query)
						if num(v.Value) != m.want || (m.id != customers.ID && total(v) != m.want) {
							t.Errorf("%s: %d (series %d), want %d", tc.query.Encode(), v.Value, total(v), m.want)
						}
					}
				}
				for _, m := range []string{sum.ID, count.ID, customers.ID} {
					res := env.compute(t, who.token, m, q("partnerId", env.bravo))
					if res.Status != http.StatusForbidden || res.problem(t).Code != "OTHER_PARTNER" {
						t.Fatalf("naming Bravo = %d %s", res.Status, res.Body)
					}
					res = env.compute(t, who.token, m, q("partnerId", env.bravo, "partnerLevel", "Silver"))
					if res.Status != http.StatusForbidden || res.problem(t).Code != "OTHER_PARTNER" {
						t.Fatalf("naming Bravo and its level = %d %s", res.Status, res.Body)
					}
				}
			})
		}
		t.Run("Bravo's user gets only Bravo's numbers", func(t *testing.T) {
			if v := env.value(t, env.bravoUser, sum.ID, q("partnerLevel", "Silver")); num(v.Value) != 700 {
				t.Fatalf("bravo = %d", v.Value)
			}
		})
	})
}

func TestMoneySumsStayExactIntegers(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "metric-money")
		// 2^53 + 1 has no float64; the sum 2^53 + 3 neither.
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 9007199254740993, "currency": "EUR"}`, env.base)
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 2, "currency": "EUR"}`, env.base.Add(time.Hour))
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 4611686018427387905, "currency": "USD"}`, env.base)
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 4611686018427387901, "currency": "USD"}`, env.base.Add(24*time.Hour))
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 1.5, "currency": "USD"}`, env.base)
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 1e3, "currency": "USD"}`, env.base)
		eur := env.createMetric(t, map[string]any{"name": "EUR", "kind": "sum", "eventType": "invoice.paid", "field": "amount",
			"filters": []any{map[string]any{"path": "currency", "op": "eq", "value": "EUR"}}})
		usd := env.createMetric(t, map[string]any{"name": "USD", "kind": "sum", "eventType": "invoice.paid", "field": "amount",
			"filters": []any{map[string]any{"path": "currency", "op": "eq", "value": "USD"}}})
		all := env.createMetric(t, map[string]any{"name": "All", "kind": "sum", "eventType": "invoice.paid", "field": "amount"})
		q := url.Values{"interval": {"day"}}
		res := env.compute(t, env.ownerToken, eur.ID, q)
		if !strings.Contains(string(res.Body), `"value":9007199254740995`) {
			t.Fatalf("the EUR sum lost digits: %s", res.Body)
		}
		v := env.value(t, env.ownerToken, usd.ID, q)
		if num(v.Value) != 9223372036854775806 || v.Skipped != 2 {
			t.Fatalf("USD sum = %d, skipped %d; want 9223372036854775806 and 2 (a fraction and an exponent)", v.Value, v.Skipped)
		}
		res = env.compute(t, env.ownerToken, all.ID, q)
		if res.Status != http.StatusConflict || res.problem(t).Code != "METRIC_OVERFLOW" {
			t.Fatalf("a sum beyond 64 bits = %d %s", res.Status, res.Body)
		}
	})
}

// num is a computed value, or the smallest int64 for a value absent (null).
func num(v *int64) int64 {
	if v == nil {
		return math.MinInt64
	}
	return *v
}
