package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// LevelStore is what the level operations need of storage, as the caller sees it.
type LevelStore interface {
	CreateLevel(ctx context.Context, l *models.Level, r models.LevelRequirements) error
	ListLevels(ctx context.Context, pg models.Page) ([]models.Level, string, error)
	Level(ctx context.Context, id string) (*models.Level, error)
	UpdateLevel(ctx context.Context, id string, c models.LevelChanges) (*models.Level, error)
	DeleteLevel(ctx context.Context, id string) error
	EvaluatePartnerLevel(ctx context.Context, partnerID string) (*models.LevelEvaluation, error)
	ListLevelProposals(ctx context.Context, status string, pg models.Page) ([]models.LevelProposal, string, error)
	DecideLevelProposal(ctx context.Context, id string, apply bool) (*models.LevelProposal, error)
	ReviewLevelsNow(ctx context.Context) (int, error)
}

// levels is the level store as the caller sees it.
func (s *Server) levels(ctx context.Context) LevelStore {
	return s.deps.Modules.Levels(models.PrincipalFrom(ctx))
}

// ReviewOutput says what a level review did.
type ReviewOutput struct {
	Body struct {
		Changes int `json:"changes" doc:"Level changes applied or proposed, as the tenant's levelChanges setting says"`
	}
}

// LevelRequirements are what a partner must reach within the period to hold a level.
type LevelRequirements struct {
	MinWonDeals           int    `json:"minWonDeals,omitempty" minimum:"0" maximum:"1000000" doc:"Won deals within the period"`
	MinWonAmountMinor     int64  `json:"minWonAmountMinor,omitempty" minimum:"0" maximum:"1000000000000000" doc:"Won deal volume in minor units of currency within the period"`
	Currency              string `json:"currency,omitempty" maxLength:"3" pattern:"^([A-Z]{3})?$"`
	PeriodDays            int    `json:"periodDays,omitempty" minimum:"0" maximum:"3650" doc:"The look-back window in days; 365 when absent"`
	MinCertifiedUsers     int    `json:"minCertifiedUsers,omitempty" minimum:"0" maximum:"100000" doc:"Active users holding a certificate in force now (not bound to the period)"`
	CertificationCourseID string `json:"certificationCourseId,omitempty" maxLength:"36" doc:"Count certificates of this course only; of any course when absent"`
}

// Level is a partner tier.
type Level struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Rank         int               `json:"rank" doc:"Higher is better"`
	Benefits     string            `json:"benefits,omitempty"`
	Requirements LevelRequirements `json:"requirements"`
	IsDefault    bool              `json:"isDefault" doc:"New partners start at this level"`
	CreatedAt    time.Time         `json:"createdAt"`
}

func levelOf(l *models.Level) Level {
	r := l.Reqs()
	return Level{ID: l.ID, Name: l.Name, Rank: l.Rank, Benefits: l.Benefits, IsDefault: l.IsDefault, CreatedAt: l.CreatedAt,
		Requirements: LevelRequirements{MinWonDeals: r.MinWonDeals, MinWonAmountMinor: r.MinWonAmountMinor, Currency: r.Currency, PeriodDays: r.PeriodDays,
			MinCertifiedUsers: r.MinCertifiedUsers, CertificationCourseID: r.CertificationCourseID}}
}

func (r LevelRequirements) model() models.LevelRequirements {
	return models.LevelRequirements{MinWonDeals: r.MinWonDeals, MinWonAmountMinor: r.MinWonAmountMinor, Currency: r.Currency, PeriodDays: r.PeriodDays,
		MinCertifiedUsers: r.MinCertifiedUsers, CertificationCourseID: r.CertificationCourseID}
}

// CreateLevelInput adds a level.
type CreateLevelInput struct {
	Body struct {
		Name         string            `json:"name" minLength:"1" maxLength:"64"`
		Rank         int               `json:"rank" minimum:"-1000000" maximum:"1000000"`
		Benefits     string            `json:"benefits,omitempty" maxLength:"5000"`
		Requirements LevelRequirements `json:"requirements,omitempty"`
		IsDefault    bool              `json:"isDefault,omitempty"`
	}
}

// UpdateLevelInput changes a level; absent fields stay. A new name moves its partners along.
type UpdateLevelInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name         *string            `json:"name,omitempty" minLength:"1" maxLength:"64"`
		Rank         *int               `json:"rank,omitempty" minimum:"-1000000" maximum:"1000000"`
		Benefits     *string            `json:"benefits,omitempty" maxLength:"5000"`
		Requirements *LevelRequirements `json:"requirements,omitempty"`
		IsDefault    *bool              `json:"isDefault,omitempty"`
	}
}

