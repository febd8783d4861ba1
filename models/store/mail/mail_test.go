package mail_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func mailOf(tenantID, to, purpose, status string) *models.MailMessage {
	m := &models.MailMessage{TenantID: tenantID, To: to, From: "Partners <noreply@acme.test>", Subject: "Hello",
		TextBody: "Hello there", HTMLBody: "<p>Hello there</p>", Status: status, Transport: models.MailTransportOutbox, Purpose: purpose}
	if status == models.MailSent {
		now := time.Now().UTC()
		m.SentAt, m.Transport = &now, models.MailTransportSMTP
	}
	return m
}

func TestMailIsRecordedAndListedOnlyToTheTenantsOperators(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		other := storetest.Tenant(t, s.Core(), "globex")

		var ids []string
		for _, m := range []*models.MailMessage{
			mailOf(owner.TenantID, "ada@example.com", models.MailPurposePlaybook, models.MailStored),
			mailOf(owner.TenantID, "Bob@Example.com", models.MailPurposeInvitation, models.MailSent),
			mailOf(owner.TenantID, "ada@example.com", models.MailPurposePlaybook, models.MailFailed),
			mailOf(other.TenantID, "ada@example.com", models.MailPurposePlaybook, models.MailStored),
		} {
			got, err := s.RecordMail(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID == "" || got.Attempts != 1 || got.CreatedAt.IsZero() {
				t.Fatalf("recorded message = %+v", got)
			}
			ids = append(ids, got.ID)
		}

		sc := s.For(owner)
		list := func(f models.MailFilter, pg models.Page) ([]models.MailMessage, string) {
			t.Helper()
			rows, next, err := sc.ListMail(ctx, f, pg)
			if err != nil {
				t.Fatal(err)
			}
			return rows, next
		}
		idsOf := func(rows []models.MailMessage) []string {
			var out []string
			for _, r := range rows {
				out = append(out, r.ID)
			}
			return out
		}
		t.Run("the list holds the tenant's messages oldest first, without bodies", func(t *testing.T) {
			rows, next := list(models.MailFilter{}, models.Page{Limit: 10})
			if got := idsOf(rows); len(got) != 3 || got[0] != ids[0] || got[2] != ids[2] || next != "" {
				t.Fatalf("list = %v next %q, want the first three", got, next)
			}
			if rows[0].TextBody != "" || rows[0].HTMLBody != "" || rows[0].Subject != "Hello" {
				t.Fatalf("a listed message carries its bodies or lacks its subject: %+v", rows[0])
			}
		})
		t.Run("pages follow the cursor", func(t *testing.T) {
			first, next := list(models.MailFilter{}, models.Page{Limit: 2})
			if len(first) != 2 || next != ids[1] {
				t.Fatalf("first page = %v next %q", idsOf(first), next)
			}
			second, next := list(models.MailFilter{}, models.Page{Limit: 2, After: next})
			if got := idsOf(second); len(got) != 1 || got[0] != ids[2] || next != "" {
				t.Fatalf("second page = %v next %q", got, next)
			}
		})
		t.Run("filters select by recipient, purpose, status and creation time", func(t *testing.T) {
			if rows, _ := list(models.MailFilter{To: "bob@example.COM"}, models.Page{}); len(rows) != 1 || rows[0].ID != ids[1] {
				t.Fatalf("by recipient = %v", idsOf(rows))
			}
			if rows, _ := list(models.MailFilter{Purpose: models.MailPurposePlaybook}, models.Page{}); len(rows) != 2 {
				t.Fatalf("by purpose = %v", idsOf(rows))
			}
			if rows, _ := list(models.MailFilter{Status: models.MailFailed}, models.Page{}); len(rows) != 1 || rows[0].ID != ids[2] {
				t.Fatalf("by status = %v", idsOf(rows))
			}
			hour := time.Now().Add(time.Hour)
			if rows, _ := list(models.MailFilter{CreatedFrom: hour}, models.Page{}); len(rows) != 0 {
				t.Fatalf("created in the future = %v", idsOf(rows))
			}
			if rows, _ := list(models.MailFilter{CreatedFrom: hour.Add(-2 * time.Hour), CreatedBefore: hour}, models.Page{}); len(rows) != 3 {
				t.Fatalf("created in the last hour = %v", idsOf(rows))
			}
		})
		t.Run("one message reads with its bodies", func(t *testing.T) {
			m, err := sc.MailMessage(ctx, ids[1])
			if err != nil {
				t.Fatal(err)
			}
			if m.TextBody != "Hello there" || m.HTMLBody != "<p>Hello there</p>" || m.Status != models.MailSent || m.SentAt == nil || m.From != "Partners <noreply@acme.test>" {
				t.Fatalf("message = %+v", m)
			}
		})
		t.Run("another tenant's message is not found", func(t *testing.T) {
			if _, err := sc.MailMessage(ctx, ids[3]); models.ErrorKind(err) != models.KindNotFound {
				t.Fatalf("another tenant's message: %v", err)
			}
			if _, err := s.For(other).MailMessage(ctx, ids[0]); models.ErrorKind(err) != models.KindNotFound {
				t.Fatalf("read from another tenant: %v", err)
			}
		})
		t.Run("partner principals see no message", func(t *testing.T) {
			partner := &models.Partner{Name: "Reseller", Type: models.PartnerReseller}
			if err := sc.CreatePartner(ctx, partner); err != nil {
				t.Fatal(err)
			}
			pp := s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: owner.TenantID, UserID: models.NewID(), PartnerID: partner.ID})
			if rows, _, err := pp.ListMail(ctx, models.MailFilter{}, models.Page{}); err != nil || len(rows) != 0 {
				t.Fatalf("partner list = %d rows, %v", len(rows), err)
			}
			if _, err := pp.MailMessage(ctx, ids[0]); models.ErrorKind(err) != models.KindNotFound {
				t.Fatalf("partner read: %v", err)
			}
		})
	})
}

