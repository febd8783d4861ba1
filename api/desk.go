package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// DeskStore is what the service desk's operations need of storage, as the caller sees it.
type DeskStore interface {
	ListTicketCategories(ctx context.Context, pg models.Page) ([]models.TicketCategory, string, error)
	CreateTicketCategory(ctx context.Context, c *models.TicketCategory) error
	UpdateTicketCategory(ctx context.Context, id string, ch models.TicketCategoryChanges) (*models.TicketCategory, error)
	DeleteTicketCategory(ctx context.Context, id string) error
	OpenTicket(ctx context.Context, in models.NewTicket) (*models.Ticket, error)
	ListTickets(ctx context.Context, f models.TicketFilter, pg models.Page) ([]models.Ticket, string, error)
	Ticket(ctx context.Context, id string) (*models.Ticket, error)
	UpdateTicket(ctx context.Context, id string, c models.TicketChanges) (*models.Ticket, error)
	ChangeTicketStatus(ctx context.Context, id, to string) (*models.Ticket, error)
	TicketMessages(ctx context.Context, ticketID string, pg models.Page) ([]models.TicketMessage, string, error)
	AddTicketMessage(ctx context.Context, ticketID, body string, internal bool) (*models.TicketMessage, error)
	CheckTicketUpload(ctx context.Context, ticketID, messageID string) error
	AddTicketAttachment(ctx context.Context, ticketID string, a *models.TicketAttachment) error
	TicketAttachments(ctx context.Context, ticketID string, pg models.Page) ([]models.TicketAttachment, string, error)
	TicketAttachment(ctx context.Context, id string) (*models.TicketAttachment, error)
	SLAStore
}

// desk is the service desk store as the caller sees it.
func (s *Server) desk(ctx context.Context) DeskStore {
	return s.deps.Modules.Desk(models.PrincipalFrom(ctx))
}

// TicketCategory is one of the tenant's ticket categories.
type TicketCategory struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

