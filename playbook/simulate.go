package playbook

import (
	"fmt"
	"time"

	"github.com/partnerd/partnerd/models"
)

// Sample is the data a simulation runs on.
type Sample struct {
	// Event is the event that would start the run.
	Event EventEnv `json:"event"`
	// Partner is the partner the run would be for.
	Partner PartnerEnv `json:"partner"`
	// Now is when the run would start; zero means Event.OccurredAt.
	Now time.Time `json:"now"`
	// Received names, by wait_for_event node id, an event that arrives while the node waits: at
	// its OccurredAt, or at once if that is earlier. Nodes not named time out.
	Received map[string]EventEnv `json:"received,omitempty"`
	// Outputs are the outputs actions are assumed to give, by node id; expressions read them
	// as steps.<id>. Unnamed actions give {}.
	Outputs map[string]map[string]any `json:"outputs,omitempty"`
}

// Path is the course a run would take, step by step, without carrying out anything.
type Path struct {
	// Triggered reports whether the sample event starts a run at all.
	Triggered bool `json:"triggered"`
	// Reason says why the run would not start.
	Reason string `json:"reason,omitempty"`
	// Steps are in the order of their start times; steps starting together keep graph order.
	Steps []PathStep `json:"steps"`
	// Failed reports that a step would fail (see its Error) and end the run.
	Failed bool `json:"failed,omitempty"`
	// Truncated reports that the run would exceed MaxSteps.
	Truncated bool `json:"truncated,omitempty"`
	// EndsAt is when the last step would end.
	EndsAt time.Time `json:"endsAt"`
}

// PathStep is one step of a simulated run.
type PathStep struct {
	NodeID string `json:"nodeId"`
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
	// At is when the step would start.
	At time.Time `json:"at"`
	// Outcome is the edge label the run follows out of the step.
	Outcome string `json:"outcome,omitempty"`
	// Result is a condition's value.
	Result *bool `json:"result,omitempty"`
	// Wait is how long the step waits (for wait_for_event: until the event or the timeout).
	Wait string `json:"wait,omitempty"`
	// Received is the event that ended a wait_for_event.
	Received *EventEnv `json:"received,omitempty"`
	// Action is an action node with its parameters rendered; it is not carried out.
	Action *models.PlaybookNode `json:"action,omitempty"`
	// Error says why the step would fail.
	Error string `json:"error,omitempty"`
}

// Simulate validates g and shows the course a run started by the sample would take: the
// result of each condition, each wait with its length (not waited), each wait_for_event timing
// out unless the sample names an event for it, each action with its parameters rendered (not
// carried out). Parallel branches advance on their own simulated clocks; a join starts when
// its last branch arrives. An invalid graph gives a *ValidationError.
func Simulate(g models.PlaybookGraph, s Sample) (Path, error) {
	c, err := Compile(g)
	if err != nil {
		return Path{}, err
	}
	return c.Simulate(s), nil
}

type token struct {
	id string
	at time.Time
}

// Simulate shows the course a run started by the sample would take (see the package function
// Simulate).
func (c *Compiled) Simulate(s Sample) Path {
	now := s.Now
	if now.IsZero() {
		now = s.Event.OccurredAt
	}
	env := Env{Event: s.Event, Partner: s.Partner, Steps: map[string]map[string]any{}, Now: now}
	path := Path{Steps: []PathStep{}, EndsAt: now}
	ok, err := c.Triggers(env)
	switch {
	case err != nil:
		path.Reason = "the trigger condition fails: " + err.Error()
		return path
	case !ok && !models.MatchEventType(c.graph.Trigger.EventType, s.Event.Type):
		path.Reason = fmt.Sprintf("the event type %q does not match the trigger %q", s.Event.Type, c.graph.Trigger.EventType)
		return path
	case !ok:
		path.Reason = "the trigger condition does not hold"
		return path
	}
	path.Triggered = true

	run := c.NewRun()
	ids, err := run.Start()
	if err != nil {
		path.Truncated = true
		return path
	}
	queue := []token{{id: ids[0], at: now}}
	joinAt := map[string]time.Time{}
	for len(queue) > 0 {
		// The earliest step next; the queue keeps graph order among equal times.
		best := 0
		for i, t := range queue {
			if t.at.Before(queue[best].at) {
				best = i
			}
		}
		tok := queue[best]
		queue = append(queue[:best], queue[best+1:]...)

		step, outcome, end, output, failed := c.simulateStep(tok, env, s)
		path.Steps = append(path.Steps, step)
		if end.After(path.EndsAt) {
			path.EndsAt = end
		}
		if failed {
			path.Failed = true
			return path
		}
		if output != nil {
			env = env.withStep(tok.id, output)
		}
		for _, t := range c.Next(tok.id, outcome) {
			if c.kind(t) == models.NodeJoin && end.After(joinAt[t]) {
				joinAt[t] = end
			}
		}
		ready, err := run.Complete(tok.id, outcome)
		for _, id := range ready {
			at := end
			if c.kind(id) == models.NodeJoin {
				at = joinAt[id]
				delete(joinAt, id)
			}
			queue = append(queue, token{id: id, at: at})
		}
		if err != nil {
			path.Truncated = true
			return path
		}
	}
	return path
}

// simulateStep works out one step: what it shows, the edge it leaves by, when it ends and its
// output.
func (c *Compiled) simulateStep(tok token, env Env, s Sample) (step PathStep, outcome string, end time.Time, output map[string]any, failed bool) {
	n, _ := c.Node(tok.id)
	step = PathStep{NodeID: n.ID, Kind: n.Kind, Name: n.Name, At: tok.at}
	env.Now = tok.at
	end = tok.at
	outcome = models.EdgeNext
	fail := func(err error) {
		step.Error = err.Error()
		step.Outcome = ""
		failed = true
	}
	switch n.Kind {
	case models.NodeCondition:
		b, err := c.Condition(n.ID, env)
		if err != nil {
			fail(err)
			return
		}
		step.Result = &b
		outcome = models.EdgeFalse
		if b {
			outcome = models.EdgeTrue
		}
		output = ConditionOutput(b)
	case models.NodeWait:
		d, err := c.Wait(n.ID, env)
		if err != nil {
			fail(err)
			return
		}
		step.Wait = FormatDuration(d)
		end = tok.at.Add(d)
		output = WaitOutput(end)
	case models.NodeWaitForEvent:
		w, _ := c.WaitForEvent(n.ID)
		outcome, end = models.EdgeTimeout, tok.at.Add(w.Timeout)
		output = EventOutput(nil)
		if ev, named := s.Received[n.ID]; named {
			arrives := ev.OccurredAt
			if arrives.Before(tok.at) {
				arrives = tok.at
			}
			if arrives.Before(end) {
				ok, err := c.EventArrives(n.ID, env, ev)
				if err != nil {
					fail(err)
					return
				}
				if ok {
					outcome, end = models.EdgeNext, arrives
					step.Received = &ev
					output = EventOutput(&ev)
				}
			}
		}
		step.Wait = FormatDuration(end.Sub(tok.at))
	case models.NodeTrigger, models.NodeParallel, models.NodeJoin:
	default:
		a, err := c.Render(n.ID, env)
		step.Action = &a
		if err != nil {
			fail(err)
			return
		}
		output = s.Outputs[n.ID]
		if output == nil {
			output = map[string]any{}
		}
	}
	step.Outcome = outcome
	return
}
