package playbook

import (
	"slices"
	"testing"

	"github.com/partnerd/partnerd/models"
)

func TestKindsDescribeEveryNodeKindAsValidationSeesIt(t *testing.T) {
	kinds := Kinds()
	if len(kinds) != len(models.PlaybookNodeKinds) {
		t.Fatalf("%d kinds described, %d exist", len(kinds), len(models.PlaybookNodeKinds))
	}
	for i, k := range kinds {
		if k.Kind != models.PlaybookNodeKinds[i] {
			t.Fatalf("kind %d = %q, want %q", i, k.Kind, models.PlaybookNodeKinds[i])
		}
		// A node of the kind with only its member set must not be refused for its parameters' placement.
		n := models.PlaybookNode{ID: "n", Kind: k.Kind}
		for _, m := range members(n) {
			if m.kind == k.Kind && m.name != k.Member {
				t.Errorf("%s: member %q, validation says %q", k.Kind, k.Member, m.name)
			}
		}
		if !slices.Equal(k.Labels, labelsOf(k.Kind)) {
			t.Errorf("%s: labels %v, validation accepts %v", k.Kind, k.Labels, labelsOf(k.Kind))
		}
		if k.Action != models.IsPlaybookAction(k.Kind) {
			t.Errorf("%s: action = %v", k.Kind, k.Action)
		}
	}
	byKind := map[string]Kind{}
	for _, k := range kinds {
		byKind[k.Kind] = k
	}
	if m := byKind[models.NodeSendEmail].Member; m != "sendEmail" {
		t.Errorf("send_email member = %q", m)
	}
	if m := byKind[models.NodeParallel].Member; m != "" || !byKind[models.NodeParallel].FanOut {
		t.Errorf("parallel = %+v", byKind[models.NodeParallel])
	}
	if r := byKind[models.NodeCondition].Required; !slices.Equal(r, []string{"true", "false"}) {
		t.Errorf("condition requires %v", r)
	}
	if o := byKind[models.NodeCreateTask].Outputs; !slices.Equal(o, []string{"taskId"}) {
		t.Errorf("create_task outputs %v", o)
	}
}

func TestVariablesNameWhatEachNodeCanRead(t *testing.T) {
	g := models.DemoDealWonGraph()
	vars := Variables(g, []string{"amountMinor", "customerCompany"})
	has := func(node, name string) bool { return slices.Contains(vars[node], name) }
	for _, want := range []string{"event.payload.amountMinor", "partner.name", "now", "steps.big.result", "steps.kickoff.taskId", "steps.certificate.documentId"} {
		if !has("announce", want) {
			t.Errorf("announce cannot read %s: %v", want, vars["announce"])
		}
	}
	if has("kickoff", "steps.certificate.documentId") {
		t.Error("kickoff reads the output of certificate, a parallel branch that need not have run")
	}
	if has("big", "steps.big.result") || !has("big", "event.payload.customerCompany") {
		t.Errorf("big reads %v", vars["big"])
	}
	if has("announce", "received.id") {
		t.Error("received is offered outside wait_for_event")
	}

	// A wait_for_event node reads the event it receives; a loop makes a node's own output readable.
	loop := models.PlaybookGraph{Nodes: []models.PlaybookNode{
		{ID: "t", Kind: models.NodeTrigger},
		{ID: "w", Kind: models.NodeWaitForEvent},
		{ID: "c", Kind: models.NodeCondition},
	}, Edges: []models.PlaybookEdge{{From: "t", To: "w"}, {From: "w", To: "c"}, {From: "c", To: "w", Label: "false"}, {From: "c", To: "ghost"}}}
	lv := Variables(loop, nil)
	if !slices.Contains(lv["w"], "received.payload") || !slices.Contains(lv["w"], "steps.c.result") || !slices.Contains(lv["w"], "steps.w.event") {
		t.Errorf("w reads %v", lv["w"])
	}
	if slices.Contains(lv["t"], "steps.c.result") {
		t.Errorf("the trigger reads %v", lv["t"])
	}
}
