package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// DealStore is what the pipeline and deal operations need of storage, as the caller sees it.
type DealStore interface {
	CreatePipeline(ctx context.Context, name string, isDefault bool, stages []models.NewStage) (*models.Pipeline, error)
	ListPipelines(ctx context.Context, pg models.Page) ([]models.Pipeline, string, error)
	Pipeline(ctx context.Context, id string) (*models.Pipeline, error)
	RegisterDeal(ctx context.Context, d *models.Deal) error
	ListDeals(ctx context.Context, f models.DealFilter, pg models.Page) ([]models.Deal, string, error)
	Deal(ctx context.Context, id string) (*models.Deal, error)
	UpdateDeal(ctx context.Context, id string, ch models.DealChanges) (*models.Deal, error)
	MoveDeal(ctx context.Context, id string, m models.DealMove) (*models.Deal, error)
	ApproveDeal(ctx context.Context, id, ownerUserID string) (*models.Deal, error)
	RejectDeal(ctx context.Context, id, reason string) (*models.Deal, error)
	DealConflicts(ctx context.Context, id string) ([]models.DealConflict, error)
	ResolveDealConflicts(ctx context.Context, id, resolution string) (*models.Deal, error)
	AssignDealOwner(ctx context.Context, id, userID string) (*models.Deal, error)
	RequestDealExtension(ctx context.Context, id, reason string) (*models.Deal, error)
	ExtendDeal(ctx context.Context, id string, days int) (*models.Deal, error)
	AddDealNote(ctx context.Context, id, body string) (*models.DealNote, error)
	DealTimeline(ctx context.Context, id string, pg models.Page) ([]models.DealTimelineItem, string, error)
}

// deals is the pipeline and deal store as the caller sees it.
func (s *Server) deals(ctx context.Context) DealStore {
	return s.deps.Modules.Deals(models.PrincipalFrom(ctx))
}

// Stage is a step of a pipeline.
type Stage struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Position    int    `json:"position"`
	Outcome     string `json:"outcome" enum:"open,won,lost"`
	Probability int    `json:"probability" doc:"Chance in percent that a deal in this stage is won"`
}

// Pipeline is an ordered set of stages.
type Pipeline struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	IsDefault bool      `json:"isDefault" doc:"New registrations start in this pipeline's first open stage"`
	Stages    []Stage   `json:"stages" nullable:"false"`
	CreatedAt time.Time `json:"createdAt"`
}

func pipelineOf(p *models.Pipeline) Pipeline {
	out := Pipeline{ID: p.ID, Name: p.Name, IsDefault: p.IsDefault, CreatedAt: p.CreatedAt, Stages: make([]Stage, 0, len(p.Stages))}
	for _, s := range p.Stages {
		out.Stages = append(out.Stages, Stage{ID: s.ID, Name: s.Name, Position: s.Position, Outcome: s.Outcome, Probability: s.Probability})
	}
	return out
}

// Deal is a registered deal as the API shows it.
type Deal struct {
	ID                   string     `json:"id"`
	PartnerID            string     `json:"partnerId"`
	PipelineID           string     `json:"pipelineId"`
	StageID              string     `json:"stageId"`
	Status               string     `json:"status" enum:"submitted,approved,rejected,won,lost,expired"`
	CustomerCompany      string     `json:"customerCompany"`
	CustomerDomain       string     `json:"customerDomain,omitempty"`
	ContactName          string     `json:"contactName,omitempty"`
	ContactEmail         string     `json:"contactEmail,omitempty"`
	AmountMinor          int64      `json:"amountMinor" doc:"The deal's value in minor units of currency"`
	Currency             string     `json:"currency"`
	ExpectedCloseDate    string     `json:"expectedCloseDate,omitempty" format:"date"`
	Notes                string     `json:"notes,omitempty"`
	OwnerUserID          string     `json:"ownerUserId,omitempty" doc:"The operator user responsible for the deal"`
	ReviewRequired       bool       `json:"reviewRequired" doc:"The registration overlaps other work and waits for an operator's review"`
	ConflictStatus       string     `json:"conflictStatus" enum:"none,review,resolved"`
	Reason               string     `json:"reason,omitempty" doc:"Why it was rejected or lost"`
	ProtectedUntil       *time.Time `json:"protectedUntil,omitempty" doc:"An approved deal expires then unless it progresses or is extended"`
	ExtensionRequestedAt *time.Time `json:"extensionRequestedAt,omitempty"`
	ExtensionReason      string     `json:"extensionReason,omitempty"`
	CustomerID           string     `json:"customerId,omitempty" doc:"The customer a won deal created or linked"`
	CreatedAt            time.Time  `json:"createdAt"`
	UpdatedAt            time.Time  `json:"updatedAt"`
	ClosedAt             *time.Time `json:"closedAt,omitempty"`
}

