package workflows

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/playbook"
)

// queuedRetry is how often a run beyond its playbook's concurrency limit asks for a slot.
const queuedRetry = 30 * time.Second

// actionRetry retries an action with backoff for about an hour before the step fails.
var actionRetry = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute, MaximumAttempts: 15}

// localActionOptions run a database action as a local activity: its 15 attempts (about 40
// minutes of backoff and up to a minute each) fit in the schedule-to-close timeout.
var localActionOptions = workflow.LocalActivityOptions{ScheduleToCloseTimeout: 2 * time.Hour, StartToCloseTimeout: time.Minute, RetryPolicy: actionRetry}

// PlaybookRun interprets one published playbook version for one event: it waits for a slot
// under the playbook's concurrency limit, then walks the graph from the trigger. Conditions and
// templates are evaluated in the workflow against the event, the partner, earlier steps'
// outputs and the workflow clock (so replays decide the same way); waits are durable timers;
// wait_for_event steps take the events the fan-out signals; parallel branches run as workflow
// goroutines; actions are activities with retries, each done once per run and node. Every step
// is recorded. A cancelled run stops its waits and is recorded as cancelled.
//
// Runs started since local steps (version 1 of playbookLocalSteps) do their storage work and
// their database actions as local activities, so that the steps between two waits take one
// workflow task; runs begun before keep their first shape.
func PlaybookRun(ctx workflow.Context, in PlaybookRunInput) (PlaybookRunResult, error) {
	local := workflow.GetVersion(ctx, playbookLocalSteps, workflow.DefaultVersion, 1) >= 1
	r := &runner{in: in, local: local}
	r.store = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	r.act = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: actionRetry})
	if local {
		r.store = workflow.WithLocalActivityOptions(ctx, localStore)
		r.localAct = workflow.WithLocalActivityOptions(ctx, localActionOptions)
	}
	var pb *activities.Playbooks
	var data activities.RunData
	for {
		if err := r.storeCall(ctx, r.store, pb.AdmitRun, in).Get(ctx, &data); err != nil {
			return PlaybookRunResult{}, err
		}
		if data.Admitted {
			break
		}
		if data.Status != models.RunQueued {
			return PlaybookRunResult{Status: data.Status}, nil // finished before
		}
		if err := workflow.Sleep(ctx, queuedRetry); err != nil {
			return r.finish(ctx, models.RunCancelled, "cancelled while queued", 0)
		}
	}
	c, err := playbook.Compile(data.Graph)
	if err != nil {
		return r.finish(ctx, models.RunFailed, "the version does not compile: "+err.Error(), 0)
	}
	r.c, r.run, r.depth = c, c.NewRun(), data.Depth
	r.env = playbook.Env{Event: data.Event, Partner: data.Partner}
	r.routeEvents(ctx)

	steps, cancelSteps := workflow.WithCancel(ctx)
	wg := workflow.NewWaitGroup(ctx)
	ready, err := r.run.Start()
	if err != nil {
		return r.finish(ctx, models.RunFailed, err.Error(), 0)
	}
	var spawn func(ids []string)
	spawn = func(ids []string) {
		for _, id := range ids {
			wg.Add(1)
			workflow.Go(steps, func(gctx workflow.Context) {
				defer wg.Done()
				if r.failure != nil {
					return
				}
				outcome, err := r.step(gctx, id)
				if err == nil {
					var next []string
					if next, err = r.run.Complete(id, outcome); err == nil {
						spawn(next)
						return
					}
				}
				if r.failure == nil {
					r.failure = err
					cancelSteps() // the other branches stop waiting
				}
			})
		}
	}
	spawn(ready)
	wg.Wait(ctx)
	switch {
	case ctx.Err() != nil:
		return r.finish(ctx, models.RunCancelled, "cancelled by an operator", r.run.Steps())
	case r.failure != nil:
		return r.finish(ctx, models.RunFailed, r.failure.Error(), r.run.Steps())
	}
	return r.finish(ctx, models.RunCompleted, "", r.run.Steps())
}

