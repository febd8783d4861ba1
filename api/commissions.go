package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagCommissions = "Commissions"

// CommissionStore is what the commission plan operations need of storage, as the caller sees it.
type CommissionStore interface {
	CreateCommissionPlan(ctx context.Context, name, description string, def models.PlanDefinition) (*models.CommissionPlan, error)
	UpdateCommissionPlan(ctx context.Context, id, name, description string, def models.PlanDefinition) (*models.CommissionPlan, error)
	ArchiveCommissionPlan(ctx context.Context, id string) (*models.CommissionPlan, error)
	ListCommissionPlans(ctx context.Context, status string, pg models.Page) ([]models.CommissionPlan, string, error)
	CommissionPlan(ctx context.Context, id string) (*models.CommissionPlan, error)
	CommissionPlanVersions(ctx context.Context, id string) ([]models.CommissionPlanVersion, error)
	PreviewCommissions(ctx context.Context, e models.Event) ([]models.PlanPreview, error)
}

// commissions is the commission plan store as the caller sees it.
func (s *Server) commissions(ctx context.Context) CommissionStore {
	return s.deps.Modules.Commissions(models.PrincipalFrom(ctx))
}

// PayloadMatch demands that a payload field equals a JSON scalar.
type PayloadMatch struct {
	Path  string     `json:"path" minLength:"1" maxLength:"200" doc:"Dotted payload path, e.g. plan or invoice.region"`
	Value JSONScalar `json:"value" doc:"Any JSON scalar: a string, number, boolean or null; numbers compare by value"`
}

// PlanConditions narrow the events a plan accrues on; absent conditions match everything.
type PlanConditions struct {
	PartnerLevels []string       `json:"partnerLevels,omitempty" maxItems:"50" maxLength:"64" doc:"The partner must be at one of these levels (by name)"`
	PartnerTypes  []string       `json:"partnerTypes,omitempty" maxItems:"10" maxLength:"32" doc:"The partner must be of one of these types" example:"[\"reseller\"]"`
	MinAmount     *int64         `json:"minAmount,omitempty" minimum:"-1000000000000000" maximum:"1000000000000000" doc:"The source amount must be at least this, in minor units"`
	MaxAmount     *int64         `json:"maxAmount,omitempty" minimum:"-1000000000000000" maximum:"1000000000000000" doc:"The source amount must be at most this, in minor units"`
	PayloadEquals []PayloadMatch `json:"payloadEquals,omitempty" maxItems:"20" doc:"Payload fields that must equal the given values"`
}

// PlanTier is one step of a tiered calculation.
type PlanTier struct {
	FromVolume int64 `json:"fromVolume" minimum:"0" maximum:"1000000000000000" doc:"The partner's volume in the period, in minor units, from which this tier's rate applies; the first tier starts at 0"`
	RateBps    int64 `json:"rateBps" minimum:"1" maximum:"10000" doc:"Basis points: 1000 is 10 %"`
}

// PlanCalculation says how an accrual follows from the source amount.
type PlanCalculation struct {
	Kind       string     `json:"kind" enum:"percentage,flat,tiered" doc:"percentage: rateBps of the source amount; flat: flatAmount per event; tiered: the rate of the tier the partner's period volume reaches"`
	RateBps    int64      `json:"rateBps,omitempty" minimum:"0" maximum:"10000" doc:"For percentage: basis points, 1000 is 10 %"`
	FlatAmount int64      `json:"flatAmount,omitempty" minimum:"0" maximum:"1000000000000000" doc:"For flat: the accrual in minor units of the source currency"`
	Tiers      []PlanTier `json:"tiers,omitempty" maxItems:"20" doc:"For tiered: ascending by fromVolume"`
	TierPeriod string     `json:"tierPeriod,omitempty" enum:"month,quarter,year" doc:"For tiered: the period over which the partner's volume is summed"`
}

