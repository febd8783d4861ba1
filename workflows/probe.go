package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
)

// Probe runs one activity on a worker and returns what it found: a smoke check that the
// Temporal server, the workers and the database work together.
func Probe(ctx workflow.Context, in ProbeInput) (ProbeResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var sys *activities.System
	var report activities.ProbeReport
	if err := workflow.ExecuteActivity(ctx, sys.Probe).Get(ctx, &report); err != nil {
		return ProbeResult{}, err
	}
	return ProbeResult{WorkerVersion: report.Version, DatabaseOK: report.DatabaseOK}, nil
}
