package api

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestMDFROIMetricOverHTTPEqualsTheFundAndPartnersSeeTheirOwn(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "mdf-roi")
		ctx := t.Context()
		expires := time.Now().Add(60 * 24 * time.Hour).UTC().Format(time.RFC3339)
		fundOf := func(partnerID, currency string) MDFFund {
			return decode[MDFFund](t, e.want(201, e.call(http.MethodPost, "/api/mdf/funds", e.op, "", map[string]any{"name": "Co-marketing " + currency,
				"partnerId": partnerID, "currency": currency, "amount": 10_000_00, "periodStart": "2026-01-01", "periodEnd": "2026-12-31", "expiresAt": expires})))
		}
		fund1, fund2, fundUSD := fundOf(e.partner1, "EUR"), fundOf(e.partner2, "EUR"), fundOf(e.partner1, "USD")
		ps, _, err := e.owner.ListPipelines(ctx, models.Page{})
		if err != nil {
			t.Fatal(err)
		}
		var wonStage string
		for _, s := range ps[0].Stages {
			if s.Outcome == models.OutcomeWon {
				wonStage = s.ID
			}
		}
		// spend has the partner claim amount from its fund, influencing a deal won for revenue.
		spend := func(partnerID, fundID string, amount, revenue int64, domain string) {
			t.Helper()
			sc := st.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: e.tenantID, UserID: models.NewID(), PartnerID: partnerID})
			d := &models.Deal{CustomerCompany: domain, CustomerDomain: domain, ContactEmail: "buyer@" + domain, AmountMinor: revenue, Currency: "EUR"}
			if err := sc.RegisterDeal(ctx, d); err != nil {
				t.Fatal(err)
			}
			if _, err := e.owner.ApproveDeal(ctx, d.ID, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := sc.MoveDeal(ctx, d.ID, models.DealMove{StageID: wonStage}); err != nil {
				t.Fatal(err)
			}
			r, err := sc.SubmitMDFRequest(ctx, models.NewMDFRequest{FundID: fundID, Activity: "Event", PlannedStart: "2026-03-01", PlannedEnd: "2026-03-02", Budget: amount})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.owner.ApproveMDFRequest(ctx, r.ID, 0); err != nil {
				t.Fatal(err)
			}
			c, err := sc.SubmitMDFClaim(ctx, models.NewMDFClaim{RequestID: r.ID, Amount: amount, DealIDs: []string{d.ID}, Links: []string{"https://example.com/photos"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.owner.ApproveMDFClaim(ctx, c.ID); err != nil {
				t.Fatal(err)
			}
		}
		// Partner 1: 2 350.00 won on 1 000.00 (2.35×); partner 2: 900.00 won on 300.00 (3×).
		spend(e.partner1, fund1.ID, 1_000_00, 2_350_00, "one.example")
		spend(e.partner2, fund2.ID, 300_00, 900_00, "two.example")

		// Definitions: 422 naming the field for what an ROI cannot be.
		for _, c := range []struct {
			name string
			body map[string]any
			at   string
		}{
			{"no currency", map[string]any{"kind": "mdf_roi"}, "body.currency"},
			{"a fund in another currency", map[string]any{"kind": "mdf_roi", "currency": "EUR", "fundId": fundUSD.ID}, "body.currency"},
			{"no such fund", map[string]any{"kind": "mdf_roi", "currency": "EUR", "fundId": models.NewID()}, "body.fundId"},
			{"payload filters", map[string]any{"kind": "mdf_roi", "currency": "EUR", "filters": []any{map[string]any{"path": "amount", "op": "eq", "value": 1}}}, "body.filters"},
			{"a sum of a fund", map[string]any{"kind": "sum", "eventType": "deal.won", "field": "amountMinor", "fundId": fund1.ID}, "body.fundId"},
			{"a sum in basis points", map[string]any{"kind": "sum", "eventType": "deal.won", "field": "amountMinor", "unit": "bps", "currency": "EUR"}, "body.unit"},
		} {
			c.body["name"] = c.name
			p := e.problem(e.call(http.MethodPost, "/api/metrics", e.op, "", c.body), 422, "INVALID_METRIC")
			if len(p.Errors) == 0 || p.Errors[0].Location != c.at {
				t.Errorf("%s: %+v", c.name, p.Errors)
			}
		}

		all := decode[Metric](t, e.want(201, e.call(http.MethodPost, "/api/metrics", e.op, "", map[string]any{"name": "MDF ROI", "kind": "mdf_roi", "currency": "EUR"})))
		one := decode[Metric](t, e.want(201, e.call(http.MethodPost, "/api/metrics", e.op, "", map[string]any{"name": "Fund 1 ROI", "kind": "mdf_roi", "fundId": fund1.ID})))
		if all.Unit != "bps" || all.EventType != models.EventMDFClaimApproved || one.Currency != "EUR" || one.FundID != fund1.ID {
			t.Fatalf("metrics %+v %+v", all, one)
		}
		from, to := time.Now().UTC().Add(-2*time.Hour), time.Now().UTC().Add(time.Hour)
		span := "from=" + url.QueryEscape(rfc(from)) + "&to=" + url.QueryEscape(rfc(to))
		compute := func(id, query, token string) MetricValue {
			t.Helper()
			return decode[MetricValue](t, e.want(200, e.call(http.MethodGet, "/api/metrics/"+id+"/compute?"+span+query, token, "", nil)))
		}

		// The fund's metric is the fund's roiBps.
		read := decode[MDFFund](t, e.want(200, e.call(http.MethodGet, "/api/mdf/funds/"+fund1.ID, e.op, "", nil)))
		v := compute(one.ID, "", e.op)
		if read.ROIBps == nil || *read.ROIBps != 23_500 || v.Value == nil || *v.Value != *read.ROIBps || num(v.Spend) != read.Spent || num(v.InfluencedRevenue) != read.InfluencedRevenue {
			t.Fatalf("fund %+v, metric %+v", read, v)
		}

		for _, c := range []struct {
			name, query, token string
			want               int64
		}{
			// 3 250.00 on 1 300.00: 2.5×.
			{"the tenant", "", e.op, 25_000},
			{"partner 1, by an operator", "&partnerId=" + e.partner1, e.op, 23_500},
			{"partner 1 itself", "", e.p1, 23_500},
			{"partner 2 itself", "", e.p2, 30_000},
			{"partner 2 itself, by day", "&interval=day", e.p2, 30_000},
		} {
			v := compute(all.ID, c.query, c.token)
			if v.Value == nil || *v.Value != c.want || v.Unit != "bps" || v.Kind != "mdf_roi" || v.Currency != "EUR" {
				t.Errorf("%s: %+v", c.name, v)
			}
		}
		// Partner 2 sees nothing of partner 1's fund: no spend, no value (null, not 0).
		res := e.want(200, e.call(http.MethodGet, "/api/metrics/"+one.ID+"/compute?"+span+"&interval=hour", e.p2, "", nil))
		raw := decode[struct {
			Value  *int64
			Spend  *int64
			Series []struct{ Value, Spend *int64 }
		}](t, res)
		if raw.Value != nil || raw.Spend == nil || *raw.Spend != 0 || len(raw.Series) == 0 || raw.Series[0].Value != nil || raw.Series[0].Spend == nil {
			t.Fatalf("partner 2 computing fund 1 = %s", res.Body)
		}
		e.problem(e.call(http.MethodGet, "/api/metrics/"+all.ID+"/compute?partnerId="+e.partner1, e.p2, "", nil), 403, "OTHER_PARTNER")

		// On a dashboard every partner sees its own ROI.
		e.want(201, e.call(http.MethodPost, "/api/dashboards", e.op, "", map[string]any{"name": "MDF", "isDefault": true, "widgets": []any{
			map[string]any{"kind": "metric", "metricId": all.ID, "range": "last_7_days"},
			map[string]any{"kind": "time-series", "metricId": all.ID, "range": "last_7_days", "interval": "day"},
		}}))
		for _, c := range []struct {
			name, token string
			want        int64
		}{{"operators", e.op, 25_000}, {"partner 1", e.p1, 23_500}, {"partner 2", e.p2, 30_000}} {
			r := decode[RenderedDashboard](t, e.want(200, e.call(http.MethodGet, "/api/dashboards/mine", c.token, "", nil)))
			if len(r.Widgets) != 2 || r.Widgets[0].Value == nil || r.Widgets[1].Value == nil {
				t.Fatalf("%s's dashboard %+v", c.name, r)
			}
			series := r.Widgets[1].Value.Series
			if num(r.Widgets[0].Value.Value) != c.want || len(series) == 0 || num(series[len(series)-1].Value) != c.want || series[0].Value != nil {
				t.Errorf("%s sees %+v", c.name, r.Widgets)
			}
		}
	})
}
