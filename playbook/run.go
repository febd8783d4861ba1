package playbook

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/partnerd/partnerd/models"
)

// MaxSteps is the most steps one run may take; a loop through waits stops there.
const MaxSteps = 1000

// ErrStepLimit is returned when a run would take more than MaxSteps steps.
var ErrStepLimit = fmt.Errorf("the run took more than %d steps", MaxSteps)

// Next lists, in graph order, the nodes that follow nodeID in g when it finished with outcome:
// the true or false branch of a condition, the next or timeout branch of a wait_for_event,
// every branch of a parallel node, the next edge of any other node. An empty outcome means
// next. The graph is not validated.
func Next(g models.PlaybookGraph, nodeID, outcome string) []string {
	kind := ""
	for _, n := range g.Nodes {
		if n.ID == nodeID {
			kind = n.Kind
			break
		}
	}
	var out []string
	for _, e := range g.Edges {
		if e.From == nodeID && (kind == models.NodeParallel || normLabel(e.Label) == normLabel(outcome)) {
			out = append(out, e.To)
		}
	}
	return out
}

// Graph is the graph c was compiled from.
func (c *Compiled) Graph() models.PlaybookGraph { return c.graph }

// TriggerID is the id of the trigger node, where every run starts.
func (c *Compiled) TriggerID() string { return c.trigger }

// Node returns the node with the given id.
func (c *Compiled) Node(id string) (models.PlaybookNode, bool) {
	i, ok := c.index[id]
	if !ok {
		return models.PlaybookNode{}, false
	}
	return c.graph.Nodes[i], true
}

func (c *Compiled) kind(id string) string {
	if i, ok := c.index[id]; ok {
		return c.graph.Nodes[i].Kind
	}
	return ""
}

// Next lists, in graph order, the nodes that follow nodeID when it finished with outcome (see
// the package function Next).
func (c *Compiled) Next(nodeID, outcome string) []string {
	parallel := c.kind(nodeID) == models.NodeParallel
	var out []string
	for _, j := range c.out[nodeID] {
		e := c.graph.Edges[j]
		if parallel || normLabel(e.Label) == normLabel(outcome) {
			out = append(out, e.To)
		}
	}
	return out
}

// Triggers reports whether the event in env starts a run: its type matches the trigger's
// pattern and the trigger's condition, if any, holds.
func (c *Compiled) Triggers(env Env) (bool, error) {
	if !models.MatchEventType(c.graph.Trigger.EventType, env.Event.Type) {
		return false, nil
	}
	return EvalCondition(c.triggerCondition, env)
}

func (c *Compiled) node(id, kind string) (models.PlaybookNode, error) {
	n, ok := c.Node(id)
	if !ok {
		return n, fmt.Errorf("the graph has no node %q", id)
	}
	if n.Kind != kind {
		return n, fmt.Errorf("node %q is a %s node, not %s", id, n.Kind, kind)
	}
	return n, nil
}

// Condition reports whether the condition of node nodeID holds for env; the run follows the
// node's models.EdgeTrue or models.EdgeFalse edge accordingly.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (c *Compiled) Condition(nodeID string, env Env) (bool, error) {
	if _, err := c.node(nodeID, models.NodeCondition); err != nil {
		return false, err
	}
	return EvalCondition(c.exprs[nodeID+".expression"], env)
}

// Wait gives how long the wait node nodeID pauses when it starts at env.Now: its duration, or
// the time until its until expression (zero when that time has passed). A time more than
// MaxWait ahead is an error.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (c *Compiled) Wait(nodeID string, env Env) (time.Duration, error) {
	if _, err := c.node(nodeID, models.NodeWait); err != nil {
		return 0, err
	}
	if d, ok := c.waits[nodeID]; ok {
		return d, nil
	}
	t, err := EvalTime(c.exprs[nodeID+".until"], env)
	if err != nil {
		return 0, err
	}
	d := t.Sub(env.Now)
	if d < 0 {
		return 0, nil
	}
	if d > MaxWait {
		return 0, fmt.Errorf("wait %q would last until %s, more than 365 days ahead", nodeID, t.UTC().Format(time.RFC3339))
	}
	return d, nil
}

// EventWait is what a wait_for_event node waits for.
type EventWait struct {
	// EventType is a type or a pattern with `*` wildcards.
	EventType string
	Timeout   time.Duration
}

// WaitForEvent gives the event pattern and timeout of the wait_for_event node nodeID.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (c *Compiled) WaitForEvent(nodeID string) (EventWait, error) {
	n, err := c.node(nodeID, models.NodeWaitForEvent)
	if err != nil {
		return EventWait{}, err
	}
	return EventWait{EventType: n.WaitForEvent.EventType, Timeout: c.waits[nodeID]}, nil
}