func ticketCategoryOf(c *models.TicketCategory) TicketCategory {
	return TicketCategory{ID: c.ID, Name: c.Name, Description: c.Description, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// Ticket is a service desk ticket as the API shows it.
type Ticket struct {
	ID              string     `json:"id"`
	PartnerID       string     `json:"partnerId" doc:"The partner organisation the ticket belongs to"`
	CustomerID      string     `json:"customerId,omitempty" doc:"The partner's customer it is about, if any"`
	CategoryID      string     `json:"categoryId,omitempty"`
	Subject         string     `json:"subject"`
	Priority        string     `json:"priority" enum:"low,normal,high,urgent"`
	Status          string     `json:"status" enum:"open,pending_partner,pending_operator,resolved,closed"`
	RequesterID     string     `json:"requesterId" doc:"Who asked: a partner user, an operator or a machine key"`
	AssigneeUserID  string     `json:"assigneeUserId,omitempty" doc:"The operator user working on it"`
	Tags            []string   `json:"tags" nullable:"false"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	FirstResponseAt *time.Time `json:"firstResponseAt,omitempty" doc:"The desk's first public reply"`
	ResolvedAt      *time.Time `json:"resolvedAt,omitempty"`
	ClosedAt        *time.Time `json:"closedAt,omitempty"`
	SLA             *TicketSLA `json:"sla,omitempty" doc:"The SLA clock's state; absent when the ticket's priority has no SLA policy"`
}

// TicketSLA is what a ticket's SLA clock recorded: when each target is due while the clock
// runs, since when it is paused (pending on the partner), and when each was warned about and
// breached.
type TicketSLA struct {
	FirstResponseDueAt      *time.Time `json:"firstResponseDueAt,omitempty" doc:"Absent while paused, once met, or without a first response target"`
	ResolutionDueAt         *time.Time `json:"resolutionDueAt,omitempty" doc:"Absent while paused or once resolved"`
	PausedAt                *time.Time `json:"pausedAt,omitempty" doc:"Set while the ticket is pending on the partner"`
	FirstResponseWarnedAt   *time.Time `json:"firstResponseWarnedAt,omitempty"`
	FirstResponseBreachedAt *time.Time `json:"firstResponseBreachedAt,omitempty"`
	ResolutionWarnedAt      *time.Time `json:"resolutionWarnedAt,omitempty"`
	ResolutionBreachedAt    *time.Time `json:"resolutionBreachedAt,omitempty"`
}

func ticketSLAOf(t *models.Ticket) *TicketSLA {
	s := TicketSLA{FirstResponseDueAt: t.FirstResponseDueAt, ResolutionDueAt: t.ResolutionDueAt, PausedAt: t.SLAPausedAt,
		FirstResponseWarnedAt: t.FirstResponseWarnedAt, FirstResponseBreachedAt: t.FirstResponseBreachedAt,
		ResolutionWarnedAt: t.ResolutionWarnedAt, ResolutionBreachedAt: t.ResolutionBreachedAt}
	if s == (TicketSLA{}) {
		return nil
	}
	return &s
}

func ticketOf(t *models.Ticket) Ticket {
	tags := t.TagList()
	if tags == nil {
		tags = []string{}
	}
	return Ticket{ID: t.ID, PartnerID: t.PartnerID, CustomerID: str(t.CustomerID), CategoryID: str(t.CategoryID), Subject: t.Subject,
		Priority: t.Priority, Status: t.Status, RequesterID: t.RequesterID, AssigneeUserID: str(t.AssigneeUserID), Tags: tags,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, FirstResponseAt: t.FirstResponseAt, ResolvedAt: t.ResolvedAt, ClosedAt: t.ClosedAt,
		SLA: ticketSLAOf(t)}
}

// TicketMessage is one message of a ticket's thread.
type TicketMessage struct {
	ID         string    `json:"id"`
	TicketID   string    `json:"ticketId"`
	AuthorID   string    `json:"authorId"`
	AuthorKind string    `json:"authorKind" enum:"partner,operator"`
	Internal   bool      `json:"internal" doc:"An operator's internal note; partners never receive these"`
	Body       string    `json:"body"`
	CreatedAt  time.Time `json:"createdAt"`
}

func ticketMessageOf(m *models.TicketMessage) TicketMessage {
	return TicketMessage{ID: m.ID, TicketID: m.TicketID, AuthorID: m.AuthorID, AuthorKind: m.AuthorKind, Internal: m.Internal, Body: m.Body, CreatedAt: m.CreatedAt}
}

// TicketCategoryInput adds a ticket category.
type TicketCategoryInput struct {
	Body struct {
		Name        string `json:"name" minLength:"1" maxLength:"100" example:"Billing"`
		Description string `json:"description,omitempty" maxLength:"500" example:"Payouts, invoices and statements"`
	}
}

// UpdateTicketCategoryInput changes a ticket category; absent fields stay.
type UpdateTicketCategoryInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name        *string `json:"name,omitempty" minLength:"1" maxLength:"100" example:"Payouts"`
		Description *string `json:"description,omitempty" maxLength:"500" example:"Missing or late payouts"`
	}
}

// OpenTicketInput opens a ticket with its first message.
type OpenTicketInput struct {
	Body struct {
		Subject        string   `json:"subject" minLength:"1" maxLength:"200" example:"October payout missing"`
		Body           string   `json:"body" minLength:"1" maxLength:"20000" doc:"The first message" example:"Our October payout has not arrived yet."`
		PartnerID      string   `json:"partnerId,omitempty" maxLength:"36" doc:"The partner organisation it is for; required for operators, partners always open their own" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e21"`
		CustomerID     string   `json:"customerId,omitempty" maxLength:"36" doc:"A customer of that partner it is about" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e22"`
		CategoryID     string   `json:"categoryId,omitempty" maxLength:"36" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e23"`
		Priority       string   `json:"priority,omitempty" enum:"low,normal,high,urgent" doc:"normal unless given" example:"high"`
		RequesterID    string   `json:"requesterId,omitempty" maxLength:"36" doc:"Operators only: the partner user (or operator) who asks; the caller by default" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e24"`
		AssigneeUserID string   `json:"assigneeUserId,omitempty" maxLength:"36" doc:"Operators only: an operator user" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e25"`
		Tags           []string `json:"tags,omitempty" maxItems:"10" maxLength:"32" doc:"Lower-case words" example:"[\"payouts\"]"`
	}
}

// UpdateTicketInput triages a ticket; absent fields stay, "" clears categoryId and assigneeUserId.
type UpdateTicketInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Subject        *string   `json:"subject,omitempty" minLength:"1" maxLength:"200" example:"October payout missing (bank returned it)"`
		Priority       *string   `json:"priority,omitempty" enum:"low,normal,high,urgent" example:"urgent"`
		CategoryID     *string   `json:"categoryId,omitempty" maxLength:"36" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e23"`
		AssigneeUserID *string   `json:"assigneeUserId,omitempty" maxLength:"36" example:"0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e25"`
		Tags           *[]string `json:"tags,omitempty" maxItems:"10" maxLength:"32" doc:"Replaces the tags" example:"[\"payouts\",\"bank\"]"`
	}
}

