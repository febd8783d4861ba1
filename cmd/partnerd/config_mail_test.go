package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	pdmail "github.com/partnerd/partnerd/mail"
)

func TestConfigMail(t *testing.T) {
	t.Run("without an SMTP URL email stays in the outbox", func(t *testing.T) {
		c, err := loadConfig("serve", nil, envOf(nil), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if c.SMTP != nil || c.MailFrom != pdmail.DefaultFrom {
			t.Fatalf("smtp %v from %q", c.SMTP, c.MailFrom)
		}
		if _, ok := mailSender(c, slog.New(slog.DiscardHandler)).(*pdmail.Outbox); !ok {
			t.Fatal("the default sender is not the outbox")
		}
	})
	t.Run("an SMTP URL with a sender sends over SMTP", func(t *testing.T) {
		c, err := loadConfig("serve", nil, envOf(map[string]string{
			"PARTNERD_SMTP_URL": "smtp://mailer:hunter22@mail.example.com:587?from=noreply@example.com",
		}), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if c.SMTP == nil || c.MailFrom != "noreply@example.com" || strings.Contains(c.SMTP.String(), "hunter22") {
			t.Fatalf("smtp %v from %q", c.SMTP, c.MailFrom)
		}
	})
	t.Run("PARTNERD_MAIL_FROM names the sender", func(t *testing.T) {
		c, err := loadConfig("serve", nil, envOf(map[string]string{
			"PARTNERD_SMTP_URL": "smtps://mail.example.com?from=noreply@example.com", "PARTNERD_MAIL_FROM": "Acme Partners <partners@acme.test>",
		}), io.Discard)
		if err != nil || c.MailFrom != "Acme Partners <partners@acme.test>" || !strings.Contains(c.SMTP.String(), "tls=tls") {
			t.Fatalf("from %q, smtp %v, %v", c.MailFrom, c.SMTP, err)
		}
	})
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"a URL of another scheme", map[string]string{"PARTNERD_SMTP_URL": "https://mailer:hunter22@mail.example.com"}, "PARTNERD_SMTP_URL: "},
		{"an unknown TLS mode", map[string]string{"PARTNERD_SMTP_URL": "smtp://mailer:hunter22@mail.example.com?tls=ssl&from=a@b.test"}, "PARTNERD_SMTP_URL: "},
		{"SMTP without a sender", map[string]string{"PARTNERD_SMTP_URL": "smtp://mailer:hunter22@mail.example.com"}, "PARTNERD_MAIL_FROM: "},
		{"a sender that is not an address", map[string]string{"PARTNERD_MAIL_FROM": "partners"}, "PARTNERD_MAIL_FROM: "},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			_, err := loadConfig("serve", nil, envOf(tc.env), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one about %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter22") {
				t.Fatalf("the error shows the password: %v", err)
			}
		})
	}
}
