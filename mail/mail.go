// Package mail sends the service's email messages: through an SMTP server, or nowhere, keeping
// them in the outbox only (the development default).
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/partnerd/partnerd/models"
)

// DefaultFrom is the sender of the outbox when none is configured.
const DefaultFrom = "partnerd <noreply@localhost>"

// DefaultTimeout bounds one SMTP conversation (connect, greet, authenticate, send) by default.
const DefaultTimeout = 30 * time.Second

// TLS modes of an SMTP connection.
const (
	// TLSStartTLS upgrades a plain connection with STARTTLS and refuses servers that cannot.
	TLSStartTLS = "starttls"
	// TLSImplicit speaks TLS from the first byte (SMTPS, usually port 465).
	TLSImplicit = "tls"
	// TLSNone never encrypts; passwords are then only sent with challenge-response mechanisms.
	TLSNone = "none"
)

// Outbox keeps messages without sending them: each is recorded with status stored and
// transport outbox, for an operator to read through the API.
type Outbox struct {
	// From is the sender of messages that name none; DefaultFrom when empty.
	From string
}

// Send marks m as stored in the outbox. Nothing leaves the process.
func (o *Outbox) Send(_ context.Context, m *models.MailMessage) error {
	if m.From == "" {
		m.From = o.From
		if m.From == "" {
			m.From = DefaultFrom
		}
	}
	m.Transport = models.MailTransportOutbox
	if err := m.Validate(); err != nil {
		return &Error{Err: err, permanent: true}
	}
	m.MessageID = messageID(m)
	m.Status = models.MailStored
	return nil
}

// String describes the outbox.
func (o *Outbox) String() string { return "outbox (messages are stored, not sent)" }

// SMTPConfig is where and how messages are sent over SMTP.
type SMTPConfig struct {
	Host string
	Port int
	// Username and Password authenticate to the server; no authentication without a username.
	Username string
	Password models.Secret
	// TLS is TLSStartTLS, TLSImplicit or TLSNone.
	TLS string
	// From is the sender of messages that name none.
	From string
	// Timeout bounds one conversation with the server; DefaultTimeout when 0.
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (e.g. trusted roots); the server name is set
	// from Host when empty.
	TLSConfig *tls.Config
}

// ParseSMTPURL reads smtp://user:pass@host:port?tls=starttls|tls|none&from=addr&timeout=30s.
// The port defaults to 587 for starttls, 465 for tls and 25 for none; tls defaults to starttls
// (tls for the smtps scheme). Errors never show the password.
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return SMTPConfig{}, errors.New("is not a URL such as smtp://user:pass@mail.example.com:587")
	}
	var c SMTPConfig
	switch u.Scheme {
	case "smtp":
		c.TLS = TLSStartTLS
	case "smtps":
		c.TLS = TLSImplicit
	default:
		return SMTPConfig{}, fmt.Errorf("has scheme %q, want smtp or smtps (%s)", u.Scheme, redactURL(u))
	}
	if c.Host = u.Hostname(); c.Host == "" {
		return SMTPConfig{}, fmt.Errorf("names no host (%s)", redactURL(u))
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "tls", "from", "timeout":
		default:
			return SMTPConfig{}, fmt.Errorf("has unknown parameter %q; known are tls, from and timeout (%s)", k, redactURL(u))
		}
	}
	if t := q.Get("tls"); t != "" {
		switch t = strings.ToLower(t); t {
		case TLSStartTLS, TLSImplicit, TLSNone:
			c.TLS = t
		default:
			return SMTPConfig{}, fmt.Errorf("has tls=%s; want starttls, tls or none (%s)", t, redactURL(u))
		}
	}
	switch p := u.Port(); {
	case p != "":
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return SMTPConfig{}, fmt.Errorf("has port %q, not 1-65535 (%s)", p, redactURL(u))
		}
		c.Port = n
	case c.TLS == TLSImplicit:
		c.Port = 465
	case c.TLS == TLSNone:
		c.Port = 25
	default:
		c.Port = 587
	}
	if u.User != nil {
		c.Username = u.User.Username()
		pass, _ := u.User.Password()
		c.Password = models.Secret(pass)
	}
	if from := q.Get("from"); from != "" {
		if _, err := models.ParseMailAddress(from); err != nil {
			return SMTPConfig{}, fmt.Errorf("has from=%s, which %w (%s)", from, err, redactURL(u))
		}
		c.From = from
	}
	if t := q.Get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return SMTPConfig{}, fmt.Errorf("has timeout=%s, not a positive duration such as 30s (%s)", t, redactURL(u))
		}
		c.Timeout = d
	}
	return c, nil
}

