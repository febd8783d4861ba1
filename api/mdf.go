package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// MDFStore is what the market development fund operations need of storage, as the caller sees it.
type MDFStore interface {
	CreateMDFFund(ctx context.Context, n models.NewMDFFund) (*models.MDFFund, error)
	ListMDFFunds(ctx context.Context, f models.MDFFundFilter, pg models.Page) ([]models.MDFFund, string, error)
	MDFFund(ctx context.Context, id string) (*models.MDFFund, error)
	SubmitMDFRequest(ctx context.Context, n models.NewMDFRequest) (*models.MDFRequest, error)
	ResubmitMDFRequest(ctx context.Context, id string, n models.NewMDFRequest) (*models.MDFRequest, error)
	ListMDFRequests(ctx context.Context, f models.MDFRequestFilter, pg models.Page) ([]models.MDFRequest, string, error)
	MDFRequest(ctx context.Context, id string) (*models.MDFRequest, error)
	ApproveMDFRequest(ctx context.Context, id string, amount int64) (*models.MDFRequest, error)
	RejectMDFRequest(ctx context.Context, id, reason string) (*models.MDFRequest, error)
	RequestMDFChanges(ctx context.Context, id, reason string) (*models.MDFRequest, error)
	SubmitMDFClaim(ctx context.Context, n models.NewMDFClaim) (*models.MDFClaim, error)
	ListMDFClaims(ctx context.Context, f models.MDFClaimFilter, pg models.Page) ([]models.MDFClaim, string, error)
	MDFClaim(ctx context.Context, id string) (*models.MDFClaim, error)
	AttachMDFProof(ctx context.Context, claimID string, p models.MDFProof) (*models.MDFClaim, error)
	MDFProof(ctx context.Context, claimID, proofID string) (*models.MDFProof, error)
	ApproveMDFClaim(ctx context.Context, id string) (*models.MDFClaim, error)
	RejectMDFClaim(ctx context.Context, id, reason string) (*models.MDFClaim, error)
	MDFSettings(ctx context.Context) (models.MDFSettings, error)
	SaveMDFSettings(ctx context.Context, fourEyesAbove *int64) (models.MDFSettings, error)
}

// mdf is the MDF store as the caller sees it.
func (s *Server) mdf(ctx context.Context) MDFStore {
	return s.deps.Modules.MDF(models.PrincipalFrom(ctx))
}

// MDFFund is a market development fund as the API shows it.
type MDFFund struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	PartnerID   string     `json:"partnerId,omitempty" doc:"The partner the fund is for"`
	Level       string     `json:"level,omitempty" doc:"The level whose partners draw on the fund"`
	Currency    string     `json:"currency"`
	Allocated   int64      `json:"allocated" doc:"In minor units"`
	Committed   int64      `json:"committed" doc:"Approved requests, in minor units; never more than allocated"`
	Spent       int64      `json:"spent" doc:"Approved claims, in minor units; never more than committed"`
	Released    int64      `json:"released" doc:"What expiry gave back, in minor units"`
	Uncommitted int64      `json:"uncommitted" doc:"What requests can still be approved for, in minor units (0 once expired)"`
	PeriodStart string     `json:"periodStart" format:"date"`
	PeriodEnd   string     `json:"periodEnd" format:"date"`
	ExpiresAt   time.Time  `json:"expiresAt"`
	Status      string     `json:"status" enum:"open,expired"`
	ExpiredAt   *time.Time `json:"expiredAt,omitempty"`
	// InfluencedRevenue and ROIBps are the fund's return.
	InfluencedRevenue int64     `json:"influencedRevenue" doc:"The won revenue, in the fund's currency and minor units, of the deals its approved claims influenced (each deal once; deals in other currencies are left out)"`
	ROIBps            *int64    `json:"roiBps,omitempty" doc:"Influenced won revenue ÷ spend in basis points (10000 = 1×), rounded half away from zero; absent while nothing is spent"`
	CreatedBy         string    `json:"createdBy"`
	CreatedAt         time.Time `json:"createdAt"`
}

func mdfFundOf(f *models.MDFFund) MDFFund {
	out := MDFFund{ID: f.ID, Name: f.Name, PartnerID: str(f.PartnerID), Level: f.Level, Currency: f.Currency, Allocated: f.Allocated,
		Committed: f.Committed, Spent: f.Spent, Released: f.Released, Uncommitted: f.Uncommitted(), PeriodStart: f.PeriodStart, PeriodEnd: f.PeriodEnd,
		ExpiresAt: f.ExpiresAt, Status: f.Status, ExpiredAt: f.ExpiredAt, InfluencedRevenue: f.InfluencedRevenue, CreatedBy: f.CreatedBy, CreatedAt: f.CreatedAt}
	if roi, ok := f.ROIBasisPoints(); ok {
		out.ROIBps = &roi
	}
	return out
}

