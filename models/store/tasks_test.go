package store_test

import (
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestTasksAreScopedAndOnboardingIsAChecklist(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newDealEnv(t, s)
		ctx := e.ctx
		// A partner's task belongs to it; another partner's id is refused; links must be visible.
		mine := &models.Task{Title: "Upload the signed agreement"}
		if err := e.a.CreateTask(ctx, mine); err != nil || *mine.PartnerID != e.partnerA || mine.Status != models.TaskOpen {
			t.Fatalf("partner task = %+v, %v", mine, err)
		}
		if err := e.a.CreateTask(ctx, &models.Task{Title: "x", PartnerID: &e.pB}); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("a task for another partner: %v", err)
		}
		bDeal := e.register(t, e.b, "B Co", "", "", 1)
		if err := e.a.CreateTask(ctx, &models.Task{Title: "x", LinkType: "deal", LinkID: bDeal.ID}); storetest.Code(err) != "TASK_LINK_NOT_FOUND" {
			t.Fatalf("linking another partner's deal: %v", err)
		}
		if err := e.a.CreateTask(ctx, &models.Task{Title: "x", AssigneeUserID: &e.opUserID}); storetest.Code(err) != "ASSIGNEE_NOT_FOUND" {
			t.Fatalf("a partner assigning an operator: %v", err)
		}
		opTask := &models.Task{Title: "Review B", LinkType: "deal", LinkID: bDeal.ID, AssigneeUserID: &e.opUserID}
		if err := e.op.CreateTask(ctx, opTask); err != nil {
			t.Fatal(err)
		}
		if _, err := e.a.Task(ctx, opTask.ID); storetest.Code(err) != "TASK_NOT_FOUND" {
			t.Fatalf("partner A reads an operator task: %v", err)
		}
		if _, err := e.b.CompleteTask(ctx, mine.ID); storetest.Code(err) != "TASK_NOT_FOUND" {
			t.Fatalf("partner B completes A's task: %v", err)
		}
		done, err := e.a.CompleteTask(ctx, mine.ID)
		if err != nil || done.Status != models.TaskDone || done.CompletedAt == nil {
			t.Fatalf("complete = %+v, %v", done, err)
		}
		if again, err := e.a.ReopenTask(ctx, mine.ID); err != nil || again.Status != models.TaskOpen || again.CompletedAt != nil {
			t.Fatalf("reopen = %+v, %v", again, err)
		}

		// Onboarding: the checklist becomes tasks once; progress counts them.
		if _, err := e.op.StartOnboarding(ctx, e.partnerA); storetest.Code(err) != "NO_ONBOARDING_TEMPLATE" {
			t.Fatalf("onboarding without a checklist: %v", err)
		}
		if _, err := e.a.SetOnboardingTemplate(ctx, nil); storetest.Code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner setting the checklist: %v", err)
		}
		if _, err := e.op.SetOnboardingTemplate(ctx, []models.OnboardingItem{{Title: "Sign the agreement", DueInDays: 3}, {Title: "Finish sales training"}, {Title: "Register a first deal"}}); err != nil {
			t.Fatal(err)
		}
		p, err := e.op.StartOnboarding(ctx, e.partnerA)
		if err != nil || p.Total != 3 || p.Done != 0 || p.Tasks[0].DueDate == nil || p.Tasks[1].DueDate != nil {
			t.Fatalf("onboarding = %+v, %v", p, err)
		}
		if _, err := e.op.StartOnboarding(ctx, e.partnerA); storetest.Code(err) != "ONBOARDING_STARTED" {
			t.Fatalf("a second start: %v", err)
		}
		if _, err := e.a.CompleteTask(ctx, p.Tasks[0].ID); err != nil {
			t.Fatal(err)
		}
		p, err = e.a.OnboardingProgress(ctx, e.partnerA)
		if err != nil || p.Total != 3 || p.Done != 1 {
			t.Fatalf("progress = %+v, %v", p, err)
		}
		if _, err := e.a.OnboardingProgress(ctx, e.pB); storetest.Code(err) != "PARTNER_NOT_FOUND" {
			t.Fatalf("partner A reads B's progress: %v", err)
		}
		rows, _, err := e.a.ListTasks(ctx, models.TaskFilter{Source: models.TaskOnboarding}, models.Page{})
		if err != nil || len(rows) != 3 {
			t.Fatalf("partner A's onboarding tasks = %d, %v", len(rows), err)
		}
		if err := e.a.DeleteTask(ctx, mine.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.a.Task(ctx, mine.ID); storetest.Code(err) != "TASK_NOT_FOUND" {
			t.Fatalf("a deleted task: %v", err)
		}
	})
}
