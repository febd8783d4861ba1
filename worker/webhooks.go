package worker

import (
	"context"
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/workflows"
)

// WebhookStarter starts the delivery workflows the API asks for: replays and test-sends.
type WebhookStarter struct {
	Client client.Client
}

// ReplayDelivery starts the n-th replay of a delivery; a replay started before is left alone.
func (w *WebhookStarter) ReplayDelivery(ctx context.Context, tenantID, webhookID, eventID, deliveryID string, n int) error {
	_, err := w.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.WebhookReplayWorkflowID(deliveryID, n),
		TaskQueue:             workflows.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, workflows.WebhookDelivery, workflows.WebhookDeliveryInput{TenantID: tenantID, WebhookID: webhookID, EventID: eventID, DeliveryID: deliveryID})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return nil
	}
	return err
}

// TestSend runs the delivery workflow of a test delivery and waits for it to finish.
func (w *WebhookStarter) TestSend(ctx context.Context, tenantID, webhookID, deliveryID string) error {
	run, err := w.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        workflows.WebhookTestWorkflowID(deliveryID),
		TaskQueue: workflows.TaskQueue,
	}, workflows.WebhookDelivery, workflows.WebhookDeliveryInput{TenantID: tenantID, WebhookID: webhookID, DeliveryID: deliveryID})
	if err != nil {
		return err
	}
	return run.Get(ctx, nil)
}
