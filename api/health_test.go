package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestHealthScoresThroughTheAPI(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		h := e.h
		openTicket := func(partner string) {
			at := time.Now().UTC()
			tk := &models.Ticket{ID: models.NewID(), TenantID: e.tenantID, PartnerID: partner, Subject: "Help", Priority: "normal", Status: models.TicketOpen,
				RequesterID: models.NewID(), Tags: "[]", CreatedBy: "x", CreatedAt: at, UpdatedAt: at}
			if err := st.Core().DB(context.Background()).Create(tk).Error; err != nil {
				t.Fatal(err)
			}
		}
		if res := do(t, h, http.MethodGet, "/api/health/model", nil, e.gold...); res.Status != http.StatusForbidden {
			t.Fatalf("a partner reading the model = %d", res.Status)
		}
		if res := do(t, h, http.MethodGet, "/api/health/model", nil, e.op...); res.Status != http.StatusNotFound {
			t.Fatalf("no model = %d: %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/health/runs", nil, e.op...); res.Status != http.StatusNotFound {
			t.Fatalf("a run without a model = %d: %s", res.Status, res.Body)
		}
		bad := map[string]any{
			"components": []map[string]any{{"source": "won_revenue", "weight": 1, "zeroAt": 0, "fullAt": 0}},
			"tiers":      []map[string]any{{"name": "healthy", "minScore": 50}, {"name": "critical", "minScore": 10}},
			"hour":       3,
		}
		res := do(t, h, http.MethodPut, "/api/health/model", jsonBody(t, bad), e.op...)
		p := decode[problemBody](t, res)
		locs := map[string]bool{}
		for _, fe := range p.Errors {
			locs[fe.Location] = true
		}
		if res.Status != http.StatusUnprocessableEntity || p.Code != "INVALID_HEALTH_MODEL" || !locs["body.components[0].fullAt"] ||
			!locs["body.components[0].currency"] || !locs["body.tiers[1].minScore"] {
			t.Fatalf("a bad model = %d: %s", res.Status, res.Body)
		}
		model := map[string]any{
			"components": []map[string]any{
				{"source": "open_tickets", "weight": 1, "zeroAt": 2, "fullAt": 0},
				{"source": "days_since_last_sign_in", "weight": 1, "zeroAt": 30, "fullAt": 0, "label": "Sign-ins"},
			},
			"tiers": []map[string]any{{"name": "healthy", "minScore": 70}, {"name": "at_risk", "minScore": 40}, {"name": "critical", "minScore": 0}},
			"hour":  5,
		}
		res = do(t, h, http.MethodPut, "/api/health/model", jsonBody(t, model), e.op...)
		if m := decode[HealthModelBody](t, res); res.Status != http.StatusOK || m.Version != 1 || m.Hour != 5 || len(m.Components) != 2 {
			t.Fatalf("put model = %d: %s", res.Status, res.Body)
		}

		// Gold has an open ticket (50) and signed in today (100): 75, healthy. Silver: 100.
		openTicket(e.goldID)
		res = do(t, h, http.MethodPost, "/api/health/runs", nil, e.op...)
		if run := decode[models.HealthRun](t, res); res.Status != http.StatusAccepted || run.ID == "" || run.ModelVersion != 1 || run.Trigger != "manual" {
			t.Fatalf("start run = %d: %s", res.Status, res.Body)
		}
		type explanation struct {
			PartnerHealth
			Components []models.HealthComponentScore
		}
		ex := decode[explanation](t, do(t, h, http.MethodGet, "/api/partners/"+e.goldID+"/health", nil, e.op...))
		if ex.Score != 75 || ex.Tier != "healthy" || len(ex.Components) != 2 || *ex.Components[0].Value != 1 || *ex.Components[0].Score != 50 ||
			ex.Components[0].Contribution != 25 || *ex.Components[1].Value != 0 || ex.Components[1].Label != "Sign-ins" {
			t.Fatalf("explain gold %+v", ex)
		}

		// A second ticket: 0 + 100 = 50, at risk.
		openTicket(e.goldID)
		if res := do(t, h, http.MethodPost, "/api/health/runs", nil, e.op...); res.Status != http.StatusAccepted {
			t.Fatalf("second run = %d: %s", res.Status, res.Body)
		}
		risky := decode[ListBody[PartnerHealth]](t, do(t, h, http.MethodGet, "/api/health/partners?tier=at_risk", nil, e.op...))
		if len(risky.Data) != 1 || risky.Data[0].PartnerID != e.goldID || risky.Data[0].Score != 50 || risky.Data[0].PreviousTier != "healthy" {
			t.Fatalf("at risk %+v", risky)
		}
		all := decode[ListBody[PartnerHealth]](t, do(t, h, http.MethodGet, "/api/health/partners?limit=1", nil, e.op...))
		if len(all.Data) != 1 || all.NextCursor == "" {
			t.Fatalf("first page %+v", all)
		}
		hist := decode[ListBody[HealthSnapshot]](t, do(t, h, http.MethodGet, "/api/partners/"+e.goldID+"/health/history", nil, e.op...))
		if len(hist.Data) != 2 || hist.Data[0].Tier != "at_risk" || hist.Data[1].Tier != "healthy" {
			t.Fatalf("history %+v", hist)
		}
		runs := decode[ListBody[models.HealthRun]](t, do(t, h, http.MethodGet, "/api/health/runs", nil, e.op...))
		if len(runs.Data) != 2 || runs.Data[0].Status != "done" || runs.Data[0].Changes != 1 || runs.Data[0].Partners != 2 {
			t.Fatalf("runs %+v", runs)
		}
		if res := do(t, h, http.MethodGet, "/api/partners/"+e.goldID+"/health", nil, e.gold...); res.Status != http.StatusForbidden {
			t.Fatalf("a partner reading its explanation = %d", res.Status)
		}
		if res := do(t, h, http.MethodGet, "/api/partners/"+models.NewID()+"/health/history", nil, e.op...); res.Status != http.StatusNotFound {
			t.Fatalf("an unknown partner's history = %d", res.Status)
		}
	})
}