// PlanDefinition is what a plan version says: when it applies and how much it accrues.
type PlanDefinition struct {
	Trigger          string          `json:"trigger" minLength:"3" maxLength:"128" doc:"The event type that accrues, e.g. deal.won or invoice.paid" example:"deal.won"`
	AmountPath       string          `json:"amountPath,omitempty" maxLength:"200" doc:"Payload path of the source amount in minor units (deal.won: amountMinor)"`
	CurrencyPath     string          `json:"currencyPath,omitempty" maxLength:"200" doc:"Payload path of the source currency (default currency)"`
	Currency         string          `json:"currency,omitempty" maxLength:"3" pattern:"^[A-Z]{3}$" doc:"ISO 4217 code used when the source carries no currency"`
	ReferencePath    string          `json:"referencePath,omitempty" maxLength:"200" doc:"Payload path naming the source's business object (deal.won: dealId); a clawback event with the same reference reverses the accrual"`
	ClawbackTrigger  string          `json:"clawbackTrigger,omitempty" maxLength:"128" doc:"The event type that reverses earlier accruals of the plan, e.g. invoice.refunded"`
	Conditions       PlanConditions  `json:"conditions,omitempty"`
	Calculation      PlanCalculation `json:"calculation"`
	RecurrenceMonths int             `json:"recurrenceMonths,omitempty" minimum:"0" maximum:"600" doc:"Accrue for one customer only this many months after its first accrual under the plan; 0 is no limit"`
	HoldingDays      int             `json:"holdingDays" minimum:"0" maximum:"3650" doc:"Days an accrual stays pending before it becomes available"`
}

func (d PlanDefinition) model() models.PlanDefinition {
	c := d.Conditions
	out := models.PlanDefinition{
		Trigger: d.Trigger, AmountPath: d.AmountPath, CurrencyPath: d.CurrencyPath, Currency: d.Currency,
		ReferencePath: d.ReferencePath, ClawbackTrigger: d.ClawbackTrigger, RecurrenceMonths: d.RecurrenceMonths, HoldingDays: d.HoldingDays,
		Conditions: models.PlanConditions{PartnerLevels: c.PartnerLevels, PartnerTypes: c.PartnerTypes, MinAmount: c.MinAmount, MaxAmount: c.MaxAmount},
		Calculation: models.PlanCalculation{Kind: d.Calculation.Kind, RateBps: d.Calculation.RateBps, FlatAmount: d.Calculation.FlatAmount,
			TierPeriod: d.Calculation.TierPeriod},
	}
	for _, pe := range c.PayloadEquals {
		out.Conditions.PayloadEquals = append(out.Conditions.PayloadEquals, models.PayloadEquals{Path: pe.Path, Value: json.RawMessage(pe.Value)})
	}
	for _, t := range d.Calculation.Tiers {
		out.Calculation.Tiers = append(out.Calculation.Tiers, models.PlanTier{FromVolume: t.FromVolume, RateBps: t.RateBps})
	}
	return out
}

func planDefinitionOf(raw string) PlanDefinition {
	var d models.PlanDefinition
	_ = json.Unmarshal([]byte(raw), &d)
	c := d.Conditions
	out := PlanDefinition{
		Trigger: d.Trigger, AmountPath: d.AmountPath, CurrencyPath: d.CurrencyPath, Currency: d.Currency,
		ReferencePath: d.ReferencePath, ClawbackTrigger: d.ClawbackTrigger, RecurrenceMonths: d.RecurrenceMonths, HoldingDays: d.HoldingDays,
		Conditions: PlanConditions{PartnerLevels: c.PartnerLevels, PartnerTypes: c.PartnerTypes, MinAmount: c.MinAmount, MaxAmount: c.MaxAmount},
		Calculation: PlanCalculation{Kind: d.Calculation.Kind, RateBps: d.Calculation.RateBps, FlatAmount: d.Calculation.FlatAmount,
			TierPeriod: d.Calculation.TierPeriod},
	}
	for _, pe := range c.PayloadEquals {
		out.Conditions.PayloadEquals = append(out.Conditions.PayloadEquals, PayloadMatch{Path: pe.Path, Value: JSONScalar(pe.Value)})
	}
	for _, t := range d.Calculation.Tiers {
		out.Calculation.Tiers = append(out.Calculation.Tiers, PlanTier{FromVolume: t.FromVolume, RateBps: t.RateBps})
	}
	return out
}

