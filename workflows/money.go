package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// commissionHoldStepsPerRun bounds one run's history before it continues as new.
const commissionHoldStepsPerRun = 100

// CommissionHold is the durable timer of one accrual: it sleeps until the holding period ends
// and then makes the money available. The store decides, so a clawback during the wait simply
// leaves nothing to release.
func CommissionHold(ctx workflow.Context, in CommissionHoldInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var money *activities.Money
	wake := in.AvailableAt
	for range commissionHoldStepsPerRun {
		if d := wake.Sub(workflow.Now(ctx)); d > 0 {
			if err := workflow.Sleep(ctx, d); err != nil {
				return err
			}
		}
		var rel models.AccrualRelease
		if err := workflow.ExecuteActivity(ctx, money.ReleaseAccrual, activities.AccrualRef{TenantID: in.TenantID, AccrualID: in.AccrualID, At: workflow.Now(ctx)}).Get(ctx, &rel); err != nil {
			return err
		}
		if rel.Done {
			return nil
		}
		// The holding period was moved: wait for its new end.
		wake = workflow.Now(ctx).Add(max(rel.WakeAt.Sub(workflow.Now(ctx)), time.Second))
	}
	in.AvailableAt = wake
	return workflow.NewContinueAsNewError(ctx, CommissionHold, in)
}

// Payout pays one approved withdrawal through the tenant's provider. Manual payouts wait for
// finance's decision (a signal) until the confirmation deadline; the http provider is called
// with exponential backoff. When the provider gives up or the deadline passes, the payout fails
// and the held money is released. Completing and failing are idempotent, so a worker that
// dies midway and replays the workflow settles the payout exactly once.
func Payout(ctx workflow.Context, in PayoutInput) (PayoutResult, error) {
	store := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var money *activities.Money
	ref := activities.WithdrawalRef{TenantID: in.TenantID, WithdrawalID: in.WithdrawalID}
	var plan activities.PayoutPlan
	if err := workflow.ExecuteActivity(store, money.PreparePayout, ref).Get(ctx, &plan); err != nil {
		return PayoutResult{}, err
	}
	if !plan.Pending {
		return PayoutResult{Status: "settled"}, nil
	}
	settle := activities.SettleInput{TenantID: in.TenantID, WithdrawalID: in.WithdrawalID, Provider: plan.Provider}
	paid := false
	switch plan.Provider {
	case models.ProviderHTTP:
		send := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 30 * time.Second, // the call itself times out after 15 s
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: plan.RetryInitial, BackoffCoefficient: 2,
				MaximumInterval: plan.RetryMax, MaximumAttempts: plan.MaxAttempts},
		})
		var reference string
		if err := workflow.ExecuteActivity(send, money.SendPayout, ref).Get(ctx, &reference); err != nil {
			settle.Reason = "the payout provider did not accept the payout: " + rootMessage(err)
		} else {
			paid, settle.Reference = true, reference
		}
	case models.ProviderStripe, models.ProviderPayPal, models.ProviderWise:
		if plan.Batched {
			return PayoutResult{Status: "batched"}, nil // the tenant's daily batch pays it
		}
		res, err := payThroughRail(ctx, plan, activities.RailInput{TenantID: in.TenantID, Provider: plan.Provider, WithdrawalIDs: []string{in.WithdrawalID}})
		if err != nil {
			return PayoutResult{}, err
		}
		switch {
		case len(res.Pending) > 0:
			return PayoutResult{}, workflow.NewContinueAsNewError(ctx, Payout, in)
		case res.Paid > 0:
			return PayoutResult{Status: models.WithdrawalPaid}, nil
		case res.Failed > 0:
			return PayoutResult{Status: models.WithdrawalFailed}, nil
		}
		return PayoutResult{Status: "settled"}, nil
	default:
		var decision PayoutDecision
		decided := false
		tctx, cancelTimer := workflow.WithCancel(ctx)
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(workflow.GetSignalChannel(ctx, PayoutDecisionSignal), func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &decision)
			decided = true
		})
		sel.AddFuture(workflow.NewTimer(tctx, max(plan.ConfirmBy.Sub(workflow.Now(ctx)), time.Second)), func(workflow.Future) {})
		sel.Select(ctx)
		cancelTimer()
		switch {
		case !decided:
			settle.Reason = "finance did not confirm the payout before " + plan.ConfirmBy.UTC().Format(time.RFC3339)
		case decision.Paid:
			paid, settle.Reference, settle.By = true, decision.Reference, decision.By
		default:
			settle.Reason, settle.By = decision.Reason, decision.By
		}
	}
	var status string
	activity := money.FailPayout
	if paid {
		activity = money.CompletePayout
	}
	if err := workflow.ExecuteActivity(store, activity, settle).Get(ctx, &status); err != nil {
		return PayoutResult{}, err
	}
	return PayoutResult{Status: status, Reference: settle.Reference}, nil
}

// rootMessage is the message of the innermost application error, for a failure reason.
func rootMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			msg := models.Clip(err.Error(), 500)
			return msg
		}
		err = next
	}
}

// railPollsPerRun bounds the polls of one run of a rail payout or batch; the provider settles
// every payout in the end (PayPal returns unclaimed items after 30 days), so the poll goes on
// in a new run rather than giving up on money the provider may still pay.
const railPollsPerRun = 500

