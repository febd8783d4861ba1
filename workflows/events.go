package workflows

import (
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// activityRetry retries storage activities with backoff up to a minute apart, without limit:
// a database outage delays the fan-out, it never drops it.
var activityRetry = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute}

// EventFanout hands one committed event to everything subscribed to its type: a delivery
// workflow per subscribed webhook endpoint (playbook runs and commission accrual join here).
// Children outlive the fan-out, and their ids make a second fan-out of the same event a no-op.
//
// Fan-outs started since local routes (version 1 of fanoutLocalRoutes) read the routes, start
// playbook runs and find waiting runs in local activities, in the fan-out's first workflow task.
func EventFanout(ctx workflow.Context, in EventFanoutInput) (EventFanoutResult, error) {
	local := workflow.GetVersion(ctx, fanoutLocalRoutes, workflow.DefaultVersion, 1) >= 1
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	if local {
		ctx = workflow.WithLocalActivityOptions(ctx, localStore)
	}
	var ev *activities.Events
	var routes models.EventRoutes
	if err := routeCall(ctx, local, ev.Routes, activities.RoutesInput{TenantID: in.TenantID, EventID: in.EventID, Type: in.Type}).Get(ctx, &routes); err != nil {
		return EventFanoutResult{}, err
	}
	var res EventFanoutResult
	if !routes.Found {
		return res, nil
	}
	if routes.ProtectDeal != "" {
		if err := startChild(ctx, DealProtectionWorkflowID(routes.ProtectDeal), DealProtection, DealProtectionInput{TenantID: in.TenantID, DealID: routes.ProtectDeal}); err != nil {
			return res, err
		}
		res.DealProtection = routes.ProtectDeal
	}
	if routes.ExpireCertificate != "" {
		expiry := CertificateExpiryInput{TenantID: in.TenantID, CertificateID: routes.ExpireCertificate}
		if err := startChild(ctx, CertificateExpiryWorkflowID(routes.ExpireCertificate), CertificateExpiry, expiry); err != nil {
			return res, err
		}
		res.CertificateExpiry = routes.ExpireCertificate
	}
	if routes.ExpireMDFFund != "" {
		expiry := MDFFundExpiryInput{TenantID: in.TenantID, FundID: routes.ExpireMDFFund}
		if err := startChild(ctx, MDFFundExpiryWorkflowID(routes.ExpireMDFFund), MDFFundExpiry, expiry); err != nil {
			return res, err
		}
		res.MDFFundExpiry = routes.ExpireMDFFund
	}
	if err := ticketSLARoutes(ctx, in, routes, &res); err != nil {
		return res, err
	}
	if routes.Accrue || routes.Clawback {
		err := moneyRoutes(ctx, in, routes, &res)
		var refused *temporal.ApplicationError
		switch {
		case errors.As(err, &refused) && refused.NonRetryable():
			// The ledger refused for good (e.g. an amount out of range): the event's other
			// subscribers still get it.
			workflow.GetLogger(ctx).Error("commission accrual refused", "event", in.EventID, "error", err)
			res.MoneyError = rootMessage(err)
		case err != nil:
			return res, err
		}
	}
	if routes.PayWithdrawal != "" {
		if err := startChild(ctx, PayoutWorkflowID(routes.PayWithdrawal), Payout, PayoutInput{TenantID: in.TenantID, WithdrawalID: routes.PayWithdrawal}); err != nil {
			return res, err
		}
		res.Payout = routes.PayWithdrawal
	}
	if routes.AgreementNotices {
		// One message per user, each idempotent: a retried activity sends only what is missing.
		mctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, RetryPolicy: activityRetry})
		var mail *activities.Mail
		ref := activities.EventRef{TenantID: in.TenantID, EventID: in.EventID}
		if err := workflow.ExecuteActivity(mctx, mail.SendAgreementNotices, ref).Get(ctx, &res.AgreementNotices); err != nil {
			return res, err
		}
	}
	if routes.SurveyInvitations {
		// One message per invitation, each idempotent: a retried activity sends only what is missing.
		mctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, RetryPolicy: activityRetry})
		var mail *activities.Mail
		ref := activities.EventRef{TenantID: in.TenantID, EventID: in.EventID}
		if err := workflow.ExecuteActivity(mctx, mail.SendSurveyInvitations, ref).Get(ctx, &res.SurveyInvitations); err != nil {
			return res, err
		}
	}
	if routes.Playbooks || routes.Waiting {
		if err := playbookRoutes(ctx, local, in, routes, &res); err != nil {
			return res, err
		}
	}
	for _, hook := range routes.Webhooks {
		if err := startChild(ctx, WebhookDeliveryWorkflowID(in.EventID, hook), WebhookDelivery, WebhookDeliveryInput{TenantID: in.TenantID, WebhookID: hook, EventID: in.EventID}); err != nil {
			return res, err
		}
		res.Webhooks = append(res.Webhooks, hook)
	}
	return res, nil
}

// localStore runs storage work as a local activity, retried like activityRetry: in practice
// without limit. A local activity gives up at its schedule-to-close timeout, which defaults to
// its start-to-close timeout, so it is set far out.
var localStore = workflow.LocalActivityOptions{ScheduleToCloseTimeout: 10 * 365 * 24 * time.Hour, StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry}

// fanoutLocalRoutes is the change id of the fan-out's local routes.
const fanoutLocalRoutes = "fanout-local-routes"

// routeCall runs one of the fan-out's reads: a local activity when local.
func routeCall(ctx workflow.Context, local bool, fn, arg any) workflow.Future {
	if local {
		return workflow.ExecuteLocalActivity(ctx, fn, arg)
	}
	return workflow.ExecuteActivity(ctx, fn, arg)
}