// TicketStatusInput moves a ticket to another status.
type TicketStatusInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Status string `json:"status" enum:"open,pending_partner,pending_operator,resolved,closed" example:"resolved"`
	}
}

// TicketMessageInput adds a reply or a note to a ticket's thread.
type TicketMessageInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Body string `json:"body" minLength:"1" maxLength:"20000" example:"The payout was sent again today."`
	}
}

// TicketMessagesInput pages through a ticket's thread.
type TicketMessagesInput struct {
	ID string `path:"id" maxLength:"36"`
	ListParams
}

// ListTicketsInput filters tickets.
type ListTicketsInput struct {
	ListParams
	Status         string `query:"status" enum:"open,pending_partner,pending_operator,resolved,closed"`
	Priority       string `query:"priority" enum:"low,normal,high,urgent"`
	AssigneeUserID string `query:"assigneeUserId" maxLength:"36"`
	PartnerID      string `query:"partnerId" maxLength:"36"`
	CategoryID     string `query:"categoryId" maxLength:"36"`
	CustomerID     string `query:"customerId" maxLength:"36"`
	Tag            string `query:"tag" maxLength:"32"`
	Q              string `query:"q" maxLength:"200" doc:"Part of the subject, case-insensitive"`
	SLA            string `query:"sla" enum:"breached,paused" doc:"breached: a target of its SLA was breached; paused: its SLA clock waits on the partner"`
}

// TicketCategoryOutput is one category.
type TicketCategoryOutput struct{ Body TicketCategory }

// TicketCategoryListOutput is a page of categories.
type TicketCategoryListOutput struct{ Body ListBody[TicketCategory] }

// TicketOutput is one ticket.
type TicketOutput struct{ Body Ticket }

// TicketListOutput is a page of tickets.
type TicketListOutput struct{ Body ListBody[Ticket] }

// TicketMessageOutput is one message.
type TicketMessageOutput struct{ Body TicketMessage }

// TicketMessageListOutput is a page of a ticket's thread.
type TicketMessageListOutput struct{ Body ListBody[TicketMessage] }