// A metric component names one of the tenant's metrics (422 by field otherwise); the
// explanation names the metric and its value is what the metric's compute answers for the
// partner over the window.
func TestAMetricHealthComponentThroughTheAPI(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		h := e.h
		res := do(t, h, http.MethodPost, "/api/metrics", jsonBody(t, map[string]any{"name": "Invoiced", "kind": "sum", "eventType": "invoice.paid",
			"field": "amount", "unit": "money", "currency": "EUR"}), e.op...)
		if res.Status != http.StatusCreated {
			t.Fatalf("create metric = %d: %s", res.Status, res.Body)
		}
		invoiced := decode[Metric](t, res)
		for i, amount := range []int64{1999, 5000, 250} {
			gold := e.goldID
			at := time.Now().UTC().Add(-time.Duration(i*30) * time.Hour)
			ev := &models.Event{ID: models.NewID(), TenantID: e.tenantID, Type: "invoice.paid", Source: "ingest", ActorKind: "system", PartnerID: &gold,
				Payload: `{"amount": ` + strconv.FormatInt(amount, 10) + `}`, OccurredAt: at, ReceivedAt: at}
			if err := st.Core().DB(context.Background()).Create(ev).Error; err != nil {
				t.Fatal(err)
			}
		}
		model := func(metricID string) map[string]any {
			return map[string]any{
				"components": []map[string]any{{"source": "metric", "metricId": metricID, "weight": 1, "zeroAt": 0, "fullAt": 10000, "windowDays": 30}},
				"tiers":      []map[string]any{{"name": "healthy", "minScore": 50}, {"name": "critical", "minScore": 0}},
				"hour":       3,
			}
		}
		res = do(t, h, http.MethodPut, "/api/health/model", jsonBody(t, model(models.NewID())), e.op...)
		if p := decode[problemBody](t, res); res.Status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0].Location != "body.components[0].metricId" {
			t.Fatalf("an unknown metric = %d: %s", res.Status, res.Body)
		}
		res = do(t, h, http.MethodPut, "/api/health/model", jsonBody(t, model(invoiced.ID)), e.op...)
		if m := decode[HealthModelBody](t, res); res.Status != http.StatusOK || m.Components[0].MetricID != invoiced.ID || m.Components[0].WindowDays != 30 {
			t.Fatalf("put model = %d: %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/health/runs", nil, e.op...); res.Status != http.StatusAccepted {
			t.Fatalf("run = %d: %s", res.Status, res.Body)
		}
		type explanation struct {
			PartnerHealth
			Components []models.HealthComponentScore
		}
		ex := decode[explanation](t, do(t, h, http.MethodGet, "/api/partners/"+e.goldID+"/health", nil, e.op...))
		c := ex.Components[0]
		if c.MetricName != "Invoiced" || c.MetricUnit != "money" || c.MetricCurrency != "EUR" || c.Value == nil || *c.Value != 7249 || ex.Score != 72.49 || ex.Tier != "healthy" {
			t.Fatalf("explain gold %+v", ex)
		}
		q := url.Values{"partnerId": {e.goldID}, "from": {ex.ComputedAt.AddDate(0, 0, -30).Format(time.RFC3339Nano)}, "to": {ex.ComputedAt.Format(time.RFC3339Nano)}}
		res = do(t, h, http.MethodGet, "/api/metrics/"+invoiced.ID+"/compute?"+q.Encode(), nil, e.op...)
		if v := decode[MetricValue](t, res); res.Status != http.StatusOK || v.Value == nil || *v.Value != *c.Value {
			t.Fatalf("compute = %d: %s, the component scored %d", res.Status, res.Body, *c.Value)
		}
		silver := decode[explanation](t, do(t, h, http.MethodGet, "/api/partners/"+e.silverID+"/health", nil, e.op...))
		if v := silver.Components[0].Value; v == nil || *v != 0 || silver.Tier != "critical" {
			t.Fatalf("explain silver %+v", silver)
		}
	})
}
