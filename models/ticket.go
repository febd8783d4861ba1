package models

import (
	"encoding/json"
	"regexp"
	"slices"
	"time"
)

// Ticket statuses. A ticket moves between them by CheckTicketTransition; replies move it on their own
// (TicketStatusAfterReply).
//
//	open             → pending_partner, pending_operator, resolved, closed
//	pending_partner  → open, pending_operator, resolved, closed
//	pending_operator → open, pending_partner, resolved, closed
//	resolved         → open (reopened), closed
//	closed           → nothing: a closed ticket is final
//
// Partners may only resolve their ticket, reopen a resolved one or close a resolved one; the
// pending states are the desk's to set (by hand or by the replies).
const (
	TicketOpen            = "open"
	TicketPendingPartner  = "pending_partner"
	TicketPendingOperator = "pending_operator"
	TicketResolved        = "resolved"
	TicketClosed          = "closed"
)

// TicketStatuses are the statuses in their usual order.
var TicketStatuses = []string{TicketOpen, TicketPendingPartner, TicketPendingOperator, TicketResolved, TicketClosed}

// Ticket priorities, lowest first.
const (
	TicketLow    = "low"
	TicketNormal = "normal"
	TicketHigh   = "high"
	TicketUrgent = "urgent"
)

// TicketPriorities are the priorities, lowest first.
var TicketPriorities = []string{TicketLow, TicketNormal, TicketHigh, TicketUrgent}

// MaxTicketTags bounds the tags of one ticket.
const MaxTicketTags = 10

var ticketTransitions = map[string][]string{
	TicketOpen:            {TicketPendingPartner, TicketPendingOperator, TicketResolved, TicketClosed},
	TicketPendingPartner:  {TicketOpen, TicketPendingOperator, TicketResolved, TicketClosed},
	TicketPendingOperator: {TicketOpen, TicketPendingPartner, TicketResolved, TicketClosed},
	TicketResolved:        {TicketOpen, TicketClosed},
	TicketClosed:          nil,
}

// CheckTicketTransition says whether a ticket may move from one status to another, and whether a
// partner may move it so (byPartner). It returns nil when the move is allowed.
func CheckTicketTransition(from, to string, byPartner bool) error {
	if !slices.Contains(TicketStatuses, to) {
		return Invalid("INVALID_TICKET_STATUS", "no such ticket status", FieldError{Location: "body.status", Message: "one of open, pending_partner, pending_operator, resolved, closed", Value: to})
	}
	if from == to {
		return Errorf(KindConflict, "TICKET_STATUS_UNCHANGED", "the ticket is %s already", to)
	}
	if !slices.Contains(ticketTransitions[from], to) {
		return Errorf(KindConflict, "TICKET_TRANSITION_NOT_ALLOWED", "a ticket cannot move from %s to %s", from, to)
	}
	partnerMay := to == TicketResolved || (from == TicketResolved && (to == TicketOpen || to == TicketClosed))
	if byPartner && !partnerMay {
		return Errorf(KindForbidden, "TICKET_TRANSITION_FOR_OPERATORS", "only the desk moves a ticket from %s to %s", from, to)
	}
	return nil
}

// TicketStatusAfterReply is the status a public reply leaves a ticket in: a partner's reply puts
// it back with the desk (reopening a resolved ticket), an operator's reply waits on the partner.
// A closed ticket takes no replies (ok is false).
func TicketStatusAfterReply(status string, byPartner bool) (next string, ok bool) {
	switch {
	case status == TicketClosed:
		return status, false
	case byPartner:
		return TicketPendingOperator, true
	case status == TicketResolved:
		return status, true
	default:
		return TicketPendingPartner, true
	}
}

var ticketTagPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// NormalizeTicketTags checks tags (lower-case words of at most 32 characters, at most
// MaxTicketTags) and drops duplicates, keeping the order.
func NormalizeTicketTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !ticketTagPattern.MatchString(t) {
			return nil, Invalid("INVALID_TICKET_TAG", "a tag is a lower-case word of letters, digits, - and _ of at most 32 characters",
				FieldError{Location: "body.tags", Message: "lower-case letters, digits, - and _", Value: t})
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > MaxTicketTags {
		return nil, Invalid("TOO_MANY_TICKET_TAGS", "a ticket has at most 10 tags", FieldError{Location: "body.tags", Message: "at most 10 tags"})
	}
	return out, nil
}

