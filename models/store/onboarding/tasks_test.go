package onboarding_test

import (
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestTasksAreScopedAndOnboardingIsAChecklist(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		// A partner's task belongs to it; another partner's id is refused; links must be visible.
		mine := &models.Task{Title: "Upload the signed agreement"}
		if err := e.A.CreateTask(ctx, mine); err != nil || *mine.PartnerID != e.PartnerA || mine.Status != models.TaskOpen {
			t.Fatalf("partner task = %+v, %v", mine, err)
		}
		if err := e.A.CreateTask(ctx, &models.Task{Title: "x", PartnerID: &e.PartnerB}); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("a task for another partner: %v", err)
		}
		bDeal := e.Register(t, e.B, "B Co", "", "", 1)
		if err := e.A.CreateTask(ctx, &models.Task{Title: "x", LinkType: "deal", LinkID: bDeal.ID}); storetest.Code(err) != "TASK_LINK_NOT_FOUND" {
			t.Fatalf("linking another partner's deal: %v", err)
		}
		if err := e.A.CreateTask(ctx, &models.Task{Title: "x", AssigneeUserID: &e.OpUserID}); storetest.Code(err) != "ASSIGNEE_NOT_FOUND" {
			t.Fatalf("a partner assigning an operator: %v", err)
		}
		opTask := &models.Task{Title: "Review B", LinkType: "deal", LinkID: bDeal.ID, AssigneeUserID: &e.OpUserID}
		if err := e.Op.CreateTask(ctx, opTask); err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.Task(ctx, opTask.ID); storetest.Code(err) != "TASK_NOT_FOUND" {
			t.Fatalf("partner A reads an operator task: %v", err)
		}
		if _, err := e.B.CompleteTask(ctx, mine.ID); storetest.Code(err) != "TASK_NOT_FOUND" {
			t.Fatalf("partner B completes A's task: %v", err)
		}
		done, err := e.A.CompleteTask(ctx, mine.ID)
		if err != nil || done.Status != models.TaskDone || done.CompletedAt == nil {
			t.Fatalf("complete = %+v, %v", done, err)
		}
		if again, err := e.A.ReopenTask(ctx, mine.ID); err != nil || again.Status != models.TaskOpen || again.CompletedAt != nil {
			t.Fatalf("reopen = %+v, %v", again, err)
		}

		// Onboarding: the checklist becomes tasks once; progress counts them.
		if _, err := e.Op.StartOnboarding(ctx, e.PartnerA); storetest.Code(err) != "NO_ONBOARDING_TEMPLATE" {
			t.Fatalf("onboarding without a checklist: %v", err)
		}
		if _, err := e.Op.SetOnboardingTemplate(ctx, []models.OnboardingItem{{Title: "Sign the agreement", DueInDays: 3}, {Title: "Finish sales training"}, {Title: "Register a first deal"}}); err != nil {
			t.Fatal(err)
		}
		p, err := e.Op.StartOnboarding(ctx, e.PartnerA)
		if err != nil || p.Total != 3 || p.Done != 0 || p.Tasks[0].DueDate == nil || p.Tasks[1].DueDate != nil {
			t.Fatalf("onboarding = %+v, %v", p, err)
		}
		if _, err := e.Op.StartOnboarding(ctx, e.PartnerA); storetest.Code(err) != "ONBOARDING_STARTED" {
			t.Fatalf("a second start: %v", err)
		}
		if _, err := e.A.CompleteTask(ctx, p.Tasks[0].ID); err != nil {
			t.Fatal(err)
		}
		p, err = e.A.OnboardingProgress(ctx, e.PartnerA)
		if err != nil || p.Total != 3 || p.Done != 1 {
			t.Fatalf("progress = %+v, %v", p, err)
		}
		if _, err := e.A.OnboardingProgress(ctx, e.PartnerB); storetest.Code(err) != "PARTNER_NOT_FOUND" {
			t.Fatalf("partner A reads B's progress: %v", err)
		}
		rows, _, err := e.A.ListTasks(ctx, models.TaskFilter{Source: models.TaskOnboarding}, models.Page{})
		if err != nil || len(rows) != 3 {
			t.Fatalf("partner A's onboarding tasks = %d, %v", len(rows), err)
		}
		if err := e.A.DeleteTask(ctx, mine.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.Task(ctx, mine.ID); storetest.Code(err) != "TASK_NOT_FOUND" {
			t.Fatalf("a deleted task: %v", err)
		}
	})
}
