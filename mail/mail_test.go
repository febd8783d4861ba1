package mail_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
)

// received is one message an in-process SMTP server accepted.
type received struct {
	from string
	to   []string
	user string
	pass string
	tls  bool
	data []byte
}

// smtpServer is a real SMTP server on 127.0.0.1 that keeps what it receives.
type smtpServer struct {
	addr    *net.TCPAddr
	roots   *x509.CertPool
	mu      sync.Mutex
	got     []received
	authed  int
	rcptErr error
}

func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

type serverOptions struct {
	tls      bool   // offer STARTTLS with a self-signed certificate
	implicit bool   // speak TLS from the first byte
	auth     string // a username:password the server requires; empty for none
}

func startSMTP(t *testing.T, o serverOptions) *smtpServer {
	t.Helper()
	srv := &smtpServer{}
	be := smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, isTLS := c.TLSConnectionState()
		return &session{srv: srv, cur: received{tls: isTLS}, conn: c, required: o.auth}, nil
	})
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.AllowInsecureAuth = true
	var ln net.Listener
	var err error
	if o.tls || o.implicit {
		cert, roots := selfSigned(t)
		srv.roots = roots
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if o.implicit {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", s.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	srv.addr = ln.Addr().(*net.TCPAddr)
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return srv
}

type session struct {
	srv      *smtpServer
	conn     *smtp.Conn
	cur      received
	required string
}

func (s *session) AuthMechanisms() []string {
	if s.required == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		s.srv.mu.Lock()
		s.srv.authed++
		s.srv.mu.Unlock()
		if user+":"+pass != s.required {
			return errors.New("invalid credentials")
		}
		s.cur.user, s.cur.pass = user, pass
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.required != "" && s.cur.user == "" {
		return smtp.ErrAuthRequired
	}
	s.cur.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.srv.mu.Lock()
	err := s.srv.rcptErr
	s.srv.mu.Unlock()
	if err != nil {
		return err
	}
	s.cur.to = append(s.cur.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, s.cur.tls = s.conn.TLSConnectionState()
	s.cur.data = b
	s.srv.mu.Lock()
	s.srv.got = append(s.srv.got, s.cur)
	s.srv.mu.Unlock()
	return nil
}

func (s *session) Reset() {
	s.cur = received{user: s.cur.user, pass: s.cur.pass}
}

func (s *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "partnerd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}

func newMessage() *models.MailMessage {
	return &models.MailMessage{ID: models.NewID(), TenantID: models.NewID(), To: "ada@example.com", ToName: "Ada Lovelace",
		Subject: "Welcome, Ada — Grüße", TextBody: "Hello Ada,\nyour deal was won.", HTMLBody: "<p>Hello <b>Ada</b>, your deal was won.</p>",
		Purpose: models.MailPurposePlaybook, CreatedAt: time.Now().UTC()}
}

func sender(t *testing.T, srv *smtpServer, mode, user, pass string) *mail.SMTP {
	t.Helper()
	cfg := mail.SMTPConfig{Host: "127.0.0.1", Port: srv.addr.Port, TLS: mode, Username: user, Password: models.Secret(pass),
		From: "Acme Partners <noreply@acme.test>", Timeout: 5 * time.Second}
	if srv.roots != nil {
		cfg.TLSConfig = &tls.Config{RootCAs: srv.roots, MinVersion: tls.VersionTLS12}
	}
	s, err := mail.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parts reads the MIME parts of a message: content type → decoded body.
func parts(t *testing.T, msg *netmail.Message) map[string]string {
	t.Helper()
	out := map[string]string{}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		b, _ := io.ReadAll(decoded(msg.Header.Get("Content-Transfer-Encoding"), msg.Body))
		out[mediaType] = string(b)
		return out
	}
	out["multipart"] = mediaType
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		b, err := io.ReadAll(decoded(p.Header.Get("Content-Transfer-Encoding"), p))
		if err != nil {
			t.Fatal(err)
		}
		out[ct] = string(b)
	}
}

func TestSMTPSendsMultipartMessagesOverSTARTTLSWithAuthentication(t *testing.T) {
	srv := startSMTP(t, serverOptions{tls: true, auth: "mailer:s3cret-pass"})
	s := sender(t, srv, mail.TLSStartTLS, "mailer", "s3cret-pass")
	m := newMessage()
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if m.Status != models.MailSent || m.Transport != models.MailTransportSMTP || m.SentAt == nil || m.From != "Acme Partners <noreply@acme.test>" {
		t.Fatalf("the message after sending = %+v", m)
	}
	got := srv.messages()
	if len(got) != 1 {
		t.Fatalf("the server received %d messages, want 1", len(got))
	}
	r := got[0]
	t.Run("the envelope names the sender and the one recipient, over TLS after authentication", func(t *testing.T) {
		if r.from != "noreply@acme.test" || len(r.to) != 1 || r.to[0] != "ada@example.com" {
			t.Fatalf("envelope from %q to %v", r.from, r.to)
		}
		if !r.tls || r.user != "mailer" || r.pass != "s3cret-pass" {
			t.Fatalf("tls %v, user %q", r.tls, r.user)
		}
	})
	msg, err := netmail.ReadMessage(bytes.NewReader(r.data))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the headers carry sender, recipient, subject, date and message id", func(t *testing.T) {
		dec := new(mime.WordDecoder)
		subject, _ := dec.DecodeHeader(msg.Header.Get("Subject"))
		if subject != m.Subject {
			t.Errorf("Subject = %q, want %q", subject, m.Subject)
		}
		from, err := msg.Header.AddressList("From")
		if err != nil || len(from) != 1 || from[0].Address != "noreply@acme.test" || from[0].Name != "Acme Partners" {
			t.Errorf("From = %v, %v", from, err)
		}
		to, err := msg.Header.AddressList("To")
		if err != nil || len(to) != 1 || to[0].Address != "ada@example.com" || to[0].Name != "Ada Lovelace" {
			t.Errorf("To = %v, %v", to, err)
		}
		if id := msg.Header.Get("Message-Id"); id != "<"+m.MessageID+">" || !strings.HasSuffix(m.MessageID, "@acme.test") {
			t.Errorf("Message-ID = %q, recorded %q", id, m.MessageID)
		}
		if d, err := msg.Header.Date(); err != nil || d.Sub(m.CreatedAt).Abs() > time.Second {
			t.Errorf("Date = %v, %v", d, err)
		}
		if msg.Header.Get("Auto-Submitted") != "auto-generated" {
			t.Errorf("Auto-Submitted = %q", msg.Header.Get("Auto-Submitted"))
		}
	})
	t.Run("the body holds a text and an HTML alternative", func(t *testing.T) {
		p := parts(t, msg)
		if p["multipart"] != "multipart/alternative" {
			t.Fatalf("content type = %q", msg.Header.Get("Content-Type"))
		}
		if strings.ReplaceAll(p["text/plain"], "\r\n", "\n") != m.TextBody {
			t.Errorf("text part = %q", p["text/plain"])
		}
		if p["text/html"] != m.HTMLBody {
			t.Errorf("html part = %q", p["text/html"])
		}
	})
}