// MDFRequest is a partner's request for part of a fund.
type MDFRequest struct {
	ID               string     `json:"id"`
	FundID           string     `json:"fundId"`
	PartnerID        string     `json:"partnerId"`
	Activity         string     `json:"activity"`
	Description      string     `json:"description,omitempty"`
	PlannedStart     string     `json:"plannedStart" format:"date"`
	PlannedEnd       string     `json:"plannedEnd" format:"date"`
	Currency         string     `json:"currency" doc:"The fund's"`
	Budget           int64      `json:"budget" doc:"Asked for, in minor units"`
	Approved         int64      `json:"approved" doc:"Committed by the approval (the budget or less), in minor units"`
	Spent            int64      `json:"spent" doc:"Approved claims, in minor units"`
	ExpectedPipeline int64      `json:"expectedPipeline" doc:"In minor units"`
	Status           string     `json:"status" enum:"submitted,changes_requested,approved,rejected,expired"`
	Reason           string     `json:"reason,omitempty" doc:"Why it was rejected, or the changes asked for"`
	SubmittedBy      string     `json:"submittedBy"`
	SubmittedAt      time.Time  `json:"submittedAt"`
	ReviewedBy       string     `json:"reviewedBy,omitempty"`
	ReviewedAt       *time.Time `json:"reviewedAt,omitempty"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
}

func mdfRequestOf(r *models.MDFRequest) MDFRequest {
	return MDFRequest{ID: r.ID, FundID: r.FundID, PartnerID: r.PartnerID, Activity: r.Activity, Description: r.Description, PlannedStart: r.PlannedStart,
		PlannedEnd: r.PlannedEnd, Currency: r.Currency, Budget: r.Budget, Approved: r.Approved, Spent: r.Spent, ExpectedPipeline: r.ExpectedPipeline,
		Status: r.Status, Reason: r.Reason, SubmittedBy: r.SubmittedBy, SubmittedAt: r.SubmittedAt, ReviewedBy: r.ReviewedBy, ReviewedAt: r.ReviewedAt,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// MDFProof is a file proving a claim.
type MDFProof struct {
	ID          string    `json:"id"`
	FileName    string    `json:"fileName"`
	ContentType string    `json:"contentType" doc:"Told from the file's bytes"`
	Size        int64     `json:"size" doc:"In bytes"`
	SHA256      string    `json:"sha256"`
	UploadedBy  string    `json:"uploadedBy"`
	CreatedAt   time.Time `json:"createdAt"`
}

// MDFClaim is a partner's claim for what an activity cost.
type MDFClaim struct {
	ID              string     `json:"id"`
	RequestID       string     `json:"requestId"`
	FundID          string     `json:"fundId"`
	PartnerID       string     `json:"partnerId"`
	Amount          int64      `json:"amount" doc:"In minor units"`
	Currency        string     `json:"currency"`
	Description     string     `json:"description,omitempty"`
	Leads           int64      `json:"leads"`
	DealIDs         []string   `json:"dealIds" nullable:"false" doc:"The partner's deal registrations the activity influenced"`
	Links           []string   `json:"links" nullable:"false" doc:"Proof links"`
	Proofs          []MDFProof `json:"proofs" nullable:"false" doc:"Proof files"`
	Status          string     `json:"status" enum:"submitted,awaiting_second_approval,approved,rejected"`
	Reason          string     `json:"reason,omitempty"`
	SubmittedBy     string     `json:"submittedBy"`
	FirstApprovedBy string     `json:"firstApprovedBy,omitempty" doc:"The first of two approvers of a claim above the tenant's four-eyes amount"`
	ReviewedBy      string     `json:"reviewedBy,omitempty"`
	ReviewedAt      *time.Time `json:"reviewedAt,omitempty"`
	MovementID      string     `json:"movementId,omitempty" doc:"The ledger movement that reimbursed it into the partner's MDF balance"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
}

