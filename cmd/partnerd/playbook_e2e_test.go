package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/partnerd/partnerd/workflows"
)

// TestADealWonPlaybookRunsOnTheEmbeddedServer: deal.won → a condition on the amount → a wait →
// a partner task and a signed webhook call in parallel → join; the task and the call are
// visible and the run is recorded as completed with every step. With
// PARTNERD_RECORD_PLAYBOOK_HISTORY set to a file, the run's workflow history is written there,
// and with PARTNERD_RECORD_FANOUT_HISTORY the history of the deal.won event's fan-out (they are
// the recorded histories workflows/testdata replays).
func TestADealWonPlaybookRunsOnTheEmbeddedServer(t *testing.T) {
	const password = "bootstrap-Password-0451"
	var mu sync.Mutex
	var calls []http.Header
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.Header.Clone())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	temporalPort := freeTCPPort(t)
	r := startServe(t, map[string]string{
		"PARTNERD_DATA_DIR":                 t.TempDir(),
		"PARTNERD_HTTP_ADDR":                "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":            temporalPort,
		"PARTNERD_BOOTSTRAP_EMAIL":          "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD":       password,
		"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
	})
	defer r.shutdown(t)
	base := "http://" + r.addr
	owner := login(t, base, "founder@example.test", password)
	bob := login(t, base, "bob@contoso.demo", password)

	graph := map[string]any{
		"trigger": map[string]any{"eventType": "deal.won"},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "big", "kind": "condition", "condition": map[string]any{"expression": "event.payload.amountMinor >= 100000"}},
			{"id": "settle", "kind": "wait", "wait": map[string]any{"duration": "2s"}},
			{"id": "fan", "kind": "parallel"},
			{"id": "review", "kind": "create_task", "createTask": map[string]any{"title": "Kick-off with {{.event.payload.customerCompany}}", "assignee": "partner", "dueInDays": 5}},
			{"id": "crm", "kind": "call_webhook", "callWebhook": map[string]any{"url": receiver.URL + "/crm", "body": `{"deal":"{{.event.payload.dealId}}"}`}},
			{"id": "done", "kind": "join"},
			{"id": "small", "kind": "emit_event", "emitEvent": map[string]any{"type": "crm.small_deal"}},
		},
		"edges": []map[string]any{
			{"from": "start", "to": "big"}, {"from": "big", "to": "settle", "label": "true"}, {"from": "big", "to": "small", "label": "false"},
			{"from": "settle", "to": "fan"}, {"from": "fan", "to": "review"}, {"from": "fan", "to": "crm"},
			{"from": "review", "to": "done"}, {"from": "crm", "to": "done"},
		},
	}
	var pb struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, base+"/api/playbooks", owner, map[string]any{"name": "Big deals", "graph": graph}, &pb); code != http.StatusCreated {
		t.Fatalf("create playbook = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/playbooks/"+pb.ID+"/publish", owner, nil, nil); code != http.StatusCreated {
		t.Fatalf("publish = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/playbooks/"+pb.ID+"/enable", owner, nil, nil); code != http.StatusOK {
		t.Fatalf("enable = %d", code)
	}

	dealID, won := approvedDeal(t, base, owner, bob, "Initrode", "initrode.test", 250_000)
	if code := call(t, http.MethodPost, base+"/api/deals/"+dealID+"/move", bob, map[string]any{"stageId": won}, nil); code != http.StatusOK {
		t.Fatalf("win deal = %d", code)
	}

	var runs struct {
		Data []struct {
			ID      string `json:"id"`
			Status  string `json:"status"`
			EventID string `json:"eventId"`
		} `json:"data"`
	}
	eventually(t, "the completed run", time.Minute, func() bool {
		call(t, http.MethodGet, base+"/api/playbook-runs?playbookId="+pb.ID, owner, nil, &runs)
		return len(runs.Data) == 1 && runs.Data[0].Status == "completed"
	})
	var detail struct {
		Status string `json:"status"`
		Steps  []struct {
			NodeID string `json:"nodeId"`
			Status string `json:"status"`
		} `json:"steps"`
	}
	call(t, http.MethodGet, base+"/api/playbook-runs/"+runs.Data[0].ID, owner, nil, &detail)
	done := map[string]bool{}
	for _, s := range detail.Steps {
		done[s.NodeID] = s.Status == "completed"
	}
	for _, id := range []string{"start", "big", "settle", "fan", "review", "crm", "done"} {
		if !done[id] {
			t.Fatalf("step %s not completed in %+v", id, detail)
		}
	}
	if done["small"] {
		t.Fatal("the small-deal branch ran for a big deal")
	}
	var tasks struct {
		Data []struct {
			Title string `json:"title"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/tasks", bob, nil, &tasks)
	found := false
	for _, task := range tasks.Data {
		found = found || task.Title == "Kick-off with Initrode"
	}
	if !found {
		t.Fatalf("the partner's tasks %+v lack the playbook's task", tasks)
	}
	mu.Lock()
	got := append([]http.Header(nil), calls...)
	mu.Unlock()
	if len(got) != 1 || got[0].Get("webhook-signature") == "" || got[0].Get("webhook-id") == "" {
		t.Fatalf("webhook calls %v", got)
	}

	// The run's cost: the webhook call is its one activity; the store work and the task are
	// local activities, so the steps between the start, the wait and the call's answer take one
	// workflow task each.
	h := workflowHistory(t, "127.0.0.1:"+temporalPort, workflows.PlaybookRunWorkflowID(runs.Data[0].ID))
	activities, workflowTasks := 0, 0
	for _, e := range h.Events {
		switch e.GetEventType() {
		case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			activities++
		case enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			workflowTasks++
		}
	}
	if activities != 1 || workflowTasks > 4 {
		t.Fatalf("the run took %d activities and %d workflow tasks, want 1 and at most 4", activities, workflowTasks)
	}

	if path := os.Getenv("PARTNERD_RECORD_PLAYBOOK_HISTORY"); path != "" {
		recordHistory(t, "127.0.0.1:"+temporalPort, workflows.PlaybookRunWorkflowID(runs.Data[0].ID), path)
	}
	if path := os.Getenv("PARTNERD_RECORD_FANOUT_HISTORY"); path != "" {
		recordHistory(t, "127.0.0.1:"+temporalPort, workflows.EventWorkflowID(runs.Data[0].EventID), path)
	}
}

// recordHistory writes a workflow's history as JSON, the format the replayer reads.
func recordHistory(t *testing.T, address, workflowID, path string) {
	t.Helper()
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(workflowHistory(t, address, workflowID))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// workflowHistory reads a workflow's history once the workflow has closed.
func workflowHistory(t *testing.T, address, workflowID string) *historypb.History {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: address, Logger: discardSDKLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.GetWorkflow(ctx, workflowID, "").Get(ctx, nil); err != nil {
		t.Fatalf("workflow %s: %v", workflowID, err)
	}
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}
