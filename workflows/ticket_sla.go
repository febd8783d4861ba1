package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/sla"
)

// ticketSLAStepsPerRun bounds one clock run's history before it continues as new.
const ticketSLAStepsPerRun = 300

// TicketSLA is a ticket's SLA clock: it counts the business time of the first response and
// resolution targets of the ticket's priority policy, pauses while the ticket is pending on
// the partner, sends ticket.sla_warning and ticket.sla_breached when they are due, and records
// the due times on the ticket. Signals (TicketSLASignal) bring status changes, the desk's
// replies and priority changes; a ticket whose priority has no policy counts from its opening
// once it moves to one that has. It ends when the ticket is closed or nothing is left to watch.
func TicketSLA(ctx workflow.Context, in TicketSLAInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var desk *activities.Desk
	ref := activities.TicketSLARef{TenantID: in.TenantID, TicketID: in.TicketID}
	var clock sla.Clock
	priority := in.Priority
	if in.Clock != nil {
		clock = *in.Clock
	} else {
		var st models.TicketSLAStart
		if err := workflow.ExecuteActivity(ctx, desk.StartTicketSLA, ref).Get(ctx, &st); err != nil {
			return err
		}
		if !st.Found {
			return nil
		}
		opened := in.OpenedAt
		if opened.IsZero() {
			opened = st.OpenedAt
		}
		clock, priority = sla.NewClock(st.Policy, st.Hours, opened), st.Priority
		cal, err := sla.NewCalendar(clock.Hours)
		if err != nil {
			return temporal.NewNonRetryableApplicationError(err.Error(), "InvalidBusinessHours", err)
		}
		// A clock that starts late catches up with the ticket as it stands.
		if st.FirstResponseAt != nil {
			clock.Responded()
		}
		if st.Status != models.TicketOpen {
			clock.SetStatus(cal, st.Status, st.StatusAt)
		}
	}
	cal, err := sla.NewCalendar(clock.Hours)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), "InvalidBusinessHours", err)
	}
	record := func(alerts []models.SLAAlert) error {
		rec := activities.TicketSLARecord{TenantID: in.TenantID, TicketID: in.TicketID, State: clock.State(cal), Alerts: alerts}
		return workflow.ExecuteActivity(ctx, desk.RecordTicketSLA, rec).Get(ctx, nil)
	}
	apply := func(sig models.TicketSLASignal) error {
		now := workflow.Now(ctx)
		at := sig.At
		if at.IsZero() || at.After(now) {
			at = now
		}
		if sig.Priority != "" && sig.Priority != priority {
			var st models.TicketSLAStart
			r := ref
			r.Priority = sig.Priority
			if err := workflow.ExecuteActivity(ctx, desk.StartTicketSLA, r).Get(ctx, &st); err != nil {
				return err
			}
			clock.SetPolicy(st.Policy)
			priority = sig.Priority
		}
		if sig.Responded {
			clock.Responded()
		}
		if sig.Status != "" {
			clock.SetStatus(cal, sig.Status, at)
		}
		return nil
	}
	signals := workflow.GetSignalChannel(ctx, TicketSLASignal)
	if err := record(clock.Fire(cal, workflow.Now(ctx))); err != nil {
		return err
	}
	for range ticketSLAStepsPerRun {
		if clock.Done() {
			return nil
		}
		sel := workflow.NewSelector(ctx)
		var sig models.TicketSLASignal
		signalled := false
		sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &sig)
			signalled = true
		})
		timerCtx, cancelTimer := workflow.WithCancel(ctx)
		if next := clock.Next(cal); !next.IsZero() {
			sel.AddFuture(workflow.NewTimer(timerCtx, max(next.Sub(workflow.Now(ctx)), 0)), func(workflow.Future) {})
		}
		sel.Select(ctx)
		cancelTimer()
		if signalled {
			if err := apply(sig); err != nil {
				return err
			}
		}
		if err := record(clock.Fire(cal, workflow.Now(ctx))); err != nil {
			return err
		}
	}
	// Signals that arrived meanwhile go with the clock into the next run.
	for {
		var sig models.TicketSLASignal
		if !signals.ReceiveAsync(&sig) {
			break
		}
		if err := apply(sig); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, TicketSLA, TicketSLAInput{TenantID: in.TenantID, TicketID: in.TicketID, Clock: &clock, Priority: priority})
}