func dealOf(d *models.Deal) Deal {
	return Deal{ID: d.ID, PartnerID: d.PartnerID, PipelineID: d.PipelineID, StageID: d.StageID, Status: d.Status,
		CustomerCompany: d.CustomerCompany, CustomerDomain: d.CustomerDomain, ContactName: d.ContactName, ContactEmail: d.ContactEmail,
		AmountMinor: d.AmountMinor, Currency: d.Currency, ExpectedCloseDate: str(d.ExpectedCloseDate), Notes: d.Notes,
		OwnerUserID: str(d.OwnerUserID), ReviewRequired: d.ConflictStatus == models.ConflictReview, ConflictStatus: d.ConflictStatus,
		Reason: d.Reason, ProtectedUntil: d.ProtectedUntil, ExtensionRequestedAt: d.ExtensionRequestedAt, ExtensionReason: d.ExtensionReason,
		CustomerID: str(d.CustomerID), CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, ClosedAt: d.ClosedAt}
}

// DealConflict is an overlap an operator reviews.
type DealConflict struct {
	ID             string    `json:"id"`
	Kind           string    `json:"kind" enum:"domain,contact_email,customer"`
	OtherDealID    string    `json:"otherDealId,omitempty"`
	OtherPartnerID string    `json:"otherPartnerId,omitempty"`
	CustomerID     string    `json:"customerId,omitempty"`
	Explanation    string    `json:"explanation"`
	CreatedAt      time.Time `json:"createdAt"`
}

// TimelineEntry is an event or a note on a deal's timeline.
type TimelineEntry struct {
	ID       string      `json:"id"`
	Kind     string      `json:"kind" enum:"event,note"`
	Type     string      `json:"type,omitempty" doc:"The event's type"`
	Payload  *JSONObject `json:"payload,omitempty" doc:"The event's payload"`
	Body     string      `json:"body,omitempty" doc:"The note's text"`
	AuthorID string      `json:"authorId,omitempty" doc:"Who caused the event or wrote the note"`
	At       time.Time   `json:"at"`
}

func timelineOf(it *models.DealTimelineItem) TimelineEntry {
	if it.Event != nil {
		p := JSONObject(it.Event.Payload)
		return TimelineEntry{ID: it.Event.ID, Kind: "event", Type: it.Event.Type, Payload: &p, AuthorID: it.Event.ActorID, At: it.Event.OccurredAt}
	}
	return TimelineEntry{ID: it.Note.ID, Kind: "note", Body: it.Note.Body, AuthorID: it.Note.AuthorID, At: it.Note.CreatedAt}
}

// StageInput is one stage of a new pipeline.
type StageInput struct {
	Name        string `json:"name" minLength:"1" maxLength:"200"`
	Outcome     string `json:"outcome" enum:"open,won,lost"`
	Probability int    `json:"probability" minimum:"0" maximum:"100"`
}

// CreatePipelineInput adds a pipeline.
type CreatePipelineInput struct {
	Body struct {
		Name      string       `json:"name" minLength:"1" maxLength:"200"`
		IsDefault bool         `json:"isDefault,omitempty" doc:"Make it the pipeline new registrations use"`
		Stages    []StageInput `json:"stages" minItems:"3" maxItems:"30" doc:"In order; at least one open, one won and one lost stage"`
	}
}