// Ticket is a request for help of a partner organisation, optionally about one of its customers.
type Ticket struct {
	ID         string  `gorm:"primaryKey;size:36"`
	TenantID   string  `gorm:"size:36;not null"`
	PartnerID  string  `gorm:"size:36;not null"`
	CustomerID *string `gorm:"size:36"`
	CategoryID *string `gorm:"size:36"`
	Subject    string  `gorm:"size:200;not null"`
	Priority   string  `gorm:"size:8;not null"`
	Status     string  `gorm:"size:16;not null"`
	// RequesterID is who asked: a partner user, an operator or a machine key acting for the partner.
	RequesterID string `gorm:"size:36;not null"`
	// AssigneeUserID is the operator user working on it.
	AssigneeUserID *string `gorm:"size:36"`
	// Tags is a JSON array of the ticket's tags.
	Tags      string `gorm:"size:400;not null"`
	CreatedBy string `gorm:"size:36;not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
	// FirstResponseAt is the desk's first public reply.
	FirstResponseAt *time.Time
	ResolvedAt      *time.Time
	ClosedAt        *time.Time
	// The SLA state its clock records (models.TicketSLA); all nil without an SLA policy.
	FirstResponseDueAt      *time.Time
	ResolutionDueAt         *time.Time
	SLAPausedAt             *time.Time `gorm:"column:sla_paused_at"`
	FirstResponseWarnedAt   *time.Time
	FirstResponseBreachedAt *time.Time
	ResolutionWarnedAt      *time.Time
	ResolutionBreachedAt    *time.Time
}

// TagList is the ticket's tags.
func (t *Ticket) TagList() []string {
	var tags []string
	_ = json.Unmarshal([]byte(t.Tags), &tags)
	return tags
}

// SetTags stores tags, which NormalizeTicketTags has checked.
func (t *Ticket) SetTags(tags []string) {
	if tags == nil {
		tags = []string{}
	}
	b, _ := json.Marshal(tags)
	t.Tags = string(b)
}

// Ticket message author kinds.
const (
	TicketAuthorPartner  = "partner"
	TicketAuthorOperator = "operator"
)

// TicketMessage is one message of a ticket's thread: a public reply, or an operator's internal
// note that partners never see.
type TicketMessage struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	TicketID string `gorm:"size:36;not null"`
	// PartnerID repeats the ticket's partner, so that a partner's scope limits messages directly.
	PartnerID  string `gorm:"size:36;not null"`
	AuthorID   string `gorm:"size:36;not null"`
	AuthorKind string `gorm:"size:8;not null"`
	Internal   bool   `gorm:"not null"`
	Body       string `gorm:"type:text;not null"`
	CreatedAt  time.Time
}

// TicketAttachment is a file of a ticket, stored in the blob store under BlobKey; on an internal
// note it is internal too, and partners never see it.
type TicketAttachment struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	TicketID string `gorm:"size:36;not null"`
	// MessageID is the message it came with, if any.
	MessageID   *string `gorm:"size:36"`
	PartnerID   string  `gorm:"size:36;not null"`
	Internal    bool    `gorm:"not null"`
	Name        string  `gorm:"size:200;not null"`
	ContentType string  `gorm:"size:100;not null"`
	Size        int64   `gorm:"not null"`
	SHA256      string  `gorm:"column:sha256;size:64;not null"`
	BlobKey     string  `gorm:"size:64;not null"`
	UploadedBy  string  `gorm:"size:36;not null"`
	CreatedAt   time.Time
}

// MaxTicketAttachmentBytes bounds one attachment.
const MaxTicketAttachmentBytes = 10 << 20

// TicketAttachmentTypes are the media types an attachment may have (told by its bytes).
var TicketAttachmentTypes = []string{"application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp", "text/plain", "text/csv",
	"application/zip", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}

// TicketCategory is one entry of the tenant's list of ticket categories.
type TicketCategory struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	Name        string `gorm:"size:100;not null"`
	Description string `gorm:"size:500"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TicketFilter selects tickets; zero fields do not filter. Q searches the subject; SLA is
// TicketSLABreached or TicketSLAPaused.
type TicketFilter struct {
	Status, Priority, AssigneeUserID, PartnerID, CategoryID, CustomerID, Tag, Q, SLA string
}

// Ticket SLA filters: a target breached, or the clock waiting on the partner.
const (
	TicketSLABreached = "breached"
	TicketSLAPaused   = "paused"
)

// TicketChanges are the fields an operator's ticket update sets; nil leaves a field alone, ""
// clears the category and the assignee.
type TicketChanges struct {
	Subject, Priority, CategoryID, AssigneeUserID *string
	Tags                                          *[]string
}

// TicketCategoryChanges are the fields a category update sets.
type TicketCategoryChanges struct {
	Name, Description *string
}

// TicketEventPayload is the payload of ticket.* events. It never carries a message's text: the
// thread is read through the API, where partners never see internal notes.
type TicketEventPayload struct {
	TicketID       string   `json:"ticketId"`
	PartnerID      string   `json:"partnerId"`
	CustomerID     string   `json:"customerId,omitempty"`
	CategoryID     string   `json:"categoryId,omitempty"`
	Subject        string   `json:"subject"`
	Status         string   `json:"status" enum:"open,pending_partner,pending_operator,resolved,closed"`
	PreviousStatus string   `json:"previousStatus,omitempty" doc:"Set on ticket.status_changed"`
	Priority       string   `json:"priority" enum:"low,normal,high,urgent"`
	AssigneeUserID string   `json:"assigneeUserId,omitempty"`
	Tags           []string `json:"tags"`
	MessageID      string   `json:"messageId,omitempty" doc:"Set on ticket.replied and ticket.note_added"`
	AuthorKind     string   `json:"authorKind,omitempty" enum:"partner,operator" doc:"Who replied, on ticket.replied"`
	Changed        []string `json:"changed,omitempty" doc:"The fields that changed, on ticket.updated"`
	AttachmentID   string   `json:"attachmentId,omitempty" doc:"Set on ticket.attachment_added"`
	AttachmentName string   `json:"attachmentName,omitempty" doc:"Set on ticket.attachment_added"`
}

// NewTicket is a ticket to open with its first message.
type NewTicket struct {
	Ticket Ticket
	Tags   []string
	Body   string
}
