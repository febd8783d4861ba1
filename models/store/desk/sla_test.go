package desk_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestSLAPoliciesAndBusinessHours(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		if _, err := e.Op.SLAPolicy(ctx, models.TicketHigh); storetest.Code(err) != "SLA_POLICY_NOT_FOUND" {
			t.Fatalf("no policy yet: %v", err)
		}
		if _, _, err := e.Op.PutSLAPolicy(ctx, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 90, ResolutionMinutes: 60}); storetest.Code(err) != "FIRST_RESPONSE_AFTER_RESOLUTION" {
			t.Fatalf("first response after resolution: %v", err)
		}
		p, created, err := e.Op.PutSLAPolicy(ctx, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 480})
		if err != nil || !created || p.WarnPercent != models.DefaultSLAWarnPercent || p.TenantID != e.TenantID {
			t.Fatalf("new policy = %+v, %v, %v", p, created, err)
		}
		p2, created, err := e.Op.PutSLAPolicy(ctx, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 480, WarnBeforeMinutes: 15})
		if err != nil || created || p2.ID != p.ID || p2.WarnPercent != 0 || p2.WarnBeforeMinutes != 15 {
			t.Fatalf("replaced policy = %+v, %v, %v", p2, created, err)
		}
		if list, _, err := e.Op.ListSLAPolicies(ctx, models.Page{}); err != nil || len(list) != 1 {
			t.Fatalf("policies = %+v, %v", list, err)
		}
		// Another tenant sees none of it.
		other := s.For(storetest.Tenant(t, s.Core(), "other-desk"))
		if list, _, err := other.ListSLAPolicies(ctx, models.Page{}); err != nil || len(list) != 0 {
			t.Fatalf("another tenant's policies = %+v, %v", list, err)
		}
		if _, err := other.SLAPolicy(ctx, models.TicketHigh); storetest.Code(err) != "SLA_POLICY_NOT_FOUND" {
			t.Fatalf("another tenant reads the policy: %v", err)
		}
		// Business hours: around the clock until set, checked, replaced.
		if h, err := e.Op.BusinessHours(ctx); err != nil || h.TimeZone != "UTC" || len(h.Windows) != 0 {
			t.Fatalf("default hours = %+v, %v", h, err)
		}
		if _, err := e.Op.PutBusinessHours(ctx, models.BusinessHours{TimeZone: "Europe/Nowhere"}); storetest.Code(err) != "INVALID_TIME_ZONE" {
			t.Fatalf("unknown zone: %v", err)
		}
		week := models.BusinessHours{TimeZone: "Europe/Berlin", Windows: []models.BusinessWindow{{Day: "mon", Start: "09:00", End: "17:00"}}}
		for range 2 {
			if _, err := e.Op.PutBusinessHours(ctx, week); err != nil {
				t.Fatal(err)
			}
		}
		if h, err := e.Op.BusinessHours(ctx); err != nil || h.TimeZone != "Europe/Berlin" || len(h.Windows) != 1 || h.Windows[0].End != "17:00" {
			t.Fatalf("hours = %+v, %v", h, err)
		}
		audit, _, err := e.Op.ListAudit(ctx, models.AuditFilter{}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]int{}
		for _, a := range audit {
			actions[a.Action]++
		}
		if actions["ticket_sla_policy.created"] != 1 || actions["ticket_sla_policy.updated"] != 1 || actions["ticket_business_hours.updated"] != 2 {
			t.Fatalf("audit = %v", actions)
		}
		if err := e.Op.DeleteSLAPolicy(ctx, models.TicketHigh); err != nil {
			t.Fatal(err)
		}
		if err := e.Op.DeleteSLAPolicy(ctx, models.TicketHigh); storetest.Code(err) != "SLA_POLICY_NOT_FOUND" {
			t.Fatalf("second delete: %v", err)
		}
	})
}