func registerDeskRoutes(s *Server) {
	tags := []string{"Service desk"}
	op := func(id, method, path, summary, description string, status int, errs ...int) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Tags: tags, Summary: summary, Description: description,
			DefaultStatus: status, Security: UsersOrKeys, Errors: errs}
	}
	withExample := func(o huma.Operation, example string) huma.Operation {
		o.RequestBody = requestExample(example)
		return o
	}
	register(s, op("list-ticket-categories", http.MethodGet, "/api/ticket-categories", "List ticket categories", "", 0),
		Requires(authz.TicketsRead), s.listTicketCategories)
	register(s, withExample(op("create-ticket-category", http.MethodPost, "/api/ticket-categories", "Add a ticket category", "", http.StatusCreated,
		http.StatusForbidden, http.StatusConflict, http.StatusUnprocessableEntity), `{"name": "Billing", "description": "Payouts, invoices and statements"}`), Requires(authz.TicketsManage), s.createTicketCategory)
	register(s, withExample(op("update-ticket-category", http.MethodPatch, "/api/ticket-categories/{id}", "Change a ticket category", "", 0,
		http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity), `{"name": "Payouts", "description": "Missing or late payouts"}`), Requires(authz.TicketsManage), s.updateTicketCategory)
	register(s, op("delete-ticket-category", http.MethodDelete, "/api/ticket-categories/{id}", "Delete a ticket category",
		"Only a category no ticket uses: 409 TICKET_CATEGORY_IN_USE otherwise.", http.StatusNoContent,
		http.StatusForbidden, http.StatusNotFound, http.StatusConflict), Requires(authz.TicketsManage), s.deleteTicketCategory)

	register(s, withExample(op("open-ticket", http.MethodPost, "/api/tickets", "Open a ticket",
		"Partners open tickets of their own organisation as themselves; operators name the partner.", http.StatusCreated,
		http.StatusForbidden, http.StatusUnprocessableEntity), `{"subject": "October payout missing", "body": "Our October payout has not arrived yet.", "priority": "high", "categoryId": "0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e23", "customerId": "0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e22", "tags": ["payouts"]}`), Requires(authz.TicketsWrite), s.openTicket)
	register(s, op("list-tickets", http.MethodGet, "/api/tickets", "List tickets", "Partners see only their organisation's tickets.", 0,
		http.StatusUnprocessableEntity), Requires(authz.TicketsRead), s.listTickets)
	register(s, op("get-ticket", http.MethodGet, "/api/tickets/{id}", "Get a ticket", "", 0, http.StatusNotFound),
		Requires(authz.TicketsRead), s.getTicket)
	register(s, withExample(op("update-ticket", http.MethodPatch, "/api/tickets/{id}", "Triage a ticket",
		"Subject, priority, category, tags and the operator it is assigned to.", 0,
		http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity), `{"priority": "urgent", "assigneeUserId": "0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e25", "tags": ["payouts", "bank"]}`), Requires(authz.TicketsManage), s.updateTicket)
	register(s, withExample(op("change-ticket-status", http.MethodPost, "/api/tickets/{id}/status", "Move a ticket to another status",
		"open, pending_partner, pending_operator and resolved move among each other; resolved reopens or closes; closed is final. "+
			"Partners only resolve, and reopen or close a resolved ticket (403 TICKET_TRANSITION_FOR_OPERATORS).", 0,
		http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity), `{"status": "resolved"}`), Requires(authz.TicketsWrite), s.changeTicketStatus)
	register(s, op("list-ticket-messages", http.MethodGet, "/api/tickets/{id}/messages", "A ticket's thread",
		"Oldest first. Partners receive the replies only, never an internal note.", 0, http.StatusNotFound),
		Requires(authz.TicketsRead), s.listTicketMessages)
	register(s, withExample(op("reply-to-ticket", http.MethodPost, "/api/tickets/{id}/messages", "Reply on a ticket",
		"A partner's reply puts the ticket with the desk (pending_operator, reopening a resolved one); the desk's reply waits on the partner. "+
			"A closed ticket takes none (409 TICKET_CLOSED).", http.StatusCreated,
		http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity), `{"body": "The payout was sent again today."}`), Requires(authz.TicketsWrite), s.replyToTicket)
	register(s, withExample(op("add-ticket-note", http.MethodPost, "/api/tickets/{id}/notes", "Add an internal note to a ticket",
		"Operators only; partners never see notes in any response, event or message.", http.StatusCreated,
		http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity), `{"body": "Bank confirmed the return; resend after the partner updates its IBAN."}`), Requires(authz.TicketsManage), s.addTicketNote)

	upload := op("upload-ticket-attachment", http.MethodPost, "/api/tickets/{id}/attachments", "Attach a file to a ticket",
		fmt.Sprintf("The request body is the file's bytes. At most %d MiB (413); its type is told from the bytes and must be a PDF, an image "+
			"(PNG, JPEG, GIF, WebP), plain text or CSV, a ZIP, a Word or Excel document (415). With messageId it goes with a message of your "+
			"own; an internal note's file is internal and partners never see it.", models.MaxTicketAttachmentBytes>>20), http.StatusCreated,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusServiceUnavailable)
	maxFile := int(models.MaxTicketAttachmentBytes)
	upload.MaxBodyBytes = models.MaxTicketAttachmentBytes
	upload.Metadata = map[string]any{metaStreamBody: true}
	upload.RequestBody = &huma.RequestBody{Required: true, Description: "The file's bytes", Content: map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary", MaxLength: &maxFile}}}}
	register(s, upload, Requires(authz.TicketsWrite), s.uploadTicketAttachment)
	register(s, op("list-ticket-attachments", http.MethodGet, "/api/tickets/{id}/attachments", "A ticket's files",
		"Oldest first. Partners never receive an internal note's files.", 0, http.StatusNotFound), Requires(authz.TicketsRead), s.listTicketAttachments)
	download := op("download-ticket-attachment", http.MethodGet, "/api/ticket-attachments/{id}", "Download a ticket's file",
		"Authorised like its ticket: another partner's file, or an internal note's for a partner, is 404. Range requests are served (206).", 0,
		http.StatusNotFound, http.StatusServiceUnavailable)
	download.Responses = map[string]*huma.Response{"200": {Description: "The file's bytes", Content: map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}}}
	register(s, download, Requires(authz.TicketsRead), s.downloadTicketAttachment)
}

