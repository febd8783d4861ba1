package workflows_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// slaTicket opens a ticket of priority in a tenant with the given SLA policy and business hours.
func slaTicket(t *testing.T, st *stores.Set, p models.TicketSLAPolicy, h models.BusinessHours) (*stores.Scoped, *models.Ticket) {
	t.Helper()
	e := storetest.NewPartners(t, st)
	if _, _, err := e.Op.PutSLAPolicy(e.Ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Op.PutBusinessHours(e.Ctx, h); err != nil {
		t.Fatal(err)
	}
	tk, err := e.A.OpenTicket(e.Ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Payout missing", Priority: p.Priority}, Body: "Our payout has not arrived."})
	if err != nil {
		t.Fatal(err)
	}
	return e.Op, tk
}

// slaEvents are the ticket's SLA events as "kind target" at their workflow time.
type slaEvent struct {
	typ, target string
	at          time.Time
}

func slaEventsOf(t *testing.T, sc *stores.Scoped) []slaEvent {
	t.Helper()
	evs, _, err := sc.ListEvents(context.Background(), models.EventFilter{Type: "ticket.sla_*"}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []slaEvent
	for _, e := range evs {
		var p models.TicketSLAEventPayload
		if err := json.Unmarshal([]byte(e.Payload), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, slaEvent{e.Type, p.Target, e.OccurredAt})
	}
	return out
}

func slaEnv(st *stores.Set, start time.Time) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(start)
	worker.Register(env, worker.Deps{System: &activities.System{}, Desk: &activities.Desk{Store: st.Desk}})
	return env
}

func wantSLAEvents(t *testing.T, got []slaEvent, want ...slaEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("SLA events = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].typ != want[i].typ || got[i].target != want[i].target || !got[i].at.Equal(want[i].at) {
			t.Fatalf("SLA event %d = %s %s at %s, want %s %s at %s", i, got[i].typ, got[i].target, got[i].at, want[i].typ, want[i].target, want[i].at)
		}
	}
}

func TestTicketSLAWarnsAndBreachesOnTime(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	op, tk := slaTicket(t, st, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 240}, models.AroundTheClock)
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	env := slaEnv(st, t0)
	env.RegisterDelayedCallback(func() {
		got, err := op.Ticket(context.Background(), tk.ID)
		if err != nil || got.FirstResponseDueAt == nil || !got.FirstResponseDueAt.Equal(t0.Add(time.Hour)) ||
			got.ResolutionDueAt == nil || !got.ResolutionDueAt.Equal(t0.Add(4*time.Hour)) || got.FirstResponseWarnedAt != nil {
			t.Errorf("after 10 minutes the ticket shows %+v, %v", got, err)
		}
	}, 10*time.Minute)
	env.ExecuteWorkflow(workflows.TicketSLA, workflows.TicketSLAInput{TenantID: tk.TenantID, TicketID: tk.ID, OpenedAt: t0})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	// 80% of each target, then the target itself.
	wantSLAEvents(t, slaEventsOf(t, op),
		slaEvent{models.EventTicketSLAWarning, models.SLAFirstResponse, t0.Add(48 * time.Minute)},
		slaEvent{models.EventTicketSLABreached, models.SLAFirstResponse, t0.Add(time.Hour)},
		slaEvent{models.EventTicketSLAWarning, models.SLAResolution, t0.Add(192 * time.Minute)},
		slaEvent{models.EventTicketSLABreached, models.SLAResolution, t0.Add(4 * time.Hour)})
	got, err := op.Ticket(context.Background(), tk.ID)
	if err != nil || got.FirstResponseBreachedAt == nil || !got.FirstResponseBreachedAt.Equal(t0.Add(time.Hour)) ||
		got.ResolutionBreachedAt == nil || !got.ResolutionBreachedAt.Equal(t0.Add(4*time.Hour)) {
		t.Fatalf("the breached ticket = %+v, %v", got, err)
	}
}