func mdfClaimOf(c *models.MDFClaim) MDFClaim {
	out := MDFClaim{ID: c.ID, RequestID: c.RequestID, FundID: c.FundID, PartnerID: c.PartnerID, Amount: c.Amount, Currency: c.Currency,
		Description: c.Description, Leads: c.Leads, DealIDs: c.DealIDs, Links: c.LinkList(), Proofs: []MDFProof{}, Status: c.Status, Reason: c.Reason,
		SubmittedBy: c.SubmittedBy, FirstApprovedBy: c.FirstApprovedBy, ReviewedBy: c.ReviewedBy, ReviewedAt: c.ReviewedAt, MovementID: str(c.MovementID),
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	if out.DealIDs == nil {
		out.DealIDs = []string{}
	}
	for _, p := range c.Proofs {
		out.Proofs = append(out.Proofs, MDFProof{ID: p.ID, FileName: p.FileName, ContentType: p.ContentType, Size: p.Size, SHA256: p.SHA256,
			UploadedBy: p.UploadedBy, CreatedAt: p.CreatedAt})
	}
	return out
}

// MDFSettings are the tenant's MDF rules.
type MDFSettings struct {
	FourEyesAbove *int64     `json:"fourEyesAbove,omitempty" minimum:"0" maximum:"1000000000000000" doc:"Claims above this amount (minor units, any currency) need two different approvers; absent: one approver"`
	UpdatedAt     *time.Time `json:"updatedAt,omitempty"`
}

func mdfSettingsOf(st models.MDFSettings) MDFSettings {
	out := MDFSettings{FourEyesAbove: st.FourEyesAbove}
	if !st.UpdatedAt.IsZero() {
		at := st.UpdatedAt
		out.UpdatedAt = &at
	}
	return out
}

// CreateMDFFundInput allocates a fund.
type CreateMDFFundInput struct {
	Body struct {
		Name        string    `json:"name,omitempty" maxLength:"200"`
		PartnerID   string    `json:"partnerId,omitempty" maxLength:"36" doc:"The partner the fund is for; or name a level"`
		Level       string    `json:"level,omitempty" maxLength:"64" doc:"The level whose partners (by their current level) draw on the fund; or name a partner"`
		Currency    string    `json:"currency" maxLength:"3" pattern:"^[A-Z]{3}$" example:"EUR"`
		Amount      int64     `json:"amount" minimum:"1" maximum:"1000000000000000" doc:"The allocation in minor units"`
		PeriodStart string    `json:"periodStart" format:"date"`
		PeriodEnd   string    `json:"periodEnd" format:"date"`
		ExpiresAt   time.Time `json:"expiresAt" doc:"When what no approved request committed is released"`
	}
}

// ListMDFFundsInput filters funds.
type ListMDFFundsInput struct {
	ListParams
	PartnerID string `query:"partnerId" maxLength:"36"`
	Level     string `query:"level" maxLength:"64"`
	Status    string `query:"status" enum:"open,expired"`
	Currency  string `query:"currency" maxLength:"3" pattern:"^[A-Z]{3}$"`
}

// MDFRequestBody is what a partner asks for.
type MDFRequestBody struct {
	FundID           string `json:"fundId,omitempty" maxLength:"36" doc:"The fund to draw on (required when submitting)"`
	PartnerID        string `json:"partnerId,omitempty" maxLength:"36" doc:"Operators request for this partner; partners always for themselves"`
	Activity         string `json:"activity" minLength:"1" maxLength:"200"`
	Description      string `json:"description,omitempty" maxLength:"4000"`
	PlannedStart     string `json:"plannedStart" format:"date"`
	PlannedEnd       string `json:"plannedEnd" format:"date"`
	Budget           int64  `json:"budget" minimum:"1" maximum:"1000000000000000" doc:"In minor units of the fund's currency"`
	ExpectedPipeline int64  `json:"expectedPipeline,omitempty" minimum:"0" maximum:"1000000000000000" doc:"The pipeline the activity should create, in minor units"`
}

func (b MDFRequestBody) model() models.NewMDFRequest {
	return models.NewMDFRequest{FundID: b.FundID, PartnerID: b.PartnerID, Activity: b.Activity, Description: b.Description,
		PlannedStart: b.PlannedStart, PlannedEnd: b.PlannedEnd, Budget: b.Budget, ExpectedPipeline: b.ExpectedPipeline}
}

// SubmitMDFRequestInput submits a request.
type SubmitMDFRequestInput struct {
	Body MDFRequestBody
}

// ResubmitMDFRequestInput submits a request again with the changes asked for.
type ResubmitMDFRequestInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body MDFRequestBody
}

