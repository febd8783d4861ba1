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
