package workflows_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// bigDealGraph: deal.won → amount ≥ 100 000 → wait 7 days → in parallel a partner task and a
// webhook call → join; small deals emit crm.small_deal instead.
func bigDealGraph(hookURL string) models.PlaybookGraph {
	return models.PlaybookGraph{
		Trigger: models.PlaybookTrigger{EventType: models.EventDealWon},
		Nodes: []models.PlaybookNode{
			{ID: "start", Kind: models.NodeTrigger},
			{ID: "big", Kind: models.NodeCondition, Condition: &models.PlaybookCondition{Expression: "event.payload.amountMinor >= 100000"}},
			{ID: "settle", Kind: models.NodeWait, Wait: &models.PlaybookWait{Duration: "7d"}},
			{ID: "fan", Kind: models.NodeParallel},
			{ID: "review", Kind: models.NodeCreateTask, CreateTask: &models.PlaybookCreateTask{
				Title: "Review {{.event.payload.dealId}} with {{.partner.name}}", Assignee: models.AssigneePartner, DueInDays: 3}},
			{ID: "crm", Kind: models.NodeCallWebhook, CallWebhook: &models.PlaybookCallWebhook{URL: hookURL,
				Body: `{"deal":"{{.event.payload.dealId}}","amount":{{.event.payload.amountMinor}}}`}},
			{ID: "done", Kind: models.NodeJoin},
			{ID: "done_small", Kind: models.NodeEmitEvent, EmitEvent: &models.PlaybookEmitEvent{Type: "crm.small_deal",
				Payload: `{"deal":"{{.event.payload.dealId}}"}`}},
		},
		Edges: []models.PlaybookEdge{
			{From: "start", To: "big"}, {From: "big", To: "settle", Label: models.EdgeTrue},
			{From: "settle", To: "fan"}, {From: "fan", To: "review"}, {From: "fan", To: "crm"},
			{From: "review", To: "done"}, {From: "crm", To: "done"},
			{From: "big", To: "done_small", Label: models.EdgeFalse},
		},
	}
}

func TestAPlaybookRunWaitsAWeekThenActsInParallelOnce(t *testing.T) {
	e := newPayoutEnv(t, "playbook-run")
	hook := newReceiver(t)
	g := bigDealGraph(hook.srv.URL + "/crm")
	pb := &models.Playbook{Name: "Big deals", Graph: g}
	if err := e.op.CreatePlaybook(e.ctx, pb); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.PublishPlaybook(e.ctx, pb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.SetPlaybookStatus(e.ctx, pb.ID, models.PlaybookEnabled); err != nil {
		t.Fatal(err)
	}
	deps := worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: e.st},
		Playbooks: &activities.Playbooks{Store: e.st, HTTP: http.DefaultClient, Keyring: e.keys}}
	partner := e.partnerID
	run := func(amount string) (workflows.EventFanoutResult, time.Duration) {
		won, err := e.st.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: models.EventDealWon, PartnerID: &partner,
			Payload: `{"dealId":"acme-` + amount + `","amountMinor":` + amount + `,"currency":"EUR"}`})
		if err != nil {
			t.Fatal(err)
		}
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		env.SetStartTime(time.Now())
		worker.Register(env, deps)
		start := env.Now()
		env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.tenantID, EventID: won.ID, Type: won.Type})
		var res workflows.EventFanoutResult
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		return res, env.Now().Sub(start)
	}

	res, _ := run("150000")
	if len(res.Runs) != 1 {
		t.Fatalf("fan-out %+v", res)
	}
	got, steps, err := e.op.PlaybookRun(e.ctx, res.Runs[0])
	if err != nil || got.Status != models.RunCompleted || got.Version != 1 {
		t.Fatalf("run %+v, %v", got, err)
	}
	order := map[string]models.PlaybookStep{}
	for _, s := range steps {
		if s.Status != models.StepCompleted || s.EndedAt == nil {
			t.Fatalf("step %+v", s)
		}
		order[s.NodeID] = s
	}
	for _, id := range []string{"start", "big", "settle", "fan", "review", "crm", "done"} {
		if _, ok := order[id]; !ok {
			t.Fatalf("no step %s in %+v", id, steps)
		}
	}
	if waited := order["fan"].StartedAt.Sub(order["settle"].StartedAt); waited < 7*24*time.Hour {
		t.Fatalf("the run waited %v before fanning out", waited)
	}
	tasks, _, err := e.partner.ListTasks(e.ctx, models.TaskFilter{}, models.Page{Limit: 10})
	if err != nil || len(tasks) != 1 || tasks[0].Title != "Review acme-150000 with Alpha" {
		t.Fatalf("tasks %+v, %v", tasks, err)
	}
	calls := hook.got()
	if len(calls) != 1 || string(calls[0].body) != `{"deal":"acme-150000","amount":150000}` {
		t.Fatalf("webhook calls %+v", calls)
	}
	secret, _ := activities.SigningSecret(e.keys, e.tenantID)
	verifier, err := standardwebhooks.NewWebhook(secret.Reveal())
	if err != nil {
		t.Fatal(err)
	}
	if err := verifier.Verify(calls[0].body, calls[0].header); err != nil {
		t.Fatalf("signature: %v", err)
	}

	// Once the tenant sets its own secret, calls are signed with it.
	own, _ := models.NewWebhookSecret()
	sealed, err := e.keys.Seal(own, models.SealContext{TenantID: e.tenantID, Table: "playbook_settings", RowID: e.tenantID, Field: "webhook_secret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.SetPlaybookWebhookSecret(e.ctx, sealed); err != nil {
		t.Fatal(err)
	}
	run("150001")
	calls = hook.got()
	ownVerifier, err := standardwebhooks.NewWebhook(own.Reveal())
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || ownVerifier.Verify(calls[1].body, calls[1].header) != nil || verifier.Verify(calls[1].body, calls[1].header) == nil {
		t.Fatalf("the second call is not signed with the tenant's own secret only: %d calls", len(calls))
	}

	// A small deal takes the false branch: no task, no call, the event emitted in the chain.
	res, _ = run("5000")
	got, _, _ = e.op.PlaybookRun(e.ctx, res.Runs[0])
	if got.Status != models.RunCompleted {
		t.Fatalf("small run %+v", got)
	}
	if tasks, _, _ := e.partner.ListTasks(e.ctx, models.TaskFilter{}, models.Page{Limit: 10}); len(tasks) != 2 || len(hook.got()) != 2 {
		t.Fatalf("the small deal acted: %d tasks, %d calls", len(tasks), len(hook.got()))
	}
	small, _, err := e.op.ListEvents(context.Background(), models.EventFilter{Type: "crm.small_deal"}, models.Page{})
	if err != nil || len(small) != 1 || small[0].Depth != 1 || small[0].CausationID == nil {
		t.Fatalf("emitted events %+v, %v", small, err)
	}
}

