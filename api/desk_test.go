package api

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
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

// pngBytes is the start of a PNG file, enough for its type to be told.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"), bytes.Repeat([]byte{7}, 4000)...)

func TestTicketAttachmentsAreCheckedStoredAndAuthorisedLikeTheTicket(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		h := env.h
		p1Key := mintKey(t, env, env.partner1, authz.TicketsRead, authz.TicketsWrite)
		p1, p2 := bearer(p1Key), bearer(mintKey(t, env, env.partner2, authz.TicketsRead, authz.TicketsWrite))
		op := bearer(env.ownerToken)
		upload := func(path string, body []byte, auth []string) response {
			return do(t, h, http.MethodPost, path, bytes.NewReader(body), append(auth, "Content-Type", "application/octet-stream")...)
		}
		tk := decode[Ticket](t, do(t, h, http.MethodPost, "/api/tickets", jsonBody(t, map[string]any{"subject": "Broken logo", "body": "See the screenshot."}), p1...))
		base := "/api/tickets/" + tk.ID + "/attachments"

		// Size and type are refused before anything is recorded.
		if p := upload(base+"?name=big.png", append(slices.Clone(pngBytes), make([]byte, models.MaxTicketAttachmentBytes)...), p1).problem(t); p.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a file over the limit = %+v", p)
		}
		if p := upload(base+"?name=exact.png", append(slices.Clone(pngBytes), make([]byte, models.MaxTicketAttachmentBytes-len(pngBytes)+1)...), p1).problem(t); p.Status != http.StatusRequestEntityTooLarge || p.Code != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("a file one byte over = %+v", p)
		}
		if p := upload(base+"?name=tool.exe", append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"), make([]byte, 200)...), p1).problem(t); p.Status != http.StatusUnsupportedMediaType || p.Code != "UNSUPPORTED_FILE_TYPE" {
			t.Fatalf("an executable = %+v", p)
		}
		if p := upload(base+"?name=page.png", []byte("<html><script>alert(1)</script></html>"), p1).problem(t); p.Status != http.StatusUnsupportedMediaType {
			t.Fatalf("HTML named .png = %+v", p)
		}
		if p := upload(base+"?name=a/b.png", pngBytes, p1).problem(t); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a name with a path = %+v", p)
		}
		if list := decode[ListBody[TicketAttachment]](t, do(t, h, http.MethodGet, base, nil, op...)); len(list.Data) != 0 {
			t.Fatalf("refused uploads left rows: %+v", list.Data)
		}
		if r := upload(base+"?name=x.png", pngBytes, p2); r.Status != http.StatusNotFound {
			t.Fatalf("partner2 uploads to partner1's ticket = %d", r.Status)
		}

		shot := decode[TicketAttachment](t, upload(base+"?name=screenshot.png", pngBytes, p1))
		if shot.ContentType != "image/png" || shot.Size != int64(len(pngBytes)) || shot.Internal || len(shot.SHA256) != 64 {
			t.Fatalf("uploaded = %+v", shot)
		}
		// Downloads: the whole file, a range, and 404 for another partner.
		r := do(t, h, http.MethodGet, "/api/ticket-attachments/"+shot.ID, nil, op...)
		if r.Status != http.StatusOK || !bytes.Equal(r.Body, pngBytes) || r.Header.Get("Content-Type") != "image/png" ||
			!strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("download = %d %v (%d bytes)", r.Status, r.Header, len(r.Body))
		}
		r = do(t, h, http.MethodGet, "/api/ticket-attachments/"+shot.ID, nil, append(slices.Clone(p1), "Range", "bytes=1-3")...)
		if r.Status != http.StatusPartialContent || string(r.Body) != "PNG" {
			t.Fatalf("a range = %d %q", r.Status, r.Body)
		}
		if r := do(t, h, http.MethodGet, "/api/ticket-attachments/"+shot.ID, nil, p2...); r.Status != http.StatusNotFound {
			t.Fatalf("partner2 downloads partner1's file = %d", r.Status)
		}

		// A file of an internal note is internal: never listed nor served to the partner.
		note := decode[TicketMessage](t, do(t, h, http.MethodPost, "/api/tickets/"+tk.ID+"/notes", jsonBody(t, map[string]any{"body": "Their logo is trademarked, see file."}), op...))
		if r := upload(base+"?name=x.png&messageId="+note.ID, pngBytes, p1); r.Status != http.StatusNotFound {
			t.Fatalf("a partner attaching to the note = %d", r.Status)
		}
		first := decode[ListBody[TicketMessage]](t, do(t, h, http.MethodGet, "/api/tickets/"+tk.ID+"/messages", nil, op...)).Data[0]
		if p := upload(base+"?name=x.png&messageId="+first.ID, pngBytes, op).problem(t); p.Status != http.StatusForbidden || p.Code != "NOT_YOUR_MESSAGE" {
			t.Fatalf("the desk attaching to the partner's message = %+v", p)
		}
		secret := decode[TicketAttachment](t, upload(base+"?name=trademark.png&messageId="+note.ID, pngBytes, op))
		if !secret.Internal || secret.MessageID != note.ID {
			t.Fatalf("the note's file = %+v", secret)
		}
		if r := do(t, h, http.MethodGet, "/api/ticket-attachments/"+secret.ID, nil, p1...); r.Status != http.StatusNotFound {
			t.Fatalf("the partner downloads the note's file = %d", r.Status)
		}
		if r := do(t, h, http.MethodGet, "/api/ticket-attachments/"+secret.ID, nil, op...); r.Status != http.StatusOK {
			t.Fatalf("the desk downloads the note's file = %d", r.Status)
		}
		partnerList := do(t, h, http.MethodGet, base, nil, p1...)
		if l := decode[ListBody[TicketAttachment]](t, partnerList); len(l.Data) != 1 || l.Data[0].ID != shot.ID || strings.Contains(string(partnerList.Body), "trademark") {
			t.Fatalf("the partner's files = %s", partnerList.Body)
		}
		if l := decode[ListBody[TicketAttachment]](t, do(t, h, http.MethodGet, base, nil, op...)); len(l.Data) != 2 {
			t.Fatalf("the desk's files = %+v", l.Data)
		}
		events, _, err := env.owner.ListEvents(context.Background(), models.EventFilter{Type: models.EventTicketAttachmentAdded}, models.Page{Limit: 10})
		if err != nil || len(events) != 2 {
			t.Fatalf("attachment events = %d, %v", len(events), err)
		}
		for _, ev := range events {
			if strings.Contains(ev.Payload, secret.ID) && (ev.PartnerID != nil || strings.Contains(ev.Payload, "trademark")) {
				t.Fatalf("the note file's event is the partner's or names it: %+v", ev)
			}
		}

		// Without a blob store, files answer 503 and nothing is recorded.
		bare, _ := identityServer(t, st)
		bare.deps.Blobs = nil
		if p := do(t, bare.Handler(), http.MethodPost, base+"?name=x.png", bytes.NewReader(pngBytes), bearer(p1Key)...).problem(t); p.Status != http.StatusServiceUnavailable {
			t.Fatalf("an upload without a blob store = %+v", p)
		}
		if p := do(t, bare.Handler(), http.MethodGet, "/api/ticket-attachments/"+shot.ID, nil, bearer(p1Key)...).problem(t); p.Status != http.StatusServiceUnavailable {
			t.Fatalf("a download without a blob store = %+v", p)
		}
	})
}
