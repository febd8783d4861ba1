package activities

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/models"
)

// memoryOutbox is a MailStore in memory with the store's once-per-key rule.
type memoryOutbox struct {
	mu   sync.Mutex
	msgs []*models.MailMessage
}

func (o *memoryOutbox) MailByIdempotencyKey(_ context.Context, sys models.Scope, key string) (*models.MailMessage, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.msgs {
		if m.TenantID == sys.TenantID() && m.IdempotencyKey != nil && *m.IdempotencyKey == key {
			c := *m
			return &c, nil
		}
	}
	return nil, models.NotFound("MAIL_MESSAGE_NOT_FOUND", "mail message")
}

func (o *memoryOutbox) RecordMail(_ context.Context, m *models.MailMessage) (*models.MailMessage, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, prev := range o.msgs {
		if m.IdempotencyKey != nil && prev.TenantID == m.TenantID && prev.IdempotencyKey != nil && *prev.IdempotencyKey == *m.IdempotencyKey {
			if prev.Delivered() {
				c := *prev
				return &c, nil
			}
			m.ID, m.CreatedAt, m.Attempts = prev.ID, prev.CreatedAt, prev.Attempts+1
			c := *m
			o.msgs[i] = &c
			return m, nil
		}
	}
	m.Attempts = 1
	c := *m
	o.msgs = append(o.msgs, &c)
	return m, nil
}

func (o *memoryOutbox) all() []models.MailMessage {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []models.MailMessage
	for _, m := range o.msgs {
		out = append(out, *m)
	}
	return out
}

// permanentError is a sending failure the sender calls permanent.
type permanentError struct{ error }

func (permanentError) Permanent() bool { return true }

// fakeSender keeps what it is given and fails with the errors queued in fail.
type fakeSender struct {
	mu   sync.Mutex
	sent []models.MailMessage
	fail []error
}

func (f *fakeSender) Send(_ context.Context, m *models.MailMessage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.From == "" {
		m.From = "Acme Partners <noreply@acme.test>"
	}
	m.Transport = models.MailTransportSMTP
	if len(f.fail) > 0 {
		err := f.fail[0]
		f.fail = f.fail[1:]
		return err
	}
	now := time.Now()
	m.Status, m.SentAt, m.MessageID = models.MailSent, &now, m.ID+"@acme.test"
	f.sent = append(f.sent, *m)
	return nil
}

func (f *fakeSender) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sent)
}

func welcome(key string) SendEmailInput {
	return SendEmailInput{TenantID: "tenant-1", To: "Ada Lovelace <ada@example.com>",
		Subject: "Welcome, {{.Name}}", Text: "Hello {{.Name}},\nyou are now {{.Level}}.",
		HTML: "<p>Hello {{.Name}}, you are now <b>{{.Level}}</b>.</p>",
		Data: map[string]any{"Name": "Ada <Countess>", "Level": "Gold"}, Purpose: models.MailPurposePlaybook,
		Reference: "run-1", IdempotencyKey: key}
}

func nonRetryable(t *testing.T, err error, errType string) {
	t.Helper()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != errType {
		t.Fatalf("error = %v, want a non-retryable %s", err, errType)
	}
}