// RegisterDealInput registers a deal.
type RegisterDealInput struct {
	Body struct {
		PartnerID         string `json:"partnerId,omitempty" maxLength:"36" doc:"Operators register for this partner; partners always register for themselves"`
		CustomerCompany   string `json:"customerCompany" minLength:"1" maxLength:"200"`
		CustomerDomain    string `json:"customerDomain,omitempty" maxLength:"253" doc:"The customer's web domain, e.g. initech.com; used to find conflicting registrations"`
		ContactName       string `json:"contactName,omitempty" maxLength:"200"`
		ContactEmail      string `json:"contactEmail,omitempty" format:"email" maxLength:"320"`
		AmountMinor       int64  `json:"amountMinor" minimum:"0" maximum:"1000000000000000" doc:"The deal's value in minor units (cents)"`
		Currency          string `json:"currency" maxLength:"3" pattern:"^[A-Z]{3}$" doc:"ISO 4217 code" example:"EUR"`
		ExpectedCloseDate string `json:"expectedCloseDate,omitempty" format:"date"`
		Notes             string `json:"notes,omitempty" maxLength:"5000"`
	}
}

// UpdateDealInput changes an open deal's details; absent fields stay.
type UpdateDealInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		CustomerCompany   *string `json:"customerCompany,omitempty" minLength:"1" maxLength:"200"`
		ContactName       *string `json:"contactName,omitempty" maxLength:"200"`
		ContactEmail      *string `json:"contactEmail,omitempty" maxLength:"320"`
		AmountMinor       *int64  `json:"amountMinor,omitempty" minimum:"0" maximum:"1000000000000000"`
		Currency          *string `json:"currency,omitempty" maxLength:"3" pattern:"^[A-Z]{3}$"`
		ExpectedCloseDate *string `json:"expectedCloseDate,omitempty" maxLength:"10" pattern:"^(\\d{4}-\\d{2}-\\d{2})?$" doc:"YYYY-MM-DD, or \"\" to clear"`
		Notes             *string `json:"notes,omitempty" maxLength:"5000"`
	}
}

// ListDealsInput filters deals (operators; partners see only their own whatever they pass).
type ListDealsInput struct {
	ListParams
	PartnerID   string    `query:"partnerId" maxLength:"36"`
	Level       string    `query:"level" maxLength:"64" doc:"Only deals of partners at this level"`
	StageID     string    `query:"stageId" maxLength:"36"`
	Status      string    `query:"status" enum:"submitted,approved,rejected,won,lost,expired"`
	OwnerUserID string    `query:"ownerUserId" maxLength:"36"`
	Currency    string    `query:"currency" maxLength:"3" pattern:"^[A-Z]{3}$"`
	From        time.Time `query:"from" doc:"Registered at or after (RFC 3339)"`
	To          time.Time `query:"to" doc:"Registered before (RFC 3339)"`
	MinAmount   int64     `query:"minAmount" minimum:"0" maximum:"1000000000000000" doc:"Amount in minor units at least this"`
	MaxAmount   int64     `query:"maxAmount" minimum:"0" maximum:"1000000000000000" doc:"Amount in minor units at most this (0: no bound)"`
	Q           string    `query:"q" maxLength:"200" doc:"Text in the customer's company or the contact's name or email, case-insensitively" example:"acme"`
}

// MoveDealInput moves a deal to a stage.
type MoveDealInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		StageID string `json:"stageId" minLength:"1" maxLength:"36"`
		Reason  string `json:"reason,omitempty" maxLength:"1000" doc:"Required when the stage is a lost stage"`
	}
}

// ApproveDealInput approves a registration.
type ApproveDealInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		OwnerUserID string `json:"ownerUserId,omitempty" maxLength:"36" doc:"Make this operator user responsible for the deal"`
	}
}

