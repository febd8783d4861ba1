package desk_test

import (
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

const secretNote = "Partner is on a payment plan, keep it quiet"

func TestTicketsAreScopedAndMoveThroughTheirStatuses(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		billing := &models.TicketCategory{Name: "Billing"}
		if err := e.Op.CreateTicketCategory(ctx, billing); err != nil {
			t.Fatal(err)
		}
		if err := e.Op.CreateTicketCategory(ctx, &models.TicketCategory{Name: "billing"}); storetest.Code(err) != "TICKET_CATEGORY_EXISTS" {
			t.Fatalf("a second category of the same name: %v", err)
		}
		// A partner opens a ticket for itself; another partner's id, assignment and a foreign
		// customer are refused.
		pid := e.PartnerB
		if _, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "x", PartnerID: pid}, Body: "x"}); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("a ticket for another partner: %v", err)
		}
		if _, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "x", AssigneeUserID: &e.OpUserID}, Body: "x"}); storetest.Code(err) != "ASSIGNMENT_FOR_OPERATORS" {
			t.Fatalf("a partner assigning: %v", err)
		}
		bCustomer := &models.Customer{Name: "B's customer", PartnerID: &pid}
		if err := e.Op.CreateCustomer(ctx, bCustomer); err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "x", CustomerID: &bCustomer.ID}, Body: "x"}); storetest.Code(err) != "TICKET_CUSTOMER_NOT_FOUND" {
			t.Fatalf("a ticket about another partner's customer: %v", err)
		}
		mine, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Payout missing for October", Priority: models.TicketHigh, CategoryID: &billing.ID},
			Tags: []string{"payouts", "october"}, Body: "Our October payout has not arrived."})
		if err != nil || mine.PartnerID != e.PartnerA || mine.Status != models.TicketOpen || mine.Priority != models.TicketHigh {
			t.Fatalf("partner ticket = %+v, %v", mine, err)
		}
		// Operators name the partner; the assignee must be an operator user.
		if _, err := e.Op.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "x"}, Body: "x"}); storetest.Code(err) != "PARTNER_REQUIRED" {
			t.Fatalf("an operator ticket for nobody: %v", err)
		}
		stranger := models.NewID()
		if _, err := e.Op.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "x", PartnerID: e.PartnerB, AssigneeUserID: &stranger}, Body: "x"}); storetest.Code(err) != "ASSIGNEE_NOT_OPERATOR" {
			t.Fatalf("assigning nobody: %v", err)
		}
		theirs, err := e.Op.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Renew the reseller agreement", PartnerID: e.PartnerB, AssigneeUserID: &e.OpUserID, CustomerID: &bCustomer.ID}, Body: "Please sign."})
		if err != nil || theirs.RequesterID != e.OpUserID {
			t.Fatalf("operator ticket = %+v, %v", theirs, err)
		}
		if _, err := e.A.Ticket(ctx, theirs.ID); storetest.Code(err) != "TICKET_NOT_FOUND" {
			t.Fatalf("partner A reads B's ticket: %v", err)
		}
		if _, err := e.A.AddTicketMessage(ctx, theirs.ID, "hi", false); storetest.Code(err) != "TICKET_NOT_FOUND" {
			t.Fatalf("partner A replies on B's ticket: %v", err)
		}
		if _, _, err := e.A.TicketMessages(ctx, theirs.ID, models.Page{}); storetest.Code(err) != "TICKET_NOT_FOUND" {
			t.Fatalf("partner A reads B's thread: %v", err)
		}
		if _, err := e.B.ChangeTicketStatus(ctx, mine.ID, models.TicketResolved); storetest.Code(err) != "TICKET_NOT_FOUND" {
			t.Fatalf("partner B resolves A's ticket: %v", err)
		}

		// The thread: the desk's reply waits on the partner and stamps the first response; the
		// partner's reply puts it back with the desk; a note changes nothing the partner sees.
		if _, err := e.A.AddTicketMessage(ctx, mine.ID, "psst", true); storetest.Code(err) != "NOTES_FOR_OPERATORS" {
			t.Fatalf("a partner's internal note: %v", err)
		}
		if _, err := e.Op.AddTicketMessage(ctx, mine.ID, "We are looking into it.", false); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.AddTicketMessage(ctx, mine.ID, secretNote, true); err != nil {
			t.Fatal(err)
		}
		got, _ := e.A.Ticket(ctx, mine.ID)
		if got.Status != models.TicketPendingPartner || got.FirstResponseAt == nil {
			t.Fatalf("after the desk's reply = %+v", got)
		}
		if _, err := e.A.AddTicketMessage(ctx, mine.ID, "Thanks, any news?", false); err != nil {
			t.Fatal(err)
		}
		if got, _ = e.A.Ticket(ctx, mine.ID); got.Status != models.TicketPendingOperator {
			t.Fatalf("after the partner's reply = %s", got.Status)
		}
		opThread, _, err := e.Op.TicketMessages(ctx, mine.ID, models.Page{})
		if err != nil || len(opThread) != 4 || !opThread[2].Internal {
			t.Fatalf("the operator's thread = %+v, %v", opThread, err)
		}
		partnerThread, _, err := e.A.TicketMessages(ctx, mine.ID, models.Page{})
		if err != nil || len(partnerThread) != 3 {
			t.Fatalf("the partner's thread = %d messages, %v", len(partnerThread), err)
		}
		for _, m := range partnerThread {
			if m.Internal || m.Body == secretNote {
				t.Fatalf("the partner sees an internal note: %+v", m)
			}
		}
		// Paging the thread one at a time still never reaches the note.
		seen, after := 0, ""
		for {
			page, next, err := e.A.TicketMessages(ctx, mine.ID, models.Page{Limit: 1, After: after})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range page {
				if m.Internal {
					t.Fatal("a page of the partner's thread holds the note")
				}
				seen++
			}
			if next == "" {
				break
			}
			after = next
		}
		if seen != 3 {
			t.Fatalf("paged partner thread = %d", seen)
		}

		// Partners resolve and close, but do not set the desk's states; closed is final.
		if _, err := e.A.ChangeTicketStatus(ctx, mine.ID, models.TicketPendingPartner); storetest.Code(err) != "TICKET_TRANSITION_FOR_OPERATORS" {
			t.Fatalf("a partner sets pending: %v", err)
		}
		if r, err := e.A.ChangeTicketStatus(ctx, mine.ID, models.TicketResolved); err != nil || r.ResolvedAt == nil {
			t.Fatalf("resolve = %+v, %v", r, err)
		}
		if _, err := e.A.AddTicketMessage(ctx, mine.ID, "Actually, still missing.", false); err != nil {
			t.Fatal(err)
		}
		if got, _ = e.Op.Ticket(ctx, mine.ID); got.Status != models.TicketPendingOperator || got.ResolvedAt != nil {
			t.Fatalf("a reply on a resolved ticket reopens it: %+v", got)
		}
		if _, err := e.Op.ChangeTicketStatus(ctx, mine.ID, models.TicketClosed); err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.AddTicketMessage(ctx, mine.ID, "hello?", false); storetest.Code(err) != "TICKET_CLOSED" {
			t.Fatalf("a reply on a closed ticket: %v", err)
		}
		if _, err := e.Op.ChangeTicketStatus(ctx, mine.ID, models.TicketOpen); storetest.Code(err) != "TICKET_TRANSITION_NOT_ALLOWED" {
			t.Fatalf("reopening a closed ticket: %v", err)
		}

		// Updates are checked; categories in use stay.
		tags := []string{"renewal"}
		none := ""
		up, err := e.Op.UpdateTicket(ctx, theirs.ID, models.TicketChanges{Priority: ptr(models.TicketUrgent), CategoryID: &billing.ID, Tags: &tags, AssigneeUserID: &none})
		if err != nil || up.Priority != models.TicketUrgent || up.AssigneeUserID != nil || *up.CategoryID != billing.ID || up.TagList()[0] != "renewal" {
			t.Fatalf("update = %+v, %v", up, err)
		}
		if _, err := e.Op.UpdateTicket(ctx, theirs.ID, models.TicketChanges{AssigneeUserID: &stranger}); storetest.Code(err) != "ASSIGNEE_NOT_OPERATOR" {
			t.Fatalf("assigning nobody: %v", err)
		}
		if err := e.Op.DeleteTicketCategory(ctx, billing.ID); storetest.Code(err) != "TICKET_CATEGORY_IN_USE" {
			t.Fatalf("deleting a used category: %v", err)
		}
		spare := &models.TicketCategory{Name: "Spare"}
		if err := e.Op.CreateTicketCategory(ctx, spare); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.UpdateTicketCategory(ctx, spare.ID, models.TicketCategoryChanges{Name: ptr("Technical")}); err != nil {
			t.Fatal(err)
		}
		if err := e.Op.DeleteTicketCategory(ctx, spare.ID); err != nil {
			t.Fatal(err)
		}

		// Filters and scope of the list.
		for name, c := range map[string]struct {
			sc   *stores.Scoped
			f    models.TicketFilter
			want []string
		}{
			"partner A sees its own": {e.A, models.TicketFilter{}, []string{mine.ID}},
			"partner B sees its own": {e.B, models.TicketFilter{}, []string{theirs.ID}},
			"partner A filters on B": {e.A, models.TicketFilter{PartnerID: e.PartnerB}, nil},
			"operator sees all":      {e.Op, models.TicketFilter{}, []string{mine.ID, theirs.ID}},
			"status":                 {e.Op, models.TicketFilter{Status: models.TicketClosed}, []string{mine.ID}},
			"priority":               {e.Op, models.TicketFilter{Priority: models.TicketUrgent}, []string{theirs.ID}},
			"category":               {e.Op, models.TicketFilter{CategoryID: billing.ID}, []string{mine.ID, theirs.ID}},
			"tag":                    {e.Op, models.TicketFilter{Tag: "payouts"}, []string{mine.ID}},
			"tag is a whole word":    {e.Op, models.TicketFilter{Tag: "payout"}, nil},
			"text":                   {e.Op, models.TicketFilter{Q: "RESELLER"}, []string{theirs.ID}},
			"text with wildcards":    {e.Op, models.TicketFilter{Q: "%"}, nil},
			"partner":                {e.Op, models.TicketFilter{PartnerID: e.PartnerA}, []string{mine.ID}},
			"customer":               {e.Op, models.TicketFilter{CustomerID: bCustomer.ID}, []string{theirs.ID}},
			"assignee":               {e.Op, models.TicketFilter{AssigneeUserID: e.OpUserID}, nil},
		} {
			rows, _, err := c.sc.ListTickets(ctx, c.f, models.Page{})
			var ids []string
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if err != nil || strings.Join(ids, ",") != strings.Join(c.want, ",") {
				t.Errorf("%s = %v, %v; want %v", name, ids, err, c.want)
			}
		}
		page, next, err := e.Op.ListTickets(ctx, models.TicketFilter{}, models.Page{Limit: 1})
		if err != nil || len(page) != 1 || next == "" {
			t.Fatalf("first page = %d, %q, %v", len(page), next, err)
		}
		if page2, next2, _ := e.Op.ListTickets(ctx, models.TicketFilter{}, models.Page{Limit: 1, After: next}); len(page2) != 1 || page2[0].ID == page[0].ID || next2 != "" {
			t.Fatalf("second page = %+v, %q", page2, next2)
		}

		// Events: the note's event is the operators' only and no event carries a message's text.
		events, _, err := e.Op.ListEvents(ctx, models.EventFilter{Type: "ticket.*"}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]int{}
		for _, ev := range events {
			types[ev.Type]++
			if strings.Contains(ev.Payload, "payment plan") || strings.Contains(ev.Payload, "looking into it") {
				t.Fatalf("event %s carries a message's text: %s", ev.Type, ev.Payload)
			}
			if ev.Type == models.EventTicketNoteAdded && ev.PartnerID != nil {
				t.Fatalf("the note's event belongs to the partner: %+v", ev)
			}
		}
		if types[models.EventTicketOpened] != 2 || types[models.EventTicketNoteAdded] != 1 || types[models.EventTicketReplied] != 3 ||
			types[models.EventTicketUpdated] != 1 || types[models.EventTicketStatusChanged] < 4 {
			t.Fatalf("ticket events = %v", types)
		}
		partnerEvents, _, err := e.A.ListEvents(ctx, models.EventFilter{Type: "ticket.*"}, models.Page{Limit: 100})
		if err != nil || len(partnerEvents) == 0 {
			t.Fatalf("partner A's ticket events = %d, %v", len(partnerEvents), err)
		}
		for _, ev := range partnerEvents {
			if ev.Type == models.EventTicketNoteAdded || store(ev.PartnerID) != e.PartnerA {
				t.Fatalf("partner A sees %s of %s", ev.Type, store(ev.PartnerID))
			}
		}
		// Every change is audited.
		audit, _, err := e.Op.ListAudit(ctx, models.AuditFilter{TargetType: "ticket", TargetID: mine.ID}, models.Page{Limit: 100})
		if err != nil || len(audit) != 7 {
			t.Fatalf("audit of the ticket = %d, %v", len(audit), err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func store(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
