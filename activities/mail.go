package activities

import (
	"bytes"
	"context"
	"errors"
	htmltemplate "html/template"
	"net/mail"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/partnerd/partnerd/models"
)

// Sender delivers an email message: it sets m.From when empty and records on m how the message
// went (Transport, Status sent or stored, MessageID, SentAt). An error whose Permanent method
// reports true means that trying again cannot help.
type Sender interface {
	Send(ctx context.Context, m *models.MailMessage) error
}

// MailStore records outgoing messages, the audit of the service's mail.
type MailStore interface {
	// MailByIdempotencyKey finds the message recorded under key; KindNotFound when none is.
	MailByIdempotencyKey(ctx context.Context, sys models.Scope, key string) (*models.MailMessage, error)
	// RecordMail records m once per idempotency key and returns the record as stored.
	RecordMail(ctx context.Context, m *models.MailMessage) (*models.MailMessage, error)
}

// AgreementNoticeSource finds the messages that ask partners' users to accept a newly required
// agreement version.
type AgreementNoticeSource interface {
	AgreementNotices(ctx context.Context, sys models.Scope, eventID string) ([]models.AgreementNotice, error)
}

// SurveyInvitationSource finds the survey invitations to email and gives each its link.
type SurveyInvitationSource interface {
	SurveyInvitations(ctx context.Context, sys models.Scope, eventID string) ([]models.SurveyInvitationMail, error)
	IssueSurveyLink(ctx context.Context, sys models.Scope, surveyID string) (string, error)
}

// Mail holds the email activities.
type Mail struct {
	Sender Sender
	Store  MailStore
	// Agreements finds who is asked to accept a published agreement version; without it
	// nobody is emailed.
	Agreements AgreementNoticeSource
	// Surveys finds the survey invitations to email; without it nobody is emailed.
	Surveys SurveyInvitationSource
	// PublicURL is the service's public base URL, under which emailed links point.
	PublicURL string
}

// SendSurveyInvitations emails every invitation a survey.requested event announces its
// single-use link, once per invitation (a retry sends only what is missing; the link's token
// is made just before its message is sent and kept only as a hash). An invitation answered
// meanwhile, or an address the sender refuses for good, is skipped. It returns how many
// invitations were sent or stored.
func (a *Mail) SendSurveyInvitations(ctx context.Context, ref EventRef) (int, error) {
	if a.Surveys == nil {
		return 0, nil
	}
	sys := models.System(ref.TenantID)
	invitations, err := a.Surveys.SurveyInvitations(ctx, sys, ref.EventID)
	if models.ErrorKind(err) == models.KindNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, inv := range invitations {
		key := "survey:" + inv.SurveyID
		prev, err := a.Store.MailByIdempotencyKey(ctx, sys, key)
		switch {
		case err == nil && prev.Delivered():
			sent++
			continue
		case err != nil && models.ErrorKind(err) != models.KindNotFound:
			return sent, err
		}
		token, err := a.Surveys.IssueSurveyLink(ctx, sys, inv.SurveyID)
		if models.ErrorKind(err) == models.KindNotFound {
			continue
		}
		if err != nil {
			return sent, err
		}
		subject, text := surveyMessage(inv, strings.TrimRight(a.PublicURL, "/")+"/survey#token="+token)
		_, err = a.SendEmail(ctx, SendEmailInput{TenantID: ref.TenantID, To: inv.To, Subject: subject, Text: text, Verbatim: true,
			Purpose: models.MailPurposeSurvey, Reference: inv.SurveyID, IdempotencyKey: key})
		var refused *temporal.ApplicationError
		switch {
		case err == nil:
			sent++
		case errors.As(err, &refused) && refused.NonRetryable():
		default:
			return sent, err
		}
	}
	return sent, nil
}