// ReasonInput carries a reason for a decision on a deal.
type ReasonInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Reason string `json:"reason" minLength:"1" maxLength:"1000"`
	}
}

// ResolveConflictsInput records how an operator settled a registration's conflicts.
type ResolveConflictsInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Resolution string `json:"resolution" minLength:"1" maxLength:"1000" doc:"What was decided and why; goes on the deal's timeline"`
	}
}

// AssignOwnerInput makes an operator user responsible for a deal.
type AssignOwnerInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		UserID string `json:"userId" minLength:"1" maxLength:"36"`
	}
}

// ExtendDealInput lengthens a deal's protection.
type ExtendDealInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Days int `json:"days" minimum:"1" maximum:"365" doc:"Added to the current end of protection (or to now, if that passed)"`
	}
}

// AddNoteInput adds a note to a deal.
type AddNoteInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Body string `json:"body" minLength:"1" maxLength:"5000"`
	}
}

// TimelineInput pages a deal's timeline.
type TimelineInput struct {
	ListParams
	ID string `path:"id" maxLength:"36"`
}

// DealOutput is one deal.
type DealOutput struct{ Body Deal }

// DealListOutput is a page of deals.
type DealListOutput struct{ Body ListBody[Deal] }

// PipelineOutput is one pipeline.
type PipelineOutput struct{ Body Pipeline }

// PipelineListOutput is a page of pipelines.
type PipelineListOutput struct{ Body ListBody[Pipeline] }

// DealConflictsOutput lists a registration's conflicts.
type DealConflictsOutput struct {
	Body struct {
		Data []DealConflict `json:"data" nullable:"false"`
	}
}

// TimelineOutput is a page of a deal's timeline.
type TimelineOutput struct{ Body ListBody[TimelineEntry] }

// NoteOutput is the note added.
type NoteOutput struct{ Body TimelineEntry }