// LevelEvaluation is the level a partner qualifies for now.
type LevelEvaluation struct {
	PartnerID      string           `json:"partnerId"`
	CurrentLevel   string           `json:"currentLevel"`
	TargetLevel    string           `json:"targetLevel" doc:"The highest-ranked level whose requirements are met; empty without levels"`
	WonDeals       int              `json:"wonDeals"`
	WonAmountMinor map[string]int64 `json:"wonAmountMinor" doc:"Won volume per currency, in minor units"`
	CertifiedUsers map[string]int   `json:"certifiedUsers,omitempty" doc:"Active users holding a certificate in force, per course id asked by a level (\"\" for any course)"`
}

// LevelProposal is a level change the review suggests.
type LevelProposal struct {
	ID        string     `json:"id"`
	PartnerID string     `json:"partnerId"`
	FromLevel string     `json:"fromLevel"`
	ToLevel   string     `json:"toLevel"`
	Status    string     `json:"status" enum:"pending,applied,dismissed"`
	Reason    string     `json:"reason"`
	CreatedAt time.Time  `json:"createdAt"`
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
}

func proposalOf(p *models.LevelProposal) LevelProposal {
	return LevelProposal{ID: p.ID, PartnerID: p.PartnerID, FromLevel: p.FromLevel, ToLevel: p.ToLevel, Status: p.Status, Reason: p.Reason,
		CreatedAt: p.CreatedAt, DecidedAt: p.DecidedAt}
}

// ListProposalsInput filters proposals.
type ListProposalsInput struct {
	ListParams
	Status string `query:"status" enum:"pending,applied,dismissed"`
}

// DecideProposalInput applies or dismisses a proposal.
type DecideProposalInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Apply bool `json:"apply" doc:"true applies the level change, false dismisses it"`
	}
}

// LevelOutput is one level.
type LevelOutput struct{ Body Level }

// LevelListOutput is a page of levels.
type LevelListOutput struct{ Body ListBody[Level] }

// LevelEvaluationOutput is a partner's evaluation.
type LevelEvaluationOutput struct{ Body LevelEvaluation }

// ProposalOutput is one proposal.
type ProposalOutput struct{ Body LevelProposal }

// ProposalListOutput is a page of proposals.
type ProposalListOutput struct{ Body ListBody[LevelProposal] }

func registerLevelRoutes(s *Server) {
	tags := []string{"Levels"}
	register(s, huma.Operation{OperationID: "create-level", Method: http.MethodPost, Path: "/api/levels", Tags: tags,
		RequestBody: requestExample(`{"name": "Gold", "rank": 20, "benefits": "Co-marketing budget and a named partner manager.", "requirements": {"minWonDeals": 10, "minWonAmountMinor": 10000000, "currency": "EUR", "periodDays": 365}}`),
		Summary:     "Create a partner level", DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.PartnersWrite), s.createLevel)
	register(s, huma.Operation{OperationID: "list-levels", Method: http.MethodGet, Path: "/api/levels", Tags: tags,
		Summary: "List partner levels", Description: "Partners see them too: benefits and requirements.", Security: UsersOrKeys},
		Requires(authz.PartnersRead), s.listLevels)
	register(s, huma.Operation{OperationID: "get-level", Method: http.MethodGet, Path: "/api/levels/{id}", Tags: tags,
		Summary: "Get a partner level", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.PartnersRead), s.getLevel)
	register(s, huma.Operation{OperationID: "update-level", Method: http.MethodPatch, Path: "/api/levels/{id}", Tags: tags,
		RequestBody: requestExample(`{"benefits": "Co-marketing budget, a named partner manager and early access to new features."}`),
		Summary:     "Change a partner level", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.PartnersWrite), s.updateLevel)
	register(s, huma.Operation{OperationID: "delete-level", Method: http.MethodDelete, Path: "/api/levels/{id}", Tags: tags,
		Summary: "Delete a partner level no partner holds", DefaultStatus: http.StatusNoContent, Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.PartnersWrite), s.deleteLevel)
	register(s, huma.Operation{OperationID: "evaluate-partner-level", Method: http.MethodGet, Path: "/api/partners/{id}/level-evaluation", Tags: tags,
		Summary: "The level a partner qualifies for now", Description: "Partners see their own.", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.PartnersRead), s.evaluatePartnerLevel)
	register(s, huma.Operation{OperationID: "list-level-proposals", Method: http.MethodGet, Path: "/api/level-proposals", Tags: tags,
		Summary: "Level changes the daily review proposes", Security: UsersOrKeys}, Requires(authz.PartnersWrite), s.listLevelProposals)
	register(s, huma.Operation{OperationID: "review-levels", Method: http.MethodPost, Path: "/api/levels/review", Tags: tags,
		Summary: "Run the level review now", Description: "The review also runs daily. It proposes or applies level changes as the tenant's levelChanges setting says.",
		Security: UsersOrKeys}, Requires(authz.PartnersWrite), s.reviewLevels)
	register(s, huma.Operation{OperationID: "decide-level-proposal", Method: http.MethodPost, Path: "/api/level-proposals/{id}/decide", Tags: tags,
		RequestBody: requestExample(`{"apply": true}`),
		Summary:     "Apply or dismiss a proposed level change", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.PartnersWrite), s.decideLevelProposal)
}