// CommissionPlan is a commission plan as the API shows it: its current version.
type CommissionPlan struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Status      string         `json:"status" enum:"active,archived" doc:"Only active plans accrue"`
	Version     int            `json:"version" doc:"The current version; every change makes a new one"`
	Definition  PlanDefinition `json:"definition"`
	CreatedBy   string         `json:"createdBy,omitempty" doc:"Who made the current version"`
	CreatedAt   time.Time      `json:"createdAt"`
	UpdatedAt   time.Time      `json:"updatedAt"`
}

func commissionPlanOf(p *models.CommissionPlan) CommissionPlan {
	return CommissionPlan{ID: p.ID, Name: p.Name, Description: p.Description, Status: p.Status, Version: p.Version,
		Definition: planDefinitionOf(p.Definition), CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// CommissionPlanVersion is one immutable version of a plan.
type CommissionPlanVersion struct {
	PlanID     string         `json:"planId"`
	Version    int            `json:"version"`
	Name       string         `json:"name"`
	Definition PlanDefinition `json:"definition"`
	CreatedBy  string         `json:"createdBy,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
}

func planVersionOf(v *models.CommissionPlanVersion) CommissionPlanVersion {
	return CommissionPlanVersion{PlanID: v.PlanID, Version: v.Version, Name: v.Name, Definition: planDefinitionOf(v.Definition),
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt}
}

// PlanPreview is what one active plan would do with a sample event.
type PlanPreview struct {
	PlanID       string     `json:"planId"`
	PlanName     string     `json:"planName"`
	PlanVersion  int        `json:"planVersion"`
	Match        bool       `json:"match" doc:"Whether the plan would accrue"`
	Reason       string     `json:"reason,omitempty" doc:"Why the plan would not accrue"`
	SourceAmount int64      `json:"sourceAmount" doc:"The source amount read from the payload, in minor units"`
	Currency     string     `json:"currency,omitempty"`
	RateBps      int64      `json:"rateBps" doc:"The rate applied, in basis points (0 for flat amounts)"`
	Amount       int64      `json:"amount" doc:"The accrual in minor units of currency"`
	AvailableAt  *time.Time `json:"availableAt,omitempty" doc:"When the accrual would become available"`
}

func planPreviewOf(p *models.PlanPreview) PlanPreview {
	q := p.Quote
	out := PlanPreview{PlanID: p.Plan.ID, PlanName: p.Plan.Name, PlanVersion: p.Plan.Version, Match: q.Match, Reason: q.Reason,
		SourceAmount: q.SourceAmount, Currency: q.Currency, RateBps: q.RateBps, Amount: q.Amount}
	if q.Match {
		at := q.AvailableAt
		out.AvailableAt = &at
	}
	return out
}

// CommissionPlanBody is a plan's name, description and definition.
type CommissionPlanBody struct {
	Name        string         `json:"name" minLength:"1" maxLength:"200"`
	Description string         `json:"description,omitempty" maxLength:"2000"`
	Definition  PlanDefinition `json:"definition"`
}

// CreateCommissionPlanInput adds a plan.
type CreateCommissionPlanInput struct {
	Body CommissionPlanBody
}

// UpdateCommissionPlanInput replaces a plan's definition with a new version.
type UpdateCommissionPlanInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body CommissionPlanBody
}

// ListCommissionPlansInput filters plans.
type ListCommissionPlansInput struct {
	ListParams
	Status string `query:"status" enum:"active,archived" doc:"Only plans in this status"`
}

// PlanVersionsInput pages a plan's versions.
type PlanVersionsInput struct {
	ListParams
	ID string `path:"id" maxLength:"36"`
}

// PreviewCommissionsInput is a sample event to try the active plans on.
type PreviewCommissionsInput struct {
	Body struct {
		Type       string     `json:"type" minLength:"3" maxLength:"128" pattern:"^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$" doc:"The event type, e.g. deal.won" example:"deal.won"`
		Payload    JSONObject `json:"payload" doc:"The event's payload; numbers are kept exactly"`
		PartnerID  string     `json:"partnerId,omitempty" maxLength:"36" doc:"The partner the event is attributed to; without one no plan matches"`
		CustomerID string     `json:"customerId,omitempty" maxLength:"36" doc:"The customer, for recurrence limits"`
		OccurredAt *time.Time `json:"occurredAt,omitempty" doc:"When the event happened (RFC 3339); default now"`
	}
}

// CommissionPlanOutput is one plan.
type CommissionPlanOutput struct{ Body CommissionPlan }

// CommissionPlanListOutput is a page of plans.
type CommissionPlanListOutput struct{ Body ListBody[CommissionPlan] }

// PlanVersionListOutput is a page of a plan's versions, oldest first.
type PlanVersionListOutput struct {
	Body ListBody[CommissionPlanVersion]
}

// PlanPreviewOutput lists what every active plan triggered by the event's type would do.
type PlanPreviewOutput struct {
	Body struct {
		Data []PlanPreview `json:"data" nullable:"false"`
	}
}

func registerCommissionRoutes(s *Server) {
	tags := []string{tagCommissions}
	register(s, huma.Operation{OperationID: "list-commission-plans", Method: http.MethodGet, Path: "/api/commission-plans", Tags: tags,
		Summary: "List commission plans", Description: "Operators only.", Security: UsersOrKeys},
		Requires(authz.CommissionsRead), s.listCommissionPlans)
	register(s, huma.Operation{OperationID: "create-commission-plan", Method: http.MethodPost, Path: "/api/commission-plans", Tags: tags,
		RequestBody: requestExample(`{"name": "Reseller deals", "description": "10 % of won deals, 15 % past 50 000.00 a quarter", "definition": {"trigger": "deal.won", "amountPath": "amountMinor", "currencyPath": "currency", "referencePath": "dealId", "clawbackTrigger": "deal.reopened", "holdingDays": 30, "calculation": {"kind": "tiered", "tierPeriod": "quarter", "tiers": [{"fromVolume": 0, "rateBps": 1000}, {"fromVolume": 5000000, "rateBps": 1500}]}, "conditions": {"partnerTypes": ["reseller", "agency"], "minAmount": 100000}}}`),
		Summary:     "Create a commission plan",
		Description: "The plan is active at version 1. Amounts are integers in minor units; percentages are basis points and round half away from zero.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusUnprocessableEntity}},
		Requires(authz.CommissionsWrite), s.createCommissionPlan)
	register(s, huma.Operation{OperationID: "preview-commissions", Method: http.MethodPost, Path: "/api/commission-plans/preview", Tags: tags,
		RequestBody: requestExample(`{"type": "deal.won", "partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "customerId": "01936f3b-2c3d-7e4f-9a5b-6c7d8e9f0a1b", "occurredAt": "2026-11-20T14:05:00Z", "payload": {"dealId": "01936f3b-5f6a-7b7c-8d8e-9f0a1b2c3d4e", "amountMinor": 2500000, "currency": "EUR"}}`),
		Summary:     "Try the active plans on a sample event",
		Description: "Shows which active plans the event's type triggers, whether each matches and what it would accrue. Tier volumes and recurrence windows come from the partner's real accruals. Nothing is booked.",
		Security:    UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}},
		Requires(authz.CommissionsRead), s.previewCommissions)
	register(s, huma.Operation{OperationID: "get-commission-plan", Method: http.MethodGet, Path: "/api/commission-plans/{id}", Tags: tags,
		Summary: "Get a commission plan", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.CommissionsRead), s.getCommissionPlan)
	register(s, huma.Operation{OperationID: "update-commission-plan", Method: http.MethodPut, Path: "/api/commission-plans/{id}", Tags: tags,
		RequestBody: requestExample(`{"name": "Reseller deals", "description": "10 % of won deals, 15 % past 50 000.00 a quarter", "definition": {"trigger": "deal.won", "amountPath": "amountMinor", "currencyPath": "currency", "referencePath": "dealId", "clawbackTrigger": "deal.reopened", "holdingDays": 30, "calculation": {"kind": "tiered", "tierPeriod": "quarter", "tiers": [{"fromVolume": 0, "rateBps": 1000}, {"fromVolume": 5000000, "rateBps": 1500}]}, "conditions": {"partnerTypes": ["reseller", "agency"], "minAmount": 100000}}}`),
		Summary:     "Change a commission plan",
		Description: "Makes a new version; accruals already booked keep the version that computed them. Archived plans answer 409 COMMISSION_PLAN_ARCHIVED.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.CommissionsWrite), s.updateCommissionPlan)
	register(s, huma.Operation{OperationID: "archive-commission-plan", Method: http.MethodPost, Path: "/api/commission-plans/{id}/archive", Tags: tags,
		Summary: "Archive a commission plan", Description: "The plan stops accruing; its accruals stay. Archiving an archived plan changes nothing.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.CommissionsWrite), s.archiveCommissionPlan)
	register(s, huma.Operation{OperationID: "list-commission-plan-versions", Method: http.MethodGet, Path: "/api/commission-plans/{id}/versions", Tags: tags,
		Summary: "List a commission plan's versions, oldest first", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.CommissionsRead), s.listCommissionPlanVersions)
}

// commissionPlanOutput answers with the plan p, or with err when there is one.
func commissionPlanOutput(p *models.CommissionPlan, err error) (*CommissionPlanOutput, error) {
	if err != nil {
		return nil, err
	}
	return &CommissionPlanOutput{Body: commissionPlanOf(p)}, nil
}

// listCommissionPlans lists commission plans.
func (s *Server) listCommissionPlans(ctx context.Context, in *ListCommissionPlansInput) (*CommissionPlanListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.CommissionPlan, string, error) {
		return s.commissions(ctx).ListCommissionPlans(ctx, in.Status, pg)
	}, commissionPlanOf)
	return &CommissionPlanListOutput{Body: body}, err
}

// createCommissionPlan creates a commission plan at version 1.
func (s *Server) createCommissionPlan(ctx context.Context, in *CreateCommissionPlanInput) (*CommissionPlanOutput, error) {
	b := in.Body
	return commissionPlanOutput(s.commissions(ctx).CreateCommissionPlan(ctx, b.Name, b.Description, b.Definition.model()))
}

// previewCommissions shows what the active plans would accrue on a sample event, booking nothing.
func (s *Server) previewCommissions(ctx context.Context, in *PreviewCommissionsInput) (*PlanPreviewOutput, error) {
	b := in.Body
	now := time.Now().UTC()
	e := models.Event{ID: models.NewID(), TenantID: models.PrincipalFrom(ctx).TenantID, Type: b.Type, Source: models.EventSourceIngest,
		Payload: string(b.Payload), OccurredAt: now, ReceivedAt: now, PartnerID: nonEmpty(b.PartnerID), CustomerID: nonEmpty(b.CustomerID)}
	if len(b.Payload) == 0 {
		e.Payload = "{}"
	}
	if b.OccurredAt != nil {
		e.OccurredAt = b.OccurredAt.UTC()
	}
	previews, err := s.commissions(ctx).PreviewCommissions(ctx, e)
	if err != nil {
		return nil, err
	}
	out := &PlanPreviewOutput{}
	out.Body.Data = make([]PlanPreview, 0, len(previews))
	for i := range previews {
		out.Body.Data = append(out.Body.Data, planPreviewOf(&previews[i]))
	}
	return out, nil
}

// getCommissionPlan answers one commission plan.
func (s *Server) getCommissionPlan(ctx context.Context, in *IDPath) (*CommissionPlanOutput, error) {
	return commissionPlanOutput(s.commissions(ctx).CommissionPlan(ctx, in.ID))
}

// updateCommissionPlan changes a commission plan as a new version.
func (s *Server) updateCommissionPlan(ctx context.Context, in *UpdateCommissionPlanInput) (*CommissionPlanOutput, error) {
	b := in.Body
	return commissionPlanOutput(s.commissions(ctx).UpdateCommissionPlan(ctx, in.ID, b.Name, b.Description, b.Definition.model()))
}

// archiveCommissionPlan archives a commission plan, which then stops accruing.
func (s *Server) archiveCommissionPlan(ctx context.Context, in *IDPath) (*CommissionPlanOutput, error) {
	return commissionPlanOutput(s.commissions(ctx).ArchiveCommissionPlan(ctx, in.ID))
}

// listCommissionPlanVersions lists a commission plan's versions, oldest first.
func (s *Server) listCommissionPlanVersions(ctx context.Context, in *PlanVersionsInput) (*PlanVersionListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.CommissionPlanVersion, string, error) {
		vs, err := s.commissions(ctx).CommissionPlanVersions(ctx, in.ID)
		if err != nil {
			return nil, "", err
		}
		return pageByVersion(vs, pg, func(v models.CommissionPlanVersion) int { return v.Version })
	}, planVersionOf)
	return &PlanVersionListOutput{Body: body}, err
}
