package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestDashboardBuilderPlacesWidgetsAndFormatsMoney(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newMetricsEnv(t, st, "dash-builder")
		env.ingest(t, env.alphaCust, "invoice.paid", `{"amount": 1999}`, env.base)
		env.ingest(t, env.bravoCust, "invoice.paid", `{"amount": 880001}`, env.base)
		revenue := env.createMetric(t, map[string]any{"name": "Revenue", "kind": "sum", "eventType": "invoice.paid", "field": "amount", "unit": "money", "currency": "EUR"})
		count := env.createMetric(t, map[string]any{"name": "Invoices", "kind": "count", "eventType": "invoice.paid"})

		t.Run("a metric is money in one currency, or plain numbers", func(t *testing.T) {
			if revenue.Unit != "money" || revenue.Currency != "EUR" || count.Unit != "count" || count.Currency != "" {
				t.Fatalf("revenue %+v, count %+v", revenue, count)
			}
			for _, c := range []struct {
				body map[string]any
				at   string
			}{
				{map[string]any{"name": "X", "kind": "sum", "eventType": "invoice.paid", "field": "amount", "unit": "money"}, "body.currency"},
				{map[string]any{"name": "X", "kind": "sum", "eventType": "invoice.paid", "field": "amount", "unit": "money", "currency": "XYZ"}, "body.currency"},
				{map[string]any{"name": "X", "kind": "count", "eventType": "invoice.paid", "unit": "money", "currency": "EUR"}, "body.unit"},
				{map[string]any{"name": "X", "kind": "count", "eventType": "invoice.paid", "currency": "EUR"}, "body.currency"},
			} {
				res := do(t, env.h, http.MethodPost, "/api/metrics", jsonBody(t, c.body), bearer(env.ownerToken)...)
				if res.Status != 422 {
					t.Fatalf("%v = %d %s", c.body, res.Status, res.Body)
				}
				if p := res.problem(t); p.Code != "INVALID_METRIC" || len(p.Errors) != 1 || p.Errors[0].Location != c.at {
					t.Errorf("%v: %s %+v, want a problem at %s", c.body, p.Code, p.Errors, c.at)
				}
			}
			res := do(t, env.h, http.MethodPatch, "/api/metrics/"+count.ID, jsonBody(t, map[string]any{"unit": "money", "currency": "EUR"}), bearer(env.ownerToken)...)
			if res.Status != 422 {
				t.Fatalf("a count made money = %d %s", res.Status, res.Body)
			}
		})

		t.Run("a preview computes an unsaved widget with its metric's unit", func(t *testing.T) {
			res := do(t, env.h, http.MethodPost, "/api/dashboards/preview-widget", jsonBody(t, map[string]any{"widget": map[string]any{
				"kind": "time-series", "metricId": revenue.ID, "range": "last_7_days", "interval": "day", "x": 0, "y": 0, "w": 6, "h": 4}}), bearer(env.ownerToken)...)
			if res.Status != http.StatusOK {
				t.Fatalf("preview = %d %s", res.Status, res.Body)
			}
			r := decode[RenderedWidget](t, res)
			if r.Value == nil || num(r.Value.Value) != 882000 || r.Value.Unit != "money" || r.Value.Currency != "EUR" || r.Value.Name != "Revenue" || len(r.Value.Series) == 0 || r.Widget.W != 6 {
				t.Fatalf("preview = %+v %+v", r.Widget, r.Value)
			}
			res = do(t, env.h, http.MethodPost, "/api/dashboards/preview-widget", jsonBody(t, map[string]any{"widget": map[string]any{
				"kind": "metric", "metricId": "0193aaaa-0000-7000-8000-000000000000", "x": 10, "w": 4, "h": 2}}), bearer(env.ownerToken)...)
			p := res.problem(t)
			if res.Status != 422 || p.Code != "INVALID_WIDGET" || len(p.Errors) != 2 {
				t.Fatalf("a bad widget = %d %s", res.Status, res.Body)
			}
			res = do(t, env.h, http.MethodPost, "/api/dashboards/preview-widget", jsonBody(t, map[string]any{"widget": map[string]any{
				"kind": "event-list", "eventType": "*", "title": strings.Repeat("x", 5000)}}), bearer(env.ownerToken)...)
			if res.Status != http.StatusRequestEntityTooLarge && res.Status != 422 {
				t.Fatalf("an oversize preview = %d", res.Status)
			}
		})

		t.Run("partners cannot preview: building dashboards is the operators'", func(t *testing.T) {
			res := do(t, env.h, http.MethodPost, "/api/dashboards/preview-widget", jsonBody(t, map[string]any{"widget": map[string]any{
				"kind": "metric", "metricId": revenue.ID}}), bearer(env.alphaUser)...)
			if res.Status != http.StatusForbidden {
				t.Fatalf("= %d %s", res.Status, res.Body)
			}
		})

		t.Run("placed widgets are kept and bounded", func(t *testing.T) {
			d := env.createDashboard(t, map[string]any{"name": "Placed", "levels": []string{"Gold"}, "widgets": []any{
				map[string]any{"kind": "metric", "metricId": revenue.ID, "x": 0, "y": 0, "w": 3, "h": 2},
				map[string]any{"kind": "time-series", "metricId": revenue.ID, "interval": "day", "x": 3, "y": 0, "w": 9, "h": 5},
				map[string]any{"kind": "event-list", "eventType": "invoice.*"},
			}})
			if w := d.Widgets; w[1].X != 3 || w[1].W != 9 || w[1].H != 5 || w[2].W != 0 {
				t.Fatalf("widgets = %+v", w)
			}
			res := do(t, env.h, http.MethodPatch, "/api/dashboards/"+d.ID, jsonBody(t, map[string]any{"widgets": []any{
				map[string]any{"kind": "metric", "metricId": revenue.ID, "x": 6, "y": 0, "w": 7, "h": 2},
			}}), bearer(env.ownerToken)...)
			if p := res.problem(t); res.Status != 422 || p.Code != "INVALID_DASHBOARD" || p.Errors[0].Location != "body.widgets[0].w" {
				t.Fatalf("past the right edge = %d %s", res.Status, res.Body)
			}
			res = do(t, env.h, http.MethodPatch, "/api/dashboards/"+d.ID, jsonBody(t, map[string]any{"widgets": []any{
				map[string]any{"kind": "metric", "metricId": revenue.ID, "x": 0, "y": 0, "w": 3, "h": 25},
			}}), bearer(env.ownerToken)...)
			if res.Status != 422 {
				t.Fatalf("too tall = %d %s", res.Status, res.Body)
			}
			// Alpha renders the placed dashboard with its own money only, in euros.
			res = do(t, env.h, http.MethodGet, "/api/dashboards/"+d.ID+"/render", nil, bearer(env.alphaUser)...)
			r := decode[RenderedDashboard](t, res)
			if res.Status != 200 || num(r.Widgets[0].Value.Value) != 1999 || r.Widgets[0].Value.Currency != "EUR" || r.Widgets[1].Widget.W != 9 {
				t.Fatalf("alpha renders %d %s", res.Status, res.Body)
			}
			if strings.Contains(string(res.Body), "880001") || strings.Contains(string(res.Body), "882000") {
				t.Fatalf("alpha's render shows Bravo's money: %s", res.Body)
			}
		})
	})
}