func ticketOutput(t *models.Ticket, err error) (*TicketOutput, error) {
	if err != nil {
		return nil, err
	}
	return &TicketOutput{Body: ticketOf(t)}, nil
}

func ticketCategoryOutput(c *models.TicketCategory, err error) (*TicketCategoryOutput, error) {
	if err != nil {
		return nil, err
	}
	return &TicketCategoryOutput{Body: ticketCategoryOf(c)}, nil
}

func ticketMessageOutput(m *models.TicketMessage, err error) (*TicketMessageOutput, error) {
	if err != nil {
		return nil, err
	}
	return &TicketMessageOutput{Body: ticketMessageOf(m)}, nil
}

// listTicketCategories lists the ticket categories.
func (s *Server) listTicketCategories(ctx context.Context, in *ListParams) (*TicketCategoryListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.TicketCategory, string, error) {
		return s.desk(ctx).ListTicketCategories(ctx, pg)
	}, ticketCategoryOf)
	return &TicketCategoryListOutput{Body: body}, err
}

// createTicketCategory adds a ticket category.
func (s *Server) createTicketCategory(ctx context.Context, in *TicketCategoryInput) (*TicketCategoryOutput, error) {
	c := &models.TicketCategory{Name: in.Body.Name, Description: in.Body.Description}
	return ticketCategoryOutput(c, s.desk(ctx).CreateTicketCategory(ctx, c))
}

// updateTicketCategory changes a ticket category.
func (s *Server) updateTicketCategory(ctx context.Context, in *UpdateTicketCategoryInput) (*TicketCategoryOutput, error) {
	return ticketCategoryOutput(s.desk(ctx).UpdateTicketCategory(ctx, in.ID, models.TicketCategoryChanges{Name: in.Body.Name, Description: in.Body.Description}))
}