// String is the configuration as a URL with the password redacted.
func (c SMTPConfig) String() string {
	u := url.URL{Scheme: "smtp", Host: net.JoinHostPort(c.Host, strconv.Itoa(c.Port))}
	if c.Username != "" {
		u.User = url.User(c.Username)
		if c.Password != "" {
			u.User = url.UserPassword(c.Username, "xxxxx")
		}
	}
	q := url.Values{"tls": {c.TLS}}
	if c.From != "" {
		q.Set("from", c.From)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// LogValue logs the configuration without its password.
func (c SMTPConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }

func redactURL(u *url.URL) string {
	if _, ok := u.User.Password(); ok {
		u = &url.URL{Scheme: u.Scheme, User: url.UserPassword(u.User.Username(), "xxxxx"), Host: u.Host, Path: u.Path, RawQuery: u.RawQuery}
	}
	return u.String()
}

// SMTP sends messages through an SMTP server, one conversation per message.
type SMTP struct {
	cfg SMTPConfig
}

// NewSMTP checks c and returns a sender for it.
func NewSMTP(c SMTPConfig) (*SMTP, error) {
	switch {
	case c.Host == "":
		return nil, errors.New("mail: the SMTP server has no host")
	case c.Port < 1 || c.Port > 65535:
		return nil, fmt.Errorf("mail: SMTP port %d is not 1-65535", c.Port)
	case c.TLS != TLSStartTLS && c.TLS != TLSImplicit && c.TLS != TLSNone:
		return nil, fmt.Errorf("mail: SMTP tls mode %q is not starttls, tls or none", c.TLS)
	}
	if c.From == "" {
		return nil, errors.New("mail: the SMTP sender needs a from address")
	}
	if _, err := models.ParseMailAddress(c.From); err != nil {
		return nil, fmt.Errorf("mail: from address %q %w", c.From, err)
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return &SMTP{cfg: c}, nil
}

// String describes the server, without the password.
func (s *SMTP) String() string { return s.cfg.String() }

// LogValue logs the server without the password.
func (s *SMTP) LogValue() slog.Value { return s.cfg.LogValue() }

// Send delivers m to the server as a multipart message (text, and HTML when m has it) and,
// once the server accepted it, marks m sent. Rejections the server calls permanent are
// reported as permanent errors (see Permanent).
func (s *SMTP) Send(ctx context.Context, m *models.MailMessage) error {
	if m.From == "" {
		m.From = s.cfg.From
	}
	m.Transport = models.MailTransportSMTP
	if err := m.Validate(); err != nil {
		return &Error{Err: err, permanent: true}
	}
	m.MessageID = messageID(m)
	msg, err := s.message(m)
	if err != nil {
		return &Error{Err: err, permanent: true}
	}
	timeout := s.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = max(time.Until(dl), time.Millisecond)
	}
	client, err := s.client(timeout)
	if err != nil {
		return &Error{Err: err, permanent: true}
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return classify(err)
	}
	now := time.Now().UTC()
	m.Status, m.SentAt = models.MailSent, &now
	return nil
}

func (s *SMTP) client(timeout time.Duration) (*gomail.Client, error) {
	tlsCfg := &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
	if s.cfg.TLSConfig != nil {
		tlsCfg = s.cfg.TLSConfig.Clone()
		if tlsCfg.ServerName == "" {
			tlsCfg.ServerName = s.cfg.Host
		}
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(timeout), gomail.WithTLSConfig(tlsCfg)}
	switch s.cfg.TLS {
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.Username != "" {
		// Auto-discovery picks the strongest mechanism the server offers and never sends a
		// password in the clear over an unencrypted connection.
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password.Reveal()))
	}
	return gomail.NewClient(s.cfg.Host, opts...)
}

// message builds the MIME message of m: text/plain alone, or multipart/alternative with
// text/plain and text/html.
func (s *SMTP) message(m *models.MailMessage) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.From(m.From); err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	to, err := models.ParseMailAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("to: %w", err)
	}
	if m.ToName != "" {
		to.Name = m.ToName
	}
	msg.ToMailAddress(to)
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	if m.CreatedAt.IsZero() {
		msg.SetDate()
	} else {
		msg.SetDateWithValue(m.CreatedAt)
	}
	msg.SetUserAgent("partnerd")
	// Automated mail (RFC 3834): auto-responders should not answer it.
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, m.TextBody)
	if m.HTMLBody != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTMLBody)
	}
	return msg, nil
}

// messageID is the Message-ID of m, without angle brackets: its record id at the sender's domain.
func messageID(m *models.MailMessage) string {
	if m.ID == "" {
		m.ID = models.NewID()
	}
	domain := "localhost"
	if a, err := models.ParseMailAddress(m.From); err == nil {
		if _, d, ok := strings.Cut(a.Address, "@"); ok && d != "" {
			domain = d
		}
	}
	return m.ID + "@" + domain
}

// Error is a failure to send a message; Permanent says whether trying again can help.
type Error struct {
	Err       error
	permanent bool
}

func (e *Error) Error() string { return "mail: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Permanent reports that the message will never be accepted as it is: the server rejected it
// or a recipient for good (5xx), or the message itself is invalid.
func (e *Error) Permanent() bool { return e.permanent }

// Permanent reports whether err is a permanent failure to send.
func Permanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.permanent
}

// classify wraps an SMTP failure, permanent when the server answered with a 5xx code.
func classify(err error) error {
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 && se.ErrorCode() < 600 {
		return &Error{Err: err, permanent: true}
	}
	return &Error{Err: err}
}
