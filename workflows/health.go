package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// healthPagesPerRun bounds one workflow run's history before it continues as new.
const healthPagesPerRun = 200

// HealthRun scores every partner of a tenant in pages (activities with heartbeats, one
// transaction each, idempotent per run and partner), then records the run's totals.
func HealthRun(ctx workflow.Context, in HealthRunInput) (HealthRunResult, error) {
	if in.PageSize <= 0 {
		in.PageSize = 1000
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: 5 * time.Minute,
		RetryPolicy: activityRetry})
	var health *activities.Health
	for range healthPagesPerRun {
		var pg models.HealthPage
		if err := workflow.ExecuteActivity(ctx, health.ScoreHealthPage, activities.HealthPageInput{TenantID: in.TenantID, RunID: in.RunID,
			After: in.After, Limit: in.PageSize}).Get(ctx, &pg); err != nil {
			return HealthRunResult{}, err
		}
		if pg.Next == "" {
			res := HealthRunResult{Partners: in.Partners, Changes: in.Changes}
			if err := workflow.ExecuteActivity(ctx, health.FinishHealthRun, activities.HealthRunTotals{TenantID: in.TenantID, RunID: in.RunID,
				Partners: in.Partners, Changes: in.Changes}).Get(ctx, nil); err != nil {
				return res, err
			}
			// The snapshots past the retention go in bounded batches; what a failure leaves waits
			// for the next run, which this run's result does not depend on.
			pctx := workflow.WithRetryPolicy(ctx, temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 3})
			if err := workflow.ExecuteActivity(pctx, health.PruneHealthSnapshots, activities.HealthPruneInput{TenantID: in.TenantID}).
				Get(ctx, &res.Pruned); err != nil {
				workflow.GetLogger(ctx).Warn("pruning health snapshots failed", "error", err)
			}
			return res, nil
		}
		in.After, in.Partners, in.Changes = pg.Next, in.Partners+pg.Scored, in.Changes+pg.Changes
	}
	return HealthRunResult{}, workflow.NewContinueAsNewError(ctx, HealthRun, in)
}

// healthSchedulePassesPerRun bounds the schedule's history before it continues as new.
const healthSchedulePassesPerRun = 100

// HealthSchedule runs forever: at the start of every hour it opens the scheduled runs of the
// tenants whose daily hour it is and starts a HealthRun for each.
func HealthSchedule(ctx workflow.Context, in HealthScheduleInput) error {
	if in.Interval <= 0 {
		in.Interval = time.Hour
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: activityRetry})
	var health *activities.Health
	for range healthSchedulePassesPerRun {
		var due []activities.HealthRunRef
		if err := workflow.ExecuteActivity(actx, health.DueHealthRuns, workflow.Now(ctx)).Get(ctx, &due); err != nil {
			workflow.GetLogger(ctx).Warn("health schedule failed", "error", err)
		}
		for _, r := range due {
			if err := startChild(ctx, HealthRunWorkflowID(r.RunID), HealthRun, HealthRunInput{TenantID: r.TenantID, RunID: r.RunID}); err != nil {
				return err
			}
		}
		now := workflow.Now(ctx)
		if err := workflow.Sleep(ctx, now.Truncate(in.Interval).Add(in.Interval).Sub(now)); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, HealthSchedule, in)
}
