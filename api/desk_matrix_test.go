package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		newTicket := func(scope *stores.Scoped) string {
			tk, err := scope.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Payout missing"}, Body: "Our payout has not arrived."})
			if err != nil {
				t.Fatal(err)
			}
			return tk.ID
		}
		f.ids["ticket1"], f.ids["ticket2"] = newTicket(p1), newTicket(p2)
		f.fresh["ticket"] = func(string) string { return newTicket(p1) }
		newCategory := func() string {
			c := &models.TicketCategory{Name: fmt.Sprintf("Category %d", f.seq.Add(1))}
			if err := sc.CreateTicketCategory(ctx, c); err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		f.ids["ticketCategory"] = newCategory()
		f.fresh["ticketCategory"] = func(string) string { return newCategory() }
	})
	ticket := func(method, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			return request{method, "/api/tickets/" + f.ids["ticket1"] + suffix, body}
		}
	}
	other := func(method, suffix string, body map[string]any) func(*fixture) request {
		return func(f *fixture) request { return request{method, "/api/tickets/" + f.ids["ticket2"] + suffix, body} }
	}
	cases := map[string]matrixCase{
		"list-ticket-categories": {call: get("/api/ticket-categories")},
		"create-ticket-category": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/ticket-categories", map[string]any{"name": fmt.Sprintf("New %d", f.seq.Add(1))}}
		}},
		"update-ticket-category": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, "/api/ticket-categories/" + f.ids["ticketCategory"], map[string]any{"description": "changed"}}
		}},
		"delete-ticket-category": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["ticketCategory"]
			if role != "foreign" && role != "" {
				id = f.fresh["ticketCategory"](role)
			}
			return request{http.MethodDelete, "/api/ticket-categories/" + id, nil}
		}},
		"open-ticket": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/tickets", map[string]any{"subject": "Help", "body": "Please help.", "partnerId": f.partner1, "tags": []string{"matrix"}}}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/tickets", map[string]any{"subject": "Help", "body": "Please help.", "partnerId": f.partner2}}
		}},
		"list-tickets":         {call: get("/api/tickets?status=open&priority=normal&tag=matrix&q=help&sla=breached")},
		"get-ticket":           {byID: true, call: ticket(http.MethodGet, "", nil), otherPartner: other(http.MethodGet, "", nil)},
		"update-ticket":        {byID: true, call: ticket(http.MethodPatch, "", map[string]any{"priority": "high"}), otherPartner: other(http.MethodPatch, "", map[string]any{"priority": "high"})},
		"list-ticket-messages": {byID: true, call: ticket(http.MethodGet, "/messages", nil), otherPartner: other(http.MethodGet, "/messages", nil)},
		"reply-to-ticket":      {byID: true, call: ticket(http.MethodPost, "/messages", map[string]any{"body": "Any news?"}), otherPartner: other(http.MethodPost, "/messages", map[string]any{"body": "x"})},
		"add-ticket-note":      {byID: true, call: ticket(http.MethodPost, "/notes", map[string]any{"body": "Internal."}), otherPartner: other(http.MethodPost, "/notes", map[string]any{"body": "x"})},
		"change-ticket-status": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["ticket1"]
			if role != "foreign" && role != "" {
				id = f.fresh["ticket"](role)
			}
			return request{http.MethodPost, "/api/tickets/" + id + "/status", map[string]any{"status": "resolved"}}
		}, otherPartner: other(http.MethodPost, "/status", map[string]any{"status": "resolved"})},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, _, _, _ *stores.Scoped) {
		upload := func(ticket, token string) string {
			r := do(t, f.h, http.MethodPost, "/api/tickets/"+f.ids[ticket]+"/attachments?name=notes.txt", strings.NewReader("Bank statement, October.\n"),
				append(bearer(token), "Content-Type", "application/octet-stream")...)
			if r.Status != http.StatusCreated {
				t.Fatalf("upload = %d %s", r.Status, r.Body)
			}
			return decode[TicketAttachment](t, r).ID
		}
		f.ids["attachment1"] = upload("ticket1", f.tokens[authz.RolePartnerAdmin])
		f.ids["attachment2"] = upload("ticket2", f.tokens[authz.RoleOwner])
	})
	matrix["upload-ticket-attachment"] = matrixCase{byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/tickets/" + f.ids["ticket1"] + "/attachments?name=log.txt", "a log line"}
	}, otherPartner: func(f *fixture) request {
		return request{http.MethodPost, "/api/tickets/" + f.ids["ticket2"] + "/attachments?name=log.txt", "a log line"}
	}}
	matrix["list-ticket-attachments"] = matrixCase{byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodGet, "/api/tickets/" + f.ids["ticket1"] + "/attachments", nil}
	}, otherPartner: func(f *fixture) request {
		return request{http.MethodGet, "/api/tickets/" + f.ids["ticket2"] + "/attachments", nil}
	}}
	matrix["download-ticket-attachment"] = matrixCase{byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodGet, "/api/ticket-attachments/" + f.ids["attachment1"], nil}
	}, otherPartner: func(f *fixture) request {
		return request{http.MethodGet, "/api/ticket-attachments/" + f.ids["attachment2"], nil}
	}}
}