// playbookLocalSteps is the change id of the run workflow's local steps: version 1 records a
// step once unless it waits, records an action's step in the action's activity, and runs
// storage work and database actions as local activities.
const playbookLocalSteps = "playbook-local-steps"

// localAction reports whether an action kind only writes to the database, and so runs as a
// local activity; calls to the outside world (webhooks, email) stay activities of their own.
func localAction(kind string) bool {
	return kind != models.NodeCallWebhook && kind != models.NodeSendEmail
}

// storeCall runs a storage activity: a local one on runs with local steps.
func (r *runner) storeCall(ctx, opts workflow.Context, fn, arg any) workflow.Future {
	if r.local {
		return workflow.ExecuteLocalActivity(opts, fn, arg)
	}
	return workflow.ExecuteActivity(opts, fn, arg)
}

// finish records the end of the run, also after a cancellation.
func (r *runner) finish(ctx workflow.Context, status, reason string, steps int) (PlaybookRunResult, error) {
	if !r.local {
		return finishRun(ctx, r.in, status, reason, steps)
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	dctx = workflow.WithLocalActivityOptions(dctx, localStore)
	var pb *activities.Playbooks
	reason = models.Clip(reason, 1000)
	err := workflow.ExecuteLocalActivity(dctx, pb.FinishRun, activities.FinishInput{TenantID: r.in.TenantID, RunID: r.in.RunID, Status: status, Error: reason}).Get(dctx, nil)
	return PlaybookRunResult{Status: status, Steps: steps, Error: reason}, err
}

// finishRun records the end of a run, also after a cancellation (runs without local steps).
func finishRun(ctx workflow.Context, in PlaybookRunInput, status, reason string, steps int) (PlaybookRunResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	dctx = workflow.WithActivityOptions(dctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var pb *activities.Playbooks
	reason = models.Clip(reason, 1000)
	err := workflow.ExecuteActivity(dctx, pb.FinishRun, activities.FinishInput{TenantID: in.TenantID, RunID: in.RunID, Status: status, Error: reason}).Get(dctx, nil)
	return PlaybookRunResult{Status: status, Steps: steps, Error: reason}, err
}

// runner is the state of one run's interpretation.
type runner struct {
	in    PlaybookRunInput
	c     *playbook.Compiled
	run   *playbook.Run
	env   playbook.Env
	depth int
	// local: the run has local steps (version 1 of playbookLocalSteps).
	local bool
	// store carries the options of storage activities (local ones on runs with local steps),
	// act those of actions, localAct those of local actions.
	store    workflow.Context
	act      workflow.Context
	localAct workflow.Context
	failure  error
	// waiters are the channels of the wait_for_event steps under way, in the order they began.
	waiters []waiter
}

// waiter is a wait_for_event step under way.
type waiter struct {
	key string
	ch  workflow.Channel
}

// routeEvents hands every signalled event to each wait_for_event step under way.
func (r *runner) routeEvents(ctx workflow.Context) {
	sig := workflow.GetSignalChannel(ctx, PlaybookEventSignal)
	workflow.Go(ctx, func(gctx workflow.Context) {
		for {
			var ev playbook.EventEnv
			if !sig.Receive(gctx, &ev) {
				return
			}
			for _, w := range r.waiters {
				w.ch.SendAsync(ev)
			}
		}
	})
}

// step runs one node and reports the edge label to follow.
func (r *runner) step(ctx workflow.Context, nodeID string) (string, error) {
	if r.local {
		return r.localStep(ctx, nodeID)
	}
	node, _ := r.c.Node(nodeID)
	rec, events, err := r.beginStep(ctx, nodeID, node)
	if err != nil {
		return "", err
	}
	defer r.stopListening(rec.ID)
	var pb *activities.Playbooks
	if err := workflow.ExecuteActivity(r.store, pb.RecordStep, rec).Get(ctx, nil); err != nil {
		return "", err
	}
	outcome, output, err := r.execute(ctx, node, rec.ID, events)
	if err := r.endStep(ctx, rec, output, err); err != nil {
		return "", err
	}
	r.env = r.env.WithStep(nodeID, output)
	return outcome, nil
}

// localStep runs one node of a run with local steps. A step that does not wait is recorded
// once, when it ends; a wait or wait_for_event step when it starts and when it ends; an action
// step by the action's own activity (and by the workflow when the action fails for good).
func (r *runner) localStep(ctx workflow.Context, nodeID string) (string, error) {
	node, _ := r.c.Node(nodeID)
	rec, events, err := r.beginStep(ctx, nodeID, node)
	if err != nil {
		return "", err
	}
	defer r.stopListening(rec.ID)
	var pb *activities.Playbooks
	if node.Kind == models.NodeWait || node.Kind == models.NodeWaitForEvent {
		if err := workflow.ExecuteLocalActivity(r.store, pb.RecordStep, rec).Get(ctx, nil); err != nil {
			return "", err
		}
	}
	var outcome string
	var output map[string]any
	recorded := false
	if models.IsPlaybookAction(node.Kind) {
		outcome, output, err = r.actStep(ctx, node, rec)
		recorded = err == nil
	} else {
		outcome, output, err = r.execute(ctx, node, rec.ID, events)
	}
	if !recorded {
		err = r.endStep(ctx, rec, output, err)
	}
	if err != nil {
		return "", err
	}
	r.env = r.env.WithStep(nodeID, output)
	return outcome, nil
}

// beginStep gives a step of the node nodeID its id and its running record. A wait_for_event
// step listens for signalled events on the returned channel from here on (so that none is missed
// once it is visible as waiting) until stopListening.
func (r *runner) beginStep(ctx workflow.Context, nodeID string, node models.PlaybookNode) (models.PlaybookStep, workflow.Channel, error) {
	var stepID string
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return models.NewID() }).Get(&stepID); err != nil {
		return models.PlaybookStep{}, nil, err
	}
	rec := models.PlaybookStep{ID: stepID, TenantID: r.in.TenantID, RunID: r.in.RunID, NodeID: nodeID, Kind: node.Kind,
		Status: models.StepRunning, StartedAt: workflow.Now(ctx), Output: "{}"}
	var events workflow.Channel
	if node.Kind == models.NodeWaitForEvent {
		rec.Output = mustOutput(map[string]any{"waitingFor": node.WaitForEvent.EventType})
		events = workflow.NewBufferedChannel(ctx, 100)
		r.waiters = append(r.waiters, waiter{key: stepID, ch: events})
	}
	return rec, events, nil
}

