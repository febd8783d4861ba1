package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
)

// levelReviewsPerRun bounds one run's history before it continues as new.
const levelReviewsPerRun = 100

// LevelReview runs forever: every Interval (a day by default) it reviews every partner's level
// against the requirements, proposing or applying changes as each tenant chose.
func LevelReview(ctx workflow.Context, in LevelReviewInput) error {
	if in.Interval <= 0 {
		in.Interval = 24 * time.Hour
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, RetryPolicy: activityRetry})
	var levels *activities.Levels
	for range levelReviewsPerRun {
		var changes int
		if err := workflow.ExecuteActivity(ctx, levels.ReviewLevels, workflow.Now(ctx)).Get(ctx, &changes); err != nil {
			workflow.GetLogger(ctx).Warn("level review failed", "error", err)
		}
		if err := workflow.Sleep(ctx, in.Interval); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, LevelReview, in)
}
