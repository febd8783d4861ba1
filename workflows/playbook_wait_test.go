package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	pdmail "github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/playbook"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// onboardingRun starts the demo onboarding playbook for a partner.approved event and returns
// the workflow input of its run.
func onboardingRun(t *testing.T, e *payoutEnv) workflows.PlaybookRunInput {
	t.Helper()
	pb := &models.Playbook{Name: "Onboarding", Graph: models.DemoOnboardingGraph()}
	if err := e.op.CreatePlaybook(e.ctx, pb); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.PublishPlaybook(e.ctx, pb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.SetPlaybookStatus(e.ctx, pb.ID, models.PlaybookEnabled); err != nil {
		t.Fatal(err)
	}
	partner := e.partnerID
	ev, err := e.st.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: models.EventPartnerApproved, PartnerID: &partner,
		Payload: `{"applicationId":"a1","organisation":"Alpha","partnerType":"reseller","contactEmail":"ada@alpha.test","status":"approved","partnerId":"` + partner + `"}`})
	if err != nil {
		t.Fatal(err)
	}
	starts, err := (&activities.Playbooks{Store: e.st}).StartRuns(e.ctx, activities.EventRef{TenantID: e.tenantID, EventID: ev.ID})
	if err != nil || len(starts) != 1 {
		t.Fatalf("runs started %+v, %v", starts, err)
	}
	s := starts[0]
	return workflows.PlaybookRunInput{TenantID: e.tenantID, RunID: s.RunID, PlaybookID: s.PlaybookID, Version: s.Version, EventID: ev.ID, Limit: s.Limit}
}

func (e *payoutEnv) playbookDeps() worker.Deps {
	mail := &activities.Mail{Sender: &pdmail.Outbox{From: "partners@example.test"}, Store: e.st}
	return worker.Deps{System: &activities.System{}, Mail: mail, Playbooks: &activities.Playbooks{Store: e.st, Mail: mail}}
}

func stepsOf(t *testing.T, e *payoutEnv, runID string) (models.PlaybookRun, map[string]models.PlaybookStep) {
	t.Helper()
	run, steps, err := e.op.PlaybookRun(e.ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]models.PlaybookStep{}
	for _, s := range steps {
		out[s.NodeID] = s
	}
	return *run, out
}

func TestTheOnboardingPlaybookStopsWaitingWhenTheAgreementIsAccepted(t *testing.T) {
	e := newPayoutEnv(t, "onboarding-signed")
	in := onboardingRun(t, e)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, e.playbookDeps())
	var waiting []string
	env.RegisterDelayedCallback(func() {
		partner := e.partnerID
		var err error
		if waiting, err = e.st.RunsWaitingFor(e.ctx, models.System(e.tenantID), models.EventAgreementAccepted, &partner); err != nil {
			t.Error(err)
		}
		// Another event does not count; the agreement's acceptance does.
		env.SignalWorkflow(workflows.PlaybookEventSignal, playbook.EventEnv{Type: models.EventTaskCompleted, Payload: map[string]any{"taskId": "other"}})
		env.SignalWorkflow(workflows.PlaybookEventSignal, playbook.EventEnv{Type: models.EventAgreementAccepted, Payload: map[string]any{"agreementId": "a1", "partnerId": partner}})
	}, 26*time.Hour)
	env.ExecuteWorkflow(workflows.PlaybookRun, in)
	var res workflows.PlaybookRunResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.RunCompleted {
		t.Fatalf("run %+v, %v", res, err)
	}
	if len(waiting) != 1 || waiting[0] != in.RunID {
		t.Fatalf("runs waiting for agreement.accepted: %v", waiting)
	}
	_, steps := stepsOf(t, e, in.RunID)
	if _, ok := steps["thanks"]; !ok {
		t.Fatalf("the signed branch did not run: %+v", steps)
	}
	if _, ok := steps["reminder"]; ok {
		t.Fatal("a reminder was sent although the agreement was signed")
	}
	mails, _, _ := e.op.ListMail(e.ctx, models.MailFilter{}, models.Page{Limit: 10})
	if len(mails) != 1 || mails[0].To != "ada@alpha.test" || mails[0].Subject != "Welcome to the partner program, Alpha" {
		t.Fatalf("mail %+v", mails)
	}
}

func TestTheOnboardingPlaybookRemindsAfterThreeDays(t *testing.T) {
	e := newPayoutEnv(t, "onboarding-reminder")
	in := onboardingRun(t, e)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, e.playbookDeps())
	start := env.Now()
	env.ExecuteWorkflow(workflows.PlaybookRun, in)
	var res workflows.PlaybookRunResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.RunCompleted {
		t.Fatalf("run %+v, %v", res, err)
	}
	if waited := env.Now().Sub(start); waited < 72*time.Hour {
		t.Fatalf("the run ended after %v", waited)
	}
	_, steps := stepsOf(t, e, in.RunID)
	if _, ok := steps["reminder"]; !ok {
		t.Fatalf("no reminder: %+v", steps)
	}
	mails, _, _ := e.op.ListMail(e.ctx, models.MailFilter{}, models.Page{Limit: 10})
	if len(mails) != 2 || mails[1].Subject != "Reminder: your partner agreement is waiting" {
		t.Fatalf("mail %+v", mails)
	}
}