func TestSMTPSendsOverImplicitTLS(t *testing.T) {
	srv := startSMTP(t, serverOptions{implicit: true})
	m := newMessage()
	if err := sender(t, srv, mail.TLSImplicit, "", "").Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if got := srv.messages(); len(got) != 1 || !got[0].tls {
		t.Fatalf("received %+v, want one message over TLS", got)
	}
}

func TestSMTPWithoutTLSSendsATextOnlyMessage(t *testing.T) {
	srv := startSMTP(t, serverOptions{})
	m := newMessage()
	m.HTMLBody = ""
	if err := sender(t, srv, mail.TLSNone, "", "").Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := srv.messages()
	if len(got) != 1 || got[0].tls {
		t.Fatalf("received %+v, want one message in the clear", got)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(got[0].data))
	if err != nil {
		t.Fatal(err)
	}
	p := parts(t, msg)
	if _, multi := p["multipart"]; multi || strings.TrimSuffix(strings.ReplaceAll(p["text/plain"], "\r\n", "\n"), "\n") != m.TextBody {
		t.Fatalf("parts = %v, want the text alone", p)
	}
}

func TestSMTPRefusesToSendAPasswordInTheClear(t *testing.T) {
	srv := startSMTP(t, serverOptions{auth: "mailer:s3cret-pass"})
	err := sender(t, srv, mail.TLSNone, "mailer", "s3cret-pass").Send(context.Background(), newMessage())
	if err == nil {
		t.Fatal("sent with a password over an unencrypted connection offering only PLAIN")
	}
	if strings.Contains(err.Error(), "s3cret-pass") {
		t.Fatalf("the error shows the password: %v", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.authed != 0 || len(srv.got) != 0 {
		t.Fatalf("the server saw %d authentications and %d messages", srv.authed, len(srv.got))
	}
}

func TestSMTPRequiresTLSWhenStartTLSIsConfigured(t *testing.T) {
	srv := startSMTP(t, serverOptions{})
	if err := sender(t, srv, mail.TLSStartTLS, "", "").Send(context.Background(), newMessage()); err == nil {
		t.Fatal("sent in the clear to a server without STARTTLS")
	}
	if len(srv.messages()) != 0 {
		t.Fatal("the server received a message")
	}
}

func TestSMTPRejectionsArePermanentOnlyFor5xx(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       *smtp.SMTPError
		permanent bool
	}{
		{"a mailbox that does not exist (550) is permanent", &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}, true},
		{"a full mailbox for now (452) may be retried", &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 2, 2}, Message: "mailbox full"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startSMTP(t, serverOptions{})
			srv.rcptErr = tc.err
			m := newMessage()
			err := sender(t, srv, mail.TLSNone, "", "").Send(context.Background(), m)
			if err == nil {
				t.Fatal("the rejected message counts as sent")
			}
			if mail.Permanent(err) != tc.permanent {
				t.Fatalf("Permanent(%v) = %v, want %v", err, mail.Permanent(err), tc.permanent)
			}
			if m.Status == models.MailSent || m.SentAt != nil {
				t.Fatalf("the message is marked sent: %+v", m)
			}
		})
	}
}