// ListMDFRequestsInput filters requests.
type ListMDFRequestsInput struct {
	ListParams
	FundID    string `query:"fundId" maxLength:"36"`
	PartnerID string `query:"partnerId" maxLength:"36"`
	Status    string `query:"status" enum:"submitted,changes_requested,approved,rejected,expired"`
}

// ApproveMDFRequestInput approves a request, for its budget or less.
type ApproveMDFRequestInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body *struct {
		Amount int64 `json:"amount,omitempty" minimum:"0" maximum:"1000000000000000" doc:"The amount to commit, at most the budget; omitted or 0: the whole budget"`
	}
}

// MDFReasonInput decides on a request or claim with a reason.
type MDFReasonInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Reason string `json:"reason" minLength:"1" maxLength:"1000"`
	}
}

// SubmitMDFClaimInput files a claim.
type SubmitMDFClaimInput struct {
	Body struct {
		RequestID   string   `json:"requestId" minLength:"1" maxLength:"36"`
		Amount      int64    `json:"amount" minimum:"1" maximum:"1000000000000000" doc:"What the activity cost, in minor units of the request's currency"`
		Description string   `json:"description,omitempty" maxLength:"4000"`
		Leads       int64    `json:"leads,omitempty" minimum:"0" maximum:"10000000" doc:"Leads the activity brought"`
		DealIDs     []string `json:"dealIds,omitempty" maxItems:"50" maxLength:"36" doc:"Deal registrations of the partner the activity influenced"`
		Links       []string `json:"links,omitempty" maxItems:"20" maxLength:"2000" doc:"Proof links: absolute http or https URLs"`
	}
}

// ListMDFClaimsInput filters claims.
type ListMDFClaimsInput struct {
	ListParams
	FundID    string `query:"fundId" maxLength:"36"`
	RequestID string `query:"requestId" maxLength:"36"`
	PartnerID string `query:"partnerId" maxLength:"36"`
	Status    string `query:"status" enum:"submitted,awaiting_second_approval,approved,rejected"`
}

// UploadMDFProofInput is a proof file of a claim.
type UploadMDFProofInput struct {
	ID   string `path:"id" maxLength:"36"`
	Name string `query:"name" required:"true" minLength:"1" maxLength:"200" pattern:"^[^/\\\\]+$" doc:"The file's name, without a path" example:"invoice.pdf"`
}

// MDFProofPath names a proof of a claim.
type MDFProofPath struct {
	ID      string `path:"id" maxLength:"36"`
	ProofID string `path:"proofId" maxLength:"36"`
}

// MDFSettingsInput replaces the MDF settings.
type MDFSettingsInput struct {
	Body struct {
		FourEyesAbove *int64 `json:"fourEyesAbove,omitempty" minimum:"0" maximum:"1000000000000000" doc:"Claims above this amount need two different approvers; omit it for one approver"`
	}
}

// MDFFundOutput is one fund.
type MDFFundOutput struct{ Body MDFFund }

// MDFFundListOutput is a page of funds.
type MDFFundListOutput struct{ Body ListBody[MDFFund] }

// MDFRequestOutput is one request.
type MDFRequestOutput struct{ Body MDFRequest }

// MDFRequestListOutput is a page of requests.
type MDFRequestListOutput struct{ Body ListBody[MDFRequest] }

// MDFClaimOutput is one claim.
type MDFClaimOutput struct{ Body MDFClaim }

// MDFClaimListOutput is a page of claims.
type MDFClaimListOutput struct{ Body ListBody[MDFClaim] }

// MDFSettingsOutput is the MDF settings.
type MDFSettingsOutput struct{ Body MDFSettings }

