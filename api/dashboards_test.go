package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func (env *metricsEnv) createDashboard(t *testing.T, body map[string]any) Dashboard {
	t.Helper()
	res := do(t, env.h, http.MethodPost, "/api/dashboards", jsonBody(t, body), bearer(env.ownerToken)...)
	if res.Status != http.StatusCreated {
		t.Fatalf("create dashboard = %d %s", res.Status, res.Body)
	}
	return decode[Dashboard](t, res)
}

func (env *metricsEnv) dashboardIDs(t *testing.T, token string) []string {
	t.Helper()
	res := do(t, env.h, http.MethodGet, "/api/dashboards", nil, bearer(token)...)
	if res.Status != http.StatusOK {
		t.Fatalf("list dashboards = %d %s", res.Status, res.Body)
	}
	var ids []string
	for _, d := range decode[ListBody[Dashboard]](t, res).Data {
		ids = append(ids, d.ID)
	}
	return ids
}

func (env *metricsEnv) mine(t *testing.T, token string) string {
	t.Helper()
	res := do(t, env.h, http.MethodGet, "/api/dashboards/mine", nil, bearer(token)...)
	if res.Status != http.StatusOK {
		t.Fatalf("my dashboard = %d %s", res.Status, res.Body)
	}
	return decode[RenderedDashboard](t, res).Dashboard.ID
}

