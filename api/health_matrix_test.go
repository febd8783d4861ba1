package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

// syncHealth scores a run in the request, as the health workflow would, so that API tests need
// no Temporal.
type syncHealth struct{ st *stores.Set }

func (h *syncHealth) StartHealthRun(ctx context.Context, tenantID, runID string) error {
	_, _, err := h.st.ScoreHealthRun(context.WithoutCancel(ctx), models.System(tenantID), runID, 100)
	return err
}

// healthModelBody is a valid model: won deals, NPS and breaches; healthy, at risk, critical.
func healthModelBody() map[string]any {
	return map[string]any{
		"components": []map[string]any{
			{"source": "won_deals", "weight": 2, "zeroAt": 0, "fullAt": 4, "windowDays": 90},
			{"source": "nps", "weight": 1, "zeroAt": -100, "fullAt": 100},
			{"source": "sla_breaches", "weight": 1, "zeroAt": 2, "fullAt": 0},
		},
		"tiers": []map[string]any{{"name": "healthy", "minScore": 70}, {"name": "at_risk", "minScore": 40}, {"name": "critical", "minScore": 0}},
		"hour":  3,
	}
}

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		ctx := context.Background()
		m := models.HealthModel{Components: []models.HealthComponent{{Source: models.HealthOpenTickets, Weight: 1, ZeroAt: 5, FullAt: 0}},
			Tiers: []models.HealthTier{{Name: "healthy", MinScore: 50}, {Name: "critical", MinScore: 0}}}
		if _, err := sc.PutHealthModel(ctx, m); err != nil {
			t.Fatal(err)
		}
		run, err := sc.RequestHealthRun(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.st.ScoreHealthRun(ctx, models.System(run.TenantID), run.ID, 100); err != nil {
			t.Fatal(err)
		}
	})
	partner := func(suffix string) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/partners/" + f.partner1 + "/health" + suffix, nil}
		}
	}
	other := func(suffix string) func(*fixture) request {
		return func(f *fixture) request {
			return request{http.MethodGet, "/api/partners/" + f.partner2 + "/health" + suffix, nil}
		}
	}
	cases := map[string]matrixCase{
		"get-health-model": {call: get("/api/health/model")},
		"put-health-model": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/health/model", healthModelBody()}
		}},
		"start-health-run":            {call: func(*fixture, string) request { return request{http.MethodPost, "/api/health/runs", nil} }},
		"list-health-runs":            {call: get("/api/health/runs")},
		"list-partner-health":         {call: get("/api/health/partners")},
		"explain-partner-health":      {byID: true, call: partner(""), otherPartner: other("")},
		"list-partner-health-history": {byID: true, call: partner("/history"), otherPartner: other("/history")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