// moneyRoutes accrues commissions on the event (an activity, idempotent on plan and event),
// starts the holding timer of each pending accrual, and reverses the accruals the event
// claws back.
func moneyRoutes(ctx workflow.Context, in EventFanoutInput, routes models.EventRoutes, res *EventFanoutResult) error {
	var money *activities.Money
	ref := activities.EventRef{TenantID: in.TenantID, EventID: in.EventID}
	if routes.Accrue {
		var accruals []models.AccrualResult
		if err := workflow.ExecuteActivity(ctx, money.Accrue, ref).Get(ctx, &accruals); err != nil {
			return err
		}
		for _, a := range accruals {
			if a.AccrualID == "" {
				continue
			}
			res.Accruals = append(res.Accruals, a.AccrualID)
			if !a.Pending {
				continue
			}
			hold := CommissionHoldInput{TenantID: in.TenantID, AccrualID: a.AccrualID, AvailableAt: a.AvailableAt}
			if err := startChild(ctx, CommissionHoldWorkflowID(a.AccrualID), CommissionHold, hold); err != nil {
				return err
			}
		}
	}
	if routes.Clawback {
		if err := workflow.ExecuteActivity(ctx, money.Clawback, ref).Get(ctx, &res.Clawbacks); err != nil {
			return err
		}
	}
	return nil
}

// playbookRoutes starts a run for every playbook the event triggers and hands the event to
// the runs waiting for it.
func playbookRoutes(ctx workflow.Context, local bool, in EventFanoutInput, routes models.EventRoutes, res *EventFanoutResult) error {
	var pb *activities.Playbooks
	ref := activities.EventRef{TenantID: in.TenantID, EventID: in.EventID}
	if routes.Playbooks {
		var starts []activities.RunStart
		if err := routeCall(ctx, local, pb.StartRuns, ref).Get(ctx, &starts); err != nil {
			return err
		}
		for _, s := range starts {
			run := PlaybookRunInput{TenantID: in.TenantID, RunID: s.RunID, PlaybookID: s.PlaybookID, Version: s.Version, EventID: in.EventID, Limit: s.Limit}
			if err := startChild(ctx, PlaybookRunWorkflowID(s.RunID), PlaybookRun, run); err != nil {
				return err
			}
			res.Runs = append(res.Runs, s.RunID)
		}
	}
	if routes.Waiting {
		var waiting activities.Waiting
		if err := routeCall(ctx, local, pb.WaitingRuns, ref).Get(ctx, &waiting); err != nil {
			return err
		}
		for _, id := range waiting.Runs {
			// A run that ended meanwhile cannot take the signal; that is not the fan-out's failure.
			if err := workflow.SignalExternalWorkflow(ctx, PlaybookRunWorkflowID(id), "", PlaybookEventSignal, waiting.Event).Get(ctx, nil); err == nil {
				res.Signalled = append(res.Signalled, id)
			}
		}
	}
	return nil
}

// ticketSLARoutes starts the SLA clock of an opened ticket and tells a running clock about the
// ticket's changes.
func ticketSLARoutes(ctx workflow.Context, in EventFanoutInput, routes models.EventRoutes, res *EventFanoutResult) error {
	if s := routes.StartTicketSLA; s != nil {
		if err := startChild(ctx, TicketSLAWorkflowID(s.TicketID), TicketSLA, TicketSLAInput{TenantID: in.TenantID, TicketID: s.TicketID, OpenedAt: s.At}); err != nil {
			return err
		}
		res.TicketSLA = s.TicketID
	}
	if s := routes.TicketSLA; s != nil {
		// A ticket without a clock (no policy) or whose clock ended takes no signal; that is
		// not the fan-out's failure.
		if err := workflow.SignalExternalWorkflow(ctx, TicketSLAWorkflowID(s.TicketID), "", TicketSLASignal, *s).Get(ctx, nil); err == nil {
			res.TicketSLA = s.TicketID
		}
	}
	return nil
}

// startChild starts a child workflow that outlives its parent; one started before under the
// same id counts as started.
func startChild(ctx workflow.Context, id string, wf, input any) error {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            id,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	})
	err := workflow.ExecuteChildWorkflow(cctx, wf, input).GetChildWorkflowExecution().Get(ctx, nil)
	var started *temporal.ChildWorkflowExecutionAlreadyStartedError
	if err != nil && !errors.As(err, &started) {
		return err
	}
	return nil
}

// relayPassesPerRun bounds the history of one relay run before it continues as new.
const relayPassesPerRun = 500

// OutboxRelay runs forever: every Interval it hands over outbox rows older than Age, which a
// process wrote but did not dispatch (it stopped between commit and start).
func OutboxRelay(ctx workflow.Context, in OutboxRelayInput) error {
	if in.Interval <= 0 {
		in.Interval = 5 * time.Second
	}
	if in.Age <= 0 {
		in.Age = 5 * time.Second
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: activityRetry})
	var ev *activities.Events
	for range relayPassesPerRun {
		var n int
		if err := workflow.ExecuteActivity(ctx, ev.RelayOutbox, activities.RelayInput{Age: in.Age, Limit: 500}).Get(ctx, &n); err != nil {
			workflow.GetLogger(ctx).Warn("outbox relay pass failed", "error", err)
		}
		if n == 500 {
			continue // more waiting: no pause
		}
		if err := workflow.Sleep(ctx, in.Interval); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, OutboxRelay, in)
}
