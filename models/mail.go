package models

import (
	"net/mail"
	"strings"
	"time"
)

// Statuses of an outgoing email message.
const (
	// MailSent marks a message an SMTP server accepted.
	MailSent = "sent"
	// MailStored marks a message kept in the outbox only, never sent (the development default).
	MailStored = "stored"
	// MailFailed marks a message that could not be sent; Error says why.
	MailFailed = "failed"
)

// Transports of outgoing email.
const (
	MailTransportSMTP   = "smtp"
	MailTransportOutbox = "outbox"
)

// Purposes of outgoing email, for filtering the outbox.
const (
	MailPurposePlaybook   = "playbook"
	MailPurposeInvitation = "invitation"
	MailPurposeSurvey     = "survey"
)

// Limits of a message.
const (
	// MaxMailSubject is the longest subject, in bytes.
	MaxMailSubject = 998
	// MaxMailBody is the largest text or HTML body, in bytes.
	MaxMailBody = 1 << 20
	// MaxMailError is how much of a sending error a message keeps.
	MaxMailError = 1000
	// MaxMailIdempotencyKey is the longest idempotency key, in bytes.
	MaxMailIdempotencyKey = 200
)

// MailMessage is one outgoing email message of a tenant and what became of it. Every message,
// whatever the transport, is recorded: the outbox is the audit of the service's mail.
type MailMessage struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	// IdempotencyKey names the request that produced the message (e.g. a playbook run and
	// step); one message per key and tenant.
	IdempotencyKey *string `gorm:"size:200"`
	// To is the recipient's address, ToName its display name.
	To     string `gorm:"column:to_address;size:320;not null"`
	ToName string `gorm:"column:to_name;size:200"`
	// From is the sender, an address with an optional display name.
	From     string `gorm:"column:from_address;size:520;not null"`
	Subject  string `gorm:"size:998;not null"`
	TextBody string `gorm:"type:text;not null"`
	HTMLBody string `gorm:"column:html_body;type:text"`
	// Status is MailSent, MailStored or MailFailed; Transport MailTransportSMTP or
	// MailTransportOutbox.
	Status    string `gorm:"size:16;not null"`
	Transport string `gorm:"size:16;not null"`
	// Error says why the last attempt failed.
	Error string `gorm:"size:1000"`
	// Attempts counts the tries to send the message.
	Attempts int `gorm:"not null;default:1"`
	// MessageID is the Message-ID header of the message as sent.
	MessageID string `gorm:"size:255"`
	// Purpose says what the message is for (MailPurposePlaybook, MailPurposeInvitation, ...).
	Purpose string `gorm:"size:64;not null"`
	// Reference names what caused the message, e.g. a playbook run or an event.
	Reference string `gorm:"size:200"`
	CreatedAt time.Time
	// SentAt is when a server accepted the message; nil unless sent.
	SentAt *time.Time
}

// Delivered reports whether the message needs no further attempt: it was sent or stored.
func (m *MailMessage) Delivered() bool { return m.Status == MailSent || m.Status == MailStored }

// Validate checks the addresses, subject and bodies of a message before it is sent.
func (m *MailMessage) Validate() error {
	var problems []FieldError
	if _, err := ParseMailAddress(m.To); err != nil {
		problems = append(problems, FieldError{Location: "to", Message: err.Error(), Value: m.To})
	}
	if m.From != "" {
		if _, err := ParseMailAddress(m.From); err != nil {
			problems = append(problems, FieldError{Location: "from", Message: err.Error(), Value: m.From})
		}
	}
	switch {
	case strings.TrimSpace(m.Subject) == "":
		problems = append(problems, FieldError{Location: "subject", Message: "must not be empty"})
	case len(m.Subject) > MaxMailSubject:
		problems = append(problems, FieldError{Location: "subject", Message: "longer than 998 bytes"})
	case strings.ContainsAny(m.Subject, "\r\n"):
		problems = append(problems, FieldError{Location: "subject", Message: "must be one line"})
	}
	if strings.ContainsAny(m.ToName, "\r\n") {
		problems = append(problems, FieldError{Location: "toName", Message: "must be one line"})
	}
	if strings.TrimSpace(m.TextBody) == "" {
		problems = append(problems, FieldError{Location: "text", Message: "must not be empty"})
	}
	if len(m.TextBody) > MaxMailBody || len(m.HTMLBody) > MaxMailBody {
		problems = append(problems, FieldError{Location: "body", Message: "larger than 1 MiB"})
	}
	if len(problems) > 0 {
		return Invalid("INVALID_MAIL_MESSAGE", "the message cannot be sent", problems...)
	}
	return nil
}

// mailAddressError is what ParseMailAddress reports.
type mailAddressError string

func (e mailAddressError) Error() string { return string(e) }

// ParseMailAddress reads one address, bare (ada@example.com) or with a display name
// (Ada Lovelace <ada@example.com>). The address needs a local part and a domain.
func ParseMailAddress(s string) (*mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, mailAddressError("must be one line")
	}
	a, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil {
		return nil, mailAddressError("is not an email address")
	}
	local, domain, ok := strings.Cut(a.Address, "@")
	if !ok || local == "" || domain == "" || len(a.Address) > 320 {
		return nil, mailAddressError("is not an email address")
	}
	return a, nil
}

// MailFilter selects messages of the outbox; zero fields do not filter.
type MailFilter struct {
	// To is a recipient's address, compared without regard to case.
	To      string
	Purpose string
	Status  string
	// CreatedFrom and CreatedBefore bound the creation time: at or after, and before.
	CreatedFrom, CreatedBefore time.Time
}