func TestDashboardsAreManagedAndAssignedToLevels(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "dash-crud")
		count := env.createMetric(t, map[string]any{"name": "Invoices", "kind": "count", "eventType": "invoice.paid"})
		customers := env.createMetric(t, map[string]any{"name": "Payers", "kind": "unique", "eventType": "invoice.paid", "field": "customer"})
		metricWidget := map[string]any{"kind": "metric", "metricId": count.ID, "range": "last_7_days"}

		t.Run("bad widgets are 422 naming each one", func(t *testing.T) {
			res := do(t, env.h, http.MethodPost, "/api/dashboards", jsonBody(t, map[string]any{"name": "Bad", "widgets": []any{
				map[string]any{"kind": "metric", "metricId": "0193aaaa-0000-7000-8000-000000000000"},
				map[string]any{"kind": "time-series", "metricId": count.ID},
				map[string]any{"kind": "time-series", "metricId": customers.ID, "interval": "hour"},
				map[string]any{"kind": "event-list", "eventType": "Not A Type"},
				map[string]any{"kind": "event-list", "eventType": "invoice.*", "metricId": count.ID},
			}}), bearer(env.ownerToken)...)
			if res.Status != 422 {
				t.Fatalf("= %d %s", res.Status, res.Body)
			}
			p := res.problem(t)
			var locations []string
			for _, e := range p.Errors {
				locations = append(locations, e.Location)
			}
			want := "[body.widgets[0].metricId body.widgets[1].interval body.widgets[2].interval body.widgets[3].eventType body.widgets[4].metricId]"
			if p.Code != "INVALID_DASHBOARD" || strings.Join(strings.Fields(strings.Trim(want, "[]")), " ") != strings.Join(sortedCopy(locations), " ") {
				t.Fatalf("code %s at %v, want INVALID_DASHBOARD at %s", p.Code, locations, want)
			}
			res = do(t, env.h, http.MethodPost, "/api/dashboards", jsonBody(t, map[string]any{"name": "Bad", "widgets": []any{map[string]any{"kind": "pie"}}}), bearer(env.ownerToken)...)
			if res.Status != 422 || res.problem(t).Code != "VALIDATION_FAILED" {
				t.Fatalf("an unknown widget kind = %d %s", res.Status, res.Body)
			}
		})

		gold := env.createDashboard(t, map[string]any{"name": "Gold", "levels": []string{"Gold", "Gold"}, "widgets": []any{metricWidget}})
		def := env.createDashboard(t, map[string]any{"name": "Everyone", "isDefault": true, "widgets": []any{metricWidget}})
		plat := env.createDashboard(t, map[string]any{"name": "Platinum", "levels": []string{"Platinum"}})
		if len(gold.Levels) != 1 || gold.Levels[0] != "Gold" || gold.IsDefault || !def.IsDefault || len(gold.Widgets) != 1 || gold.Widgets[0].MetricID != count.ID {
			t.Fatalf("created %+v and %+v", gold, def)
		}

		t.Run("partners see their level's dashboards, or else the default", func(t *testing.T) {
			if ids := env.dashboardIDs(t, env.ownerToken); len(ids) != 3 {
				t.Fatalf("operators see %v", ids)
			}
			for _, tc := range []struct {
				name, token, want string
			}{{"Alpha (Gold)", env.alphaUser, gold.ID}, {"Alpha's key", env.alphaKey, gold.ID}, {"Bravo (Silver)", env.bravoUser, def.ID}} {
				if ids := env.dashboardIDs(t, tc.token); len(ids) != 1 || ids[0] != tc.want {
					t.Errorf("%s lists %v, want [%s]", tc.name, ids, tc.want)
				}
				if got := env.mine(t, tc.token); got != tc.want {
					t.Errorf("%s's own dashboard is %s, want %s", tc.name, got, tc.want)
				}
			}
			if got := env.mine(t, env.ownerToken); got != def.ID {
				t.Fatalf("the operators' own dashboard is %s, want the default", got)
			}
			for _, path := range []string{"/api/dashboards/" + gold.ID, "/api/dashboards/" + gold.ID + "/render", "/api/dashboards/" + plat.ID} {
				if r := do(t, env.h, http.MethodGet, path, nil, bearer(env.bravoUser)...); r.Status != 404 || r.problem(t).Code != "DASHBOARD_NOT_FOUND" {
					t.Fatalf("Bravo reads %s = %d %s", path, r.Status, r.Body)
				}
			}
		})

		t.Run("assignments and the default change at once", func(t *testing.T) {
			res := do(t, env.h, http.MethodPatch, "/api/dashboards/"+plat.ID, jsonBody(t, map[string]any{"isDefault": true}), bearer(env.ownerToken)...)
			if res.Status != 200 || !decode[Dashboard](t, res).IsDefault {
				t.Fatalf("make default = %d %s", res.Status, res.Body)
			}
			old := decode[Dashboard](t, do(t, env.h, http.MethodGet, "/api/dashboards/"+def.ID, nil, bearer(env.ownerToken)...))
			if old.IsDefault {
				t.Fatal("two defaults")
			}
			if got := env.mine(t, env.bravoUser); got != plat.ID {
				t.Fatalf("Bravo now gets %s, want the new default", got)
			}
			res = do(t, env.h, http.MethodPatch, "/api/dashboards/"+gold.ID, jsonBody(t, map[string]any{"levels": []string{"Gold", "Silver"}}), bearer(env.ownerToken)...)
			if res.Status != 200 {
				t.Fatalf("assign = %d %s", res.Status, res.Body)
			}
			if got := env.mine(t, env.bravoUser); got != gold.ID {
				t.Fatalf("Bravo now gets %s, want its level's", got)
			}
			if r := do(t, env.h, http.MethodPatch, "/api/dashboards/"+gold.ID, jsonBody(t, map[string]any{"levels": []string{"Silver"}}), bearer(env.alphaUser)...); r.Status != http.StatusForbidden {
				t.Fatalf("a partner reassigns = %d", r.Status)
			}
			res = do(t, env.h, http.MethodPatch, "/api/dashboards/"+gold.ID, jsonBody(t, map[string]any{"widgets": []any{map[string]any{"kind": "time-series", "metricId": count.ID}}}), bearer(env.ownerToken)...)
			if res.Status != 422 || res.problem(t).Code != "INVALID_DASHBOARD" {
				t.Fatalf("a bad widget in a change = %d %s", res.Status, res.Body)
			}
		})

		t.Run("a shown metric cannot be deleted; dashboards can", func(t *testing.T) {
			if r := do(t, env.h, http.MethodDelete, "/api/metrics/"+count.ID, nil, bearer(env.ownerToken)...); r.Status != 409 || r.problem(t).Code != "METRIC_IN_USE" {
				t.Fatalf("delete a shown metric = %d %s", r.Status, r.Body)
			}
			if r := do(t, env.h, http.MethodDelete, "/api/dashboards/"+def.ID, nil, bearer(env.alphaUser)...); r.Status != http.StatusForbidden {
				t.Fatalf("a partner deletes = %d", r.Status)
			}
			if r := do(t, env.h, http.MethodDelete, "/api/dashboards/"+def.ID, nil, bearer(env.ownerToken)...); r.Status != 204 {
				t.Fatalf("delete = %d %s", r.Status, r.Body)
			}
			if r := do(t, env.h, http.MethodGet, "/api/dashboards/"+def.ID, nil, bearer(env.ownerToken)...); r.Status != 404 {
				t.Fatalf("a deleted dashboard = %d", r.Status)
			}
		})
	})
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestRenderedDashboardsNeverShowAnotherPartnersData(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "dash-render")
		h := time.Hour
		// Distinctive amounts, payloads and ids per owner of the data.
		alphaEvents := []string{
			env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 1111, "note": "alpha-visible"}`, env.base),
			env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 2222, "note": "alpha-visible"}`, env.base.Add(25*h)),
			env.ingest(t, env.alphaCust, "feature.used", `{"feature": "export"}`, env.base.Add(h)),
		}
		bravoEvents := []string{
			env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 7770001, "note": "bravo-secret", "email": "`+env.bravoMail+`"}`, env.base),
			env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 7770002, "note": "bravo-secret"}`, env.base.Add(26*h)),
			env.ingest(t, env.bravoCust, "feature.used", `{"feature": "bravo-feature"}`, env.base.Add(2*h)),
		}
		looseEvents := []string{
			env.ingest(t, env.looseCust, "invoice.paid", `{"amount": 9990001, "note": "loose-secret"}`, env.base),
		}
		sum := env.createMetric(t, map[string]any{"name": "Revenue", "kind": "sum", "eventType": "invoice.paid", "field": "amount"})
		count := env.createMetric(t, map[string]any{"name": "Invoices", "kind": "count", "eventType": "invoice.*"})
		payers := env.createMetric(t, map[string]any{"name": "Payers", "kind": "unique", "eventType": "invoice.paid", "field": "customer"})
		notes := env.createMetric(t, map[string]any{"name": "Notes", "kind": "unique", "eventType": "invoice.paid", "field": "note"})
		widgets := []any{
			map[string]any{"kind": "metric", "metricId": sum.ID, "range": "last_7_days"},
			map[string]any{"kind": "metric", "metricId": count.ID},
			map[string]any{"kind": "metric", "metricId": payers.ID, "range": "last_30_days"},
			map[string]any{"kind": "metric", "metricId": notes.ID, "range": "last_30_days"},
			map[string]any{"kind": "time-series", "metricId": sum.ID, "range": "last_7_days", "interval": "day"},
			map[string]any{"kind": "time-series", "metricId": sum.ID, "range": "last_7_days", "interval": "hour"},
			map[string]any{"kind": "time-series", "metricId": count.ID, "range": "last_90_days", "interval": "week"},
			map[string]any{"kind": "time-series", "metricId": payers.ID, "range": "month_to_date", "interval": "day"},
			map[string]any{"kind": "event-list", "eventType": "*", "limit": 100},
			map[string]any{"kind": "event-list", "eventType": "invoice.*"},
		}
		partners := env.createDashboard(t, map[string]any{"name": "Partners", "levels": []string{"Gold", "Silver"}, "widgets": widgets})
		env.createDashboard(t, map[string]any{"name": "Default", "isDefault": true, "widgets": widgets})

		bravoMarks := append([]string{env.bravo, env.bravoCust, env.bravoMail, "bravo-secret", "bravo-feature",
			"7770001", "7770002", "15540003"}, bravoEvents...)
		looseMarks := append([]string{env.looseCust, "lou@nobody.test", "loose-secret", "9990001"}, looseEvents...)
		alphaMarks := append([]string{env.alpha, env.alphaCust, "alpha-visible", "2222"}, alphaEvents...)
		// Totals that mix Alpha's data with others' would reveal them too.
		mixed := []string{"7771112", "7772224", "7773334", "15543336", "9991112", "9993334", "25530004", "25533337"}

		render := func(t *testing.T, token, path string) (RenderedDashboard, string) {
			t.Helper()
			res := do(t, env.h, http.MethodGet, path, nil, bearer(token)...)
			if res.Status != http.StatusOK {
				t.Fatalf("render %s = %d %s", path, res.Status, res.Body)
			}
			return decode[RenderedDashboard](t, res), string(res.Body)
		}
		for _, who := range []struct{ name, token string }{{"Alpha's user", env.alphaUser}, {"a key bound to Alpha", env.alphaKey}} {
			for _, path := range []string{"/api/dashboards/" + partners.ID + "/render", "/api/dashboards/mine"} {
				t.Run(who.name+" rendering "+path+" sees only Alpha's numbers and events", func(t *testing.T) {
					r, body := render(t, who.token, path)
					for _, mark := range append(append(append([]string{}, bravoMarks...), looseMarks...), mixed...) {
						if strings.Contains(body, mark) {
							t.Errorf("the render shows %q, which is not Alpha's", mark)
						}
					}
					for _, mark := range alphaMarks {
						if !strings.Contains(body, mark) {
							t.Errorf("the render lacks Alpha's %q", mark)
						}
					}
					if len(r.Widgets) != len(widgets) {
						t.Fatalf("%d widgets rendered", len(r.Widgets))
					}
					wantValues := map[int]int64{0: 3333, 1: 2, 2: 1, 3: 1, 4: 3333, 5: 3333, 6: 2, 7: 1}
					if time.Now().UTC().Day() <= 3 { // month to date may not reach back to the events
						delete(wantValues, 7)
					}
					for i, w := range r.Widgets {
						if w.Error != nil {
							t.Fatalf("widget %d failed: %+v", i, w.Error)
						}
						if w.Widget.Kind == "event-list" {
							if len(w.Events) == 0 {
								t.Errorf("widget %d lists no events", i)
							}
							for _, e := range w.Events {
								if e.PartnerID != env.alpha || e.CustomerID != env.alphaCust {
									t.Errorf("widget %d lists event %s of partner %q", i, e.ID, e.PartnerID)
								}
							}
							continue
						}
						var series int64
						for _, p := range w.Value.Series {
							series += num(p.Value)
						}
						if want, ok := wantValues[i]; ok && (num(w.Value.Value) != want || (w.Widget.Kind == "time-series" && w.Value.Kind != "unique" && series != want)) {
							t.Errorf("widget %d (%s) = %d, series %d; want %d", i, w.Widget.Kind, w.Value.Value, series, want)
						}
					}
				})
			}
		}
		t.Run("Bravo's user sees none of Alpha's data", func(t *testing.T) {
			r, body := render(t, env.bravoUser, "/api/dashboards/"+partners.ID+"/render")
			for _, mark := range append(append([]string{}, alphaMarks...), looseMarks...) {
				if mark == "2222" {
					continue // a number: compared with the values below (ids and timestamps may hold the digits)
				}
				if strings.Contains(body, mark) {
					t.Errorf("Bravo's render shows %q", mark)
				}
			}
			// Alpha's total (1111 + 2222), or its 2222, as a number anywhere in the widgets; ids and
			// timestamps may contain the digits by chance, so the values are compared.
			for i, w := range r.Widgets {
				if w.Value == nil {
					continue
				}
				for _, alpha := range []int64{3333, 2222} {
					if num(w.Value.Value) == alpha {
						t.Errorf("widget %d shows Alpha's %d", i, alpha)
					}
					for _, p := range w.Value.Series {
						if num(p.Value) == alpha {
							t.Errorf("widget %d has a point of Alpha's %d", i, alpha)
						}
					}
				}
			}
			if !strings.Contains(body, "15540003") {
				t.Error("Bravo's render lacks Bravo's own sum")
			}
		})
		t.Run("operators see every partner's and unattributed data", func(t *testing.T) {
			r, body := render(t, env.ownerToken, "/api/dashboards/"+partners.ID+"/render")
			for _, mark := range append(append(append([]string{}, alphaMarks...), bravoMarks[:5]...), looseMarks...) {
				if !strings.Contains(body, mark) {
					t.Errorf("the operator's render lacks %q", mark)
				}
			}
			if num(r.Widgets[0].Value.Value) != 25533337 || num(r.Widgets[1].Value.Value) != 5 || num(r.Widgets[2].Value.Value) != 3 {
				t.Errorf("operator totals %d, %d, %d", r.Widgets[0].Value.Value, r.Widgets[1].Value.Value, r.Widgets[2].Value.Value)
			}
			if n := len(r.Widgets[8].Events); n < 7 { // plus the customer and partner events of the setup
				t.Errorf("the operator lists %d events, want at least 7", n)
			}
			if n := len(r.Widgets[9].Events); n != 5 {
				t.Errorf("the operator lists %d invoices, want 5", n)
			}
			if !strings.Contains(body, strconv.Itoa(25533337)) {
				t.Error("the grand total is missing")
			}
		})
	})
}