func TestAnActionRefusedForGoodFailsItsStepAndTheRunOnce(t *testing.T) {
	e := newPayoutEnv(t, "playbook-refused")
	g := models.PlaybookGraph{
		Trigger: models.PlaybookTrigger{EventType: models.EventDealWon},
		Nodes: []models.PlaybookNode{
			{ID: "start", Kind: models.NodeTrigger},
			{ID: "bonus", Kind: models.NodeAccrueCommission, AccrueCommission: &models.PlaybookAccrueCommission{AmountMinor: 5000, Currency: "EUR", Reason: "Won"}},
		},
		Edges: []models.PlaybookEdge{{From: "start", To: "bonus"}},
	}
	pb := &models.Playbook{Name: "Bonus", Graph: g}
	if err := e.op.CreatePlaybook(e.ctx, pb); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.PublishPlaybook(e.ctx, pb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.SetPlaybookStatus(e.ctx, pb.ID, models.PlaybookEnabled); err != nil {
		t.Fatal(err)
	}
	// An event attributed to no partner: the bonus has nobody to pay, which no retry changes.
	won, err := e.st.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: models.EventDealWon,
		Payload: `{"dealId":"acme-1","amountMinor":100,"currency":"EUR"}`})
	if err != nil {
		t.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: e.st}, Playbooks: &activities.Playbooks{Store: e.st}})
	env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.tenantID, EventID: won.ID, Type: won.Type})
	var res workflows.EventFanoutResult
	if err := env.GetWorkflowResult(&res); err != nil || len(res.Runs) != 1 {
		t.Fatalf("fan-out %+v, %v", res, err)
	}
	run, steps, err := e.op.PlaybookRun(e.ctx, res.Runs[0])
	if err != nil || run.Status != models.RunFailed || !strings.Contains(run.Error, "no partner") {
		t.Fatalf("run %+v, %v", run, err)
	}
	if len(steps) != 2 {
		t.Fatalf("steps %+v", steps)
	}
	for _, s := range steps {
		switch {
		case s.NodeID == "start" && s.Status == models.StepCompleted && s.EndedAt != nil:
		case s.NodeID == "bonus" && s.Status == models.StepFailed && s.EndedAt != nil && strings.Contains(s.Error, "no partner"):
		default:
			t.Fatalf("step %+v", s)
		}
	}
}
