package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		newTask := func(scope *stores.Scoped) string {
			task := &models.Task{Title: "Sign the agreement"}
			if err := scope.CreateTask(ctx, task); err != nil {
				t.Fatal(err)
			}
			return task.ID
		}
		f.ids["task1"], f.ids["task2"] = newTask(p1), newTask(p2)
		f.fresh["task"] = func(string) string { return newTask(p1) }
		if _, err := sc.SetOnboardingTemplate(ctx, []models.OnboardingItem{{Title: "Sign the agreement", DueInDays: 7}, {Title: "Complete training"}}); err != nil {
			t.Fatal(err)
		}
		f.fresh["partner"] = func(string) string {
			p := &models.Partner{Name: "Fresh", Type: models.PartnerAgency}
			if err := sc.CreatePartner(ctx, p); err != nil {
				t.Fatal(err)
			}
			return p.ID
		}
	})
	task := func(method, name, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, _ string) request { return request{method, "/api/tasks/" + f.ids[name] + suffix, body} }
	}
	other := func(method, suffix string, body map[string]any) func(*fixture) request {
		return func(f *fixture) request { return request{method, "/api/tasks/" + f.ids["task2"] + suffix, body} }
	}
	cases := map[string]matrixCase{
		"create-task": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/tasks", map[string]any{"title": "Call back", "dueDate": "2027-01-15"}}
		}},
		"list-tasks":    {call: get("/api/tasks")},
		"get-task":      {byID: true, call: task(http.MethodGet, "task1", "", nil), otherPartner: other(http.MethodGet, "", nil)},
		"update-task":   {byID: true, call: task(http.MethodPatch, "task1", "", map[string]any{"title": "Renamed"}), otherPartner: other(http.MethodPatch, "", map[string]any{"title": "x"})},
		"complete-task": {byID: true, call: task(http.MethodPost, "task1", "/complete", nil), otherPartner: other(http.MethodPost, "/complete", nil)},
		"reopen-task":   {byID: true, call: task(http.MethodPost, "task1", "/reopen", nil), otherPartner: other(http.MethodPost, "/reopen", nil)},
		"delete-task": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["task1"]
			if role != "foreign" && role != "" {
				id = f.fresh["task"](role)
			}
			return request{http.MethodDelete, "/api/tasks/" + id, nil}
		}, otherPartner: other(http.MethodDelete, "", nil)},
		"get-onboarding-template": {call: get("/api/onboarding-template")},
		"set-onboarding-template": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/onboarding-template", map[string]any{"items": []map[string]any{{"title": "Sign the agreement", "dueInDays": 7}}}}
		}},
		"start-partner-onboarding": {byID: true, call: func(f *fixture, role string) request {
			id := f.partner1
			if role != "foreign" && role != "" {
				id = f.fresh["partner"](role)
			}
			return request{http.MethodPost, "/api/partners/" + id + "/onboarding", nil}
		}},
		"get-partner-onboarding": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/partners/" + f.partner1 + "/onboarding", nil}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodGet, "/api/partners/" + f.partner2 + "/onboarding", nil}
		}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
