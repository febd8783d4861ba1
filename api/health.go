package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// HealthStore is what the health operations need of storage, as the caller sees it.
type HealthStore interface {
	HealthModel(ctx context.Context) (*models.HealthModel, error)
	PutHealthModel(ctx context.Context, m models.HealthModel) (*models.HealthModel, error)
	RequestHealthRun(ctx context.Context) (*models.HealthRun, error)
	ListHealthRuns(ctx context.Context, pg models.Page) ([]models.HealthRun, string, error)
	ListPartnerHealth(ctx context.Context, f models.HealthFilter, pg models.Page) ([]models.PartnerHealth, string, error)
	PartnerHealthHistory(ctx context.Context, partnerID string, pg models.Page) ([]models.HealthSnapshot, string, error)
	ExplainPartnerHealth(ctx context.Context, partnerID string) (*models.PartnerHealth, []models.HealthComponentScore, error)
}

// HealthRunner starts the scoring workflow of a run the store opened.
type HealthRunner interface {
	StartHealthRun(ctx context.Context, tenantID, runID string) error
}

// health is the health store as the caller sees it.
func (s *Server) health(ctx context.Context) HealthStore {
	return s.deps.Modules.Health(models.PrincipalFrom(ctx))
}

// HealthModelBody is a tenant's health model.
type HealthModelBody struct {
	Version    int                      `json:"version" readOnly:"true" doc:"Counts the model's changes; every score names the version that made it"`
	Components []models.HealthComponent `json:"components" minItems:"1" maxItems:"20" doc:"The weighted measures; the total is the weighted mean of their scores"`
	Tiers      []models.HealthTier      `json:"tiers" minItems:"2" maxItems:"6" doc:"From the highest cut-off down; the last starts at 0"`
	Hour       int                      `json:"hour" minimum:"0" maximum:"23" doc:"The hour (UTC) of the daily scoring"`
	UpdatedAt  time.Time                `json:"updatedAt" readOnly:"true"`
}

// HealthModelOutput is the health model.
type HealthModelOutput struct{ Body HealthModelBody }

// PutHealthModelInput replaces the health model.
type PutHealthModelInput struct {
	Body struct {
		Components []models.HealthComponent `json:"components" minItems:"1" maxItems:"20"`
		Tiers      []models.HealthTier      `json:"tiers" minItems:"2" maxItems:"6"`
		Hour       int                      `json:"hour" minimum:"0" maximum:"23" doc:"The hour (UTC) of the daily scoring"`
	}
}

func healthModelOf(m *models.HealthModel) HealthModelBody {
	return HealthModelBody{Version: m.Version, Components: m.Components, Tiers: m.Tiers, Hour: m.Hour, UpdatedAt: m.UpdatedAt}
}

// HealthRunOutput is one scoring run.
type HealthRunOutput struct{ Body models.HealthRun }

// HealthRunListOutput is a page of scoring runs, newest first.
type HealthRunListOutput struct{ Body ListBody[models.HealthRun] }

// PartnerHealth is a partner's current health score.
type PartnerHealth struct {
	PartnerID    string    `json:"partnerId"`
	Score        float64   `json:"score" doc:"0 to 100"`
	Tier         string    `json:"tier"`
	PreviousTier string    `json:"previousTier,omitempty" doc:"The tier before the last change"`
	TierSince    time.Time `json:"tierSince"`
	ModelVersion int       `json:"modelVersion"`
	RunID        string    `json:"runId"`
	ComputedAt   time.Time `json:"computedAt"`
}

func partnerHealthOf(h *models.PartnerHealth) PartnerHealth {
	return PartnerHealth{PartnerID: h.PartnerID, Score: h.Score, Tier: h.Tier, PreviousTier: h.PreviousTier, TierSince: h.TierSince,
		ModelVersion: h.ModelVersion, RunID: h.RunID, ComputedAt: h.ComputedAt}
}

// ListPartnerHealthInput filters current scores.
type ListPartnerHealthInput struct {
	ListParams
	Tier string `query:"tier" maxLength:"32" doc:"Only partners in this tier"`
}

// PartnerHealthListOutput is a page of current scores in partner order.
type PartnerHealthListOutput struct{ Body ListBody[PartnerHealth] }

// HealthSnapshot is one partner's score in one run.
type HealthSnapshot struct {
	RunID        string    `json:"runId"`
	Score        float64   `json:"score"`
	Tier         string    `json:"tier"`
	ModelVersion int       `json:"modelVersion"`
	ComputedAt   time.Time `json:"computedAt"`
}

// PartnerHealthHistoryInput names a partner and a page of its history.
type PartnerHealthHistoryInput struct {
	IDPath
	ListParams
}

// HealthHistoryOutput is a page of a partner's snapshots, newest first.
type HealthHistoryOutput struct{ Body ListBody[HealthSnapshot] }

// HealthExplanationOutput is a partner's current health and how its latest score was made.
type HealthExplanationOutput struct {
	Body struct {
		PartnerHealth
		Components []models.HealthComponentScore `json:"components" nullable:"false" doc:"Each component's raw value, normalised score, weight and contribution; the contributions add up to the score"`
	}
}

