package workflows

import (
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
)

// activityRetry retries storage activities with backoff up to a minute apart, without limit:
// a database outage delays the fan-out, it never drops it.
var activityRetry = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute}

// EventFanout hands one committed event to everything subscribed to its type: a delivery
// workflow per subscribed webhook endpoint (playbook runs and commission accrual join here).
// Children outlive the fan-out, and their ids make a second fan-out of the same event a no-op.
func EventFanout(ctx workflow.Context, in EventFanoutInput) (EventFanoutResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var ev *activities.Events
	var routes activities.EventRoutes
	if err := workflow.ExecuteActivity(ctx, ev.Routes, activities.RoutesInput{TenantID: in.TenantID, EventID: in.EventID, Type: in.Type}).Get(ctx, &routes); err != nil {
		return EventFanoutResult{}, err
	}
	var res EventFanoutResult
	if !routes.Found {
		return res, nil
	}
	if routes.ProtectDeal != "" {
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID:            DealProtectionWorkflowID(routes.ProtectDeal),
			ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		})
		child := workflow.ExecuteChildWorkflow(cctx, DealProtection, DealProtectionInput{TenantID: in.TenantID, DealID: routes.ProtectDeal})
		var started *temporal.ChildWorkflowExecutionAlreadyStartedError
		if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil && !errors.As(err, &started) {
			return res, err
		}
		res.DealProtection = routes.ProtectDeal
	}
	for _, hook := range routes.Webhooks {
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID:            WebhookDeliveryWorkflowID(in.EventID, hook),
			ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		})
		child := workflow.ExecuteChildWorkflow(cctx, WebhookDelivery, WebhookDeliveryInput{TenantID: in.TenantID, WebhookID: hook, EventID: in.EventID})
		err := child.GetChildWorkflowExecution().Get(ctx, nil)
		var started *temporal.ChildWorkflowExecutionAlreadyStartedError
		if err != nil && !errors.As(err, &started) {
			return res, err
		}
		res.Webhooks = append(res.Webhooks, hook)
	}
	return res, nil
}

// relayPassesPerRun bounds the history of one relay run before it continues as new.
const relayPassesPerRun = 500

// OutboxRelay runs forever: every Interval it hands over outbox rows older than Age, which a
// process wrote but did not dispatch (it stopped between commit and start).
func OutboxRelay(ctx workflow.Context, in OutboxRelayInput) error {
	if in.Interval <= 0 {
		in.Interval = 5 * time.Second
	}
	if in.Age <= 0 {
		in.Age = 5 * time.Second
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: activityRetry})
	var ev *activities.Events
	for range relayPassesPerRun {
		var n int
		if err := workflow.ExecuteActivity(ctx, ev.RelayOutbox, activities.RelayInput{Age: in.Age, Limit: 500}).Get(ctx, &n); err != nil {
			workflow.GetLogger(ctx).Warn("outbox relay pass failed", "error", err)
		}
		if n == 500 {
			continue // more waiting: no pause
		}
		if err := workflow.Sleep(ctx, in.Interval); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, OutboxRelay, in)
}