// deleteTicketCategory deletes an unused ticket category.
func (s *Server) deleteTicketCategory(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.desk(ctx).DeleteTicketCategory(ctx, in.ID)
}

// openTicket opens a ticket.
func (s *Server) openTicket(ctx context.Context, in *OpenTicketInput) (*TicketOutput, error) {
	b := in.Body
	return ticketOutput(s.desk(ctx).OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: b.Subject, PartnerID: b.PartnerID,
		CustomerID: nonEmpty(b.CustomerID), CategoryID: nonEmpty(b.CategoryID), Priority: b.Priority, RequesterID: b.RequesterID,
		AssigneeUserID: nonEmpty(b.AssigneeUserID)}, Tags: b.Tags, Body: b.Body}))
}

// listTickets lists tickets.
func (s *Server) listTickets(ctx context.Context, in *ListTicketsInput) (*TicketListOutput, error) {
	f := models.TicketFilter{Status: in.Status, Priority: in.Priority, AssigneeUserID: in.AssigneeUserID, PartnerID: in.PartnerID,
		CategoryID: in.CategoryID, CustomerID: in.CustomerID, Tag: in.Tag, Q: in.Q, SLA: in.SLA}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Ticket, string, error) {
		return s.desk(ctx).ListTickets(ctx, f, pg)
	}, ticketOf)
	return &TicketListOutput{Body: body}, err
}

// getTicket answers one ticket.
func (s *Server) getTicket(ctx context.Context, in *IDPath) (*TicketOutput, error) {
	return ticketOutput(s.desk(ctx).Ticket(ctx, in.ID))
}

// updateTicket triages a ticket.
func (s *Server) updateTicket(ctx context.Context, in *UpdateTicketInput) (*TicketOutput, error) {
	b := in.Body
	return ticketOutput(s.desk(ctx).UpdateTicket(ctx, in.ID, models.TicketChanges{Subject: b.Subject, Priority: b.Priority,
		CategoryID: b.CategoryID, AssigneeUserID: b.AssigneeUserID, Tags: b.Tags}))
}

// changeTicketStatus moves a ticket to another status.
func (s *Server) changeTicketStatus(ctx context.Context, in *TicketStatusInput) (*TicketOutput, error) {
	return ticketOutput(s.desk(ctx).ChangeTicketStatus(ctx, in.ID, in.Body.Status))
}

// listTicketMessages pages through a ticket's thread.
func (s *Server) listTicketMessages(ctx context.Context, in *TicketMessagesInput) (*TicketMessageListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.TicketMessage, string, error) {
		return s.desk(ctx).TicketMessages(ctx, in.ID, pg)
	}, ticketMessageOf)
	return &TicketMessageListOutput{Body: body}, err
}

// replyToTicket adds a public reply.
func (s *Server) replyToTicket(ctx context.Context, in *TicketMessageInput) (*TicketMessageOutput, error) {
	return ticketMessageOutput(s.desk(ctx).AddTicketMessage(ctx, in.ID, in.Body.Body, false))
}

// addTicketNote adds an internal note.
func (s *Server) addTicketNote(ctx context.Context, in *TicketMessageInput) (*TicketMessageOutput, error) {
	return ticketMessageOutput(s.desk(ctx).AddTicketMessage(ctx, in.ID, in.Body.Body, true))
}

// TicketAttachment is a file of a ticket.
type TicketAttachment struct {
	ID          string    `json:"id"`
	TicketID    string    `json:"ticketId"`
	MessageID   string    `json:"messageId,omitempty"`
	Internal    bool      `json:"internal" doc:"A file of an internal note; partners never receive these"`
	Name        string    `json:"name"`
	ContentType string    `json:"contentType" doc:"Told from the file's bytes"`
	Size        int64     `json:"size" doc:"In bytes"`
	SHA256      string    `json:"sha256"`
	UploadedBy  string    `json:"uploadedBy"`
	CreatedAt   time.Time `json:"createdAt"`
}