func TestMailWithAnIdempotencyKeyIsRecordedOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		other := storetest.Tenant(t, s.Core(), "globex")
		key := "run-1/step-2"
		keyed := func(tenantID, status string) *models.MailMessage {
			m := mailOf(tenantID, "ada@example.com", models.MailPurposePlaybook, status)
			k := key
			m.IdempotencyKey = &k
			return m
		}

		if _, err := s.MailByIdempotencyKey(ctx, models.System(owner.TenantID), key); models.ErrorKind(err) != models.KindNotFound {
			t.Fatalf("unknown key: %v", err)
		}
		failed := keyed(owner.TenantID, models.MailFailed)
		failed.Error = "421 try again later"
		first, err := s.RecordMail(ctx, failed)
		if err != nil {
			t.Fatal(err)
		}

		t.Run("a success replaces a failure under the same key and counts the attempt", func(t *testing.T) {
			got, err := s.RecordMail(ctx, keyed(owner.TenantID, models.MailSent))
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != first.ID || got.Status != models.MailSent || got.Attempts != 2 || got.Error != "" {
				t.Fatalf("after the retry = %+v, want the first record sent on attempt 2", got)
			}
			stored, err := s.MailByIdempotencyKey(ctx, models.System(owner.TenantID), key)
			if err != nil || stored.ID != first.ID || stored.Status != models.MailSent || stored.SentAt == nil {
				t.Fatalf("stored = %+v, %v", stored, err)
			}
		})
		t.Run("a delivered message stays as it is", func(t *testing.T) {
			again := keyed(owner.TenantID, models.MailFailed)
			again.Subject = "Changed"
			got, err := s.RecordMail(ctx, again)
			if err != nil || got.ID != first.ID || got.Status != models.MailSent || got.Subject != "Hello" {
				t.Fatalf("recording again = %+v, %v", got, err)
			}
		})
		t.Run("keys are per tenant", func(t *testing.T) {
			got, err := s.RecordMail(ctx, keyed(other.TenantID, models.MailStored))
			if err != nil || got.ID == first.ID {
				t.Fatalf("the other tenant's message = %+v, %v", got, err)
			}
		})
		t.Run("concurrent records of one key keep one message", func(t *testing.T) {
			key = "run-2/step-1"
			var wg sync.WaitGroup
			got := make([]string, 4)
			for i := range got {
				wg.Go(func() {
					m, err := s.RecordMail(ctx, keyed(owner.TenantID, models.MailStored))
					if err != nil {
						t.Error(err)
						return
					}
					got[i] = m.ID
				})
			}
			wg.Wait()
			for _, id := range got[1:] {
				if id != got[0] {
					t.Fatalf("ids = %v, want one message", got)
				}
			}
		})
	})
}

func TestAFailedMessageWithOversizedFieldsIsRecordedWithinItsColumns(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		m := mailOf(owner.TenantID, "ada@example.com", models.MailPurposePlaybook, models.MailFailed)
		m.Subject = strings.Repeat("ü", 600) // 1200 bytes
		m.Error = strings.Repeat("e", 5000)
		got, err := s.RecordMail(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		read, err := s.For(owner).MailMessage(ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(read.Subject) != 998 || !utf8.ValidString(read.Subject) || len(read.Error) != models.MaxMailError {
			t.Fatalf("subject of %d bytes (valid %v), error of %d", len(read.Subject), utf8.ValidString(read.Subject), len(read.Error))
		}
	})
}
