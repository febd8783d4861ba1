package workflows

import (
	"hash/fnv"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// WebhookTestWorkflowID is the id of the workflow of a test-send.
func WebhookTestWorkflowID(deliveryID string) string { return "webhook-test-" + deliveryID }

// WebhookReplayWorkflowID is the id of the workflow of the n-th replay of a delivery: starting
// the same replay twice is a no-op.
func WebhookReplayWorkflowID(deliveryID string, n int) string {
	return "webhook-replay-" + deliveryID + "-" + strconv.Itoa(n)
}

// jitter spreads retries of many deliveries apart: ±10% of wait, derived from the delivery
// and the attempt so that it is the same on every replay of the history.
func jitter(wait time.Duration, deliveryID string, attempt int) time.Duration {
	if wait <= 0 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(deliveryID + "#" + strconv.Itoa(attempt)))
	frac := int64(h.Sum64()%2001) - 1000 // -1000..1000 per mille of 10%
	return wait + time.Duration(int64(wait)/10*frac/1000)
}

// WebhookDelivery delivers one event to one webhook endpoint, retrying on the schedule of
// CONVENTIONS.md, and records every attempt.
func WebhookDelivery(ctx workflow.Context, in WebhookDeliveryInput) error {
	storage := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var wh *activities.Webhooks
	var settings activities.DeliverySettings
	if err := workflow.ExecuteActivity(storage, wh.WebhookSettings).Get(ctx, &settings); err != nil {
		return err
	}
	var begin activities.BeginResult
	start := models.DeliveryStart{TenantID: in.TenantID, WebhookID: in.WebhookID, EventID: in.EventID, DeliveryID: in.DeliveryID}
	if err := workflow.ExecuteActivity(storage, wh.BeginWebhookDelivery, start).Get(ctx, &begin); err != nil {
		return err
	}
	log := workflow.GetLogger(ctx)
	if !begin.Proceed {
		log.Info("webhook delivery not started", "webhook", in.WebhookID, "reason", begin.Reason)
		return nil
	}
	schedule := settings.Schedule
	if begin.Test {
		schedule = []time.Duration{0} // a test-send is one attempt, at once
	}
	// The HTTP attempt itself is never retried by Temporal: the schedule is the retry.
	send := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: settings.Timeout + 15*time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var retryAfter time.Duration
	for i, wait := range schedule {
		wait = jitter(wait, begin.DeliveryID, i)
		if i > 0 {
			wait = max(wait, min(retryAfter, settings.MaxRetryAfter))
		}
		if wait > 0 {
			if err := workflow.Sleep(ctx, wait); err != nil {
				return err
			}
		}
		var res activities.SendResult
		err := workflow.ExecuteActivity(send, wh.SendWebhook, activities.SendInput{
			TenantID: in.TenantID, WebhookID: in.WebhookID, DeliveryID: begin.DeliveryID, Timeout: settings.Timeout, Attempt: i + 1,
		}).Get(ctx, &res)
		if err != nil {
			res = activities.SendResult{Error: "the attempt failed to run: " + err.Error()}
		}
		if res.Skipped {
			log.Info("webhook delivery stopped", "webhook", in.WebhookID, "reason", res.Error)
			return workflow.ExecuteActivity(storage, wh.EndWebhookDelivery, activities.EndInput{
				TenantID: in.TenantID, DeliveryID: begin.DeliveryID, Status: models.DeliveryCancelled,
			}).Get(ctx, nil)
		}
		var attemptID string
		if err := workflow.SideEffect(ctx, func(workflow.Context) any { return models.NewID() }).Get(&attemptID); err != nil {
			return err
		}
		var out models.AttemptOutcome
		rec := models.AttemptRecord{
			TenantID: in.TenantID, WebhookID: in.WebhookID, DeliveryID: begin.DeliveryID, AttemptID: attemptID,
			StatusCode: res.StatusCode, LatencyMS: res.LatencyMS, ResponseBody: res.ResponseBody, Error: res.Error,
			At: workflow.Now(ctx), Final: i == len(schedule)-1, DisableAfter: settings.DisableAfter,
		}
		if err := workflow.ExecuteActivity(storage, wh.RecordWebhookAttempt, activities.RecordInput{Record: rec}).Get(ctx, &out); err != nil {
			return err
		}
		if out.Disabled {
			log.Warn("webhook endpoint disabled", "webhook", in.WebhookID, "reason", out.DisabledReason)
		}
		if out.Status != models.DeliveryPending {
			return nil
		}
		retryAfter = res.RetryAfter
	}
	return nil
}