// levelOutput answers with the level l, or with err when there is one.
func levelOutput(l *models.Level, err error) (*LevelOutput, error) {
	if err != nil {
		return nil, err
	}
	return &LevelOutput{Body: levelOf(l)}, nil
}

// createLevel creates a partner level.
func (s *Server) createLevel(ctx context.Context, in *CreateLevelInput) (*LevelOutput, error) {
	l := &models.Level{Name: in.Body.Name, Rank: in.Body.Rank, Benefits: in.Body.Benefits, IsDefault: in.Body.IsDefault}
	return levelOutput(l, s.levels(ctx).CreateLevel(ctx, l, in.Body.Requirements.model()))
}

// listLevels lists partner levels.
func (s *Server) listLevels(ctx context.Context, in *ListParams) (*LevelListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.Level, string, error) {
		return s.levels(ctx).ListLevels(ctx, pg)
	}, levelOf)
	return &LevelListOutput{Body: body}, err
}

// getLevel answers one partner level.
func (s *Server) getLevel(ctx context.Context, in *IDPath) (*LevelOutput, error) {
	return levelOutput(s.levels(ctx).Level(ctx, in.ID))
}

// updateLevel changes a partner level.
func (s *Server) updateLevel(ctx context.Context, in *UpdateLevelInput) (*LevelOutput, error) {
	b := in.Body
	c := models.LevelChanges{Name: b.Name, Rank: b.Rank, Benefits: b.Benefits, IsDefault: b.IsDefault}
	if b.Requirements != nil {
		r := b.Requirements.model()
		c.Requirements = &r
	}
	return levelOutput(s.levels(ctx).UpdateLevel(ctx, in.ID, c))
}

// deleteLevel deletes a partner level no partner holds.
func (s *Server) deleteLevel(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.levels(ctx).DeleteLevel(ctx, in.ID)
}

// evaluatePartnerLevel answers the level a partner qualifies for now.
func (s *Server) evaluatePartnerLevel(ctx context.Context, in *IDPath) (*LevelEvaluationOutput, error) {
	ev, err := s.levels(ctx).EvaluatePartnerLevel(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := &LevelEvaluationOutput{Body: LevelEvaluation{PartnerID: ev.PartnerID, CurrentLevel: ev.CurrentLevel, TargetLevel: ev.TargetLevel,
		WonDeals: ev.Performance.WonDeals, WonAmountMinor: ev.Performance.WonAmountMinor, CertifiedUsers: ev.Performance.CertifiedUsers}}
	if out.Body.WonAmountMinor == nil {
		out.Body.WonAmountMinor = map[string]int64{}
	}
	return out, nil
}

// listLevelProposals lists the level changes the reviews proposed.
func (s *Server) listLevelProposals(ctx context.Context, in *ListProposalsInput) (*ProposalListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.LevelProposal, string, error) {
		return s.levels(ctx).ListLevelProposals(ctx, in.Status, pg)
	}, proposalOf)
	return &ProposalListOutput{Body: body}, err
}

// reviewLevels runs the level review now and says how many changes it made or proposed.
func (s *Server) reviewLevels(ctx context.Context, _ *struct{}) (*ReviewOutput, error) {
	n, err := s.levels(ctx).ReviewLevelsNow(ctx)
	if err != nil {
		return nil, err
	}
	out := &ReviewOutput{}
	out.Body.Changes = n
	return out, nil
}

// decideLevelProposal applies or dismisses a proposed level change.
func (s *Server) decideLevelProposal(ctx context.Context, in *DecideProposalInput) (*ProposalOutput, error) {
	p, err := s.levels(ctx).DecideLevelProposal(ctx, in.ID, in.Body.Apply)
	if err != nil {
		return nil, err
	}
	return &ProposalOutput{Body: proposalOf(p)}, nil
}