// stopListening ends the step's listening for signalled events, if it listened.
func (r *runner) stopListening(stepID string) {
	r.waiters = slices.DeleteFunc(r.waiters, func(w waiter) bool { return w.key == stepID })
}

// endStep records the end of a step, completed with output or failed with err (also after a
// cancellation), and reports err or else a failure to record.
func (r *runner) endStep(ctx workflow.Context, rec models.PlaybookStep, output map[string]any, err error) error {
	ended := workflow.Now(ctx)
	rec.EndedAt, rec.Status, rec.Output = &ended, models.StepCompleted, mustOutput(output)
	if err != nil {
		rec.Status, rec.Error = models.StepFailed, rootMessage(err)
		if temporal.IsCanceledError(err) || errors.Is(err, workflow.ErrCanceled) {
			rec.Error = "cancelled"
		}
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	var pb *activities.Playbooks
	var f workflow.Future
	if r.local {
		f = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(dctx, workflow.GetLocalActivityOptions(r.store)), pb.RecordStep, rec)
	} else {
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(dctx, workflow.GetActivityOptions(r.store)), pb.RecordStep, rec)
	}
	if recErr := f.Get(dctx, nil); recErr != nil && err == nil {
		return recErr
	}
	return err
}

// actStep renders an action and carries it out with its step's record: a local activity for
// database actions, an activity for calls to the outside world.
func (r *runner) actStep(ctx workflow.Context, node models.PlaybookNode, rec models.PlaybookStep) (string, map[string]any, error) {
	env := r.env
	env.Now = workflow.Now(ctx)
	rendered, err := r.c.Render(node.ID, env)
	if err != nil {
		return "", nil, err
	}
	var pb *activities.Playbooks
	in := activities.ActStepInput{Step: rec, Act: activities.ActInput{TenantID: r.in.TenantID, RunID: r.in.RunID, StepID: rec.ID,
		EventID: r.in.EventID, Depth: r.depth, PartnerID: r.env.Event.PartnerID, Node: rendered}}
	var f workflow.Future
	if localAction(node.Kind) {
		f = workflow.ExecuteLocalActivity(r.localAct, pb.ActStep, in)
	} else {
		f = workflow.ExecuteActivity(r.act, pb.ActStep, in)
	}
	var output map[string]any
	err = f.Get(ctx, &output)
	if output == nil {
		output = map[string]any{}
	}
	return models.EdgeNext, output, err
}