func TestTicketSLAPausesWhilePendingOnThePartner(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	op, tk := slaTicket(t, st, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 240}, models.AroundTheClock)
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	env := slaEnv(st, t0)
	// The desk answers after 30 minutes (first response met) and waits on the partner for
	// four and a half hours; the partner's reply puts the ticket back with the desk.
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.TicketSLASignal, models.TicketSLASignal{TicketID: tk.ID, Status: models.TicketPendingPartner, Responded: true, At: env.Now()})
	}, 30*time.Minute)
	env.RegisterDelayedCallback(func() {
		got, err := op.Ticket(context.Background(), tk.ID)
		if err != nil || got.ResolutionDueAt != nil || got.SLAPausedAt == nil || !got.SLAPausedAt.Equal(t0.Add(30*time.Minute)) || got.FirstResponseDueAt != nil {
			t.Errorf("while pending on the partner the ticket shows %+v, %v", got, err)
		}
	}, 4*time.Hour)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.TicketSLASignal, models.TicketSLASignal{TicketID: tk.ID, Status: models.TicketPendingOperator, At: env.Now()})
	}, 5*time.Hour)
	env.RegisterDelayedCallback(func() {
		got, err := op.Ticket(context.Background(), tk.ID)
		// 30 minutes used before the pause: 210 left from 15:00.
		if want := t0.Add(5*time.Hour + 210*time.Minute); err != nil || got.ResolutionDueAt == nil || !got.ResolutionDueAt.Equal(want) || got.SLAPausedAt != nil {
			t.Errorf("after the pause the ticket shows %+v (want resolution due %s), %v", got, want, err)
		}
	}, 5*time.Hour+time.Minute)
	env.ExecuteWorkflow(workflows.TicketSLA, workflows.TicketSLAInput{TenantID: tk.TenantID, TicketID: tk.ID, OpenedAt: t0})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	// Without the pause the resolution would have been warned at 13:12 and breached at 14:00.
	wantSLAEvents(t, slaEventsOf(t, op),
		slaEvent{models.EventTicketSLAWarning, models.SLAResolution, t0.Add(5*time.Hour + 162*time.Minute)},
		slaEvent{models.EventTicketSLABreached, models.SLAResolution, t0.Add(5*time.Hour + 210*time.Minute)})
}

func TestTicketSLACountsBusinessHoursOnly(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	berlin, _ := time.LoadLocation("Europe/Berlin")
	hours := models.BusinessHours{TimeZone: "Europe/Berlin"}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		hours.Windows = append(hours.Windows, models.BusinessWindow{Day: d, Start: "09:00", End: "17:00"})
	}
	op, tk := slaTicket(t, st, models.TicketSLAPolicy{Priority: models.TicketNormal, FirstResponseMinutes: 120, ResolutionMinutes: 960, WarnBeforeMinutes: 30}, hours)
	// Opened on Friday evening, after hours: nothing counts before Monday 09:00.
	friday := time.Date(2026, 11, 27, 18, 30, 0, 0, berlin)
	env := slaEnv(st, friday)
	env.ExecuteWorkflow(workflows.TicketSLA, workflows.TicketSLAInput{TenantID: tk.TenantID, TicketID: tk.ID, OpenedAt: friday})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	monday := time.Date(2026, 11, 30, 0, 0, 0, 0, berlin)
	// First response: 120 business minutes from Monday 09:00; resolution: 16 business hours,
	// Monday and Tuesday.
	wantSLAEvents(t, slaEventsOf(t, op),
		slaEvent{models.EventTicketSLAWarning, models.SLAFirstResponse, monday.Add(10*time.Hour + 30*time.Minute)},
		slaEvent{models.EventTicketSLABreached, models.SLAFirstResponse, monday.Add(11 * time.Hour)},
		slaEvent{models.EventTicketSLAWarning, models.SLAResolution, monday.Add(24*time.Hour + 16*time.Hour + 30*time.Minute)},
		slaEvent{models.EventTicketSLABreached, models.SLAResolution, monday.Add(24*time.Hour + 17*time.Hour)})
	if evs := slaEventsOf(t, op); evs[1].at.In(berlin).Weekday() != time.Monday {
		t.Fatalf("breached on %s", evs[1].at.In(berlin).Weekday())
	}
}

