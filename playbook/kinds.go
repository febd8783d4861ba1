package playbook

import (
	"slices"

	"github.com/partnerd/partnerd/models"
)

// Kind describes a node kind for those who draw graphs: where its parameters go, which edges
// leave it and what its output holds.
type Kind struct {
	// Kind is one of models.PlaybookNodeKinds.
	Kind string
	// Member is the node's JSON member holding the kind's parameters (sendEmail for
	// send_email); empty for kinds without parameters.
	Member string
	// Action is set for the kinds that act on the world.
	Action bool
	// Labels are the labels an edge out of the kind may have, the default first.
	Labels []string
	// Required are the labels the kind needs an edge for.
	Required []string
	// FanOut is set for the kind that has several outgoing edges of one label (parallel).
	FanOut bool
	// Outputs are the fields of the kind's output, read by later steps as steps.<id>.<field>.
	Outputs []string
}

// kindOutputs are the fields of each kind's step output: ConditionOutput, WaitOutput and
// EventOutput here, the actions' results in the activities.
var kindOutputs = map[string][]string{
	models.NodeCondition:        {"result"},
	models.NodeWait:             {"until"},
	models.NodeWaitForEvent:     {"timedOut", "event"},
	models.NodeSendEmail:        {"mailIds"},
	models.NodeCreateTask:       {"taskId"},
	models.NodeCreateDocument:   {"documentId"},
	models.NodeAccrueCommission: {"movementId", "amount", "currency"},
	models.NodeCallWebhook:      {"status"},
	models.NodeUpdatePartner:    {"partnerId"},
	models.NodeEmitEvent:        {"eventId"},
	models.NodeSendSurvey:       {"batchId"},
}

// Kinds lists every node kind in the order of models.PlaybookNodeKinds.
func Kinds() []Kind {
	member := map[string]string{}
	for _, m := range members(models.PlaybookNode{}) {
		member[m.kind] = m.name
	}
	out := make([]Kind, 0, len(models.PlaybookNodeKinds))
	for _, k := range models.PlaybookNodeKinds {
		info := Kind{Kind: k, Member: member[k], Action: models.IsPlaybookAction(k), Labels: labelsOf(k),
			FanOut: k == models.NodeParallel, Outputs: slices.Clone(kindOutputs[k])}
		switch k {
		case models.NodeCondition:
			info.Required = []string{models.EdgeTrue, models.EdgeFalse}
		case models.NodeWaitForEvent:
			info.Required = []string{models.EdgeNext, models.EdgeTimeout}
		case models.NodeTrigger:
			info.Required = []string{models.EdgeNext}
		}
		if info.Outputs == nil {
			info.Outputs = []string{}
		}
		if info.Required == nil {
			info.Required = []string{}
		}
		out = append(out, info)
	}
	return out
}

// Variables lists, for each node of g by id, the names its expressions and templates may read:
// the event (with payload, the fields of the trigger's payload), the partner, now, the outputs
// of the steps that can run before it (steps.<id>.<field>, in graph order) and, for a
// wait_for_event node, the event it receives. A step named is one that some path from the
// trigger passes before the node; on other paths it may be missing (use index in templates).
// Edges naming unknown nodes are ignored; g need not be valid.
func Variables(g models.PlaybookGraph, payload []string) map[string][]string {
	base := []string{"event.id", "event.type", "event.customerId", "event.partnerId", "event.occurredAt", "event.payload"}
	for _, f := range payload {
		base = append(base, "event.payload."+f)
	}
	base = append(base, "partner.id", "partner.name", "partner.type", "partner.level", "partner.status", "partner.custom", "now")

	index := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		if _, dup := index[n.ID]; !dup {
			index[n.ID] = i
		}
	}
	preds := make(map[string][]string, len(g.Nodes))
	for _, e := range g.Edges {
		if _, ok := index[e.From]; !ok {
			continue
		}
		if _, ok := index[e.To]; !ok {
			continue
		}
		preds[e.To] = append(preds[e.To], e.From)
	}
	out := make(map[string][]string, len(g.Nodes))
	for _, n := range g.Nodes {
		if _, done := out[n.ID]; done || n.ID == "" {
			continue
		}
		before := map[string]bool{}
		queue := slices.Clone(preds[n.ID])
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			if before[id] {
				continue
			}
			before[id] = true
			queue = append(queue, preds[id]...)
		}
		vars := slices.Clone(base)
		for i, m := range g.Nodes {
			if !before[m.ID] || index[m.ID] != i {
				continue
			}
			for _, f := range kindOutputs[m.Kind] {
				vars = append(vars, "steps."+m.ID+"."+f)
			}
		}
		if n.Kind == models.NodeWaitForEvent {
			vars = append(vars, "received.id", "received.type", "received.customerId", "received.partnerId", "received.occurredAt", "received.payload")
		}
		out[n.ID] = vars
	}
	return out
}