// EventArrives reports whether received ends the wait of the wait_for_event node nodeID: its
// type matches the node's pattern and the node's condition holds.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (c *Compiled) EventArrives(nodeID string, env Env, received EventEnv) (bool, error) {
	n, err := c.node(nodeID, models.NodeWaitForEvent)
	if err != nil {
		return false, err
	}
	if !models.MatchEventType(n.WaitForEvent.EventType, received.Type) {
		return false, nil
	}
	return EvalEventCondition(c.exprs[nodeID+".condition"], env, received)
}

// Outputs of the steps that are not actions, as expressions read them in steps.<id>.

// ConditionOutput is the output of a condition step: {"result": b}.
func ConditionOutput(b bool) map[string]any { return map[string]any{"result": b} }

// WaitOutput is the output of a wait step: {"until": the time it ended}.
func WaitOutput(until time.Time) map[string]any { return map[string]any{"until": until} }

// EventOutput is the output of a wait_for_event step: {"timedOut": true} when the timeout
// passed, else {"timedOut": false, "event": the event that arrived}.
func EventOutput(received *EventEnv) map[string]any {
	if received == nil {
		return map[string]any{"timedOut": true}
	}
	return map[string]any{"timedOut": false, "event": received.templateData()}
}

// WithStep returns a copy of e in which steps.<nodeID> is output; e is unchanged.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (e Env) WithStep(nodeID string, output map[string]any) Env { return e.withStep(nodeID, output) }

// Run is the progress of one run through a compiled graph: which steps are under way and which
// branches each join has received. It decides what runs next; the caller runs the steps (as
// activities, timers and signal waits) and reports each one's end. A join continues when every
// incoming branch has arrived, or once no step under way can still reach it. A Run is not safe
// for concurrent use; inside a workflow it is only touched by the workflow's coroutines.
type Run struct {
	c       *Compiled
	pending map[string]int
	arrived map[string]map[int]bool // join id → incoming edge indexes arrived
	steps   int
}

// NewRun starts the progress of a run at nothing done.
func (c *Compiled) NewRun() *Run {
	return &Run{c: c, pending: map[string]int{}, arrived: map[string]map[int]bool{}}
}

// Start hands out the trigger, the first step of every run.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (r *Run) Start() ([]string, error) {
	if r.steps > 0 {
		return nil, errors.New("the run has started already")
	}
	return r.handOut(nil, []string{r.c.trigger})
}

func (r *Run) handOut(ready, ids []string) ([]string, error) {
	for _, id := range ids {
		r.steps++
		if r.steps > MaxSteps {
			return ready, ErrStepLimit
		}
		r.pending[id]++
		ready = append(ready, id)
	}
	return ready, nil
}

// Complete records that the step at nodeID ended with outcome (models.EdgeTrue or EdgeFalse
// for conditions, EdgeNext or EdgeTimeout for wait_for_event, EdgeNext or "" otherwise) and
// hands out the steps that can run now, in graph order.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (r *Run) Complete(nodeID, outcome string) ([]string, error) {
	if r.pending[nodeID] == 0 {
		return nil, fmt.Errorf("node %q is not under way", nodeID)
	}
	r.pending[nodeID]--
	if r.pending[nodeID] == 0 {
		delete(r.pending, nodeID)
	}
	parallel := r.c.kind(nodeID) == models.NodeParallel
	var next []string
	for _, j := range r.c.out[nodeID] {
		e := r.c.graph.Edges[j]
		if !parallel && normLabel(e.Label) != normLabel(outcome) {
			continue
		}
		if r.c.kind(e.To) != models.NodeJoin {
			next = append(next, e.To)
			continue
		}
		if r.arrived[e.To] == nil {
			r.arrived[e.To] = map[int]bool{}
		}
		r.arrived[e.To][j] = true
		if len(r.arrived[e.To]) == len(r.c.in[e.To]) {
			delete(r.arrived, e.To)
			next = append(next, e.To)
		}
	}
	ready, err := r.handOut(nil, next)
	if err != nil {
		return ready, err
	}
	return r.releaseJoins(ready)
}

// releaseJoins hands out the joins that wait for branches no step under way can reach.
func (r *Run) releaseJoins(ready []string) ([]string, error) {
	for changed := true; changed; {
		changed = false
		for _, j := range r.c.joins {
			if len(r.arrived[j]) == 0 || r.reachable(j) {
				continue
			}
			delete(r.arrived, j)
			var err error
			if ready, err = r.handOut(ready, []string{j}); err != nil {
				return ready, err
			}
			changed = true
		}
	}
	return ready, nil
}

// reachable reports whether a step under way can still lead to the node target.
func (r *Run) reachable(target string) bool {
	for id := range r.pending {
		if r.c.reach[id][target] {
			return true
		}
	}
	return false
}

// Done reports whether no step is under way: the run has finished.
func (r *Run) Done() bool { return len(r.pending) == 0 }

// Pending lists the steps under way, in graph order.
func (r *Run) Pending() []string {
	var out []string
	for id := range r.pending {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b string) int { return r.c.index[a] - r.c.index[b] })
	return out
}

// Steps is the number of steps handed out so far.
func (r *Run) Steps() int { return r.steps }