func registerDealRoutes(s *Server) {
	pipelines, deals := []string{"Pipelines"}, []string{"Deals"}
	register(s, huma.Operation{OperationID: "list-pipelines", Method: http.MethodGet, Path: "/api/pipelines", Tags: pipelines,
		Summary: "List pipelines with their stages", Security: UsersOrKeys}, Requires(authz.PipelinesRead), s.listPipelines)
	register(s, huma.Operation{OperationID: "get-pipeline", Method: http.MethodGet, Path: "/api/pipelines/{id}", Tags: pipelines,
		Summary: "Get a pipeline", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.PipelinesRead), s.getPipeline)
	register(s, huma.Operation{OperationID: "create-pipeline", Method: http.MethodPost, Path: "/api/pipelines", Tags: pipelines,
		RequestBody: requestExample(`{"name": "Enterprise", "isDefault": false, "stages": [{"name": "Qualified", "outcome": "open", "probability": 20}, {"name": "Proposal", "outcome": "open", "probability": 60}, {"name": "Won", "outcome": "won", "probability": 100}, {"name": "Lost", "outcome": "lost", "probability": 0}]}`),
		Summary:     "Create a pipeline", DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}},
		Requires(authz.PipelinesWrite), s.createPipeline)

	register(s, huma.Operation{OperationID: "register-deal", Method: http.MethodPost, Path: "/api/deals", Tags: deals,
		RequestBody: requestExample(`{"partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "customerCompany": "Initech", "customerDomain": "initech.example", "contactName": "Bill Lumbergh", "contactEmail": "bill@initech.example", "amountMinor": 2500000, "currency": "EUR", "expectedCloseDate": "2027-02-15", "notes": "Replacing their legacy TPS system."}`),
		Summary:     "Register a deal", Description: "The registration starts in the default pipeline's first stage. When it overlaps another partner's open deal or customer, it waits for an operator's review (reviewRequired); the partner never sees the other partner's data. A partner that has not accepted a required agreement version in force is refused with 403 AGREEMENT_REQUIRED naming the agreement and version.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusForbidden, http.StatusUnprocessableEntity}},
		Requires(authz.DealsWrite), s.registerDeal)
	register(s, huma.Operation{OperationID: "list-deals", Method: http.MethodGet, Path: "/api/deals", Tags: deals,
		Summary: "List deals", Description: "Partners see only their own organisation's deals.", Security: UsersOrKeys},
		Requires(authz.DealsRead), s.listDeals)
	register(s, huma.Operation{OperationID: "get-deal", Method: http.MethodGet, Path: "/api/deals/{id}", Tags: deals,
		Summary: "Get a deal", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.DealsRead), s.getDeal)
	register(s, huma.Operation{OperationID: "update-deal", Method: http.MethodPatch, Path: "/api/deals/{id}", Tags: deals,
		RequestBody: requestExample(`{"amountMinor": 3200000, "expectedCloseDate": "2027-03-01"}`),
		Summary:     "Change a deal's details", Description: "Only while the deal is open; closed deals answer 409 DEAL_CLOSED.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.DealsWrite), s.updateDeal)
	register(s, huma.Operation{OperationID: "move-deal", Method: http.MethodPost, Path: "/api/deals/{id}/move", Tags: deals,
		RequestBody: requestExample(`{"stageId": "01936f3b-1a2b-7c3d-8e4f-5a6b7c8d9e0f"}`),
		Summary:     "Move a deal to a stage", Description: "An approved deal moves between stages of its pipeline. A won stage wins it: the customer (by contact email) is created or linked and attributed to the partner. A lost stage needs a reason. Illegal moves are 409 with a code.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.DealsWrite), s.moveDeal)
	register(s, huma.Operation{OperationID: "approve-deal", Method: http.MethodPost, Path: "/api/deals/{id}/approve", Tags: deals,
		RequestBody: requestExample(`{"ownerUserId": "01936f3a-9d10-7a22-b3c4-5e6f7a8b9c0d"}`),
		Summary:     "Approve a registration", Description: "Protects the deal for the tenant's protection period. A registration under conflict review is approved after its conflicts are resolved.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.DealsApprove), s.approveDeal)
	register(s, huma.Operation{OperationID: "reject-deal", Method: http.MethodPost, Path: "/api/deals/{id}/reject", Tags: deals,
		RequestBody: requestExample(`{"reason": "The customer already works with another partner on this project."}`),
		Summary:     "Reject a registration", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.DealsApprove), s.rejectDeal)
	register(s, huma.Operation{OperationID: "list-deal-conflicts", Method: http.MethodGet, Path: "/api/deals/{id}/conflicts", Tags: deals,
		Summary: "What a registration overlaps", Description: "Other partners' open deals for the same domain or contact, and customers attributed to other partners. Operators only.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.DealsApprove), s.listDealConflicts)
	register(s, huma.Operation{OperationID: "resolve-deal-conflicts", Method: http.MethodPost, Path: "/api/deals/{id}/conflicts/resolve", Tags: deals,
		RequestBody: requestExample(`{"resolution": "Northwind introduced the customer first; the other registration is rejected."}`),
		Summary:     "Settle a registration's conflicts", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.DealsApprove), s.resolveDealConflicts)
	register(s, huma.Operation{OperationID: "assign-deal-owner", Method: http.MethodPost, Path: "/api/deals/{id}/owner", Tags: deals,
		RequestBody: requestExample(`{"userId": "01936f3a-9d10-7a22-b3c4-5e6f7a8b9c0d"}`),
		Summary:     "Make an operator user responsible for a deal", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.DealsApprove), s.assignDealOwner)
	register(s, huma.Operation{OperationID: "request-deal-extension", Method: http.MethodPost, Path: "/api/deals/{id}/extension-request", Tags: deals,
		RequestBody: requestExample(`{"reason": "The customer's board meets again in March."}`),
		Summary:     "Ask for a longer protection", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.DealsWrite), s.requestDealExtension)
	register(s, huma.Operation{OperationID: "extend-deal", Method: http.MethodPost, Path: "/api/deals/{id}/extend", Tags: deals,
		RequestBody: requestExample(`{"days": 30}`),
		Summary:     "Extend a deal's protection", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.DealsApprove), s.extendDeal)
	register(s, huma.Operation{OperationID: "add-deal-note", Method: http.MethodPost, Path: "/api/deals/{id}/notes", Tags: deals,
		RequestBody: requestExample(`{"body": "Demo went well; procurement asked for a security review."}`),
		Summary:     "Add a note to a deal's timeline", DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.DealsWrite), s.addDealNote)
	register(s, huma.Operation{OperationID: "get-deal-timeline", Method: http.MethodGet, Path: "/api/deals/{id}/timeline", Tags: deals,
		Summary: "A deal's events and notes, oldest first", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.DealsRead), s.getDealTimeline)
}

// dealOutput answers with the deal d, or with err when there is one.
func dealOutput(d *models.Deal, err error) (*DealOutput, error) {
	if err != nil {
		return nil, err
	}
	return &DealOutput{Body: dealOf(d)}, nil
}

// listPipelines lists pipelines with their stages.
func (s *Server) listPipelines(ctx context.Context, in *ListParams) (*PipelineListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.Pipeline, string, error) {
		return s.deals(ctx).ListPipelines(ctx, pg)
	}, pipelineOf)
	return &PipelineListOutput{Body: body}, err
}

// getPipeline answers one pipeline with its stages.
func (s *Server) getPipeline(ctx context.Context, in *IDPath) (*PipelineOutput, error) {
	p, err := s.deals(ctx).Pipeline(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &PipelineOutput{Body: pipelineOf(p)}, nil
}

// createPipeline creates a pipeline with its stages.
func (s *Server) createPipeline(ctx context.Context, in *CreatePipelineInput) (*PipelineOutput, error) {
	stages := make([]models.NewStage, len(in.Body.Stages))
	for i, st := range in.Body.Stages {
		stages[i] = models.NewStage{Name: st.Name, Outcome: st.Outcome, Probability: st.Probability}
	}
	p, err := s.deals(ctx).CreatePipeline(ctx, in.Body.Name, in.Body.IsDefault, stages)
	if err != nil {
		return nil, err
	}
	return &PipelineOutput{Body: pipelineOf(p)}, nil
}

// registerDeal registers a partner's deal, which waits for review when it overlaps another partner's.
func (s *Server) registerDeal(ctx context.Context, in *RegisterDealInput) (*DealOutput, error) {
	if err := s.requireAgreements(ctx); err != nil {
		return nil, err
	}
	b := in.Body
	d := &models.Deal{PartnerID: b.PartnerID, CustomerCompany: b.CustomerCompany, CustomerDomain: b.CustomerDomain, ContactName: b.ContactName,
		ContactEmail: b.ContactEmail, AmountMinor: b.AmountMinor, Currency: b.Currency, ExpectedCloseDate: nonEmpty(b.ExpectedCloseDate), Notes: b.Notes}
	return dealOutput(d, s.deals(ctx).RegisterDeal(ctx, d))
}

// listDeals lists deals; partners see their own organisation's.
func (s *Server) listDeals(ctx context.Context, in *ListDealsInput) (*DealListOutput, error) {
	f := models.DealFilter{PartnerID: in.PartnerID, Level: in.Level, StageID: in.StageID, Status: in.Status, OwnerUserID: in.OwnerUserID, Currency: in.Currency, Q: in.Q}
	if !in.From.IsZero() {
		f.CreatedFrom = &in.From
	}
	if !in.To.IsZero() {
		f.CreatedTo = &in.To
	}
	if in.MinAmount > 0 {
		f.MinAmount = &in.MinAmount
	}
	if in.MaxAmount > 0 {
		f.MaxAmount = &in.MaxAmount
	}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Deal, string, error) {
		return s.deals(ctx).ListDeals(ctx, f, pg)
	}, dealOf)
	return &DealListOutput{Body: body}, err
}

// getDeal answers one deal.
func (s *Server) getDeal(ctx context.Context, in *IDPath) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).Deal(ctx, in.ID))
}

// updateDeal changes an open deal's details.
func (s *Server) updateDeal(ctx context.Context, in *UpdateDealInput) (*DealOutput, error) {
	b := in.Body
	return dealOutput(s.deals(ctx).UpdateDeal(ctx, in.ID, models.DealChanges{CustomerCompany: b.CustomerCompany, ContactName: b.ContactName,
		ContactEmail: b.ContactEmail, Notes: b.Notes, ExpectedCloseDate: b.ExpectedCloseDate, AmountMinor: b.AmountMinor, Currency: b.Currency}))
}

// moveDeal moves an approved deal to another stage of its pipeline, winning or losing it there.
func (s *Server) moveDeal(ctx context.Context, in *MoveDealInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).MoveDeal(ctx, in.ID, models.DealMove{StageID: in.Body.StageID, Reason: in.Body.Reason}))
}

