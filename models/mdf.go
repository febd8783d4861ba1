package models

import (
	"encoding/json"
	"math"
	"math/bits"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Market development funds (MDF, ADR 33). A fund is money an operator sets aside for one partner
// or for every partner of a level, in one currency, over a period, until it expires. Partners ask
// for part of it (requests); an approved request commits that part; after the activity the partner
// claims what it spent, with proof and results; an approved claim is spent and reimbursed into the
// partner's MDF balance in the ledger, apart from its commissions. Always
// 0 ≤ spent ≤ committed ≤ allocated, for the fund and for every request.

// MDF fund statuses: an open fund takes requests until it expires; expiry releases what no
// approved request committed.
const (
	MDFFundOpen    = "open"
	MDFFundExpired = "expired"
)

// MDFFund is an allocation of market development funds.
type MDFFund struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	Name     string `gorm:"size:200;not null"`
	// PartnerID is the partner the fund is for; Level instead makes it the pool of every partner
	// at that level. Exactly one is set.
	PartnerID *string `gorm:"size:36"`
	Level     string  `gorm:"size:64;not null;default:''"`
	Currency  string  `gorm:"size:3;not null"`
	// Allocated, Committed (approved requests), Spent (approved claims) and Released (given back
	// at expiry) are minor units of Currency.
	Allocated int64 `gorm:"not null"`
	Committed int64 `gorm:"not null"`
	Spent     int64 `gorm:"not null"`
	Released  int64 `gorm:"not null"`
	// PeriodStart and PeriodEnd are the dates (YYYY-MM-DD) the fund's activities fall in.
	PeriodStart string `gorm:"size:10;not null"`
	PeriodEnd   string `gorm:"size:10;not null"`
	ExpiresAt   time.Time
	Status      string `gorm:"size:16;not null"`
	CreatedBy   string `gorm:"size:64;not null"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ExpiredAt   *time.Time
	// InfluencedRevenue is the won revenue of the deals its approved claims influenced, in the
	// fund's currency; computed when a fund is read, not stored.
	InfluencedRevenue int64 `gorm:"-"`
}

// TableName is the funds table.
func (MDFFund) TableName() string { return "mdf_funds" }

// Uncommitted is what requests can still be approved for.
func (f *MDFFund) Uncommitted() int64 {
	if f.Status != MDFFundOpen {
		return 0
	}
	return f.Allocated - f.Committed
}

// ROIBasisPoints is influenced won revenue ÷ spend in basis points (10 000 = 1×), rounded half
// away from zero; ok is false while nothing is spent.
func (f *MDFFund) ROIBasisPoints() (bps int64, ok bool) {
	return RatioBasisPoints(f.InfluencedRevenue, f.Spent)
}

// RatioBasisPoints is num ÷ den in basis points, rounded half away from zero, computed in 128
// bits; ok is false when den is not positive, num is negative or the result leaves int64.
func RatioBasisPoints(num, den int64) (int64, bool) {
	if den <= 0 || num < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(num), uint64(MaxBasisPoints))
	lo, carry := bits.Add64(lo, uint64(den)/2, 0)
	hi += carry
	if hi >= uint64(den) {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, uint64(den))
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// MDFSpend is an approved MDF claim as a return on investment reads it: whose claim it is, when
// its final approval spent and reimbursed it, what it spent and the won deals in its currency it
// influenced.
type MDFSpend struct {
	ClaimID    string
	PartnerID  string
	ApprovedAt time.Time
	Amount     int64
	Deals      []MDFWonDeal
}

// MDFWonDeal is a won deal an MDF claim influenced, with its amount in the claim's currency.
type MDFWonDeal struct {
	ID     string
	Amount int64
}

// MDFSpendFilter selects the approved claims of a return: in one currency, approved in [From,
// To), of one fund when FundID is set, of PartnerIDs when not nil (nil: every partner).
type MDFSpendFilter struct {
	Currency, FundID string
	PartnerIDs       []string
	From, To         time.Time
}

// MDFReturn adds up a return on MDF: the spend of claims and the won revenue of the deals they
// influenced, each deal once however many claims name it. The zero value is empty.
type MDFReturn struct {
	Spend, Revenue int64
	deals          map[string]bool
}

// Add counts a claim in; ok is false when a total would leave 64 bits.
func (r *MDFReturn) Add(s MDFSpend) (ok bool) {
	if r.Spend, ok = addInt64(r.Spend, s.Amount); !ok {
		return false
	}
	for _, d := range s.Deals {
		if r.deals[d.ID] {
			continue
		}
		if r.deals == nil {
			r.deals = map[string]bool{}
		}
		r.deals[d.ID] = true
		if r.Revenue, ok = addInt64(r.Revenue, d.Amount); !ok {
			return false
		}
	}
	return true
}

// BasisPoints is Revenue ÷ Spend in basis points, rounded half away from zero, as a fund's ROI
// is; ok is false without spend (or beyond 64 bits).
func (r *MDFReturn) BasisPoints() (int64, bool) { return RatioBasisPoints(r.Revenue, r.Spend) }

func addInt64(a, b int64) (int64, bool) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, false
	}
	return a + b, true
}

// NewMDFFund is an operator's allocation.
type NewMDFFund struct {
	Name        string
	PartnerID   string
	Level       string
	Currency    string
	Amount      int64
	PeriodStart string
	PeriodEnd   string
	ExpiresAt   time.Time
}

// Check validates an allocation against now.
func (n NewMDFFund) Check(now time.Time) *Error {
	var fields []FieldError
	if (n.PartnerID == "") == (n.Level == "") {
		fields = append(fields, FieldError{Location: "body.partnerId", Message: "name either a partner or a level"})
	}
	if !ValidCurrency(n.Currency) {
		fields = append(fields, FieldError{Location: "body.currency", Message: "an ISO 4217 currency", Value: n.Currency})
	}
	if n.Amount <= 0 || n.Amount > MaxAmountMinor {
		fields = append(fields, FieldError{Location: "body.amount", Message: "a positive amount in minor units", Value: n.Amount})
	}
	fields = append(fields, checkDates("body.periodStart", n.PeriodStart, "body.periodEnd", n.PeriodEnd)...)
	if !n.ExpiresAt.After(now) {
		fields = append(fields, FieldError{Location: "body.expiresAt", Message: "a time in the future", Value: n.ExpiresAt})
	}
	if len(fields) > 0 {
		return Invalid("INVALID_MDF_FUND", "the fund is not valid", fields...)
	}
	return nil
}

func checkDates(startLoc, start, endLoc, end string) []FieldError {
	var fields []FieldError
	s, err1 := time.Parse(time.DateOnly, start)
	if err1 != nil {
		fields = append(fields, FieldError{Location: startLoc, Message: "a date YYYY-MM-DD", Value: start})
	}
	e, err2 := time.Parse(time.DateOnly, end)
	if err2 != nil {
		fields = append(fields, FieldError{Location: endLoc, Message: "a date YYYY-MM-DD", Value: end})
	}
	if err1 == nil && err2 == nil && e.Before(s) {
		fields = append(fields, FieldError{Location: endLoc, Message: "on or after the start", Value: end})
	}
	return fields
}

// MDFFundFilter selects funds.
type MDFFundFilter struct {
	PartnerID, Level, Status, Currency string
}

// MDF request statuses. A partner submits; an operator approves (the whole budget or less),
// rejects or asks for changes, after which the partner submits again; expiry of the fund ends
// requests still waiting.
const (
	MDFRequestSubmitted        = "submitted"
	MDFRequestChangesRequested = "changes_requested"
	MDFRequestApproved         = "approved"
	MDFRequestRejected         = "rejected"
	MDFRequestExpired          = "expired"
)

var mdfRequestTransitions = map[string][]string{
	MDFRequestSubmitted:        {MDFRequestApproved, MDFRequestRejected, MDFRequestChangesRequested, MDFRequestExpired},
	MDFRequestChangesRequested: {MDFRequestSubmitted, MDFRequestRejected, MDFRequestExpired},
}

// CheckMDFRequestTransition refuses a status change the request lifecycle does not allow, with
// 409 ILLEGAL_MDF_REQUEST_TRANSITION.
func CheckMDFRequestTransition(from, to string) *Error {
	if slices.Contains(mdfRequestTransitions[from], to) {
		return nil
	}
	return Errorf(KindConflict, "ILLEGAL_MDF_REQUEST_TRANSITION", "a %s request cannot become %s", from, to)
}

// MDFRequest is a partner's request for part of a fund for one activity.
type MDFRequest struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	FundID      string `gorm:"size:36;not null"`
	PartnerID   string `gorm:"size:36;not null"`
	Activity    string `gorm:"size:200;not null"`
	Description string `gorm:"type:text;not null"`
	// PlannedStart and PlannedEnd are the activity's dates (YYYY-MM-DD).
	PlannedStart string `gorm:"size:10;not null"`
	PlannedEnd   string `gorm:"size:10;not null"`
	Currency     string `gorm:"size:3;not null"`
	// Budget is what the partner asks for; Approved what the operator committed (at most the
	// budget); Spent the sum of its approved claims (at most Approved). Minor units.
	Budget   int64 `gorm:"not null"`
	Approved int64 `gorm:"not null"`
	Spent    int64 `gorm:"not null"`
	// ExpectedPipeline is the pipeline the partner expects the activity to create, in minor units.
	ExpectedPipeline int64  `gorm:"not null"`
	Status           string `gorm:"size:24;not null"`
	// Reason explains a rejection or the changes asked for.
	Reason      string `gorm:"size:1000;not null;default:''"`
	SubmittedBy string `gorm:"size:64;not null"`
	SubmittedAt time.Time
	ReviewedBy  string `gorm:"size:64;not null;default:''"`
	ReviewedAt  *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TableName is the requests table.
func (MDFRequest) TableName() string { return "mdf_requests" }

// NewMDFRequest is what a partner asks for.
type NewMDFRequest struct {
	FundID string
	// PartnerID is the operator's choice of partner; partners always request for themselves.
	PartnerID        string
	Activity         string
	Description      string
	PlannedStart     string
	PlannedEnd       string
	Budget           int64
	ExpectedPipeline int64
}

// Check validates a request's fields.
func (n NewMDFRequest) Check() *Error {
	var fields []FieldError
	if strings.TrimSpace(n.Activity) == "" || len(n.Activity) > 200 {
		fields = append(fields, FieldError{Location: "body.activity", Message: "1 to 200 characters"})
	}
	if len(n.Description) > 4000 {
		fields = append(fields, FieldError{Location: "body.description", Message: "at most 4000 characters"})
	}
	fields = append(fields, checkDates("body.plannedStart", n.PlannedStart, "body.plannedEnd", n.PlannedEnd)...)
	if n.Budget <= 0 || n.Budget > MaxAmountMinor {
		fields = append(fields, FieldError{Location: "body.budget", Message: "a positive amount in minor units", Value: n.Budget})
	}
	if n.ExpectedPipeline < 0 || n.ExpectedPipeline > MaxAmountMinor {
		fields = append(fields, FieldError{Location: "body.expectedPipeline", Message: "zero or more minor units", Value: n.ExpectedPipeline})
	}
	if len(fields) > 0 {
		return Invalid("INVALID_MDF_REQUEST", "the request is not valid", fields...)
	}
	return nil
}

// MDFRequestFilter selects requests.
type MDFRequestFilter struct {
	FundID, PartnerID, Status string
}

// MDF claim statuses. A partner claims what an approved request's activity cost; finance
// approves (a claim above the tenant's four-eyes amount needs two different approvers, the first
// leaving it awaiting the second) or rejects it. Approval spends the amount and reimburses it.
const (
	MDFClaimSubmitted      = "submitted"
	MDFClaimAwaitingSecond = "awaiting_second_approval"
	MDFClaimApproved       = "approved"
	MDFClaimRejected       = "rejected"
)

var mdfClaimTransitions = map[string][]string{
	MDFClaimSubmitted:      {MDFClaimAwaitingSecond, MDFClaimApproved, MDFClaimRejected},
	MDFClaimAwaitingSecond: {MDFClaimApproved, MDFClaimRejected},
}

// CheckMDFClaimTransition refuses a status change the claim lifecycle does not allow, with 409
// ILLEGAL_MDF_CLAIM_TRANSITION.
func CheckMDFClaimTransition(from, to string) *Error {
	if slices.Contains(mdfClaimTransitions[from], to) {
		return nil
	}
	return Errorf(KindConflict, "ILLEGAL_MDF_CLAIM_TRANSITION", "a %s claim cannot become %s", from, to)
}

// MDFClaim is a partner's claim for what an approved request's activity cost, with proof and
// results.
type MDFClaim struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	RequestID   string `gorm:"size:36;not null"`
	FundID      string `gorm:"size:36;not null"`
	PartnerID   string `gorm:"size:36;not null"`
	Amount      int64  `gorm:"not null"`
	Currency    string `gorm:"size:3;not null"`
	Description string `gorm:"type:text;not null"`
	// Leads is how many leads the activity brought.
	Leads int64 `gorm:"not null"`
	// Links is a JSON array of proof links (https URLs).
	Links  string `gorm:"type:text;not null"`
	Status string `gorm:"size:32;not null"`
	Reason string `gorm:"size:1000;not null;default:''"`
	// SubmittedBy filed it; FirstApprovedBy gave the first of two approvals; ReviewedBy decided.
	SubmittedBy     string `gorm:"size:64;not null"`
	FirstApprovedBy string `gorm:"size:64;not null;default:''"`
	ReviewedBy      string `gorm:"size:64;not null;default:''"`
	ReviewedAt      *time.Time
	// MovementID is the ledger movement that reimbursed it.
	MovementID *string `gorm:"size:36"`
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// DealIDs are the deal registrations it influenced; Proofs its files. Loaded with it.
	DealIDs []string   `gorm:"-"`
	Proofs  []MDFProof `gorm:"-"`
}

// TableName is the claims table.
func (MDFClaim) TableName() string { return "mdf_claims" }

// LinkList is the claim's proof links.
func (c *MDFClaim) LinkList() []string { return jsonStrings(c.Links) }

// MDFClaimDeal links a claim to a deal registration of its partner it influenced.
type MDFClaimDeal struct {
	TenantID string `gorm:"primaryKey;size:36"`
	ClaimID  string `gorm:"primaryKey;size:36"`
	DealID   string `gorm:"primaryKey;size:36"`
	FundID   string `gorm:"size:36;not null"`
}

// TableName is the claim-deal links table.
func (MDFClaimDeal) TableName() string { return "mdf_claim_deals" }

// MDFProof is a file proving a claim, kept in the blob store.
type MDFProof struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	ClaimID     string `gorm:"size:36;not null"`
	PartnerID   string `gorm:"size:36;not null"`
	BlobKey     string `gorm:"size:200;not null"`
	FileName    string `gorm:"size:200;not null"`
	ContentType string `gorm:"size:100;not null"`
	Size        int64  `gorm:"not null"`
	SHA256      string `gorm:"column:sha256;size:64;not null"`
	UploadedBy  string `gorm:"size:64;not null"`
	CreatedAt   time.Time
}

// TableName is the proofs table.
func (MDFProof) TableName() string { return "mdf_proofs" }

// Limits of claims.
const (
	MaxMDFClaimLinks = 20
	MaxMDFClaimDeals = 50
	MaxMDFProofs     = 20
	// MaxMDFProofBytes bounds one proof file (10 MiB).
	MaxMDFProofBytes = 10 << 20
)

// MDFProofTypes are the file types a proof may be: documents and images.
var MDFProofTypes = []string{"application/pdf", "image/png", "image/jpeg"}

// NewMDFClaim is what a partner claims.
type NewMDFClaim struct {
	RequestID   string
	Amount      int64
	Description string
	Leads       int64
	DealIDs     []string
	Links       []string
}

// Check validates a claim's fields; links must be absolute https (or http) URLs.
func (n NewMDFClaim) Check() *Error {
	var fields []FieldError
	if n.Amount <= 0 || n.Amount > MaxAmountMinor {
		fields = append(fields, FieldError{Location: "body.amount", Message: "a positive amount in minor units", Value: n.Amount})
	}
	if len(n.Description) > 4000 {
		fields = append(fields, FieldError{Location: "body.description", Message: "at most 4000 characters"})
	}
	if n.Leads < 0 || n.Leads > 10_000_000 {
		fields = append(fields, FieldError{Location: "body.leads", Message: "0 to 10000000", Value: n.Leads})
	}
	if len(n.DealIDs) > MaxMDFClaimDeals {
		fields = append(fields, FieldError{Location: "body.dealIds", Message: "at most 50 deals"})
	}
	if len(n.Links) > MaxMDFClaimLinks {
		fields = append(fields, FieldError{Location: "body.links", Message: "at most 20 links"})
	}
	for i, l := range n.Links {
		u, err := url.Parse(l)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(l) > 2000 {
			fields = append(fields, FieldError{Location: "body.links[" + itoa(i) + "]", Message: "an absolute http or https URL", Value: l})
		}
	}
	if len(fields) > 0 {
		return Invalid("INVALID_MDF_CLAIM", "the claim is not valid", fields...)
	}
	return nil
}

// MDFClaimFilter selects claims.
type MDFClaimFilter struct {
	FundID, RequestID, PartnerID, Status string
}

// MDFSettings are a tenant's MDF rules.
type MDFSettings struct {
	TenantID string `gorm:"primaryKey;size:36"`
	// FourEyesAbove is the claim amount (minor units, any currency) above which a claim needs
	// two different approvers; nil never asks for a second.
	FourEyesAbove *int64
	UpdatedAt     time.Time
}

// TableName is the settings table: one row per tenant.
func (MDFSettings) TableName() string { return "mdf_settings" }

// NeedsSecondApproval reports whether a claim of amount needs two approvers.
func (s MDFSettings) NeedsSecondApproval(amount int64) bool {
	return s.FourEyesAbove != nil && amount > *s.FourEyesAbove
}

// MDFFundExpiry is what a fund's expiry timer does next: stop, or look again at WakeAt.
type MDFFundExpiry struct {
	Done   bool
	WakeAt time.Time
}

// MDFFundEventPayload is the payload of mdf.fund_allocated and mdf.fund_expired.
type MDFFundEventPayload struct {
	FundID    string    `json:"fundId"`
	Name      string    `json:"name"`
	PartnerID string    `json:"partnerId,omitempty" doc:"The partner the fund is for; empty for a level's fund"`
	Level     string    `json:"level,omitempty" doc:"The level whose partners draw on the fund"`
	Currency  string    `json:"currency"`
	Allocated int64     `json:"allocated" doc:"In minor units"`
	Committed int64     `json:"committed" doc:"Approved requests, in minor units"`
	Spent     int64     `json:"spent" doc:"Approved claims, in minor units"`
	Released  int64     `json:"released" doc:"What expiry gave back: the allocation no approved request committed, in minor units"`
	ExpiresAt time.Time `json:"expiresAt"`
	Status    string    `json:"status"`
}

// MDFRequestEventPayload is the payload of mdf.request_* events.
type MDFRequestEventPayload struct {
	RequestID        string `json:"requestId"`
	FundID           string `json:"fundId"`
	PartnerID        string `json:"partnerId"`
	Activity         string `json:"activity"`
	Currency         string `json:"currency"`
	Budget           int64  `json:"budget" doc:"In minor units"`
	Approved         int64  `json:"approved" doc:"The amount committed, in minor units"`
	ExpectedPipeline int64  `json:"expectedPipeline" doc:"In minor units"`
	Status           string `json:"status"`
	Reason           string `json:"reason,omitempty"`
}

// MDFClaimEventPayload is the payload of mdf.claim_* events.
type MDFClaimEventPayload struct {
	ClaimID    string   `json:"claimId"`
	RequestID  string   `json:"requestId"`
	FundID     string   `json:"fundId"`
	PartnerID  string   `json:"partnerId"`
	Amount     int64    `json:"amount" doc:"In minor units"`
	Currency   string   `json:"currency"`
	Leads      int64    `json:"leads"`
	DealIDs    []string `json:"dealIds"`
	Status     string   `json:"status"`
	Reason     string   `json:"reason,omitempty"`
	MovementID string   `json:"movementId,omitempty" doc:"The ledger movement that reimbursed the claim"`
}

func jsonStrings(raw string) []string {
	out := []string{}
	_ = json.Unmarshal([]byte(raw), &out)
	if out == nil {
		out = []string{}
	}
	return out
}
