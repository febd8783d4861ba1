package models

import (
	"errors"
	"strings"
	"testing"
)

func TestTicketTransitionsFollowTheWrittenMachine(t *testing.T) {
	cases := []struct {
		from, to  string
		byPartner bool
		want      string // "" for allowed, else the error code
	}{
		{TicketOpen, TicketPendingPartner, false, ""},
		{TicketOpen, TicketResolved, false, ""},
		{TicketOpen, TicketClosed, false, ""},
		{TicketPendingPartner, TicketPendingOperator, false, ""},
		{TicketPendingOperator, TicketOpen, false, ""},
		{TicketResolved, TicketOpen, false, ""},
		{TicketResolved, TicketClosed, false, ""},
		{TicketResolved, TicketPendingPartner, false, "TICKET_TRANSITION_NOT_ALLOWED"},
		{TicketClosed, TicketOpen, false, "TICKET_TRANSITION_NOT_ALLOWED"},
		{TicketClosed, TicketResolved, true, "TICKET_TRANSITION_NOT_ALLOWED"},
		{TicketOpen, TicketOpen, false, "TICKET_STATUS_UNCHANGED"},
		{TicketOpen, "archived", false, "INVALID_TICKET_STATUS"},
		// Partners resolve, reopen a resolved ticket and close a resolved one; nothing else.
		{TicketOpen, TicketResolved, true, ""},
		{TicketPendingPartner, TicketResolved, true, ""},
		{TicketResolved, TicketOpen, true, ""},
		{TicketResolved, TicketClosed, true, ""},
		{TicketOpen, TicketClosed, true, "TICKET_TRANSITION_FOR_OPERATORS"},
		{TicketOpen, TicketPendingOperator, true, "TICKET_TRANSITION_FOR_OPERATORS"},
		{TicketPendingPartner, TicketOpen, true, "TICKET_TRANSITION_FOR_OPERATORS"},
	}
	for _, c := range cases {
		err := CheckTicketTransition(c.from, c.to, c.byPartner)
		got := ""
		var e *Error
		if errors.As(err, &e) {
			got = e.Code
		} else if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s → %s (partner %v) = %q, want %q", c.from, c.to, c.byPartner, got, c.want)
		}
	}
}

func TestRepliesMoveTheTicketToWhoeverMustAnswer(t *testing.T) {
	cases := []struct {
		status    string
		byPartner bool
		next      string
		ok        bool
	}{
		{TicketOpen, false, TicketPendingPartner, true},
		{TicketPendingOperator, false, TicketPendingPartner, true},
		{TicketResolved, false, TicketResolved, true},
		{TicketOpen, true, TicketPendingOperator, true},
		{TicketPendingPartner, true, TicketPendingOperator, true},
		{TicketResolved, true, TicketPendingOperator, true},
		{TicketClosed, true, TicketClosed, false},
		{TicketClosed, false, TicketClosed, false},
	}
	for _, c := range cases {
		if next, ok := TicketStatusAfterReply(c.status, c.byPartner); next != c.next || ok != c.ok {
			t.Errorf("reply on %s (partner %v) = %s %v, want %s %v", c.status, c.byPartner, next, ok, c.next, c.ok)
		}
	}
}

func TestTicketTagsAreBoundedWords(t *testing.T) {
	got, err := NormalizeTicketTags([]string{"billing", "api-v2", "billing"})
	if err != nil || strings.Join(got, ",") != "billing,api-v2" {
		t.Fatalf("tags = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"Billing"}, {"has space"}, {strings.Repeat("a", 33)}, {""},
		{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}} {
		if _, err := NormalizeTicketTags(bad); err == nil {
			t.Errorf("tags %q were accepted", bad)
		}
	}
	var tk Ticket
	tk.SetTags(nil)
	if tk.Tags != "[]" || len(tk.TagList()) != 0 {
		t.Fatalf("no tags = %q", tk.Tags)
	}
}