// approveDeal approves a registration, which protects the deal.
func (s *Server) approveDeal(ctx context.Context, in *ApproveDealInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).ApproveDeal(ctx, in.ID, in.Body.OwnerUserID))
}

// rejectDeal rejects a registration with a reason.
func (s *Server) rejectDeal(ctx context.Context, in *ReasonInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).RejectDeal(ctx, in.ID, in.Body.Reason))
}

// listDealConflicts lists what a registration overlaps: other partners' open deals and customers.
func (s *Server) listDealConflicts(ctx context.Context, in *IDPath) (*DealConflictsOutput, error) {
	cs, err := s.deals(ctx).DealConflicts(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := &DealConflictsOutput{}
	out.Body.Data = make([]DealConflict, 0, len(cs))
	for _, c := range cs {
		out.Body.Data = append(out.Body.Data, DealConflict{ID: c.ID, Kind: c.Kind, OtherDealID: str(c.OtherDealID),
			OtherPartnerID: str(c.OtherPartnerID), CustomerID: str(c.CustomerID), Explanation: c.Explanation, CreatedAt: c.CreatedAt})
	}
	return out, nil
}

// resolveDealConflicts settles a registration's conflicts.
func (s *Server) resolveDealConflicts(ctx context.Context, in *ResolveConflictsInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).ResolveDealConflicts(ctx, in.ID, in.Body.Resolution))
}