func registerHealthRoutes(s *Server) {
	tags := []string{"Health"}
	register(s, huma.Operation{OperationID: "get-health-model", Method: http.MethodGet, Path: "/api/health/model", Tags: tags,
		Summary: "The partner health model", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.HealthRead), s.getHealthModel)
	register(s, huma.Operation{OperationID: "put-health-model", Method: http.MethodPut, Path: "/api/health/model", Tags: tags,
		RequestBody: requestExample(`{"components": [{"source": "won_revenue", "weight": 3, "zeroAt": 0, "fullAt": 5000000, "currency": "EUR", "windowDays": 90},
			{"source": "nps", "weight": 2, "zeroAt": -50, "fullAt": 50}, {"source": "sla_breaches", "weight": 1, "zeroAt": 5, "fullAt": 0}],
			"tiers": [{"name": "healthy", "minScore": 70}, {"name": "at_risk", "minScore": 40}, {"name": "critical", "minScore": 0}], "hour": 3}`),
		Summary: "Set the partner health model", Description: "Replaces the model as its next version; scores made before keep the version that made them. Validated as a whole: every problem is named. A `metric` component names one of the tenant's metrics (`metricId`, 422 otherwise) and scores it as its compute answers for the partner over the window.",
		Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.HealthManage), s.putHealthModel)
	register(s, huma.Operation{OperationID: "start-health-run", Method: http.MethodPost, Path: "/api/health/runs", Tags: tags,
		Summary: "Score every partner now", Description: "Starts a scoring run under the current model, as the daily schedule does; 409 while one is under way, 404 without a model.",
		DefaultStatus: http.StatusAccepted, Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable}},
		Requires(authz.HealthManage), s.startHealthRun)
	register(s, huma.Operation{OperationID: "list-health-runs", Method: http.MethodGet, Path: "/api/health/runs", Tags: tags,
		Summary: "List scoring runs", Description: "Newest first.", Security: UsersOrKeys}, Requires(authz.HealthRead), s.listHealthRuns)
	register(s, huma.Operation{OperationID: "list-partner-health", Method: http.MethodGet, Path: "/api/health/partners", Tags: tags,
		Summary: "List partners' current health", Description: "In partner order; filter by tier.", Security: UsersOrKeys}, Requires(authz.HealthRead), s.listPartnerHealth)
	register(s, huma.Operation{OperationID: "explain-partner-health", Method: http.MethodGet, Path: "/api/partners/{id}/health", Tags: tags,
		Summary: "A partner's health and how it was computed", Description: "The current score and tier with each component of the latest run: raw value, normalised score, weight and contribution. 404 before the partner's first run.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.HealthRead), s.explainPartnerHealth)
	register(s, huma.Operation{OperationID: "list-partner-health-history", Method: http.MethodGet, Path: "/api/partners/{id}/health/history", Tags: tags,
		Summary: "A partner's health history", Description: "One score per run, newest first.", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.HealthRead), s.listPartnerHealthHistory)
}

// getHealthModel answers the tenant's health model.
func (s *Server) getHealthModel(ctx context.Context, _ *struct{}) (*HealthModelOutput, error) {
	m, err := s.health(ctx).HealthModel(ctx)
	if err != nil {
		return nil, err
	}
	return &HealthModelOutput{Body: healthModelOf(m)}, nil
}

// putHealthModel replaces the tenant's health model.
func (s *Server) putHealthModel(ctx context.Context, in *PutHealthModelInput) (*HealthModelOutput, error) {
	m, err := s.health(ctx).PutHealthModel(ctx, models.HealthModel{Components: in.Body.Components, Tiers: in.Body.Tiers, Hour: in.Body.Hour})
	if err != nil {
		return nil, err
	}
	return &HealthModelOutput{Body: healthModelOf(m)}, nil
}

// startHealthRun opens a scoring run and starts its workflow.
func (s *Server) startHealthRun(ctx context.Context, _ *struct{}) (*HealthRunOutput, error) {
	if s.deps.Health == nil {
		return nil, models.Errorf(models.KindUnavailable, "HEALTH_UNAVAILABLE", "health scoring is not available")
	}
	run, err := s.health(ctx).RequestHealthRun(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.deps.Health.StartHealthRun(ctx, run.TenantID, run.ID); err != nil {
		return nil, err
	}
	return &HealthRunOutput{Body: *run}, nil
}

// listHealthRuns lists the scoring runs.
func (s *Server) listHealthRuns(ctx context.Context, in *ListParams) (*HealthRunListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.HealthRun, string, error) {
		return s.health(ctx).ListHealthRuns(ctx, pg)
	}, func(r *models.HealthRun) models.HealthRun { return *r })
	return &HealthRunListOutput{Body: body}, err
}

// listPartnerHealth lists the partners' current scores.
func (s *Server) listPartnerHealth(ctx context.Context, in *ListPartnerHealthInput) (*PartnerHealthListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.PartnerHealth, string, error) {
		return s.health(ctx).ListPartnerHealth(ctx, models.HealthFilter{Tier: in.Tier}, pg)
	}, partnerHealthOf)
	return &PartnerHealthListOutput{Body: body}, err
}

// explainPartnerHealth answers a partner's health with its components.
func (s *Server) explainPartnerHealth(ctx context.Context, in *IDPath) (*HealthExplanationOutput, error) {
	cur, comps, err := s.health(ctx).ExplainPartnerHealth(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := &HealthExplanationOutput{}
	out.Body.PartnerHealth, out.Body.Components = partnerHealthOf(cur), comps
	return out, nil
}

// listPartnerHealthHistory lists a partner's scores, newest first.
func (s *Server) listPartnerHealthHistory(ctx context.Context, in *PartnerHealthHistoryInput) (*HealthHistoryOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.HealthSnapshot, string, error) {
		return s.health(ctx).PartnerHealthHistory(ctx, in.ID, pg)
	}, func(h *models.HealthSnapshot) HealthSnapshot {
		return HealthSnapshot{RunID: h.RunID, Score: h.Score, Tier: h.Tier, ModelVersion: h.ModelVersion, ComputedAt: h.ComputedAt}
	})
	return &HealthHistoryOutput{Body: body}, err
}
