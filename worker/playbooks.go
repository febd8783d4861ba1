package worker

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/workflows"
)

// RunCancels cancels playbook runs at an operator's request.
type RunCancels struct {
	Client client.Client
}

// CancelPlaybookRun asks a run's workflow to stop; its waits end and it records itself as
// cancelled. A run whose workflow has not started yet needs nothing more: the cancellation the
// store recorded keeps it from starting.
func (r *RunCancels) CancelPlaybookRun(ctx context.Context, _, runID string) error {
	err := r.Client.CancelWorkflow(ctx, workflows.PlaybookRunWorkflowID(runID), "")
	var missing *serviceerror.NotFound
	if errors.As(err, &missing) {
		return nil
	}
	return err
}
