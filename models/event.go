package models

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// Event sources.
const (
	// EventSourceInternal marks events the service emits about its own changes.
	EventSourceInternal = "internal"
	// EventSourceIngest marks customer events sent by integrations through the ingest API.
	EventSourceIngest = "ingest"
)

// MaxCausationDepth is how long a chain of events causing events may grow before the service
// stops acting on it, so that automations cannot trigger each other forever.
const MaxCausationDepth = 8

// Event is one immutable fact on the bus: a change inside the service or an ingested customer
// event. Ids are UUIDv7, so id order is the order in which the service received events.
type Event struct {
	ID         string  `gorm:"primaryKey;size:36"`
	TenantID   string  `gorm:"size:36;not null"`
	Type       string  `gorm:"size:128;not null"`
	Source     string  `gorm:"size:16;not null"`
	CustomerID *string `gorm:"size:36"`
	PartnerID  *string `gorm:"size:36"`
	// ActorKind and ActorID name who caused the event (operator, partner user, machine key,
	// system).
	ActorKind string `gorm:"size:32;not null"`
	ActorID   string `gorm:"size:36"`
	// CausationID is the event that led to this one, for chains of automation; Depth counts
	// the links of the chain.
	CausationID *string `gorm:"size:36"`
	Depth       int     `gorm:"not null;default:0"`
	// SubjectID is the record the event is about (a deal), for that record's timeline.
	SubjectID *string `gorm:"size:36"`
	// ExternalID is the client's idempotency key for ingested events, unique per tenant.
	ExternalID *string `gorm:"size:200"`
	// Payload is a JSON object.
	Payload    string    `gorm:"type:text;not null"`
	OccurredAt time.Time `gorm:"not null"`
	ReceivedAt time.Time `gorm:"not null"`
}

// OutboxEntry marks an event that has subscribers and still has to be handed to its fan-out
// workflow. It is written in the transaction of the event and removed once the workflow
// started.
type OutboxEntry struct {
	EventID   string    `gorm:"primaryKey;size:36"`
	TenantID  string    `gorm:"size:36;not null"`
	Type      string    `gorm:"size:128;not null"`
	CreatedAt time.Time `gorm:"not null"`
}

// TableName is the outbox table.
func (OutboxEntry) TableName() string { return "event_outbox" }

// EventRef names an event to dispatch.
type EventRef struct {
	TenantID string
	EventID  string
	Type     string
}

// EventFilter selects events in a list.
type EventFilter struct {
	// Type is an exact type or a pattern with `*` wildcards (`deal.*`).
	Type       string
	CustomerID string
	PartnerID  string
	From, To   time.Time
	// Newest lists the most recently received first.
	Newest bool
}

// NewEvent is what a writer supplies for an event; the store fills in ids, tenant, actor and
// times.
type NewEvent struct {
	Type       string
	CustomerID *string
	PartnerID  *string
	Payload    string
	OccurredAt time.Time
	// CausationID and Depth continue a chain started by another event.
	CausationID *string
	Depth       int
	// SubjectID is the record the event is about, when it is not the customer.
	SubjectID *string
}

var eventTypePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// ValidEventType reports whether name is a well-formed event type: dot-separated lower-case
// words such as `deal.won` or `feature.used`, at most 128 characters.
func ValidEventType(name string) bool {
	return len(name) <= 128 && eventTypePattern.MatchString(name)
}

var eventPatternPattern = regexp.MustCompile(`^(\*|[a-z][a-z0-9_]*)(\.(\*|[a-z][a-z0-9_]*))*$`)

// ValidEventPattern reports whether p selects event types: a type in which whole words may be
// `*` (`deal.*`, `*.created`, `*`).
func ValidEventPattern(p string) bool {
	return len(p) <= 128 && eventPatternPattern.MatchString(p)
}

