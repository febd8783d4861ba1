package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// dealProtectionStepsPerRun bounds one run's history before it continues as new.
const dealProtectionStepsPerRun = 200

// DealProtection is the durable timer of an approved deal: it wakes when the expiry reminder
// is due and when the protection ends, and lets the store decide each time, so that stage
// moves and extensions (which push the end back) need no signal.
func DealProtection(ctx workflow.Context, in DealProtectionInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var deals *activities.Deals
	for range dealProtectionStepsPerRun {
		var next models.DealProtection
		step := activities.DealProtectionStep{TenantID: in.TenantID, DealID: in.DealID, At: workflow.Now(ctx)}
		if err := workflow.ExecuteActivity(ctx, deals.AdvanceDealProtection, step).Get(ctx, &next); err != nil {
			return err
		}
		if next.Done {
			return nil
		}
		if err := workflow.Sleep(ctx, max(next.WakeAt.Sub(workflow.Now(ctx)), time.Second)); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, DealProtection, in)
}