// assignDealOwner makes an operator user responsible for a deal.
func (s *Server) assignDealOwner(ctx context.Context, in *AssignOwnerInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).AssignDealOwner(ctx, in.ID, in.Body.UserID))
}

// requestDealExtension asks for a longer protection of a deal.
func (s *Server) requestDealExtension(ctx context.Context, in *ReasonInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).RequestDealExtension(ctx, in.ID, in.Body.Reason))
}

// extendDeal extends a deal's protection.
func (s *Server) extendDeal(ctx context.Context, in *ExtendDealInput) (*DealOutput, error) {
	return dealOutput(s.deals(ctx).ExtendDeal(ctx, in.ID, in.Body.Days))
}

// addDealNote adds a note to a deal's timeline.
func (s *Server) addDealNote(ctx context.Context, in *AddNoteInput) (*NoteOutput, error) {
	n, err := s.deals(ctx).AddDealNote(ctx, in.ID, in.Body.Body)
	if err != nil {
		return nil, err
	}
	return &NoteOutput{Body: timelineOf(&models.DealTimelineItem{Note: n})}, nil
}

// getDealTimeline lists a deal's events and notes, oldest first.
func (s *Server) getDealTimeline(ctx context.Context, in *TimelineInput) (*TimelineOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.DealTimelineItem, string, error) {
		return s.deals(ctx).DealTimeline(ctx, in.ID, pg)
	}, timelineOf)
	return &TimelineOutput{Body: body}, err
}
