package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		m := &models.MailMessage{TenantID: sc.Principal().TenantID, To: "ada@example.com", From: "noreply@matrix.test",
			Subject: "Matrix", TextBody: "Hello", Status: models.MailStored, Transport: models.MailTransportOutbox,
			Purpose: models.MailPurposePlaybook}
		if _, err := f.st.RecordMail(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		f.ids["mail1"] = m.ID
	})
	cases := map[string]matrixCase{
		"list-mail-messages": {call: get("/api/mail/messages")},
		"get-mail-message": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/mail/messages/" + f.ids["mail1"], nil}
		}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
