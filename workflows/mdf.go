package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// mdfFundExpiryStepsPerRun bounds one run's history before it continues as new.
const mdfFundExpiryStepsPerRun = 100

// MDFFundExpiry is the durable timer of a market development fund: it sleeps until the fund's
// expiry and lets the store decide then, which releases what no approved request committed and
// emits mdf.fund_expired.
func MDFFundExpiry(ctx workflow.Context, in MDFFundExpiryInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var mdf *activities.MDF
	for range mdfFundExpiryStepsPerRun {
		var next models.MDFFundExpiry
		step := activities.MDFFundExpiryStep{TenantID: in.TenantID, FundID: in.FundID, At: workflow.Now(ctx)}
		if err := workflow.ExecuteActivity(ctx, mdf.AdvanceMDFFundExpiry, step).Get(ctx, &next); err != nil {
			return err
		}
		if next.Done {
			return nil
		}
		if err := workflow.Sleep(ctx, max(next.WakeAt.Sub(workflow.Now(ctx)), time.Second)); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, MDFFundExpiry, in)
}
