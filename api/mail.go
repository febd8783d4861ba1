package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagMail = "Mail"

// MailStore is what the mail operations need of storage, as the caller sees it.
type MailStore interface {
	ListMail(ctx context.Context, f models.MailFilter, pg models.Page) ([]models.MailMessage, string, error)
	MailMessage(ctx context.Context, id string) (*models.MailMessage, error)
}

// mail is the mail outbox as the caller sees it.
func (s *Server) mail(ctx context.Context) MailStore {
	return s.deps.Modules.Mail(models.PrincipalFrom(ctx))
}

// MailMessage is an outgoing email message as the outbox lists it: without its bodies.
type MailMessage struct {
	ID        string     `json:"id"`
	To        string     `json:"to" doc:"The recipient's address"`
	ToName    string     `json:"toName,omitempty" doc:"The recipient's display name"`
	From      string     `json:"from"`
	Subject   string     `json:"subject"`
	Status    string     `json:"status" enum:"sent,stored,failed" doc:"sent: an SMTP server accepted it; stored: kept in the outbox only, not sent; failed: see error"`
	Transport string     `json:"transport" enum:"smtp,outbox"`
	Error     string     `json:"error,omitempty" doc:"Why the last attempt failed"`
	Attempts  int        `json:"attempts"`
	MessageID string     `json:"messageId,omitempty" doc:"The Message-ID header, without angle brackets"`
	Purpose   string     `json:"purpose" doc:"What the message is for, e.g. playbook or invitation"`
	Reference string     `json:"reference,omitempty" doc:"What caused the message, e.g. a playbook run"`
	CreatedAt time.Time  `json:"createdAt"`
	SentAt    *time.Time `json:"sentAt,omitempty"`
}

func mailOf(m *models.MailMessage) MailMessage {
	return MailMessage{ID: m.ID, To: m.To, ToName: m.ToName, From: m.From, Subject: m.Subject, Status: m.Status,
		Transport: m.Transport, Error: m.Error, Attempts: m.Attempts, MessageID: m.MessageID, Purpose: m.Purpose,
		Reference: m.Reference, CreatedAt: m.CreatedAt, SentAt: m.SentAt}
}

// MailMessageDetail is one message with its bodies.
type MailMessageDetail struct {
	MailMessage
	Text string `json:"text" doc:"The text/plain body"`
	HTML string `json:"html,omitempty" doc:"The text/html alternative, when the message has one"`
}

// ListMailInput filters the outbox.
type ListMailInput struct {
	ListParams
	To            string    `query:"to" maxLength:"320" doc:"Only messages to this address (case-insensitive)"`
	Purpose       string    `query:"purpose" maxLength:"64" doc:"Only messages for this purpose" example:"playbook"`
	Status        string    `query:"status" enum:"sent,stored,failed" doc:"Only messages in this status"`
	CreatedFrom   time.Time `query:"createdFrom" doc:"Messages created at or after this time (RFC 3339)"`
	CreatedBefore time.Time `query:"createdBefore" doc:"Messages created before this time (RFC 3339)"`
}

// MailListOutput is a page of the outbox.
type MailListOutput struct {
	Body ListBody[MailMessage]
}

// MailMessageOutput is one message with its bodies.
type MailMessageOutput struct {
	Body MailMessageDetail
}

func registerMailRoutes(s *Server) {
	tags := []string{tagMail}
	register(s, huma.Operation{
		OperationID: "list-mail-messages", Method: http.MethodGet, Path: "/api/mail/messages", Tags: tags,
		Summary:     "List the outgoing email messages, oldest first",
		Description: "Every message the service sent, tried to send or, without an SMTP server configured, kept in the outbox. Operators only.",
		Security:    UsersOrKeys,
	}, Requires(authz.MailRead), s.listMailMessages)

	register(s, huma.Operation{
		OperationID: "get-mail-message", Method: http.MethodGet, Path: "/api/mail/messages/{id}", Tags: tags,
		Summary: "Get an outgoing email message with its text and HTML bodies", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound},
	}, Requires(authz.MailRead), s.getMailMessage)
}

// listMailMessages lists the outgoing email messages, oldest first.
func (s *Server) listMailMessages(ctx context.Context, in *ListMailInput) (*MailListOutput, error) {
	f := models.MailFilter{To: in.To, Purpose: in.Purpose, Status: in.Status, CreatedFrom: in.CreatedFrom, CreatedBefore: in.CreatedBefore}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.MailMessage, string, error) {
		return s.mail(ctx).ListMail(ctx, f, pg)
	}, mailOf)
	return &MailListOutput{Body: body}, err
}

// getMailMessage answers one outgoing email message with its text and HTML bodies.
func (s *Server) getMailMessage(ctx context.Context, in *IDPath) (*MailMessageOutput, error) {
	m, err := s.mail(ctx).MailMessage(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &MailMessageOutput{Body: MailMessageDetail{MailMessage: mailOf(m), Text: m.TextBody, HTML: m.HTMLBody}}, nil
}