// payThroughRail pays withdrawals through their rail with the payout's backoff, then asks
// the rail about the submitted ones every PollEvery until each is paid or failed. When the
// rail never accepts them, they fail with its last word and their holds are released.
func payThroughRail(ctx workflow.Context, plan activities.PayoutPlan, in activities.RailInput) (activities.RailResult, error) {
	var money *activities.Money
	send := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: plan.RetryInitial, BackoffCoefficient: 2,
			MaximumInterval: plan.RetryMax, MaximumAttempts: plan.MaxAttempts},
	})
	store := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: activityRetry})
	var total activities.RailResult
	for range railPollsPerRun {
		var res activities.RailResult
		if err := workflow.ExecuteActivity(send, money.RailPayouts, in).Get(ctx, &res); err != nil {
			fail := activities.FailRailInput{TenantID: in.TenantID, Provider: in.Provider, WithdrawalIDs: in.WithdrawalIDs,
				Reason: "the payout provider did not accept the payout: " + rootMessage(err)}
			var failed activities.RailResult
			if err := workflow.ExecuteActivity(store, money.FailRailPayouts, fail).Get(ctx, &failed); err != nil {
				return total, err
			}
			total.Failed += failed.Failed
			if len(failed.Pending) == 0 {
				return total, nil
			}
			// Payouts the rail accepted before are asked about again, never failed blindly.
			in.WithdrawalIDs = failed.Pending
			if err := workflow.Sleep(ctx, plan.PollEvery); err != nil {
				return total, err
			}
			continue
		}
		total.Paid, total.Failed = total.Paid+res.Paid, total.Failed+res.Failed
		if len(res.Pending) == 0 {
			return total, nil
		}
		in.WithdrawalIDs = res.Pending
		if err := workflow.Sleep(ctx, plan.PollEvery); err != nil {
			return total, err
		}
	}
	total.Pending = in.WithdrawalIDs
	return total, nil
}

// PayoutBatch pays a tenant's day of one rail in one batch: it opens the batch (gathering the
// payouts that wait for it), pays them through the rail (PayPal in one batch request, Stripe
// and Wise one transfer each), polls until each is settled and closes the batch.
func PayoutBatch(ctx workflow.Context, in PayoutBatchInput) (PayoutBatchResult, error) {
	store := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: activityRetry})
	var money *activities.Money
	var opened activities.OpenedBatch
	if err := workflow.ExecuteActivity(store, money.OpenPayoutBatch, activities.BatchRef{TenantID: in.TenantID, Provider: in.Provider, Day: in.Day}).Get(ctx, &opened); err != nil {
		return PayoutBatchResult{}, err
	}
	out := PayoutBatchResult{BatchID: opened.BatchID, Payouts: len(opened.WithdrawalIDs)}
	if len(opened.WithdrawalIDs) == 0 {
		return out, workflow.ExecuteActivity(store, money.ClosePayoutBatch, activities.CloseBatchInput{TenantID: in.TenantID, BatchID: opened.BatchID}).Get(ctx, nil)
	}
	var plan activities.PayoutPlan
	if err := workflow.ExecuteActivity(store, money.PreparePayout, activities.WithdrawalRef{TenantID: in.TenantID, WithdrawalID: opened.WithdrawalIDs[0]}).Get(ctx, &plan); err != nil {
		return out, err
	}
	if plan.PollEvery <= 0 {
		plan.PollEvery = activities.DefaultPayoutPollEvery
	}
	if plan.MaxAttempts <= 0 {
		plan.RetryInitial, plan.RetryMax, plan.MaxAttempts = activities.DefaultPayoutRetryInitial, activities.DefaultPayoutRetryMax, activities.DefaultPayoutMaxAttempts
	}
	res, err := payThroughRail(ctx, plan, activities.RailInput{TenantID: in.TenantID, Provider: in.Provider, BatchID: opened.BatchID, WithdrawalIDs: opened.WithdrawalIDs})
	if err != nil {
		return out, err
	}
	out.Paid, out.Failed = res.Paid, res.Failed
	if len(res.Pending) > 0 {
		return out, workflow.NewContinueAsNewError(ctx, PayoutBatch, in)
	}
	return out, workflow.ExecuteActivity(store, money.ClosePayoutBatch, activities.CloseBatchInput{TenantID: in.TenantID, BatchID: opened.BatchID}).Get(ctx, nil)
}

// payoutBatchDaysPerRun bounds the batch schedule's history before it continues as new.
const payoutBatchDaysPerRun = 100

// PayoutBatchSchedule runs forever: at the start of every day (UTC) it starts the day's batch
// of every tenant's rail with payouts waiting for one.
func PayoutBatchSchedule(ctx workflow.Context, in PayoutBatchScheduleInput) error {
	if in.Interval <= 0 {
		in.Interval = 24 * time.Hour
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: activityRetry})
	var money *activities.Money
	for range payoutBatchDaysPerRun {
		now := workflow.Now(ctx)
		if err := workflow.Sleep(ctx, now.Truncate(in.Interval).Add(in.Interval).Sub(now)); err != nil {
			return err
		}
		var due []models.PayoutBatchDue
		if err := workflow.ExecuteActivity(actx, money.DuePayoutBatches).Get(ctx, &due); err != nil {
			workflow.GetLogger(ctx).Warn("payout batch schedule failed", "error", err)
			continue
		}
		day := workflow.Now(ctx).UTC().Format(time.DateOnly)
		for _, d := range due {
			if err := startChild(ctx, PayoutBatchWorkflowID(d.TenantID, d.Provider, day), PayoutBatch,
				PayoutBatchInput{TenantID: d.TenantID, Provider: d.Provider, Day: day}); err != nil {
				return err
			}
		}
	}
	return workflow.NewContinueAsNewError(ctx, PayoutBatchSchedule, in)
}
