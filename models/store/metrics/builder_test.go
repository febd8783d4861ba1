package metrics_test

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestWidgetPreviewsComputeOverTheCallersOwnDataLikeARender(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "preview")
		ctx := models.WithPrincipal(env.ctx, env.owner)
		env.ingest(t, env.c1, "invoice.paid", `{"amount": 1200}`, env.base)
		env.ingest(t, env.c3, "invoice.paid", `{"amount": 50000}`, env.base)
		env.ingest(t, env.c4, "invoice.paid", `{"amount": 7}`, env.base)
		sum := env.metric(t, "Revenue", models.MetricSum, "invoice.paid", "amount")
		now := time.Now()
		metricW := models.Widget{Kind: models.WidgetMetric, MetricID: sum.ID, Range: models.RangeLast7Days, X: 0, Y: 0, W: 4, H: 3}
		listW := models.Widget{Kind: models.WidgetEventList, EventType: "invoice.*", Limit: 10}

		value := func(t *testing.T, sc *stores.Scoped, w models.Widget) *models.WidgetResult {
			t.Helper()
			r, err := sc.PreviewWidget(ctx, w, now)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		t.Run("the operator's preview adds up every partner's events", func(t *testing.T) {
			if r := value(t, env.sc, metricW); r.Metric == nil || r.Metric.Value != 51207 || r.Metric.Name != "Revenue" || r.Metric.Unit != models.UnitCount {
				t.Fatalf("preview = %+v", r.Metric)
			}
		})
		t.Run("a partner's preview holds its own numbers and events only, as its render does", func(t *testing.T) {
			for _, c := range []struct {
				name string
				sc   *stores.Scoped
				want int64
				cust string
			}{{"gold", env.goldSc, 1200, env.c1}, {"silver", env.silverSc, 50000, env.c3}} {
				if r := value(t, c.sc, metricW); r.Metric.Value != c.want {
					t.Errorf("%s previews %d, want %d", c.name, r.Metric.Value, c.want)
				}
				r := value(t, c.sc, listW)
				if len(r.Events) != 1 || r.Events[0].CustomerID == nil || *r.Events[0].CustomerID != c.cust {
					t.Errorf("%s lists %+v", c.name, r.Events)
				}
				d := &models.Dashboard{Name: "For " + c.name, IsDefault: true}
				d.SetWidgets([]models.Widget{metricW})
				if err := env.sc.CreateDashboard(ctx, d); err != nil {
					t.Fatal(err)
				}
				mine, err := c.sc.MyDashboard(env.ctx, now)
				if err != nil || mine.Widgets[0].Metric.Value != c.want {
					t.Errorf("%s renders %+v %v", c.name, mine, err)
				}
			}
		})
		t.Run("a widget that is not valid is refused with every problem", func(t *testing.T) {
			_, err := env.sc.PreviewWidget(ctx, models.Widget{Kind: models.WidgetTimeSeries, MetricID: "0193aaaa-0000-7000-8000-000000000000", X: 10, W: 4, H: 2}, now)
			e, ok := models.AsError(err)
			if !ok || e.Code != "INVALID_WIDGET" {
				t.Fatalf("err = %v", err)
			}
			got := map[string]bool{}
			for _, f := range e.Fields {
				got[f.Location] = true
			}
			for _, loc := range []string{"body.widget.interval", "body.widget.w", "body.widget.metricId"} {
				if !got[loc] {
					t.Errorf("no problem at %s: %+v", loc, e.Fields)
				}
			}
		})
	})
}

func TestWidgetPlacesAndMetricUnitsAreKept(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		env := newMetricEnv(t, s, "places")
		ctx := models.WithPrincipal(env.ctx, env.owner)
		m := &models.Metric{Name: "Revenue", Kind: models.MetricSum, EventType: "invoice.paid", Field: "amount", Unit: models.UnitMoney, Currency: "EUR"}
		if err := env.sc.CreateMetric(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		count := env.metric(t, "Invoices", models.MetricCount, "invoice.paid", "")
		if count.Unit != models.UnitCount {
			t.Fatalf("a metric without unit is %q", count.Unit)
		}
		d := &models.Dashboard{Name: "Placed"}
		d.SetWidgets([]models.Widget{
			{Kind: models.WidgetMetric, MetricID: m.ID, X: 8, Y: 0, W: 4, H: 3},
			{Kind: models.WidgetEventList, EventType: "*", X: 0, Y: 3, W: 12, H: 6},
		})
		if err := env.sc.CreateDashboard(ctx, d); err != nil {
			t.Fatal(err)
		}
		moved := []models.Widget{
			{Kind: models.WidgetMetric, MetricID: m.ID, X: 0, Y: 6, W: 6, H: 4},
			{Kind: models.WidgetEventList, EventType: "*", X: 0, Y: 0, W: 12, H: 6},
		}
		if _, err := env.sc.UpdateDashboard(ctx, d.ID, models.DashboardChanges{Widgets: &moved}); err != nil {
			t.Fatal(err)
		}
		got, err := env.sc.Dashboard(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if w := got.WidgetList(); len(w) != 2 || w[0].X != 0 || w[0].Y != 6 || w[0].W != 6 || w[0].H != 4 || w[1].W != 12 {
			t.Fatalf("widgets read back as %+v", w)
		}
		stored, err := env.sc.Metric(ctx, m.ID)
		if err != nil || stored.Unit != models.UnitMoney || stored.Currency != "EUR" {
			t.Fatalf("metric read back as %+v %v", stored, err)
		}
		r, err := env.goldSc.ComputeMetric(env.ctx, m.ID, models.MetricQuery{})
		if err != nil || r.Unit != models.UnitMoney || r.Currency != "EUR" {
			t.Fatalf("a partner computes %+v %v", r, err)
		}
		usd, unit := "USD", models.UnitCount
		if _, err := env.sc.UpdateMetric(ctx, m.ID, models.MetricChanges{Currency: &usd}); err != nil {
			t.Fatal(err)
		}
		_, err = env.sc.UpdateMetric(ctx, m.ID, models.MetricChanges{Unit: &unit})
		if e, ok := models.AsError(err); !ok || e.Code != "INVALID_METRIC" || e.Fields[0].Location != "body.currency" {
			t.Fatalf("a count keeping a currency: %v", err)
		}
	})
}