// The fan-out of ticket.opened starts the ticket's clock; that of a status change signals it.
func TestTicketEventsStartAndSignalTheSLAClock(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	op, tk := slaTicket(t, st, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 240}, models.AroundTheClock)
	if _, err := op.ChangeTicketStatus(context.Background(), tk.ID, models.TicketPendingPartner); err != nil {
		t.Fatal(err)
	}
	evs, _, err := op.ListEvents(context.Background(), models.EventFilter{Type: "ticket.*"}, models.Page{Limit: 10})
	if err != nil || len(evs) != 2 {
		t.Fatalf("ticket events = %+v, %v", evs, err)
	}
	fanout := func(e models.Event, setup func(*testsuite.TestWorkflowEnvironment)) workflows.EventFanoutResult {
		t.Helper()
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st}, Desk: &activities.Desk{Store: st.Desk}})
		setup(env)
		env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.TenantID, EventID: e.ID, Type: e.Type})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		var res workflows.EventFanoutResult
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	var started workflows.TicketSLAInput
	res := fanout(evs[0], func(env *testsuite.TestWorkflowEnvironment) {
		env.OnWorkflow(workflows.TicketSLA, mock.Anything, mock.Anything).Return(func(_ workflow.Context, in workflows.TicketSLAInput) error {
			started = in
			return nil
		})
	})
	if res.TicketSLA != tk.ID || started.TicketID != tk.ID || !started.OpenedAt.Equal(evs[0].OccurredAt) {
		t.Fatalf("ticket.opened fan-out = %+v, clock input %+v", res, started)
	}
	var signalled models.TicketSLASignal
	res = fanout(evs[1], func(env *testsuite.TestWorkflowEnvironment) {
		env.OnSignalExternalWorkflow(mock.Anything, workflows.TicketSLAWorkflowID(tk.ID), "", workflows.TicketSLASignal, mock.Anything).Return(
			func(_, _, _, _ string, arg any) error {
				signalled = arg.(models.TicketSLASignal)
				return nil
			})
	})
	if res.TicketSLA != tk.ID || signalled.Status != models.TicketPendingPartner || !signalled.At.Equal(evs[1].OccurredAt) {
		t.Fatalf("ticket.status_changed fan-out = %+v, signal %+v", res, signalled)
	}
}

// A ticket whose priority has no policy gets the targets of the priority it is raised to,
// counted from its opening; closing it ends the clock.
func TestTicketSLATakesThePolicyOfANewPriority(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	op, tk := slaTicket(t, st, models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 240}, models.AroundTheClock)
	low := models.TicketLow
	if _, err := op.UpdateTicket(context.Background(), tk.ID, models.TicketChanges{Priority: &low}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	env := slaEnv(st, t0)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.TicketSLASignal, models.TicketSLASignal{TicketID: tk.ID, Status: models.TicketOpen, Priority: models.TicketHigh, At: env.Now()})
	}, 20*time.Minute)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.TicketSLASignal, models.TicketSLASignal{TicketID: tk.ID, Status: models.TicketClosed, At: env.Now()})
	}, 3*time.Hour)
	env.ExecuteWorkflow(workflows.TicketSLA, workflows.TicketSLAInput{TenantID: tk.TenantID, TicketID: tk.ID, OpenedAt: t0})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !env.IsWorkflowCompleted() || !env.Now().Before(t0.Add(3*time.Hour+time.Minute)) {
		t.Fatalf("the clock did not end with the ticket's closing (now %s)", env.Now())
	}
	wantSLAEvents(t, slaEventsOf(t, op),
		slaEvent{models.EventTicketSLAWarning, models.SLAFirstResponse, t0.Add(48 * time.Minute)},
		slaEvent{models.EventTicketSLABreached, models.SLAFirstResponse, t0.Add(time.Hour)})
	got, err := op.Ticket(context.Background(), tk.ID)
	if err != nil || got.ResolutionDueAt != nil || got.ResolutionWarnedAt != nil {
		t.Fatalf("the closed ticket = %+v, %v", got, err)
	}
}