// surveyMessage is the subject and text inviting inv's recipient to answer at link.
func surveyMessage(inv models.SurveyInvitationMail, link string) (string, string) {
	name := inv.Name
	if name == "" {
		name = inv.To
	}
	program := inv.Program
	if program == "" {
		program = "our partner program"
	}
	subject := "A quick question from " + program
	return subject, "Hello " + name + ",\n\n" + models.SurveyQuestion(inv.Kind) + "\n\nAnswer with one click, no sign-in needed:\n" + link +
		"\n\nThe link works once and expires in " + strconv.Itoa(int(models.SurveyTTL.Hours()/24)) + " days at most.\n"
}

// SendAgreementNotices emails every user asked to accept the version an agreement.published
// event requires, once per user and event (a retry sends only what is missing); an address the
// sender refuses for good is skipped. It returns how many messages were sent or stored.
func (a *Mail) SendAgreementNotices(ctx context.Context, ref EventRef) (int, error) {
	if a.Agreements == nil {
		return 0, nil
	}
	notices, err := a.Agreements.AgreementNotices(ctx, models.System(ref.TenantID), ref.EventID)
	if models.ErrorKind(err) == models.KindNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, n := range notices {
		_, err := a.SendEmail(ctx, SendEmailInput{TenantID: ref.TenantID, To: n.To, Subject: n.Subject, Text: n.Text, Verbatim: true,
			Purpose: models.MailPurposeAgreement, Reference: ref.EventID, IdempotencyKey: "agreement:" + ref.EventID + ":" + n.UserID})
		var refused *temporal.ApplicationError
		switch {
		case err == nil:
			sent++
		case errors.As(err, &refused) && refused.NonRetryable():
		default:
			return sent, err
		}
	}
	return sent, nil
}

// Application error types of the email activities; none of them is retried.
const (
	ErrMailTemplate = "MailTemplateError"
	ErrMailInvalid  = "MailInvalid"
	ErrMailRejected = "MailRejected"
)

// SendEmailInput is one message to render and send. Subject and Text are text/template
// templates, HTML an html/template template (its values are escaped); all are executed with
// Data, and a key missing from Data is an error.
type SendEmailInput struct {
	TenantID string
	// To is the recipient: ada@example.com or Ada Lovelace <ada@example.com>.
	To      string
	Subject string
	Text    string
	// HTML is optional; with it the message carries a text and an HTML alternative.
	HTML string
	Data map[string]any
	// Verbatim sends Subject, Text and HTML as they are, already rendered (playbook actions
	// render their templates against the run's data before sending).
	Verbatim bool
	// Purpose says what the message is for, e.g. models.MailPurposePlaybook.
	Purpose string
	// Reference names what caused the message, e.g. a playbook run or an event.
	Reference string
	// IdempotencyKey makes sending once per key: a second call with the same key (e.g. run id
	// and step id) returns the first message instead of sending again.
	IdempotencyKey string
}

// SendEmailResult is the recorded message.
type SendEmailResult struct {
	// MailID is the id of the message in the outbox.
	MailID    string
	Status    string
	Transport string
	// Replayed is set when an earlier call with the same idempotency key had sent the message.
	Replayed bool
}

