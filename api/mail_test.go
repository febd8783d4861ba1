package api

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

type mailOut struct {
	ID        string     `json:"id"`
	To        string     `json:"to"`
	ToName    string     `json:"toName"`
	From      string     `json:"from"`
	Subject   string     `json:"subject"`
	Status    string     `json:"status"`
	Transport string     `json:"transport"`
	Error     string     `json:"error"`
	Purpose   string     `json:"purpose"`
	Reference string     `json:"reference"`
	MessageID string     `json:"messageId"`
	SentAt    *time.Time `json:"sentAt"`
	Text      *string    `json:"text"`
	HTML      *string    `json:"html"`
}

// outboxMessage keeps a message in the outbox as the development default does and records it.
func outboxMessage(t *testing.T, st *stores.Set, tenantID, to, purpose string) string {
	t.Helper()
	m := &models.MailMessage{TenantID: tenantID, To: to, Subject: "Welcome to the program", TextBody: "Hello,\nwelcome.",
		HTMLBody: "<p>Hello, welcome.</p>", Purpose: purpose, Reference: "run-1", CreatedAt: time.Now().UTC()}
	if err := (&mail.Outbox{From: "Acme <noreply@acme.test>"}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordMail(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func TestOperatorsReadTheMailOutbox(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		acmeID, acmeEmail := seedTenant(t, st, "acme")
		globexID, globexEmail := seedTenant(t, st, "globex")
		owner := login(t, h, acmeEmail, ownerPassword)
		ids := []string{
			outboxMessage(t, st, acmeID, "ada@example.com", models.MailPurposePlaybook),
			outboxMessage(t, st, acmeID, "bob@example.com", models.MailPurposeInvitation),
			outboxMessage(t, st, acmeID, "ada@example.com", models.MailPurposePlaybook),
		}
		foreignID := outboxMessage(t, st, globexID, "ada@example.com", models.MailPurposePlaybook)
		list := func(query string, token string) ListBody[mailOut] {
			t.Helper()
			res := do(t, h, http.MethodGet, "/api/mail/messages"+query, nil, bearer(token)...)
			if res.Status != http.StatusOK {
				t.Fatalf("list%s = %d %s", query, res.Status, res.Body)
			}
			return decode[ListBody[mailOut]](t, res)
		}

		t.Run("the list pages through the tenant's messages without their bodies", func(t *testing.T) {
			page1 := list("?limit=2", owner.AccessToken)
			if len(page1.Data) != 2 || page1.NextCursor == "" || page1.Data[0].ID != ids[0] {
				t.Fatalf("page 1 = %+v", page1)
			}
			first := page1.Data[0]
			if first.Status != models.MailStored || first.Transport != models.MailTransportOutbox || first.From != "Acme <noreply@acme.test>" ||
				first.Subject != "Welcome to the program" || first.Reference != "run-1" || first.MessageID == "" || first.Text != nil || first.HTML != nil {
				t.Fatalf("a listed message = %+v", first)
			}
			page2 := list("?limit=2&cursor="+page1.NextCursor, owner.AccessToken)
			if len(page2.Data) != 1 || page2.Data[0].ID != ids[2] || page2.NextCursor != "" {
				t.Fatalf("page 2 = %+v", page2)
			}
		})
		t.Run("filters narrow the list", func(t *testing.T) {
			if got := list("?to=ADA@example.com", owner.AccessToken); len(got.Data) != 2 {
				t.Fatalf("to ada = %d messages", len(got.Data))
			}
			if got := list("?purpose=invitation", owner.AccessToken); len(got.Data) != 1 || got.Data[0].ID != ids[1] {
				t.Fatalf("invitations = %+v", got.Data)
			}
			if got := list("?status=sent", owner.AccessToken); len(got.Data) != 0 {
				t.Fatalf("sent = %+v", got.Data)
			}
			future := url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339))
			if got := list("?createdFrom="+future, owner.AccessToken); len(got.Data) != 0 {
				t.Fatalf("created from the future = %+v", got.Data)
			}
			if got := list("?createdBefore="+future, owner.AccessToken); len(got.Data) != 3 {
				t.Fatalf("created before an hour from now = %d", len(got.Data))
			}
			if res := do(t, h, http.MethodGet, "/api/mail/messages?status=bounced", nil, bearer(owner.AccessToken)...); res.Status != http.StatusUnprocessableEntity {
				t.Fatalf("an unknown status = %d", res.Status)
			}
		})
		t.Run("one message shows its text and HTML bodies", func(t *testing.T) {
			res := do(t, h, http.MethodGet, "/api/mail/messages/"+ids[1], nil, bearer(owner.AccessToken)...)
			if res.Status != http.StatusOK {
				t.Fatalf("get = %d %s", res.Status, res.Body)
			}
			m := decode[mailOut](t, res)
			if m.To != "bob@example.com" || m.Text == nil || *m.Text != "Hello,\nwelcome." || m.HTML == nil || *m.HTML != "<p>Hello, welcome.</p>" {
				t.Fatalf("message = %+v", m)
			}
		})
		t.Run("another tenant's message is not found", func(t *testing.T) {
			if p := do(t, h, http.MethodGet, "/api/mail/messages/"+foreignID, nil, bearer(owner.AccessToken)...).problem(t); p.Status != http.StatusNotFound || p.Code != "MAIL_MESSAGE_NOT_FOUND" {
				t.Fatalf("another tenant's message = %+v", p)
			}
			globex := login(t, h, globexEmail, ownerPassword)
			if got := list("", globex.AccessToken); len(got.Data) != 1 || got.Data[0].ID != foreignID {
				t.Fatalf("globex sees %+v", got.Data)
			}
		})
		t.Run("partner users and analysts may not read the outbox", func(t *testing.T) {
			ctx := context.Background()
			users, _ := st.UsersByEmail(ctx, acmeEmail, "acme")
			sc := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: acmeID, UserID: users[0].ID})
			partner := &models.Partner{Name: "Reseller", Type: models.PartnerReseller}
			if err := sc.CreatePartner(ctx, partner); err != nil {
				t.Fatal(err)
			}
			hash, _ := authn.HashPassword(ownerPassword)
			for _, u := range []struct {
				email, role string
				partner     *string
			}{{"padmin@acme.test", authz.RolePartnerAdmin, &partner.ID}, {"analyst@acme.test", authz.RoleAnalyst, nil}} {
				if err := sc.CreateUser(ctx, &models.User{Email: u.email, Name: u.role, PasswordHash: hash, PartnerID: u.partner, Status: models.UserStatusActive}, []string{u.role}); err != nil {
					t.Fatal(err)
				}
				tok := login(t, h, u.email, ownerPassword).AccessToken
				for _, path := range []string{"/api/mail/messages", "/api/mail/messages/" + ids[0]} {
					if res := do(t, h, http.MethodGet, path, nil, bearer(tok)...); res.Status != http.StatusForbidden {
						t.Fatalf("%s on %s = %d, want 403", u.role, path, res.Status)
					}
				}
			}
		})
	})
}
