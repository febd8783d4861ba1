package worker

import (
	"context"
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/workflows"
)

// HealthRuns starts the scoring workflows of the runs the API opens.
type HealthRuns struct {
	Client client.Client
}

// StartHealthRun starts the workflow of a scoring run; one started before is left alone.
func (h *HealthRuns) StartHealthRun(ctx context.Context, tenantID, runID string) error {
	_, err := h.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.HealthRunWorkflowID(runID),
		TaskQueue:             workflows.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, workflows.HealthRun, workflows.HealthRunInput{TenantID: tenantID, RunID: runID})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return nil
	}
	return err
}

// StartHealthSchedule starts the installation's hourly health schedule unless it runs already.
func StartHealthSchedule(ctx context.Context, c client.Client, in workflows.HealthScheduleInput) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.HealthScheduleWorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.HealthSchedule, in)
	return err
}