// MatchEventType reports whether eventType is selected by pattern, in which `*` stands for any
// run of characters, dots included (`deal.*` matches `deal.won` and `deal.stage_changed`,
// `*.created` matches `customer.created`, `*` matches everything).
func MatchEventType(pattern, eventType string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == eventType
	}
	if !strings.HasPrefix(eventType, parts[0]) {
		return false
	}
	rest := eventType[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

// EventPatternLike turns an event-type pattern into a SQL LIKE pattern with `\` as escape
// character; for well-formed types it selects exactly what MatchEventType selects.
func EventPatternLike(pattern string) string {
	r := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`, "*", "%")
	return r.Replace(pattern)
}

// MatchAnyEventType reports whether any of patterns selects eventType.
func MatchAnyEventType(patterns []string, eventType string) bool {
	for _, p := range patterns {
		if MatchEventType(p, eventType) {
			return true
		}
	}
	return false
}

// ReservedEventNamespaces are the first words of the types the service emits itself;
// integrations cannot ingest events in them, so that nobody can fake a won deal or a payout.
var ReservedEventNamespaces = []string{
	"application", "commission", "customer", "dashboard", "deal", "document", "metric", "partner",
	"payout", "playbook", "task", "tenant", "user", "webhook", "withdrawal", "ledger",
	"content", "agreement", "certification", "tax", "mdf",
}

// ReservedEventType reports whether eventType lies in a namespace the service keeps for itself.
func ReservedEventType(eventType string) bool {
	first, _, _ := strings.Cut(eventType, ".")
	for _, ns := range ReservedEventNamespaces {
		if first == ns {
			return true
		}
	}
	return false
}

// Customer is an end customer whom a partner brought; events are attributed to it.
type Customer struct {
	ID         string  `gorm:"primaryKey;size:36"`
	TenantID   string  `gorm:"size:36;not null"`
	Email      *string `gorm:"size:320"`
	ExternalID *string `gorm:"size:200"`
	Name       string  `gorm:"size:200"`
	// PartnerID is the partner the customer is attributed to; nil while unattributed.
	PartnerID *string `gorm:"size:36;index"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CustomerFilter selects customers in a list.
type CustomerFilter struct {
	PartnerID string
	Email     string
	// Unattributed selects customers without a partner.
	Unattributed bool
	// Q is text in the name, email or external id, case-insensitively.
	Q string
}

// CustomerChanges are the fields an update sets; nil fields stay.
type CustomerChanges struct {
	Email      *string
	ExternalID *string
	Name       *string
	// PartnerID set to "" removes the attribution.
	PartnerID *string
}

// IngestEvent is one event as an integration sends it, after validation.
type IngestEvent struct {
	// CustomerEmail or CustomerID names the customer; when both are set they must agree.
	CustomerEmail string
	CustomerID    string
	Type          string
	Payload       string
	ExternalID    string
	OccurredAt    time.Time
}

// Ingest outcomes.
const (
	IngestStored    = "stored"
	IngestDuplicate = "duplicate"
	IngestRejected  = "rejected"
)

// IngestResult is what happened to one ingested event.
type IngestResult struct {
	// Status is IngestStored, IngestDuplicate or IngestRejected.
	Status     string
	EventID    string
	CustomerID string
	// Err is set for rejected events.
	Err *Error
}

// Causation is the event whose handling is going on, so that events written meanwhile record
// it as their cause.
type Causation struct {
	EventID string
	Depth   int
}

type causationKey struct{}

// WithCausation returns a context in which written events are caused by c.
func WithCausation(ctx context.Context, c Causation) context.Context {
	return context.WithValue(ctx, causationKey{}, c)
}

// CausationFrom returns the causation carried by ctx.
func CausationFrom(ctx context.Context) (Causation, bool) {
	c, ok := ctx.Value(causationKey{}).(Causation)
	return c, ok
}

// EventRoutes are what listens to one event at the time of its fan-out.
type EventRoutes struct {
	// Found is false when the event no longer exists (its tenant was removed).
	Found bool
	// Depth is the event's place in a causation chain.
	Depth int
	// Webhooks are the enabled webhook endpoints subscribed to the event's type.
	Webhooks []string
	// ProtectDeal is the deal whose protection timer the event starts (deal.approved).
	ProtectDeal string
	// Accrue and Clawback say whether commission plans accrue on the event or reverse
	// accruals because of it.
	Accrue   bool
	Clawback bool
	// PayWithdrawal is the withdrawal whose payout the event starts (withdrawal.approved).
	PayWithdrawal string
	// Playbooks says whether enabled playbooks trigger on the event (and its causation chain
	// is short enough); Waiting whether runs wait for it.
	Playbooks bool
	Waiting   bool
	// StartTicketSLA is the ticket whose SLA clock the event starts (ticket.opened) and
	// TicketSLA what the event tells a running clock (status changes, the desk's replies,
	// priority changes).
	StartTicketSLA *TicketSLASignal
	TicketSLA      *TicketSLASignal
	// AgreementNotices says whether the event asks partners' users by email to accept a newly
	// required agreement version (agreement.published with required).
	AgreementNotices bool
	// SurveyInvitations says whether the event asks partners' users by email to answer a
	// survey (survey.requested).
	SurveyInvitations bool
	// ExpireCertificate is the certificate whose expiry timer the event starts
	// (certification.earned).
	ExpireCertificate string
	// ExpireMDFFund is the MDF fund whose expiry timer the event starts (mdf.fund_allocated).
	ExpireMDFFund string
}

// TicketSLASignal tells a ticket's SLA clock what happened to the ticket at At.
type TicketSLASignal struct {
	TicketID string
	Status   string
	// Priority is set when the desk changed the ticket's priority: the clock takes its policy.
	Priority string
	// Responded is set on the desk's public replies: the first response target is met.
	Responded bool
	At        time.Time
}
