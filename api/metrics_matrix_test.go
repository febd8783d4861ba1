package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		ctx := context.Background()
		for id, level := range map[string]string{f.partner1: "Gold", f.partner2: "Silver"} {
			if _, err := sc.UpdatePartner(ctx, id, models.PartnerChanges{Level: &level}); err != nil {
				t.Fatal(err)
			}
		}
		newMetric := func() string {
			m := &models.Metric{Name: "Feature uses", Kind: models.MetricCount, EventType: "feature.used"}
			if err := sc.CreateMetric(ctx, m, nil); err != nil {
				t.Fatal(err)
			}
			return m.ID
		}
		f.ids["metric"] = newMetric()
		newDashboard := func(name string, isDefault bool, levels ...string) string {
			d := &models.Dashboard{Name: name, IsDefault: isDefault}
			d.SetLevels(levels)
			d.SetWidgets([]models.Widget{
				{Kind: models.WidgetMetric, MetricID: f.ids["metric"], Range: models.RangeLast30Days},
				{Kind: models.WidgetTimeSeries, MetricID: f.ids["metric"], Range: models.RangeLast7Days, Interval: models.IntervalDay},
				{Kind: models.WidgetEventList, EventType: "feature.*", Limit: 5},
			})
			if err := sc.CreateDashboard(ctx, d); err != nil {
				t.Fatal(err)
			}
			return d.ID
		}
		f.ids["dashboard-gold"] = newDashboard("Gold", false, "Gold")
		f.ids["dashboard-silver"] = newDashboard("Silver", false, "Silver")
		f.ids["dashboard-default"] = newDashboard("Everyone", true)
		f.fresh["metric"] = func(string) string { return newMetric() }
		f.fresh["dashboard"] = func(string) string { return newDashboard("Fresh", false, "Bronze") }
	})
	// deleteFresh deletes a new record per role; the foreign tenant and anonymous callers aim at
	// a lasting one, which they cannot touch.
	deleteFresh := func(lasting, fresh, prefix string) func(f *fixture, role string) request {
		return func(f *fixture, role string) request {
			id := f.ids[lasting]
			if role != "foreign" && role != "" {
				id = f.fresh[fresh](role)
			}
			return request{http.MethodDelete, prefix + id, nil}
		}
	}
	cases := map[string]matrixCase{
		"create-metric": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/metrics", map[string]any{"name": "Revenue", "kind": "sum", "eventType": "invoice.paid", "field": "amount",
				"filters": []any{map[string]any{"path": "currency", "op": "eq", "value": "EUR"}}}}
		}},
		"list-metrics": {call: get("/api/metrics")},
		"get-metric": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/metrics/" + f.ids["metric"], nil}
		}},
		"update-metric": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, "/api/metrics/" + f.ids["metric"], map[string]any{"name": "Renamed"}}
		}},
		"delete-metric": {byID: true, call: deleteFresh("metric", "metric", "/api/metrics/")},
		"compute-metric": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodGet, "/api/metrics/" + f.ids["metric"] + "/compute?interval=day", nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/metrics/" + f.ids["metric"] + "/compute?partnerId=" + f.partner2, nil}
			}},
		"create-dashboard": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/dashboards", map[string]any{"name": "New", "levels": []string{"Bronze"},
				"widgets": []any{map[string]any{"kind": "metric", "metricId": f.ids["metric"]}}}}
		}},
		"list-dashboards": {call: get("/api/dashboards")},
		"preview-widget": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/dashboards/preview-widget", map[string]any{"widget": map[string]any{
				"kind": "time-series", "metricId": f.ids["metric"], "range": "last_7_days", "interval": "day", "x": 0, "y": 0, "w": 6, "h": 4}}}
		}},
		"render-my-dashboard": {call: get("/api/dashboards/mine")},
		"get-dashboard": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodGet, "/api/dashboards/" + f.ids["dashboard-gold"], nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/dashboards/" + f.ids["dashboard-silver"], nil}
			}},
		"render-dashboard": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodGet, "/api/dashboards/" + f.ids["dashboard-gold"] + "/render", nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/dashboards/" + f.ids["dashboard-silver"] + "/render", nil}
			}},
		"update-dashboard": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, "/api/dashboards/" + f.ids["dashboard-gold"], map[string]any{"name": "Gold (renamed)"}}
		}},
		"delete-dashboard": {byID: true, call: deleteFresh("dashboard-silver", "dashboard", "/api/dashboards/")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