func TestSendEmailRendersTheTemplatesAndRecordsTheMessage(t *testing.T) {
	sender, outbox := &fakeSender{}, &memoryOutbox{}
	a := &Mail{Sender: sender, Store: outbox}
	res, err := a.SendEmail(context.Background(), welcome("run-1/step-1"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != models.MailSent || res.Transport != models.MailTransportSMTP || res.Replayed || res.MailID == "" {
		t.Fatalf("result = %+v", res)
	}
	if sender.count() != 1 {
		t.Fatalf("sent %d messages", sender.count())
	}
	m := sender.sent[0]
	t.Run("subject and text render as text, the HTML escapes its values", func(t *testing.T) {
		if m.Subject != "Welcome, Ada <Countess>" || m.TextBody != "Hello Ada <Countess>,\nyou are now Gold." {
			t.Errorf("subject %q, text %q", m.Subject, m.TextBody)
		}
		if m.HTMLBody != "<p>Hello Ada &lt;Countess&gt;, you are now <b>Gold</b>.</p>" {
			t.Errorf("html %q", m.HTMLBody)
		}
		if m.To != "ada@example.com" || m.ToName != "Ada Lovelace" {
			t.Errorf("to %q name %q", m.To, m.ToName)
		}
	})
	t.Run("the outbox holds the message with its purpose and reference", func(t *testing.T) {
		all := outbox.all()
		if len(all) != 1 || all[0].ID != res.MailID || all[0].Status != models.MailSent || all[0].Purpose != models.MailPurposePlaybook ||
			all[0].Reference != "run-1" || all[0].IdempotencyKey == nil || *all[0].IdempotencyKey != "run-1/step-1" {
			t.Fatalf("outbox = %+v", all)
		}
	})
	t.Run("line breaks in values do not break the subject", func(t *testing.T) {
		in := welcome("")
		in.Data = map[string]any{"Name": "Ada\r\nBcc: eve@example.com", "Level": "Gold"}
		if _, err := a.SendEmail(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		if got := sender.sent[len(sender.sent)-1].Subject; got != "Welcome, Ada Bcc: eve@example.com" {
			t.Fatalf("subject = %q", got)
		}
	})
}

func TestSendEmailSendsOncePerIdempotencyKey(t *testing.T) {
	sender, outbox := &fakeSender{}, &memoryOutbox{}
	a := &Mail{Sender: sender, Store: outbox}
	first, err := a.SendEmail(context.Background(), welcome("run-1/step-1"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.SendEmail(context.Background(), welcome("run-1/step-1"))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replayed || again.MailID != first.MailID || sender.count() != 1 {
		t.Fatalf("second call = %+v after %d sends, want the first message again", again, sender.count())
	}
	other := welcome("run-1/step-1")
	other.TenantID = "tenant-2"
	if res, err := a.SendEmail(context.Background(), other); err != nil || res.Replayed || sender.count() != 2 {
		t.Fatalf("another tenant's key = %+v, %v", res, err)
	}
}

func TestSendEmailRetriesTemporaryFailuresUnderTheSameRecord(t *testing.T) {
	sender := &fakeSender{fail: []error{errors.New("dial tcp: connection refused")}}
	outbox := &memoryOutbox{}
	a := &Mail{Sender: sender, Store: outbox}
	_, err := a.SendEmail(context.Background(), welcome("run-1/step-1"))
	var app *temporal.ApplicationError
	if err == nil || (errors.As(err, &app) && app.NonRetryable()) {
		t.Fatalf("a refused connection = %v, want an error to retry", err)
	}
	failed := outbox.all()
	if len(failed) != 1 || failed[0].Status != models.MailFailed || !strings.Contains(failed[0].Error, "connection refused") {
		t.Fatalf("outbox after the failure = %+v", failed)
	}
	res, err := a.SendEmail(context.Background(), welcome("run-1/step-1"))
	if err != nil {
		t.Fatal(err)
	}
	all := outbox.all()
	if res.MailID != failed[0].ID || len(all) != 1 || all[0].Status != models.MailSent || all[0].Attempts != 2 || sender.sent[0].ID != failed[0].ID {
		t.Fatalf("after the retry: result %+v, outbox %+v", res, all)
	}
}

func TestSendEmailFailuresThatCannotBeRetried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*SendEmailInput)
		fail    error
		errType string
		stored  bool
	}{
		{name: "a subject that does not parse", change: func(in *SendEmailInput) { in.Subject = "Welcome, {{.Name" }, errType: ErrMailTemplate},
		{name: "a text naming a value the data lacks", change: func(in *SendEmailInput) { in.Text = "Hi {{.Nickname}}" }, errType: ErrMailTemplate},
		{name: "an HTML template that fails", change: func(in *SendEmailInput) { in.HTML = "<p>{{template \"missing\"}}</p>" }, errType: ErrMailTemplate},
		{name: "a recipient that is not an address", change: func(in *SendEmailInput) { in.To = "ada at example" }, errType: ErrMailInvalid},
		{name: "a message without a tenant", change: func(in *SendEmailInput) { in.TenantID = "" }, errType: ErrMailInvalid},
		{name: "an idempotency key over 200 bytes", change: func(in *SendEmailInput) { in.IdempotencyKey = strings.Repeat("k", 201) }, errType: ErrMailInvalid},
		{name: "a message the sender finds invalid", fail: models.Invalid("INVALID_MAIL_MESSAGE", "the message cannot be sent"), errType: ErrMailInvalid, stored: true},
		{name: "a recipient the server rejects for good", fail: permanentError{errors.New("550 5.1.1 no such user")}, errType: ErrMailRejected, stored: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sender, outbox := &fakeSender{}, &memoryOutbox{}
			if tc.fail != nil {
				sender.fail = []error{tc.fail}
			}
			in := welcome("run-1/step-1")
			if tc.change != nil {
				tc.change(&in)
			}
			_, err := (&Mail{Sender: sender, Store: outbox}).SendEmail(context.Background(), in)
			nonRetryable(t, err, tc.errType)
			all := outbox.all()
			if tc.stored != (len(all) == 1) || sender.count() != 0 {
				t.Fatalf("outbox %+v, %d sent", all, sender.count())
			}
			if tc.stored && all[0].Status != models.MailFailed {
				t.Fatalf("the refused message is recorded as %q", all[0].Status)
			}
		})
	}
}

func TestSendEmailRunsAsAnActivity(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	sender := &fakeSender{}
	env.RegisterActivity(&Mail{Sender: sender, Store: &memoryOutbox{}})
	val, err := env.ExecuteActivity((&Mail{}).SendEmail, welcome("run-9/step-1"))
	if err != nil {
		t.Fatal(err)
	}
	var res SendEmailResult
	if err := val.Get(&res); err != nil || res.Status != models.MailSent {
		t.Fatalf("result %+v, %v", res, err)
	}
	in := welcome("run-9/step-2")
	in.Subject = "{{.Missing}}"
	_, err = env.ExecuteActivity((&Mail{}).SendEmail, in)
	nonRetryable(t, err, ErrMailTemplate)
}
