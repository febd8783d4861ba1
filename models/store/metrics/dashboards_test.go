package metrics_test

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestDashboardsAreShownPerLevelWithTheViewersOwnData(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "dash")
		ctx := models.WithPrincipal(env.ctx, env.owner)
		env.seed(t)
		count := env.metric(t, "Invoices", models.MetricCount, "invoice.paid", "")
		code := func(err error) string {
			if e, ok := models.AsError(err); ok {
				return e.Code
			}
			return ""
		}
		widgets := []models.Widget{
			{Kind: models.WidgetMetric, MetricID: count.ID, Range: models.RangeLast7Days},
			{Kind: models.WidgetTimeSeries, MetricID: count.ID, Range: models.RangeLast7Days, Interval: models.IntervalDay},
			{Kind: models.WidgetEventList, EventType: "invoice.*", Limit: 50},
		}
		gold := &models.Dashboard{Name: "Gold"}
		gold.SetLevels([]string{"Gold", "Platinum"})
		gold.SetWidgets(widgets)
		def := &models.Dashboard{Name: "Everyone", IsDefault: true}
		def.SetWidgets(widgets[:1])
		for _, d := range []*models.Dashboard{gold, def} {
			if err := env.sc.CreateDashboard(ctx, d); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("validation reports every problem at once", func(t *testing.T) {
			bad := &models.Dashboard{}
			bad.SetWidgets([]models.Widget{{Kind: "pie"}, {Kind: models.WidgetMetric, MetricID: "nope"}, {Kind: models.WidgetTimeSeries, MetricID: count.ID}})
			err := env.sc.CreateDashboard(ctx, bad)
			e, ok := models.AsError(err)
			if !ok || e.Code != "INVALID_DASHBOARD" || len(e.Fields) != 4 {
				t.Fatalf("err = %v %+v", err, e)
			}
		})
		t.Run("partners see their level's dashboard, or else the default", func(t *testing.T) {
			list, _, err := env.goldSc.ListDashboards(env.ctx, models.Page{Limit: 10})
			if err != nil || len(list) != 1 || list[0].ID != gold.ID {
				t.Fatalf("gold sees %v %v", list, err)
			}
			if _, err := env.goldSc.Dashboard(env.ctx, def.ID); code(err) != "DASHBOARD_NOT_FOUND" {
				t.Fatalf("gold reads the default: %v", err)
			}
			if _, err := env.silverSc.RenderDashboard(env.ctx, gold.ID, time.Now()); code(err) != "DASHBOARD_NOT_FOUND" {
				t.Fatalf("silver renders gold's: %v", err)
			}
			mine, err := env.silverSc.MyDashboard(env.ctx, time.Now())
			if err != nil || mine.Dashboard.ID != def.ID {
				t.Fatalf("silver's own = %v %v", mine, err)
			}
			mine, err = env.goldSc.MyDashboard(env.ctx, time.Now())
			if err != nil || mine.Dashboard.ID != gold.ID {
				t.Fatalf("gold's own = %v %v", mine, err)
			}
			all, _, _ := env.sc.ListDashboards(env.ctx, models.Page{Limit: 10})
			if len(all) != 2 {
				t.Fatalf("operators see %d dashboards", len(all))
			}
		})
		t.Run("a render shows only the viewer's own numbers and events", func(t *testing.T) {
			r, err := env.goldSc.RenderDashboard(env.ctx, gold.ID, time.Now())
			if err != nil || len(r.Widgets) != 3 {
				t.Fatalf("render = %+v %v", r, err)
			}
			if r.Widgets[0].Metric == nil || r.Widgets[0].Metric.Value != 5 {
				t.Fatalf("gold's count = %+v", r.Widgets[0].Metric)
			}
			var sum int64
			for _, p := range r.Widgets[1].Metric.Series {
				sum += p.Value
			}
			if sum != 5 || len(r.Widgets[1].Metric.Series) < 7 {
				t.Fatalf("gold's series = %+v", r.Widgets[1].Metric.Series)
			}
			for _, e := range r.Widgets[2].Events {
				if e.PartnerID == nil || *e.PartnerID != env.gold {
					t.Fatalf("gold sees another's event %+v", e)
				}
			}
			if len(r.Widgets[2].Events) != 6 { // five in the range, one before it
				t.Fatalf("gold sees %d events", len(r.Widgets[2].Events))
			}
			op, err := env.sc.RenderDashboard(env.ctx, gold.ID, time.Now())
			if err != nil || op.Widgets[0].Metric.Value != 7 || len(op.Widgets[2].Events) != 8 {
				t.Fatalf("operator render = %+v %v", op.Widgets[0].Metric, err)
			}
		})
		t.Run("one default at a time, and shown metrics cannot be deleted", func(t *testing.T) {
			yes := true
			if _, err := env.sc.UpdateDashboard(ctx, gold.ID, models.DashboardChanges{IsDefault: &yes}); err != nil {
				t.Fatal(err)
			}
			d, err := env.sc.Dashboard(env.ctx, def.ID)
			if err != nil || d.IsDefault {
				t.Fatalf("the old default = %+v %v", d, err)
			}
			if err := env.sc.DeleteMetric(ctx, count.ID); code(err) != "METRIC_IN_USE" {
				t.Fatalf("delete a shown metric: %v", err)
			}
			if err := env.sc.DeleteDashboard(ctx, def.ID); err != nil {
				t.Fatal(err)
			}
			entries, _, _ := env.sc.ListAudit(env.ctx, models.AuditFilter{TargetID: def.ID}, models.Page{Limit: 10})
			if len(entries) != 3 { // created, un-defaulted, deleted
				t.Fatalf("audit = %d entries", len(entries))
			}
		})
	})
}