func TestACancelledRunStopsWaitingAndIsRecorded(t *testing.T) {
	e := newPayoutEnv(t, "onboarding-cancel")
	in := onboardingRun(t, e)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, e.playbookDeps())
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(workflows.PlaybookRun, in)
	run, steps := stepsOf(t, e, in.RunID)
	if run.Status != models.RunCancelled || run.EndedAt == nil {
		t.Fatalf("run %+v", run)
	}
	if s := steps["signed"]; s.Status != models.StepFailed || s.Error != "cancelled" {
		t.Fatalf("the waiting step %+v", s)
	}
	if _, ok := steps["reminder"]; ok {
		t.Fatal("a cancelled run sent its reminder")
	}
}

func TestTheFanOutSignalsRunsWaitingForAnEventOfTheirPartner(t *testing.T) {
	e := newPayoutEnv(t, "onboarding-route")
	in := onboardingRun(t, e)
	if _, admitted, err := e.st.BeginPlaybookRun(e.ctx, &models.PlaybookRun{ID: in.RunID, TenantID: e.tenantID, PlaybookID: in.PlaybookID,
		Version: in.Version, EventID: in.EventID}, in.Limit); err != nil || !admitted {
		t.Fatalf("admission %v, %v", admitted, err)
	}
	if err := e.st.RecordPlaybookStep(e.ctx, &models.PlaybookStep{ID: models.NewID(), TenantID: e.tenantID, RunID: in.RunID, NodeID: "signed",
		Kind: models.NodeWaitForEvent, Status: models.StepRunning, Output: `{"waitingFor":"task.completed"}`, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	task := &models.Task{Title: "Sign the partner agreement"}
	if err := e.partner.CreateTask(e.ctx, task); err != nil {
		t.Fatal(err)
	}
	done, err := e.partner.CompleteTask(e.ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	evs, _, _ := e.op.ListEvents(e.ctx, models.EventFilter{Type: models.EventTaskCompleted}, models.Page{})
	if len(evs) != 1 || done.Status != models.TaskDone {
		t.Fatalf("task.completed events %+v", evs)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	deps := e.playbookDeps()
	deps.Events = &activities.Events{Store: e.st}
	worker.Register(env, deps)
	var sent playbook.EventEnv
	env.OnSignalExternalWorkflow(mock.Anything, workflows.PlaybookRunWorkflowID(in.RunID), "", workflows.PlaybookEventSignal, mock.Anything).
		Return(func(_, _, _, _ string, arg any) error {
			sent = arg.(playbook.EventEnv)
			return nil
		})
	env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.tenantID, EventID: evs[0].ID, Type: evs[0].Type})
	var res workflows.EventFanoutResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(res.Signalled) != 1 || res.Signalled[0] != in.RunID || sent.Payload["taskId"] != task.ID {
		t.Fatalf("fan-out %+v signalled %+v", res, sent)
	}
	// Another partner's completed task reaches no run.
	if ids, err := e.st.RunsWaitingFor(e.ctx, models.System(e.tenantID), models.EventTaskCompleted, new(string)); err != nil || len(ids) != 0 {
		t.Fatalf("runs waiting for another partner's events: %v, %v", ids, err)
	}
}

func TestAPlaybookStopsStartingRunsAtTheCausationDepthLimit(t *testing.T) {
	e := newPayoutEnv(t, "onboarding-depth")
	onboardingRun(t, e) // enables the onboarding playbook (and starts one run at depth 0)
	partner := e.partnerID
	starts := func(depth int) int {
		cause := models.NewID()
		ev, err := e.st.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: models.EventPartnerApproved, PartnerID: &partner,
			CausationID: &cause, Depth: depth, Payload: `{"contactEmail":"ada@alpha.test","organisation":"Alpha"}`})
		if err != nil {
			t.Fatal(err)
		}
		runs, err := (&activities.Playbooks{Store: e.st}).StartRuns(e.ctx, activities.EventRef{TenantID: e.tenantID, EventID: ev.ID})
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}
	if n := starts(models.MaxPlaybookDepth - 1); n != 1 {
		t.Fatalf("an event just below the limit started %d runs", n)
	}
	if n := starts(models.MaxPlaybookDepth); n != 0 {
		t.Fatalf("an event at the depth limit started %d runs", n)
	}
}