// Ticket events reach the SLA clocks only in tenants with a policy; opening starts a clock, a
// desk reply, a status change and a priority change signal it.
func TestTicketEventsRouteToTheSLAClock(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx, sys := e.Ctx, models.System(e.TenantID)
		subscribed := func() bool {
			s.InvalidateSubscriptions(e.TenantID)
			ok, err := s.Subscribed(ctx, sys, models.EventTicketOpened)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if subscribed() {
			t.Fatal("without a policy nothing listens to ticket.opened")
		}
		if _, _, err := e.Op.PutSLAPolicy(ctx, models.TicketSLAPolicy{Priority: models.TicketNormal, FirstResponseMinutes: 60, ResolutionMinutes: 480}); err != nil {
			t.Fatal(err)
		}
		if !subscribed() {
			t.Fatal("with a policy the SLA clocks listen to ticket.opened")
		}
		tk, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Help"}, Body: "Please."})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.AddTicketMessage(ctx, tk.ID, "On it.", false); err != nil {
			t.Fatal(err)
		}
		urgent := models.TicketUrgent
		if _, err := e.Op.UpdateTicket(ctx, tk.ID, models.TicketChanges{Priority: &urgent}); err != nil {
			t.Fatal(err)
		}
		evs, _, err := e.Op.ListEvents(ctx, models.EventFilter{Type: "ticket.*"}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, ev := range evs {
			r, err := s.EventRoutes(ctx, sys, ev.ID)
			if err != nil {
				t.Fatal(err)
			}
			switch ev.Type {
			case models.EventTicketOpened:
				if r.StartTicketSLA == nil || r.StartTicketSLA.TicketID != tk.ID || !r.StartTicketSLA.At.Equal(ev.OccurredAt) {
					t.Fatalf("ticket.opened routes = %+v", r)
				}
			case models.EventTicketReplied:
				if r.TicketSLA == nil || !r.TicketSLA.Responded || r.TicketSLA.Status != models.TicketPendingPartner {
					t.Fatalf("the desk's reply routes = %+v", r.TicketSLA)
				}
			case models.EventTicketUpdated:
				if r.TicketSLA == nil || r.TicketSLA.Priority != models.TicketUrgent {
					t.Fatalf("a priority change routes = %+v", r.TicketSLA)
				}
			case models.EventTicketStatusChanged:
				if r.TicketSLA == nil || r.TicketSLA.Status != models.TicketPendingPartner || r.TicketSLA.Responded {
					t.Fatalf("a status change routes = %+v", r.TicketSLA)
				}
			}
			seen = append(seen, ev.Type)
		}
		if len(seen) != 4 {
			t.Fatalf("ticket events = %v", seen)
		}
	})
}

