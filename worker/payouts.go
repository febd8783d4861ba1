package worker

import (
	"context"
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/workflows"
)

// PayoutSignals hands finance's decisions on manual payouts to their payout workflows.
type PayoutSignals struct {
	Client client.Client
}

// ConfirmPayout tells a withdrawal's payout workflow that finance paid it, with the bank
// reference.
func (p *PayoutSignals) ConfirmPayout(ctx context.Context, tenantID, withdrawalID, reference, by string) error {
	return p.decide(ctx, tenantID, withdrawalID, workflows.PayoutDecision{Paid: true, Reference: reference, By: by})
}

// FailPayout tells a withdrawal's payout workflow that finance could not pay it.
func (p *PayoutSignals) FailPayout(ctx context.Context, tenantID, withdrawalID, reason, by string) error {
	return p.decide(ctx, tenantID, withdrawalID, workflows.PayoutDecision{Reason: reason, By: by})
}

// decide signals the payout workflow, starting it first if the approval's fan-out has not
// yet done so (the workflow id makes both the same run).
func (p *PayoutSignals) decide(ctx context.Context, tenantID, withdrawalID string, d workflows.PayoutDecision) error {
	_, err := p.Client.SignalWithStartWorkflow(ctx, workflows.PayoutWorkflowID(withdrawalID), workflows.PayoutDecisionSignal, d,
		client.StartWorkflowOptions{
			TaskQueue:             workflows.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		}, workflows.Payout, workflows.PayoutInput{TenantID: tenantID, WithdrawalID: withdrawalID})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return models.Conflict("PAYOUT_NOT_AWAITING_CONFIRMATION", "the payout was settled before")
	}
	return err
}

// StartPayoutBatchSchedule starts the installation's daily payout batch schedule unless it
// runs already.
func StartPayoutBatchSchedule(ctx context.Context, c client.Client, in workflows.PayoutBatchScheduleInput) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.PayoutBatchScheduleWorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.PayoutBatchSchedule, in)
	return err
}