func ticketAttachmentOf(a *models.TicketAttachment) TicketAttachment {
	return TicketAttachment{ID: a.ID, TicketID: a.TicketID, MessageID: str(a.MessageID), Internal: a.Internal, Name: a.Name,
		ContentType: a.ContentType, Size: a.Size, SHA256: a.SHA256, UploadedBy: a.UploadedBy, CreatedAt: a.CreatedAt}
}

// UploadTicketAttachmentInput is a file for a ticket.
type UploadTicketAttachmentInput struct {
	ID        string `path:"id" maxLength:"36"`
	Name      string `query:"name" required:"true" minLength:"1" maxLength:"200" pattern:"^[^/\\\\]+$" doc:"The file's name, without a path" example:"statement.pdf"`
	MessageID string `query:"messageId" maxLength:"36" doc:"A message of your own the file goes with"`
}

// TicketAttachmentOutput is one attachment.
type TicketAttachmentOutput struct{ Body TicketAttachment }

// TicketAttachmentListOutput is a page of a ticket's files.
type TicketAttachmentListOutput struct{ Body ListBody[TicketAttachment] }

// uploadTicketAttachment stores a file and records it on the ticket; the file is removed again
// when the record cannot be written.
func (s *Server) uploadTicketAttachment(ctx context.Context, in *UploadTicketAttachmentInput) (*TicketAttachmentOutput, error) {
	d := s.desk(ctx)
	if err := d.CheckTicketUpload(ctx, in.ID, in.MessageID); err != nil {
		return nil, err
	}
	obj, err := s.storeUpload(ctx, "tickets", blobstore.Limits{MaxBytes: models.MaxTicketAttachmentBytes, Types: models.TicketAttachmentTypes})
	if err != nil {
		return nil, err
	}
	a := &models.TicketAttachment{MessageID: nonEmpty(in.MessageID), Name: in.Name, ContentType: obj.ContentType, Size: obj.Size, SHA256: obj.SHA256, BlobKey: obj.Key}
	if err := d.AddTicketAttachment(ctx, in.ID, a); err != nil {
		if derr := s.deps.Blobs.Delete(context.WithoutCancel(ctx), obj.Key); derr != nil {
			s.log.ErrorContext(ctx, "deleting an orphaned upload failed", "request_id", RequestID(ctx), "error", derr.Error())
		}
		return nil, err
	}
	return &TicketAttachmentOutput{Body: ticketAttachmentOf(a)}, nil
}

// listTicketAttachments lists a ticket's files.
func (s *Server) listTicketAttachments(ctx context.Context, in *TicketMessagesInput) (*TicketAttachmentListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.TicketAttachment, string, error) {
		return s.desk(ctx).TicketAttachments(ctx, in.ID, pg)
	}, ticketAttachmentOf)
	return &TicketAttachmentListOutput{Body: body}, err
}

// downloadTicketAttachment streams a ticket's file, with Range requests, to whoever may read the
// ticket. It is always a download (never rendered in the page) and text is served as plain text.
func (s *Server) downloadTicketAttachment(ctx context.Context, in *IDPath) (*huma.StreamResponse, error) {
	if _, err := s.blobs(); err != nil {
		return nil, err
	}
	a, err := s.desk(ctx).TicketAttachment(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	f, err := s.openBlob(ctx, a.BlobKey, models.NotFound("TICKET_ATTACHMENT_NOT_FOUND", "ticket attachment"))
	if err != nil {
		return nil, err
	}
	ct := a.ContentType
	if strings.HasPrefix(ct, "text/") {
		ct = "text/plain; charset=utf-8"
	}
	return downloadResponse(f, download{ContentType: ct, FileName: a.Name, ModTime: a.CreatedAt}), nil
}