// The clock's record writes the ticket's SLA state and sends each alert once, to operators only.
func TestRecordTicketSLASendsEachAlertOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx, sys := context.Background(), models.System(e.TenantID)
		tk, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Help", Priority: models.TicketHigh}, Body: "Please."})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := s.StartTicketSLA(ctx, sys, tk.ID, ""); err != nil || !st.Found || st.Policy != nil || st.Priority != models.TicketHigh || st.Hours.TimeZone != "UTC" {
			t.Fatalf("start without a policy = %+v, %v", st, err)
		}
		if st, err := s.StartTicketSLA(ctx, sys, models.NewID(), ""); err != nil || st.Found {
			t.Fatalf("start of no ticket = %+v, %v", st, err)
		}
		patterns := func() []string {
			t.Helper()
			p, err := s.Desk.EventPatterns(ctx, sys)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		if p := patterns(); len(p) != 0 {
			t.Fatalf("a tenant without policies or running clocks routes %v to the desk", p)
		}
		due := time.Date(2026, 11, 25, 11, 0, 0, 0, time.UTC)
		at := due.Add(time.Second)
		alert := []models.SLAAlert{{Kind: models.SLABreached, Target: models.SLAFirstResponse, DueAt: due, At: at}}
		resDue := due.Add(3 * time.Hour)
		for range 2 {
			if err := s.RecordTicketSLA(ctx, sys, tk.ID, models.TicketSLA{FirstResponseDueAt: &due, ResolutionDueAt: &resDue}, alert); err != nil {
				t.Fatal(err)
			}
		}
		// No policy is left, yet a clock runs: its ticket's events still reach it.
		if p := patterns(); !slices.Contains(p, models.EventTicketStatusChanged) {
			t.Fatalf("a running clock's ticket events are not routed: %v", p)
		}
		got, err := e.Op.Ticket(ctx, tk.ID)
		if err != nil || got.FirstResponseBreachedAt == nil || !got.FirstResponseBreachedAt.Equal(at) || got.ResolutionDueAt == nil || !got.ResolutionDueAt.Equal(resDue) {
			t.Fatalf("recorded ticket = %+v, %v", got, err)
		}
		evs, _, err := e.Op.ListEvents(ctx, models.EventFilter{Type: models.EventTicketSLABreached}, models.Page{Limit: 10})
		if err != nil || len(evs) != 1 || evs[0].PartnerID != nil || !evs[0].OccurredAt.Equal(at) {
			t.Fatalf("breach events = %+v, %v", evs, err)
		}
		mine, _, err := e.A.ListEvents(ctx, models.EventFilter{Type: models.EventTicketSLABreached}, models.Page{Limit: 10})
		if err != nil || len(mine) != 0 {
			t.Fatalf("the partner sees SLA events: %+v, %v", mine, err)
		}
		for f, want := range map[string]int{models.TicketSLABreached: 1, models.TicketSLAPaused: 0} {
			if list, _, err := e.Op.ListTickets(ctx, models.TicketFilter{SLA: f}, models.Page{}); err != nil || len(list) != want {
				t.Fatalf("sla=%s lists %d tickets (%v), want %d", f, len(list), err, want)
			}
		}
		// A paused clock clears the due times and says since when.
		if err := s.RecordTicketSLA(ctx, sys, tk.ID, models.TicketSLA{SLAPausedAt: &at}, nil); err != nil {
			t.Fatal(err)
		}
		if got, err := e.Op.Ticket(ctx, tk.ID); err != nil || got.ResolutionDueAt != nil || got.SLAPausedAt == nil || got.FirstResponseBreachedAt == nil {
			t.Fatalf("paused ticket = %+v, %v", got, err)
		}
		if list, _, err := e.A.ListTickets(ctx, models.TicketFilter{SLA: models.TicketSLAPaused}, models.Page{}); err != nil || len(list) != 1 {
			t.Fatalf("sla=paused lists %d tickets, %v", len(list), err)
		}

		// A target the ticket met before the clock heard of it raises no alert: the desk replied
		// (first response) and resolved before their due times, and the signals came late.
		met, err := e.A.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Late signals", Priority: models.TicketHigh}, Body: "Please."})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.AddTicketMessage(ctx, met.ID, "Done.", false); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ChangeTicketStatus(ctx, met.ID, models.TicketResolved); err != nil {
			t.Fatal(err)
		}
		later := time.Now().UTC().Add(time.Minute)
		if err := s.RecordTicketSLA(ctx, sys, met.ID, models.TicketSLA{}, []models.SLAAlert{
			{Kind: models.SLABreached, Target: models.SLAFirstResponse, DueAt: later, At: later.Add(time.Second)},
			{Kind: models.SLABreached, Target: models.SLAResolution, DueAt: later, At: later.Add(time.Second)},
		}); err != nil {
			t.Fatal(err)
		}
		if got, err := e.Op.Ticket(ctx, met.ID); err != nil || got.FirstResponseBreachedAt != nil || got.ResolutionBreachedAt != nil {
			t.Fatalf("a ticket that met its targets is marked breached: %+v, %v", got, err)
		}
		if evs, _, err := e.Op.ListEvents(ctx, models.EventFilter{Type: models.EventTicketSLABreached}, models.Page{Limit: 10}); err != nil || len(evs) != 1 {
			t.Fatalf("breach events after late signals = %d, %v; want the first ticket's only", len(evs), err)
		}
	})
}