func TestSMTPGivesUpOnASilentServerAfterItsTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepts, then never greets
		}
	}()
	s, err := mail.NewSMTP(mail.SMTPConfig{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: mail.TLSNone,
		From: "noreply@acme.test", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.Send(context.Background(), newMessage())
	if err == nil || mail.Permanent(err) {
		t.Fatalf("Send = %v, want a temporary failure", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("gave up after %v", took)
	}
	// A shorter deadline of the caller wins over the configured timeout.
	s, _ = mail.NewSMTP(mail.SMTPConfig{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: mail.TLSNone,
		From: "noreply@acme.test", Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	if err := s.Send(ctx, newMessage()); err == nil {
		t.Fatal("sent to a silent server")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("with a 300ms deadline gave up after %v", took)
	}
}

func TestInvalidMessagesAreRefusedBeforeConnecting(t *testing.T) {
	srv := startSMTP(t, serverOptions{})
	for _, tc := range []struct {
		name   string
		change func(*models.MailMessage)
	}{
		{"a recipient that is not an address", func(m *models.MailMessage) { m.To = "ada at example" }},
		{"a subject with a line break", func(m *models.MailMessage) { m.Subject = "Hi\r\nBcc: eve@example.com" }},
		{"an empty text body", func(m *models.MailMessage) { m.TextBody = " " }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMessage()
			tc.change(m)
			err := sender(t, srv, mail.TLSNone, "", "").Send(context.Background(), m)
			if !mail.Permanent(err) || models.ErrorKind(err) != models.KindInvalid {
				t.Fatalf("Send = %v, want a permanent invalid-message error", err)
			}
		})
	}
	if len(srv.messages()) != 0 {
		t.Fatal("the server received an invalid message")
	}
}

func TestTheOutboxStoresWithoutSending(t *testing.T) {
	m := newMessage()
	if err := (&mail.Outbox{}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if m.Status != models.MailStored || m.Transport != models.MailTransportOutbox || m.SentAt != nil || m.From != mail.DefaultFrom || m.MessageID == "" {
		t.Fatalf("the stored message = %+v", m)
	}
	m = newMessage()
	if err := (&mail.Outbox{From: "noreply@acme.test"}).Send(context.Background(), m); err != nil || m.From != "noreply@acme.test" {
		t.Fatalf("the configured sender: %q, %v", m.From, err)
	}
}

func TestParseSMTPURL(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want mail.SMTPConfig
	}{
		{"smtp://mail.example.com", mail.SMTPConfig{Host: "mail.example.com", Port: 587, TLS: mail.TLSStartTLS}},
		{"smtps://u:p@mail.example.com", mail.SMTPConfig{Host: "mail.example.com", Port: 465, TLS: mail.TLSImplicit, Username: "u", Password: "p"}},
		{"smtp://127.0.0.1?tls=none", mail.SMTPConfig{Host: "127.0.0.1", Port: 25, TLS: mail.TLSNone}},
		{"smtp://user%40example.com:p%2Fw@mail.example.com:2525?tls=tls&from=Acme+%3Cnoreply%40acme.test%3E&timeout=10s",
			mail.SMTPConfig{Host: "mail.example.com", Port: 2525, TLS: mail.TLSImplicit, Username: "user@example.com", Password: "p/w",
				From: "Acme <noreply@acme.test>", Timeout: 10 * time.Second}},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := mail.ParseSMTPURL(tc.raw)
			if err != nil {
				t.Fatal(err)
			}
			if got.Host != tc.want.Host || got.Port != tc.want.Port || got.TLS != tc.want.TLS || got.Username != tc.want.Username ||
				got.Password.Reveal() != tc.want.Password.Reveal() || got.From != tc.want.From || got.Timeout != tc.want.Timeout {
				t.Fatalf("ParseSMTPURL = %+v, want %+v", got, tc.want)
			}
		})
	}
	for _, raw := range []string{
		"http://user:hunter22@mail.example.com", "smtp://user:hunter22@", "smtp://user:hunter22@mail.example.com?tls=ssl",
		"smtp://user:hunter22@mail.example.com:0", "smtp://user:hunter22@mail.example.com?from=nobody",
		"smtp://user:hunter22@mail.example.com?timeout=-1s", "smtp://user:hunter22@mail.example.com?tsl=none",
	} {
		t.Run("refuses "+strings.ReplaceAll(raw, "hunter22", "xxx"), func(t *testing.T) {
			_, err := mail.ParseSMTPURL(raw)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "hunter22") {
				t.Fatalf("the error shows the password: %v", err)
			}
		})
	}
}

func TestTheSMTPPasswordNeverShows(t *testing.T) {
	cfg, err := mail.ParseSMTPURL("smtp://mailer:hunter22@mail.example.com:587?from=noreply@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := mail.NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	log.Info("mail", "smtp", s, "config", cfg)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("mail", "smtp", s, "config", cfg, "password", cfg.Password)
	for _, shown := range []string{s.String(), cfg.String(), logs.String()} {
		if strings.Contains(shown, "hunter22") {
			t.Fatalf("the password shows: %s", shown)
		}
	}
	if !strings.Contains(s.String(), "mailer:xxxxx@mail.example.com:587") {
		t.Fatalf("String = %s, want the user and a redacted password", s.String())
	}
}

// decoded undoes a Content-Transfer-Encoding.
func decoded(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r)
	default:
		return r
	}
}