// SendEmail renders a message, sends it and records it in the outbox. Template and address
// errors fail without retry and without a record; a message the sender refuses for good is
// recorded as failed and not retried; other failures are recorded and returned to be retried.
func (a *Mail) SendEmail(ctx context.Context, in SendEmailInput) (SendEmailResult, error) {
	if in.TenantID == "" {
		return SendEmailResult{}, temporal.NewNonRetryableApplicationError("the message names no tenant", ErrMailInvalid, nil)
	}
	if len(in.IdempotencyKey) > models.MaxMailIdempotencyKey {
		return SendEmailResult{}, temporal.NewNonRetryableApplicationError("the idempotency key is longer than 200 bytes", ErrMailInvalid, nil)
	}
	var prev *models.MailMessage
	if in.IdempotencyKey != "" {
		m, err := a.Store.MailByIdempotencyKey(ctx, models.System(in.TenantID), in.IdempotencyKey)
		switch {
		case err == nil && m.Delivered():
			return SendEmailResult{MailID: m.ID, Status: m.Status, Transport: m.Transport, Replayed: true}, nil
		case err == nil:
			prev = m
		case models.ErrorKind(err) != models.KindNotFound:
			return SendEmailResult{}, err
		}
	}
	to, err := models.ParseMailAddress(in.To)
	if err != nil {
		return SendEmailResult{}, temporal.NewNonRetryableApplicationError("the recipient "+err.Error(), ErrMailInvalid, err)
	}
	m, err := render(in, to)
	if err != nil {
		return SendEmailResult{}, temporal.NewNonRetryableApplicationError("the message templates do not render: "+err.Error(), ErrMailTemplate, err)
	}
	if prev != nil {
		// A retry after a recorded failure keeps the message's id, and so its Message-ID.
		m.ID, m.CreatedAt = prev.ID, prev.CreatedAt
	}
	sendErr := a.Sender.Send(ctx, m)
	if sendErr != nil {
		m.Status, m.Error, m.SentAt = models.MailFailed, sendErr.Error(), nil
	}
	// The outcome is recorded even when the activity's context ends meanwhile.
	rec, err := a.Store.RecordMail(context.WithoutCancel(ctx), m)
	if err != nil {
		return SendEmailResult{}, errors.Join(sendErr, err)
	}
	if sendErr == nil || rec.Delivered() {
		// The store returns another record than m when a concurrent attempt delivered first.
		return SendEmailResult{MailID: rec.ID, Status: rec.Status, Transport: rec.Transport, Replayed: rec != m}, nil
	}
	switch {
	case models.ErrorKind(sendErr) == models.KindInvalid:
		return SendEmailResult{}, temporal.NewNonRetryableApplicationError(sendErr.Error(), ErrMailInvalid, sendErr)
	case permanent(sendErr):
		return SendEmailResult{}, temporal.NewNonRetryableApplicationError(sendErr.Error(), ErrMailRejected, sendErr)
	}
	return SendEmailResult{}, sendErr
}

// render builds the message of in: its templates executed with its data.
func render(in SendEmailInput, to *mail.Address) (*models.MailMessage, error) {
	if in.Verbatim {
		if len(in.Subject)+len(in.Text)+len(in.HTML) > models.MaxMailBody {
			return nil, errMailTooLarge
		}
		return message(in, to, in.Subject, in.Text, in.HTML), nil
	}
	subject, err := renderText("subject", in.Subject, in.Data)
	if err != nil {
		return nil, err
	}
	text, err := renderText("text", in.Text, in.Data)
	if err != nil {
		return nil, err
	}
	var html string
	if in.HTML != "" {
		t, err := htmltemplate.New("html").Option("missingkey=error").Parse(in.HTML)
		if err != nil {
			return nil, err
		}
		w := &limitedBuffer{max: models.MaxMailBody}
		if err := t.Execute(w, in.Data); err != nil {
			return nil, err
		}
		html = w.String()
	}
	return message(in, to, subject, text, html), nil
}

// message is the outgoing record of in with its rendered parts.
func message(in SendEmailInput, to *mail.Address, subject, text, html string) *models.MailMessage {
	m := &models.MailMessage{ID: models.NewID(), TenantID: in.TenantID, To: to.Address, ToName: to.Name,
		// A subject is one line: line breaks in values become spaces.
		Subject: strings.Join(strings.Fields(subject), " "), TextBody: text, HTMLBody: html,
		Purpose: in.Purpose, Reference: in.Reference, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if in.IdempotencyKey != "" {
		key := in.IdempotencyKey
		m.IdempotencyKey = &key
	}
	return m
}

func renderText(name, tmpl string, data map[string]any) (string, error) {
	t, err := texttemplate.New(name).Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", err
	}
	w := &limitedBuffer{max: models.MaxMailBody}
	if err := t.Execute(w, data); err != nil {
		return "", err
	}
	return w.String(), nil
}

// limitedBuffer refuses to grow beyond max bytes, so that a template cannot render without bound.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

var errMailTooLarge = errors.New("the rendered message is larger than 1 MiB")

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, errMailTooLarge
	}
	return b.Buffer.Write(p)
}

// permanent reports whether a sending error says that trying again cannot help.
func permanent(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}