func registerMDFRoutes(s *Server) {
	tags := []string{"MDF"}
	op := func(id, method, path, summary, description string, status int, errs ...int) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Tags: tags, Summary: summary, Description: description,
			DefaultStatus: status, Security: UsersOrKeys, Errors: errs}
	}
	create := op("create-mdf-fund", http.MethodPost, "/api/mdf/funds", "Allocate a market development fund",
		"Operators only: a fund for one partner or for every partner of a level, in one currency, over a period, until it expires; at expiry what no approved request committed is released. Audited; emits mdf.fund_allocated.",
		http.StatusCreated, http.StatusUnprocessableEntity)
	create.RequestBody = requestExample(`{"name": "Q1 2027 co-marketing", "partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "currency": "EUR", "amount": 2500000, "periodStart": "2027-01-01", "periodEnd": "2027-03-31", "expiresAt": "2027-04-30T23:59:59Z"}`)
	register(s, create, Requires(authz.MDFManage), s.createMDFFund)
	register(s, op("list-mdf-funds", http.MethodGet, "/api/mdf/funds", "List market development funds",
		"Oldest first, each with its influenced won revenue and ROI. Partners see their own funds and their level's.", 0), Requires(authz.MDFRead), s.listMDFFunds)
	register(s, op("get-mdf-fund", http.MethodGet, "/api/mdf/funds/{id}", "Get a market development fund with its ROI",
		"Partners see their own funds and their level's.", 0, http.StatusNotFound), Requires(authz.MDFRead), s.getMDFFund)

	submit := op("submit-mdf-request", http.MethodPost, "/api/mdf/requests", "Request part of a fund",
		"For an activity with planned dates, a budget and the pipeline it should create. Partners request for themselves from their own or their level's fund (422 MDF_FUND_NOT_FOUND for any other); a budget above what the fund has left to commit is 409 MDF_FUND_EXHAUSTED, an expired fund 409 MDF_FUND_EXPIRED. Audited; emits mdf.request_submitted.",
		http.StatusCreated, http.StatusForbidden, http.StatusConflict, http.StatusUnprocessableEntity)
	submit.RequestBody = requestExample(`{"fundId": "01936f3c-1a2b-7c3d-8e4f-5a6b7c8d9e0f", "activity": "Joint webinar series", "description": "Three webinars for manufacturing prospects", "plannedStart": "2027-02-01", "plannedEnd": "2027-02-28", "budget": 500000, "expectedPipeline": 8000000}`)
	register(s, submit, Requires(authz.MDFWrite), s.submitMDFRequest)
	register(s, op("list-mdf-requests", http.MethodGet, "/api/mdf/requests", "List fund requests",
		"Oldest first; the operators' queue with status=submitted. Partners see only their own.", 0), Requires(authz.MDFRead), s.listMDFRequests)
	register(s, op("get-mdf-request", http.MethodGet, "/api/mdf/requests/{id}", "Get a fund request",
		"Partners see only their own.", 0, http.StatusNotFound), Requires(authz.MDFRead), s.getMDFRequest)
	resubmit := op("resubmit-mdf-request", http.MethodPut, "/api/mdf/requests/{id}", "Change a request and submit it again",
		"Only a request an operator asked changes of (otherwise 409 ILLEGAL_MDF_REQUEST_TRANSITION). Audited; emits mdf.request_submitted.", 0,
		http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	resubmit.RequestBody = requestExample(`{"activity": "Joint webinars on 3, 10 and 17 February", "plannedStart": "2027-02-03", "plannedEnd": "2027-02-17", "budget": 450000, "expectedPipeline": 8000000}`)
	register(s, resubmit, Requires(authz.MDFWrite), s.resubmitMDFRequest)
	approve := op("approve-mdf-request", http.MethodPost, "/api/mdf/requests/{id}/approve", "Approve a fund request",
		"Operators only: commits the whole budget or a lesser amount of the fund. Beyond what the fund has left is 409 MDF_FUND_EXHAUSTED, checked under the fund's lock so concurrent approvals never overcommit; an expired fund is 409 MDF_FUND_EXPIRED. Audited; emits mdf.request_approved.", 0,
		http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	approve.RequestBody = requestExample(`{"amount": 400000}`)
	register(s, approve, Requires(authz.MDFManage), s.approveMDFRequest)
	reject := op("reject-mdf-request", http.MethodPost, "/api/mdf/requests/{id}/reject", "Reject a fund request",
		"Operators only, with the reason the partner reads. Audited; emits mdf.request_rejected.", 0, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	reject.RequestBody = requestExample(`{"reason": "The activity falls outside the fund's period."}`)
	register(s, reject, Requires(authz.MDFManage), s.rejectMDFRequest)
	changes := op("request-mdf-changes", http.MethodPost, "/api/mdf/requests/{id}/request-changes", "Ask for changes to a fund request",
		"Operators only: the partner changes the request and submits it again. Audited; emits mdf.request_changes_requested.", 0,
		http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	changes.RequestBody = requestExample(`{"reason": "Name the webinar dates and the expected attendance."}`)
	register(s, changes, Requires(authz.MDFManage), s.requestMDFChanges)

	claim := op("submit-mdf-claim", http.MethodPost, "/api/mdf/claims", "Claim what an activity cost",
		"Against an approved request of the caller's (partners: their own), at most what the request has left after its approved and waiting claims (409 MDF_CLAIM_EXCEEDS_REQUEST), (another's request is 404 MDF_REQUEST_NOT_FOUND), with the results: leads and the partner's own deal registrations it influenced (422 DEAL_NOT_FOUND for any other), and proof links; proof files are uploaded after. Audited; emits mdf.claim_submitted.",
		http.StatusCreated, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	claim.RequestBody = requestExample(`{"requestId": "01936f3d-2b3c-7d4e-9f5a-6b7c8d9e0f1a", "amount": 380000, "description": "Venue and catering invoices", "leads": 42, "dealIds": ["01936f3e-3c4d-7e5f-8a6b-7c8d9e0f1a2b"], "links": ["https://example.com/webinar-recording"]}`)
	register(s, claim, Requires(authz.MDFWrite), s.submitMDFClaim)
	register(s, op("list-mdf-claims", http.MethodGet, "/api/mdf/claims", "List claims",
		"Oldest first; finance's review queue with status=submitted or awaiting_second_approval. Partners see only their own.", 0), Requires(authz.MDFRead), s.listMDFClaims)
	register(s, op("get-mdf-claim", http.MethodGet, "/api/mdf/claims/{id}", "Get a claim with its deals and proofs",
		"Partners see only their own.", 0, http.StatusNotFound), Requires(authz.MDFRead), s.getMDFClaim)
	upload := op("upload-mdf-proof", http.MethodPut, "/api/mdf/claims/{id}/proofs", "Upload a proof file of a claim",
		fmt.Sprintf("The request body is the file's bytes: a PDF, PNG or JPEG (told from the bytes, else 415) of at most %d MiB (413), at most %d per claim, while the claim waits for its decision (409 MDF_CLAIM_DECIDED). Partners upload to their own claims. Audited; emits mdf.claim_proof_added.",
			models.MaxMDFProofBytes>>20, models.MaxMDFProofs), 0,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
		http.StatusUnprocessableEntity, http.StatusServiceUnavailable)
	maxFile := int(models.MaxMDFProofBytes)
	upload.MaxBodyBytes = models.MaxMDFProofBytes
	upload.Metadata = map[string]any{metaStreamBody: true}
	upload.RequestBody = &huma.RequestBody{Required: true, Description: "The proof file's bytes", Content: map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary", MaxLength: &maxFile}}}}
	register(s, upload, Requires(authz.MDFWrite), s.uploadMDFProof)
	download := op("download-mdf-proof", http.MethodGet, "/api/mdf/claims/{id}/proofs/{proofId}", "Download a proof file of a claim",
		"Partners download only their own claims' proofs.", 0, http.StatusNotFound, http.StatusServiceUnavailable)
	download.Responses = map[string]*huma.Response{"200": {Description: "The file's bytes", Content: map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}}}
	register(s, download, Requires(authz.MDFRead), s.downloadMDFProof)
	register(s, op("approve-mdf-claim", http.MethodPost, "/api/mdf/claims/{id}/approve", "Approve a claim and reimburse it",
		"Finance only, never whoever filed the claim (403 FOUR_EYES). A claim above the tenant's four-eyes amount needs two different approvers: the first approval leaves it awaiting_second_approval. The final approval needs proof (409 MDF_PROOF_REQUIRED), spends the amount from the request and fund (never beyond what the request committed: 409 MDF_CLAIM_EXCEEDS_REQUEST) and reimburses it into the partner's MDF balance in the ledger, withdrawn with account=mdf. Audited; emits mdf.claim_first_approved or mdf.claim_approved.", 0,
		http.StatusNotFound, http.StatusConflict), Requires(authz.WithdrawalsApprove), s.approveMDFClaim)
	rejectClaim := op("reject-mdf-claim", http.MethodPost, "/api/mdf/claims/{id}/reject", "Reject a claim",
		"Finance only, with the reason the partner reads. Audited; emits mdf.claim_rejected.", 0, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	rejectClaim.RequestBody = requestExample(`{"reason": "The invoices are for an event outside the approved dates."}`)
	register(s, rejectClaim, Requires(authz.WithdrawalsApprove), s.rejectMDFClaim)

	register(s, op("get-mdf-settings", http.MethodGet, "/api/mdf/settings", "Get the MDF settings",
		"Finance only: the claim amount above which two approvers are needed.", 0), Requires(authz.WithdrawalsApprove), s.getMDFSettings)
	settings := op("update-mdf-settings", http.MethodPut, "/api/mdf/settings", "Replace the MDF settings",
		"Finance only. Audited.", 0, http.StatusUnprocessableEntity)
	settings.RequestBody = requestExample(`{"fourEyesAbove": 1000000}`)
	register(s, settings, Requires(authz.WithdrawalsApprove), s.updateMDFSettings)
}

func mdfFundOutput(f *models.MDFFund, err error) (*MDFFundOutput, error) {
	if err != nil {
		return nil, err
	}
	return &MDFFundOutput{Body: mdfFundOf(f)}, nil
}

func mdfRequestOutput(r *models.MDFRequest, err error) (*MDFRequestOutput, error) {
	if err != nil {
		return nil, err
	}
	return &MDFRequestOutput{Body: mdfRequestOf(r)}, nil
}

func mdfClaimOutput(c *models.MDFClaim, err error) (*MDFClaimOutput, error) {
	if err != nil {
		return nil, err
	}
	return &MDFClaimOutput{Body: mdfClaimOf(c)}, nil
}

// createMDFFund allocates a fund.
func (s *Server) createMDFFund(ctx context.Context, in *CreateMDFFundInput) (*MDFFundOutput, error) {
	b := in.Body
	return mdfFundOutput(s.mdf(ctx).CreateMDFFund(ctx, models.NewMDFFund{Name: b.Name, PartnerID: b.PartnerID, Level: b.Level, Currency: b.Currency,
		Amount: b.Amount, PeriodStart: b.PeriodStart, PeriodEnd: b.PeriodEnd, ExpiresAt: b.ExpiresAt}))
}

// listMDFFunds lists funds.
func (s *Server) listMDFFunds(ctx context.Context, in *ListMDFFundsInput) (*MDFFundListOutput, error) {
	f := models.MDFFundFilter{PartnerID: in.PartnerID, Level: in.Level, Status: in.Status, Currency: in.Currency}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.MDFFund, string, error) {
		return s.mdf(ctx).ListMDFFunds(ctx, f, pg)
	}, mdfFundOf)
	return &MDFFundListOutput{Body: body}, err
}

// getMDFFund answers one fund.
func (s *Server) getMDFFund(ctx context.Context, in *IDPath) (*MDFFundOutput, error) {
	return mdfFundOutput(s.mdf(ctx).MDFFund(ctx, in.ID))
}

// submitMDFRequest submits a request.
func (s *Server) submitMDFRequest(ctx context.Context, in *SubmitMDFRequestInput) (*MDFRequestOutput, error) {
	return mdfRequestOutput(s.mdf(ctx).SubmitMDFRequest(ctx, in.Body.model()))
}

// resubmitMDFRequest submits a request again.
func (s *Server) resubmitMDFRequest(ctx context.Context, in *ResubmitMDFRequestInput) (*MDFRequestOutput, error) {
	return mdfRequestOutput(s.mdf(ctx).ResubmitMDFRequest(ctx, in.ID, in.Body.model()))
}

// listMDFRequests lists requests.
func (s *Server) listMDFRequests(ctx context.Context, in *ListMDFRequestsInput) (*MDFRequestListOutput, error) {
	f := models.MDFRequestFilter{FundID: in.FundID, PartnerID: in.PartnerID, Status: in.Status}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.MDFRequest, string, error) {
		return s.mdf(ctx).ListMDFRequests(ctx, f, pg)
	}, mdfRequestOf)
	return &MDFRequestListOutput{Body: body}, err
}

// getMDFRequest answers one request.
func (s *Server) getMDFRequest(ctx context.Context, in *IDPath) (*MDFRequestOutput, error) {
	return mdfRequestOutput(s.mdf(ctx).MDFRequest(ctx, in.ID))
}

// approveMDFRequest approves a request.
func (s *Server) approveMDFRequest(ctx context.Context, in *ApproveMDFRequestInput) (*MDFRequestOutput, error) {
	var amount int64
	if in.Body != nil {
		amount = in.Body.Amount
	}
	return mdfRequestOutput(s.mdf(ctx).ApproveMDFRequest(ctx, in.ID, amount))
}

// rejectMDFRequest rejects a request.
func (s *Server) rejectMDFRequest(ctx context.Context, in *MDFReasonInput) (*MDFRequestOutput, error) {
	return mdfRequestOutput(s.mdf(ctx).RejectMDFRequest(ctx, in.ID, in.Body.Reason))
}

// requestMDFChanges sends a request back for changes.
func (s *Server) requestMDFChanges(ctx context.Context, in *MDFReasonInput) (*MDFRequestOutput, error) {
	return mdfRequestOutput(s.mdf(ctx).RequestMDFChanges(ctx, in.ID, in.Body.Reason))
}

// submitMDFClaim files a claim.
func (s *Server) submitMDFClaim(ctx context.Context, in *SubmitMDFClaimInput) (*MDFClaimOutput, error) {
	b := in.Body
	return mdfClaimOutput(s.mdf(ctx).SubmitMDFClaim(ctx, models.NewMDFClaim{RequestID: b.RequestID, Amount: b.Amount, Description: b.Description,
		Leads: b.Leads, DealIDs: b.DealIDs, Links: b.Links}))
}

// listMDFClaims lists claims.
func (s *Server) listMDFClaims(ctx context.Context, in *ListMDFClaimsInput) (*MDFClaimListOutput, error) {
	f := models.MDFClaimFilter{FundID: in.FundID, RequestID: in.RequestID, PartnerID: in.PartnerID, Status: in.Status}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.MDFClaim, string, error) {
		return s.mdf(ctx).ListMDFClaims(ctx, f, pg)
	}, mdfClaimOf)
	return &MDFClaimListOutput{Body: body}, err
}

