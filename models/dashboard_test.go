package models

import (
	"slices"
	"testing"
)

func TestWidgetPlacesStayOnTheGrid(t *testing.T) {
	list := func(w Widget) Widget { w.Kind, w.EventType = WidgetEventList, "*"; return w }
	cases := []struct {
		name string
		w    Widget
		want []string
	}{
		{"an unplaced widget is fine", list(Widget{}), nil},
		{"a full-width widget is fine", list(Widget{X: 0, Y: 40, W: 12, H: 24}), nil},
		{"a widget past the right edge is refused", list(Widget{X: 10, W: 4, H: 2}), []string{"w[0].w"}},
		{"a placed widget needs a width and a height", list(Widget{X: 3}), []string{"w[0].w", "w[0].h"}},
		{"negative places and oversize heights are refused", list(Widget{X: -1, Y: -1, W: 2, H: 25}), []string{"w[0].x", "w[0].y", "w[0].h"}},
		{"rows end at the bound", list(Widget{Y: MaxGridRow + 1, W: 1, H: 1}), []string{"w[0].y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, p := range ValidateWidgets([]Widget{c.w}, "w") {
				got = append(got, p.Location)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("problems at %v, want %v", got, c.want)
			}
		})
	}
}

func TestMetricUnitsAndCurrencies(t *testing.T) {
	cases := []struct {
		name string
		m    Metric
		want []string
	}{
		{"a count in plain numbers", Metric{Kind: MetricCount, Unit: UnitCount}, nil},
		{"a sum of money in euros", Metric{Kind: MetricSum, Field: "amount", Unit: UnitMoney, Currency: "EUR"}, nil},
		{"money needs a currency", Metric{Kind: MetricSum, Field: "amount", Unit: UnitMoney}, []string{"currency"}},
		{"money needs an ISO 4217 code", Metric{Kind: MetricSum, Field: "amount", Unit: UnitMoney, Currency: "eur"}, []string{"currency"}},
		{"only sums are money", Metric{Kind: MetricCount, Unit: UnitMoney, Currency: "EUR"}, []string{"unit"}},
		{"plain numbers take no currency", Metric{Kind: MetricCount, Unit: UnitCount, Currency: "EUR"}, []string{"currency"}},
		{"an unknown unit is refused", Metric{Kind: MetricCount, Unit: "percent"}, []string{"unit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.m.Name, c.m.EventType = "M", "invoice.paid"
			var got []string
			if err := ValidateMetric(&c.m, nil, ""); err != nil {
				for _, f := range err.Fields {
					got = append(got, f.Location)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("problems at %v, want %v", got, c.want)
			}
		})
	}
}
