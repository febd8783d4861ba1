package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/workflows"
)

// Outbox removes dispatched events from the outbox.
type Outbox interface {
	MarkDispatched(ctx context.Context, eventIDs []string) error
}

// dispatchTimeout bounds how long a request waits for Temporal after its commit; what does not
// start in time is left to the relay.
const dispatchTimeout = 5 * time.Second

// Dispatcher starts the fan-out workflow of committed events (workflow id event-<id>, so a
// second start of the same event is a no-op) and clears their outbox rows.
type Dispatcher struct {
	Client client.Client
	Outbox Outbox
	Log    *slog.Logger
}

// StartFanouts starts the fan-out of each event and returns the ids of the events whose
// fan-out now runs or ran.
func (d *Dispatcher) StartFanouts(ctx context.Context, refs []models.EventRef) ([]string, error) {
	var started []string
	var errs []error
	for _, r := range refs {
		_, err := d.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:                    workflows.EventWorkflowID(r.EventID),
			TaskQueue:             workflows.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		}, workflows.EventFanout, workflows.EventFanoutInput{TenantID: r.TenantID, EventID: r.EventID, Type: r.Type})
		var already *serviceerror.WorkflowExecutionAlreadyStarted
		if err != nil && !errors.As(err, &already) {
			errs = append(errs, err)
			continue
		}
		started = append(started, r.EventID)
	}
	return started, errors.Join(errs...)
}

// Dispatch hands events to their fan-out right after commit. What fails stays in the outbox
// and the relay hands it over later, so errors are only logged.
func (d *Dispatcher) Dispatch(ctx context.Context, refs []models.EventRef) {
	ctx, cancel := context.WithTimeout(ctx, dispatchTimeout)
	defer cancel()
	started, err := d.StartFanouts(ctx, refs)
	if err != nil && d.Log != nil {
		d.Log.Warn("event dispatch deferred to the outbox relay", "events", len(refs)-len(started), "error", err)
	}
	if err := d.Outbox.MarkDispatched(ctx, started); err != nil && d.Log != nil {
		d.Log.Warn("outbox cleanup deferred to the relay", "error", err)
	}
}

// StartRelay starts the outbox relay unless it runs already.
func StartRelay(ctx context.Context, c client.Client, in workflows.OutboxRelayInput) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.OutboxRelayWorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.OutboxRelay, in)
	return err
}

// StartLevelReview starts the installation's daily level review unless it runs already.
func StartLevelReview(ctx context.Context, c client.Client, in workflows.LevelReviewInput) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.LevelReviewWorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.LevelReview, in)
	return err
}