// getMDFClaim answers one claim.
func (s *Server) getMDFClaim(ctx context.Context, in *IDPath) (*MDFClaimOutput, error) {
	return mdfClaimOutput(s.mdf(ctx).MDFClaim(ctx, in.ID))
}

// uploadMDFProof stores a proof file and records it on its claim; the file is removed again when
// the claim cannot take it.
func (s *Server) uploadMDFProof(ctx context.Context, in *UploadMDFProofInput) (*MDFClaimOutput, error) {
	st := s.mdf(ctx)
	if _, err := st.MDFClaim(ctx, in.ID); err != nil {
		return nil, err // nothing is stored for a claim the caller cannot see
	}
	obj, err := s.storeUpload(ctx, "mdf", blobstore.Limits{MaxBytes: models.MaxMDFProofBytes, Types: models.MDFProofTypes})
	if err != nil {
		return nil, err
	}
	c, err := st.AttachMDFProof(ctx, in.ID, models.MDFProof{BlobKey: obj.Key, FileName: in.Name, ContentType: obj.ContentType, Size: obj.Size, SHA256: obj.SHA256})
	if err != nil {
		if derr := s.deps.Blobs.Delete(context.WithoutCancel(ctx), obj.Key); derr != nil {
			s.log.ErrorContext(ctx, "deleting an orphaned upload failed", "request_id", RequestID(ctx), "error", derr.Error())
		}
	}
	return mdfClaimOutput(c, err)
}

