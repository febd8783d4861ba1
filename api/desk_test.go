package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

const deskNote = "Finance says the bank bounced it twice"

func TestServiceDeskOverHTTPNeverShowsPartnersANote(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		h := env.h
		p1 := bearer(mintKey(t, env, env.partner1, authz.TicketsRead, authz.TicketsWrite, authz.EventsRead))
		p2 := bearer(mintKey(t, env, env.partner2, authz.TicketsRead, authz.TicketsWrite))
		op := bearer(env.ownerToken)

		cat := decode[TicketCategory](t, do(t, h, http.MethodPost, "/api/ticket-categories", jsonBody(t, map[string]any{"name": "Payouts"}), op...))
		if p := do(t, h, http.MethodPost, "/api/ticket-categories", jsonBody(t, map[string]any{"name": "payouts"}), op...).problem(t); p.Status != http.StatusConflict || p.Code != "TICKET_CATEGORY_EXISTS" {
			t.Fatalf("a duplicate category = %+v", p)
		}
		if cats := decode[ListBody[TicketCategory]](t, do(t, h, http.MethodGet, "/api/ticket-categories", nil, p1...)); len(cats.Data) != 1 || cats.Data[0].Name != "Payouts" {
			t.Fatalf("partner's categories = %+v", cats)
		}

		// Bad input is a 422 naming the field, and opens nothing.
		for name, body := range map[string]map[string]any{
			"no subject":       {"body": "x"},
			"long subject":     {"subject": strings.Repeat("s", 201), "body": "x"},
			"no body":          {"subject": "x"},
			"bad priority":     {"subject": "x", "body": "x", "priority": "critical"},
			"too many tags":    {"subject": "x", "body": "x", "tags": []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}},
			"upper-case tag":   {"subject": "x", "body": "x", "tags": []string{"Billing"}},
			"long tag":         {"subject": "x", "body": "x", "tags": []string{strings.Repeat("t", 33)}},
			"unknown category": {"subject": "x", "body": "x", "categoryId": "0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e23"},
			"unknown customer": {"subject": "x", "body": "x", "customerId": "0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e23"},
		} {
			if p := do(t, h, http.MethodPost, "/api/tickets", jsonBody(t, body), p1...).problem(t); p.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s = %d %s", name, p.Status, p.Detail)
			}
		}
		if p := do(t, h, http.MethodPost, "/api/tickets", jsonBody(t, map[string]any{"subject": "x", "body": "x", "partnerId": env.partner2}), p1...).problem(t); p.Status != http.StatusForbidden || p.Code != "OTHER_PARTNER" {
			t.Fatalf("a ticket for another partner = %+v", p)
		}
		if p := do(t, h, http.MethodPost, "/api/tickets", jsonBody(t, map[string]any{"subject": "x", "body": "x"}), op...).problem(t); p.Code != "PARTNER_REQUIRED" {
			t.Fatalf("an operator's ticket for nobody = %+v", p)
		}

		tk := decode[Ticket](t, do(t, h, http.MethodPost, "/api/tickets", jsonBody(t, map[string]any{"subject": "October payout missing",
			"body": "It has not arrived.", "priority": "high", "categoryId": cat.ID, "tags": []string{"payouts"}}), p1...))
		if tk.PartnerID != env.partner1 || tk.Status != "open" || tk.Priority != "high" || tk.CategoryID != cat.ID || len(tk.Tags) != 1 {
			t.Fatalf("opened = %+v", tk)
		}
		path := "/api/tickets/" + tk.ID
		if r := do(t, h, http.MethodGet, path, nil, p2...); r.Status != http.StatusNotFound {
			t.Fatalf("partner2 reads partner1's ticket = %d", r.Status)
		}
		if r := do(t, h, http.MethodGet, path+"/messages", nil, p2...); r.Status != http.StatusNotFound {
			t.Fatalf("partner2 reads partner1's thread = %d", r.Status)
		}
		if r := do(t, h, http.MethodPost, path+"/messages", jsonBody(t, map[string]any{"body": "x"}), p2...); r.Status != http.StatusNotFound {
			t.Fatalf("partner2 replies on partner1's ticket = %d", r.Status)
		}
		if list := decode[ListBody[Ticket]](t, do(t, h, http.MethodGet, "/api/tickets", nil, p2...)); len(list.Data) != 0 {
			t.Fatalf("partner2's list = %+v", list.Data)
		}

		// The desk replies and writes a note; the partner sees the reply and never the note.
		reply := decode[TicketMessage](t, do(t, h, http.MethodPost, path+"/messages", jsonBody(t, map[string]any{"body": "We are sending it again."}), op...))
		if reply.Internal || reply.AuthorKind != "operator" {
			t.Fatalf("reply = %+v", reply)
		}
		note := decode[TicketMessage](t, do(t, h, http.MethodPost, path+"/notes", jsonBody(t, map[string]any{"body": deskNote}), op...))
		if !note.Internal {
			t.Fatalf("note = %+v", note)
		}
		if r := do(t, h, http.MethodPost, path+"/notes", jsonBody(t, map[string]any{"body": "psst"}), p1...); r.Status != http.StatusForbidden {
			t.Fatalf("a partner's note = %d", r.Status)
		}
		opThread := decode[ListBody[TicketMessage]](t, do(t, h, http.MethodGet, path+"/messages", nil, op...))
		if len(opThread.Data) != 3 || opThread.Data[2].Body != deskNote {
			t.Fatalf("the desk's thread = %+v", opThread.Data)
		}
		for name, r := range map[string]response{
			"thread":        do(t, h, http.MethodGet, path+"/messages", nil, p1...),
			"thread page 2": do(t, h, http.MethodGet, path+"/messages?limit=100", nil, p1...),
			"ticket":        do(t, h, http.MethodGet, path, nil, p1...),
			"list":          do(t, h, http.MethodGet, "/api/tickets?q=october", nil, p1...),
			"events":        do(t, h, http.MethodGet, "/api/events?limit=100", nil, p1...),
			"ticket events": do(t, h, http.MethodGet, "/api/events?type=ticket.*&limit=100", nil, p1...),
		} {
			if r.Status != http.StatusOK {
				t.Fatalf("partner's %s = %d %s", name, r.Status, r.Body)
			}
			if strings.Contains(string(r.Body), "bank bounced") || strings.Contains(string(r.Body), note.ID) || strings.Contains(string(r.Body), "note_added") {
				t.Fatalf("the partner's %s shows the note: %s", name, r.Body)
			}
		}
		thread := decode[ListBody[TicketMessage]](t, do(t, h, http.MethodGet, path+"/messages", nil, p1...))
		if len(thread.Data) != 2 || thread.Data[1].ID != reply.ID {
			t.Fatalf("the partner's thread = %+v", thread.Data)
		}
		// The operators' event feed has the note's event, without its text.
		opEvents := do(t, h, http.MethodGet, "/api/events?type=ticket.note_added", nil, op...)
		if !strings.Contains(string(opEvents.Body), note.ID) || strings.Contains(string(opEvents.Body), "bank bounced") {
			t.Fatalf("the operators' note event = %s", opEvents.Body)
		}

		// Status moves: the desk's reply left it pending on the partner; the partner resolves.
		got := decode[Ticket](t, do(t, h, http.MethodGet, path, nil, p1...))
		if got.Status != "pending_partner" || got.FirstResponseAt == nil {
			t.Fatalf("after the desk's reply = %+v", got)
		}
		if p := do(t, h, http.MethodPost, path+"/status", jsonBody(t, map[string]any{"status": "pending_operator"}), p1...).problem(t); p.Status != http.StatusForbidden || p.Code != "TICKET_TRANSITION_FOR_OPERATORS" {
			t.Fatalf("a partner sets pending = %+v", p)
		}
		if r := decode[Ticket](t, do(t, h, http.MethodPost, path+"/status", jsonBody(t, map[string]any{"status": "resolved"}), p1...)); r.Status != "resolved" || r.ResolvedAt == nil {
			t.Fatalf("resolved = %+v", r)
		}
		if r := decode[Ticket](t, do(t, h, http.MethodPost, path+"/status", jsonBody(t, map[string]any{"status": "closed"}), op...)); r.Status != "closed" {
			t.Fatalf("closed = %+v", r)
		}
		if p := do(t, h, http.MethodPost, path+"/messages", jsonBody(t, map[string]any{"body": "again"}), p1...).problem(t); p.Status != http.StatusConflict || p.Code != "TICKET_CLOSED" {
			t.Fatalf("a reply on a closed ticket = %+v", p)
		}
		if p := do(t, h, http.MethodPost, path+"/status", jsonBody(t, map[string]any{"status": "open"}), op...).problem(t); p.Status != http.StatusConflict {
			t.Fatalf("reopening a closed ticket = %+v", p)
		}

		// Triage by the desk: an assignee must be an operator user.
		if p := do(t, h, http.MethodPatch, path, jsonBody(t, map[string]any{"assigneeUserId": "0190f3c2-5d1e-7c1a-9a53-8c2b6f1d4e23"}), op...).problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != "ASSIGNEE_NOT_OPERATOR" {
			t.Fatalf("assigning nobody = %+v", p)
		}
		if r := decode[Ticket](t, do(t, h, http.MethodPatch, path, jsonBody(t, map[string]any{"priority": "urgent", "tags": []string{"payouts", "bank"}}), op...)); r.Priority != "urgent" || len(r.Tags) != 2 {
			t.Fatalf("triaged = %+v", r)
		}
		if p := do(t, h, http.MethodDelete, "/api/ticket-categories/"+cat.ID, nil, op...).problem(t); p.Status != http.StatusConflict || p.Code != "TICKET_CATEGORY_IN_USE" {
			t.Fatalf("deleting a used category = %+v", p)
		}
		for q, want := range map[string]int{"?tag=bank": 1, "?tag=ban": 0, "?priority=urgent": 1, "?status=open": 0, "?categoryId=" + cat.ID: 1,
			"?partnerId=" + env.partner2: 0, "?q=PAYOUT": 1} {
			if list := decode[ListBody[Ticket]](t, do(t, h, http.MethodGet, "/api/tickets"+q, nil, op...)); len(list.Data) != want {
				t.Errorf("tickets%s = %d, want %d", q, len(list.Data), want)
			}
		}
		if r := do(t, h, http.MethodGet, "/api/tickets?status=archived", nil, op...); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("an unknown status filter = %d", r.Status)
		}
	})
}
