package models

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Stage outcomes: a deal in an open stage is in progress; moving it to a won or lost stage
// closes it.
const (
	OutcomeOpen = "open"
	OutcomeWon  = "won"
	OutcomeLost = "lost"
)

// Pipeline is an ordered set of stages deals move through.
type Pipeline struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	Name      string `gorm:"size:200;not null"`
	IsDefault bool   `gorm:"not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
	// Stages are ordered by position; loaded with the pipeline.
	Stages []Stage `gorm:"-"`
}

// Stage is one step of a pipeline.
type Stage struct {
	ID         string `gorm:"primaryKey;size:36"`
	TenantID   string `gorm:"size:36;not null"`
	PipelineID string `gorm:"size:36;not null"`
	Name       string `gorm:"size:200;not null"`
	Position   int    `gorm:"not null"`
	Outcome    string `gorm:"size:8;not null"`
	// Probability is the chance, in percent, that a deal in this stage is won.
	Probability int `gorm:"not null"`
}

// NewStage is a stage of a pipeline being created or replaced.
type NewStage struct {
	Name        string
	Outcome     string
	Probability int
}

// DefaultStages are the stages of the pipeline every new tenant gets.
func DefaultStages() []NewStage {
	return []NewStage{
		{"Registered", OutcomeOpen, 10},
		{"Qualified", OutcomeOpen, 30},
		{"Proposal", OutcomeOpen, 60},
		{"Negotiation", OutcomeOpen, 80},
		{"Closed won", OutcomeWon, 100},
		{"Closed lost", OutcomeLost, 0},
	}
}

// ValidateStages checks the stages of a pipeline: at least one open, one won and one lost
// stage, unique names, probabilities from 0 to 100 (100 for won, 0 for lost).
func ValidateStages(stages []NewStage) *Error {
	var fields []FieldError
	names := map[string]bool{}
	count := map[string]int{}
	for i, s := range stages {
		loc := "body.stages[" + strconv.Itoa(i) + "]"
		name := strings.ToLower(strings.TrimSpace(s.Name))
		switch {
		case name == "":
			fields = append(fields, FieldError{Location: loc + ".name", Message: "a name is required"})
		case names[name]:
			fields = append(fields, FieldError{Location: loc + ".name", Message: "another stage has this name", Value: s.Name})
		}
		names[name] = true
		if !slices.Contains([]string{OutcomeOpen, OutcomeWon, OutcomeLost}, s.Outcome) {
			fields = append(fields, FieldError{Location: loc + ".outcome", Message: "open, won or lost", Value: s.Outcome})
		}
		count[s.Outcome]++
		switch {
		case s.Probability < 0 || s.Probability > 100:
			fields = append(fields, FieldError{Location: loc + ".probability", Message: "a percentage from 0 to 100", Value: s.Probability})
		case s.Outcome == OutcomeWon && s.Probability != 100, s.Outcome == OutcomeLost && s.Probability != 0:
			fields = append(fields, FieldError{Location: loc + ".probability", Message: "won stages are 100, lost stages 0", Value: s.Probability})
		}
	}
	for _, o := range []string{OutcomeOpen, OutcomeWon, OutcomeLost} {
		if count[o] == 0 {
			fields = append(fields, FieldError{Location: "body.stages", Message: "a pipeline needs at least one " + o + " stage"})
		}
	}
	if len(fields) > 0 {
		return Invalid("INVALID_PIPELINE", "the pipeline's stages are not valid", fields...)
	}
	return nil
}

// Deal statuses. A registration is submitted, then approved or rejected by an operator; an
// approved deal is won, lost, or expires when its protection ends without progress.
const (
	DealSubmitted = "submitted"
	DealApproved  = "approved"
	DealRejected  = "rejected"
	DealWon       = "won"
	DealLost      = "lost"
	DealExpired   = "expired"
)

// dealTransitions are the legal status changes.
var dealTransitions = map[string][]string{
	DealSubmitted: {DealApproved, DealRejected},
	DealApproved:  {DealWon, DealLost, DealExpired},
}

// DealStatuses lists every status.
func DealStatuses() []string {
	return []string{DealSubmitted, DealApproved, DealRejected, DealWon, DealLost, DealExpired}
}

// CheckDealTransition refuses a status change the deal lifecycle does not allow, with 409
// ILLEGAL_DEAL_TRANSITION.
func CheckDealTransition(from, to string) *Error {
	if slices.Contains(dealTransitions[from], to) {
		return nil
	}
	return Errorf(KindConflict, "ILLEGAL_DEAL_TRANSITION", "a %s deal cannot become %s", from, to)
}

// DealClosed reports whether no further change of stage or status is possible.
func DealClosed(status string) bool { return len(dealTransitions[status]) == 0 }

// Conflict review states of a deal.
const (
	ConflictNone     = "none"
	ConflictReview   = "review"
	ConflictResolved = "resolved"
)

// Deal is a registered opportunity a partner brings.
type Deal struct {
	ID         string `gorm:"primaryKey;size:36"`
	TenantID   string `gorm:"size:36;not null"`
	PartnerID  string `gorm:"size:36;not null"`
	PipelineID string `gorm:"size:36;not null"`
	StageID    string `gorm:"size:36;not null"`
	Status     string `gorm:"size:16;not null"`
	// CustomerCompany, CustomerDomain (lower case, no scheme) and the contact describe the
	// customer the partner brings.
	CustomerCompany string `gorm:"size:200;not null"`
	CustomerDomain  string `gorm:"size:253"`
	ContactName     string `gorm:"size:200"`
	ContactEmail    string `gorm:"size:320"`
	// AmountMinor is the deal's value in minor units of Currency (ISO 4217).
	AmountMinor       int64   `gorm:"not null"`
	Currency          string  `gorm:"size:3;not null"`
	ExpectedCloseDate *string `gorm:"size:10"`
	Notes             string  `gorm:"type:text"`
	// OwnerUserID is the operator user responsible for the deal.
	OwnerUserID *string `gorm:"size:36"`
	// ConflictStatus says whether the registration overlaps another partner's work.
	ConflictStatus string `gorm:"size:16;not null"`
	// Reason explains a rejection or a loss.
	Reason string `gorm:"size:1000"`
	// ProtectedUntil is when an approved deal expires unless it progresses or is extended.
	ProtectedUntil *time.Time
	// ReminderSentFor is the ProtectedUntil whose expiry reminder was sent.
	ReminderSentFor *time.Time
	// ExtensionRequestedAt and ExtensionReason record a partner's request for more time.
	ExtensionRequestedAt *time.Time
	ExtensionReason      string  `gorm:"size:1000"`
	CustomerID           *string `gorm:"size:36"`
	CreatedBy            string  `gorm:"size:36"`
	CreatedAt            time.Time
	UpdatedAt            time.Time
	ClosedAt             *time.Time
}

// NormalizeDomain turns a domain or URL the partner typed into a bare lower-case host name.
func NormalizeDomain(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	for _, p := range []string{"https://", "http://"} {
		d = strings.TrimPrefix(d, p)
	}
	if i := strings.IndexAny(d, "/?#:"); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimPrefix(strings.TrimSuffix(d, "."), "www.")
	return d
}

// DealConflict is one overlap found when a deal was registered. Only operators see it.
type DealConflict struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	DealID   string `gorm:"size:36;not null"`
	// Kind is domain, contact_email or customer.
	Kind           string  `gorm:"size:32;not null"`
	OtherDealID    *string `gorm:"size:36"`
	OtherPartnerID *string `gorm:"size:36"`
	CustomerID     *string `gorm:"size:36"`
	Explanation    string  `gorm:"size:1000;not null"`
	CreatedAt      time.Time
}

// Kinds of deal conflicts.
const (
	ConflictDomain       = "domain"
	ConflictContactEmail = "contact_email"
	ConflictCustomer     = "customer"
)

// DealNote is a remark on a deal's timeline.
type DealNote struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	DealID    string `gorm:"size:36;not null"`
	AuthorID  string `gorm:"size:36"`
	Body      string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// DealFilter selects deals for operators (partners always see only their own).
type DealFilter struct {
	PartnerID, Level, StageID, Status, OwnerUserID, Currency string
	CreatedFrom, CreatedTo                                   *time.Time
	MinAmount, MaxAmount                                     *int64
	// Q is text in the customer's company, the contact's name or email, case-insensitively.
	Q string
}

// DealChanges are the fields a deal update may set; nil leaves a field alone.
type DealChanges struct {
	CustomerCompany, ContactName, ContactEmail, Notes, ExpectedCloseDate *string
	AmountMinor                                                          *int64
	Currency                                                             *string
}

// DealMove moves a deal to a stage; a won stage wins it, a lost stage loses it (Reason
// required).
type DealMove struct {
	StageID string
	Reason  string
}

// DealProtection is what the protection timer of a deal does next.
type DealProtection struct {
	// Done is set when the deal no longer needs a timer (closed, expired or gone).
	Done bool
	// WakeAt is when to look again.
	WakeAt time.Time
}

// DealProtectionReminder is how long before its expiry a deal's reminder event is sent.
const DealProtectionReminder = 7 * 24 * time.Hour

// DefaultDealProtectionDays is how long approved deals are protected unless the tenant says
// otherwise.
const DefaultDealProtectionDays = 90

// DealTimelineItem is an event or a note on a deal's timeline.
type DealTimelineItem struct {
	Event *Event
	Note  *DealNote
}

// ID is the item's id; events and notes share the UUIDv7 order.
func (t DealTimelineItem) ID() string {
	if t.Event != nil {
		return t.Event.ID
	}
	return t.Note.ID
}