// downloadMDFProof streams a proof file, always as a download.
func (s *Server) downloadMDFProof(ctx context.Context, in *MDFProofPath) (*huma.StreamResponse, error) {
	if _, err := s.blobs(); err != nil {
		return nil, err
	}
	p, err := s.mdf(ctx).MDFProof(ctx, in.ID, in.ProofID)
	if err != nil {
		return nil, err
	}
	f, err := s.openBlob(ctx, p.BlobKey, models.NotFound("MDF_PROOF_NOT_FOUND", "proof"))
	if err != nil {
		return nil, err
	}
	return downloadResponse(f, download{ContentType: p.ContentType, FileName: p.FileName, ModTime: p.CreatedAt}), nil
}

// approveMDFClaim approves a claim.
func (s *Server) approveMDFClaim(ctx context.Context, in *IDPath) (*MDFClaimOutput, error) {
	return mdfClaimOutput(s.mdf(ctx).ApproveMDFClaim(ctx, in.ID))
}

// rejectMDFClaim rejects a claim.
func (s *Server) rejectMDFClaim(ctx context.Context, in *MDFReasonInput) (*MDFClaimOutput, error) {
	return mdfClaimOutput(s.mdf(ctx).RejectMDFClaim(ctx, in.ID, in.Body.Reason))
}

// getMDFSettings answers the MDF settings.
func (s *Server) getMDFSettings(ctx context.Context, _ *struct{}) (*MDFSettingsOutput, error) {
	st, err := s.mdf(ctx).MDFSettings(ctx)
	if err != nil {
		return nil, err
	}
	return &MDFSettingsOutput{Body: mdfSettingsOf(st)}, nil
}

// updateMDFSettings replaces the MDF settings.
func (s *Server) updateMDFSettings(ctx context.Context, in *MDFSettingsInput) (*MDFSettingsOutput, error) {
	st, err := s.mdf(ctx).SaveMDFSettings(ctx, in.Body.FourEyesAbove)
	if err != nil {
		return nil, err
	}
	return &MDFSettingsOutput{Body: mdfSettingsOf(st)}, nil
}