// execute carries out a node.
func (r *runner) execute(ctx workflow.Context, node models.PlaybookNode, stepID string, events workflow.Channel) (string, map[string]any, error) {
	env := r.env
	env.Now = workflow.Now(ctx)
	switch node.Kind {
	case models.NodeTrigger, models.NodeParallel, models.NodeJoin:
		return models.EdgeNext, map[string]any{}, nil
	case models.NodeCondition:
		ok, err := r.c.Condition(node.ID, env)
		if err != nil {
			return "", nil, err
		}
		if ok {
			return models.EdgeTrue, playbook.ConditionOutput(true), nil
		}
		return models.EdgeFalse, playbook.ConditionOutput(false), nil
	case models.NodeWait:
		d, err := r.c.Wait(node.ID, env)
		if err != nil {
			return "", nil, err
		}
		if d > 0 {
			if err := workflow.Sleep(ctx, d); err != nil {
				return "", nil, err
			}
		}
		return models.EdgeNext, playbook.WaitOutput(env.Now.Add(d)), nil
	case models.NodeWaitForEvent:
		return r.waitForEvent(ctx, node, events)
	}
	rendered, err := r.c.Render(node.ID, env)
	if err != nil {
		return "", nil, err
	}
	var pb *activities.Playbooks
	partner := r.env.Event.PartnerID
	var output map[string]any
	err = workflow.ExecuteActivity(r.act, pb.Act, activities.ActInput{TenantID: r.in.TenantID, RunID: r.in.RunID, StepID: stepID,
		EventID: r.in.EventID, Depth: r.depth, PartnerID: partner, Node: rendered}).Get(ctx, &output)
	if output == nil {
		output = map[string]any{}
	}
	return models.EdgeNext, output, err
}

// waitForEvent waits for a signalled event on ch that matches the node, or for its timeout.
func (r *runner) waitForEvent(ctx workflow.Context, node models.PlaybookNode, ch workflow.Channel) (string, map[string]any, error) {
	wait, err := r.c.WaitForEvent(node.ID)
	if err != nil {
		return "", nil, err
	}
	tctx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	timer := workflow.NewTimer(tctx, wait.Timeout)
	for {
		var got *playbook.EventEnv
		timedOut := false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) {
			var ev playbook.EventEnv
			c.Receive(ctx, &ev)
			got = &ev
		})
		sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
		sel.Select(ctx)
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		if timedOut {
			return models.EdgeTimeout, playbook.EventOutput(nil), nil
		}
		env := r.env
		env.Now = workflow.Now(ctx)
		ok, err := r.c.EventArrives(node.ID, env, *got)
		if err != nil {
			return "", nil, err
		}
		if ok {
			return models.EdgeNext, playbook.EventOutput(got), nil
		}
	}
}

// mustOutput is the JSON of a step's output. encoding/json writes map keys sorted, so the
// result is deterministic.
//
//workflowcheck:ignore
func mustOutput(m map[string]any) string {
	if m == nil {
		return "{}"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(b)
}
