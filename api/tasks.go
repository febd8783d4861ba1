package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// TaskStore is what the task and onboarding operations need of storage, as the caller sees it.
type TaskStore interface {
	CreateTask(ctx context.Context, t *models.Task) error
	ListTasks(ctx context.Context, f models.TaskFilter, pg models.Page) ([]models.Task, string, error)
	Task(ctx context.Context, id string) (*models.Task, error)
	UpdateTask(ctx context.Context, id string, c models.TaskChanges) (*models.Task, error)
	CompleteTask(ctx context.Context, id string) (*models.Task, error)
	ReopenTask(ctx context.Context, id string) (*models.Task, error)
	DeleteTask(ctx context.Context, id string) error
	OnboardingTemplate(ctx context.Context) ([]models.OnboardingItem, error)
	SetOnboardingTemplate(ctx context.Context, items []models.OnboardingItem) ([]models.OnboardingItem, error)
	StartOnboarding(ctx context.Context, partnerID string) (*models.OnboardingProgress, error)
	OnboardingProgress(ctx context.Context, partnerID string) (*models.OnboardingProgress, error)
}

// tasks is the task and onboarding store as the caller sees it.
func (s *Server) tasks(ctx context.Context) TaskStore {
	return s.deps.Modules.Tasks(models.PrincipalFrom(ctx))
}

// Task is a piece of work as the API shows it.
type Task struct {
	ID             string     `json:"id"`
	PartnerID      string     `json:"partnerId,omitempty" doc:"The partner organisation the task belongs to"`
	AssigneeUserID string     `json:"assigneeUserId,omitempty"`
	Title          string     `json:"title"`
	Description    string     `json:"description,omitempty"`
	DueDate        string     `json:"dueDate,omitempty" format:"date"`
	Status         string     `json:"status" enum:"open,done"`
	LinkType       string     `json:"linkType,omitempty" enum:"deal,customer,partner"`
	LinkID         string     `json:"linkId,omitempty"`
	Source         string     `json:"source" enum:"manual,onboarding"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	CompletedAt    *time.Time `json:"completedAt,omitempty"`
}

func taskOf(t *models.Task) Task {
	return Task{ID: t.ID, PartnerID: str(t.PartnerID), AssigneeUserID: str(t.AssigneeUserID), Title: t.Title, Description: t.Description,
		DueDate: str(t.DueDate), Status: t.Status, LinkType: t.LinkType, LinkID: t.LinkID, Source: t.Source,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, CompletedAt: t.CompletedAt}
}

// CreateTaskInput adds a task.
type CreateTaskInput struct {
	Body struct {
		Title          string `json:"title" minLength:"1" maxLength:"200"`
		Description    string `json:"description,omitempty" maxLength:"5000"`
		PartnerID      string `json:"partnerId,omitempty" maxLength:"36" doc:"The partner organisation it belongs to; partners always create their own"`
		AssigneeUserID string `json:"assigneeUserId,omitempty" maxLength:"36"`
		DueDate        string `json:"dueDate,omitempty" format:"date"`
		LinkType       string `json:"linkType,omitempty" enum:"deal,customer,partner"`
		LinkID         string `json:"linkId,omitempty" maxLength:"36"`
	}
}

// UpdateTaskInput changes a task; absent fields stay, "" clears dueDate and assigneeUserId.
type UpdateTaskInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Title          *string `json:"title,omitempty" minLength:"1" maxLength:"200"`
		Description    *string `json:"description,omitempty" maxLength:"5000"`
		DueDate        *string `json:"dueDate,omitempty" maxLength:"10" pattern:"^(\\d{4}-\\d{2}-\\d{2})?$"`
		AssigneeUserID *string `json:"assigneeUserId,omitempty" maxLength:"36"`
	}
}

// ListTasksInput filters tasks.
type ListTasksInput struct {
	ListParams
	PartnerID      string `query:"partnerId" maxLength:"36"`
	AssigneeUserID string `query:"assigneeUserId" maxLength:"36"`
	Status         string `query:"status" enum:"open,done"`
	LinkType       string `query:"linkType" enum:"deal,customer,partner"`
	LinkID         string `query:"linkId" maxLength:"36"`
	Source         string `query:"source" enum:"manual,onboarding"`
}

// OnboardingItem is one entry of the onboarding checklist.
type OnboardingItem struct {
	Title       string `json:"title" minLength:"1" maxLength:"200"`
	Description string `json:"description,omitempty" maxLength:"5000"`
	DueInDays   int    `json:"dueInDays,omitempty" minimum:"0" maximum:"365" doc:"The task is due this many days after onboarding starts; 0 for no due date"`
}

// OnboardingTemplateBody is the tenant's checklist.
type OnboardingTemplateBody struct {
	Items []OnboardingItem `json:"items" nullable:"false" maxItems:"50"`
}

// OnboardingProgress is a partner's progress through its checklist.
type OnboardingProgress struct {
	PartnerID string `json:"partnerId"`
	Total     int    `json:"total"`
	Done      int    `json:"done"`
	Percent   int    `json:"percent" doc:"Done tasks in percent, rounded down; 0 without tasks"`
	Tasks     []Task `json:"tasks" nullable:"false"`
}

func progressOf(p *models.OnboardingProgress) OnboardingProgress {
	out := OnboardingProgress{PartnerID: p.PartnerID, Total: p.Total, Done: p.Done, Tasks: make([]Task, 0, len(p.Tasks))}
	if p.Total > 0 {
		out.Percent = p.Done * 100 / p.Total
	}
	for i := range p.Tasks {
		out.Tasks = append(out.Tasks, taskOf(&p.Tasks[i]))
	}
	return out
}

// TaskOutput is one task.
type TaskOutput struct{ Body Task }

// TaskListOutput is a page of tasks.
type TaskListOutput struct{ Body ListBody[Task] }

// OnboardingTemplateOutput is the tenant's checklist.
type OnboardingTemplateOutput struct{ Body OnboardingTemplateBody }

// SetOnboardingTemplateInput replaces the checklist.
type SetOnboardingTemplateInput struct{ Body OnboardingTemplateBody }

// OnboardingProgressOutput is a partner's onboarding progress.
type OnboardingProgressOutput struct{ Body OnboardingProgress }

func registerTaskRoutes(s *Server) {
	tags, onboarding := []string{"Tasks"}, []string{"Onboarding"}
	register(s, huma.Operation{OperationID: "create-task", Method: http.MethodPost, Path: "/api/tasks", Tags: tags,
		RequestBody: requestExample(`{"title": "Send the co-marketing plan", "description": "Draft the Q1 campaign with the partner.", "dueDate": "2026-12-15", "assigneeUserId": "01936f3a-9d10-7a22-b3c4-5e6f7a8b9c0d", "partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "linkType": "partner", "linkId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30"}`),
		Summary:     "Create a task", DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusForbidden, http.StatusUnprocessableEntity}},
		Requires(authz.TasksWrite), s.createTask)
	register(s, huma.Operation{OperationID: "list-tasks", Method: http.MethodGet, Path: "/api/tasks", Tags: tags,
		Summary: "List tasks", Description: "Partners see only their organisation's tasks.", Security: UsersOrKeys},
		Requires(authz.TasksRead), s.listTasks)
	register(s, huma.Operation{OperationID: "get-task", Method: http.MethodGet, Path: "/api/tasks/{id}", Tags: tags,
		Summary: "Get a task", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.TasksRead), s.getTask)
	register(s, huma.Operation{OperationID: "update-task", Method: http.MethodPatch, Path: "/api/tasks/{id}", Tags: tags,
		RequestBody: requestExample(`{"dueDate": "2026-12-22"}`),
		Summary:     "Change a task", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.TasksWrite), s.updateTask)
	register(s, huma.Operation{OperationID: "complete-task", Method: http.MethodPost, Path: "/api/tasks/{id}/complete", Tags: tags,
		Summary: "Mark a task done", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.TasksWrite), s.completeTask)
	register(s, huma.Operation{OperationID: "reopen-task", Method: http.MethodPost, Path: "/api/tasks/{id}/reopen", Tags: tags,
		Summary: "Mark a done task open again", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.TasksWrite), s.reopenTask)
	register(s, huma.Operation{OperationID: "delete-task", Method: http.MethodDelete, Path: "/api/tasks/{id}", Tags: tags,
		Summary: "Delete a task", DefaultStatus: http.StatusNoContent, Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.TasksWrite), s.deleteTask)

	register(s, huma.Operation{OperationID: "get-onboarding-template", Method: http.MethodGet, Path: "/api/onboarding-template", Tags: onboarding,
		Summary: "The onboarding checklist new partners get", Security: UsersOrKeys}, Requires(authz.PartnersRead), s.getOnboardingTemplate)
	register(s, huma.Operation{OperationID: "set-onboarding-template", Method: http.MethodPut, Path: "/api/onboarding-template", Tags: onboarding,
		RequestBody: requestExample(`{"items": [{"title": "Sign the partner agreement", "dueInDays": 7}, {"title": "Complete the sales certification", "description": "Two hours, online.", "dueInDays": 30}]}`),
		Summary:     "Replace the onboarding checklist", Description: "Applies to onboardings started from now on.", Security: UsersOrKeys,
		Errors: []int{http.StatusForbidden, http.StatusUnprocessableEntity}}, Requires(authz.PartnersWrite), s.setOnboardingTemplate)
	register(s, huma.Operation{OperationID: "start-partner-onboarding", Method: http.MethodPost, Path: "/api/partners/{id}/onboarding", Tags: onboarding,
		Summary: "Create a partner's onboarding tasks from the checklist", Description: "Once per partner; 409 ONBOARDING_STARTED after that.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}}, Requires(authz.PartnersWrite), s.startPartnerOnboarding)
	register(s, huma.Operation{OperationID: "get-partner-onboarding", Method: http.MethodGet, Path: "/api/partners/{id}/onboarding", Tags: onboarding,
		Summary: "A partner's onboarding progress", Description: "Partners see their own.", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.PartnersRead), s.getPartnerOnboarding)
}

// taskOutput answers with the task t, or with err when there is one.
func taskOutput(t *models.Task, err error) (*TaskOutput, error) {
	if err != nil {
		return nil, err
	}
	return &TaskOutput{Body: taskOf(t)}, nil
}

// createTask creates a task.
func (s *Server) createTask(ctx context.Context, in *CreateTaskInput) (*TaskOutput, error) {
	b := in.Body
	t := &models.Task{Title: b.Title, Description: b.Description, PartnerID: nonEmpty(b.PartnerID), AssigneeUserID: nonEmpty(b.AssigneeUserID),
		DueDate: nonEmpty(b.DueDate), LinkType: b.LinkType, LinkID: b.LinkID}
	return taskOutput(t, s.tasks(ctx).CreateTask(ctx, t))
}

// listTasks lists tasks.
func (s *Server) listTasks(ctx context.Context, in *ListTasksInput) (*TaskListOutput, error) {
	f := models.TaskFilter{PartnerID: in.PartnerID, AssigneeUserID: in.AssigneeUserID, Status: in.Status, LinkType: in.LinkType, LinkID: in.LinkID, Source: in.Source}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Task, string, error) {
		return s.tasks(ctx).ListTasks(ctx, f, pg)
	}, taskOf)
	return &TaskListOutput{Body: body}, err
}

// getTask answers one task.
func (s *Server) getTask(ctx context.Context, in *IDPath) (*TaskOutput, error) {
	return taskOutput(s.tasks(ctx).Task(ctx, in.ID))
}

// updateTask changes a task.
func (s *Server) updateTask(ctx context.Context, in *UpdateTaskInput) (*TaskOutput, error) {
	b := in.Body
	return taskOutput(s.tasks(ctx).UpdateTask(ctx, in.ID, models.TaskChanges{Title: b.Title, Description: b.Description, DueDate: b.DueDate, AssigneeUserID: b.AssigneeUserID}))
}

// completeTask marks a task done.
func (s *Server) completeTask(ctx context.Context, in *IDPath) (*TaskOutput, error) {
	return taskOutput(s.tasks(ctx).CompleteTask(ctx, in.ID))
}

// reopenTask marks a done task open again.
func (s *Server) reopenTask(ctx context.Context, in *IDPath) (*TaskOutput, error) {
	return taskOutput(s.tasks(ctx).ReopenTask(ctx, in.ID))
}

// deleteTask deletes a task.
func (s *Server) deleteTask(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.tasks(ctx).DeleteTask(ctx, in.ID)
}

// getOnboardingTemplate answers the onboarding checklist new partners get.
func (s *Server) getOnboardingTemplate(ctx context.Context, _ *struct{}) (*OnboardingTemplateOutput, error) {
	items, err := s.tasks(ctx).OnboardingTemplate(ctx)
	return templateOut(items, err)
}

// setOnboardingTemplate replaces the onboarding checklist.
func (s *Server) setOnboardingTemplate(ctx context.Context, in *SetOnboardingTemplateInput) (*OnboardingTemplateOutput, error) {
	items := make([]models.OnboardingItem, len(in.Body.Items))
	for i, it := range in.Body.Items {
		items[i] = models.OnboardingItem{Title: it.Title, Description: it.Description, DueInDays: it.DueInDays}
	}
	items, err := s.tasks(ctx).SetOnboardingTemplate(ctx, items)
	return templateOut(items, err)
}

// startPartnerOnboarding creates a partner's onboarding tasks from the checklist.
func (s *Server) startPartnerOnboarding(ctx context.Context, in *IDPath) (*OnboardingProgressOutput, error) {
	p, err := s.tasks(ctx).StartOnboarding(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &OnboardingProgressOutput{Body: progressOf(p)}, nil
}

// getPartnerOnboarding answers a partner's onboarding progress.
func (s *Server) getPartnerOnboarding(ctx context.Context, in *IDPath) (*OnboardingProgressOutput, error) {
	p, err := s.tasks(ctx).OnboardingProgress(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &OnboardingProgressOutput{Body: progressOf(p)}, nil
}

func templateOut(items []models.OnboardingItem, err error) (*OnboardingTemplateOutput, error) {
	if err != nil {
		return nil, err
	}
	out := &OnboardingTemplateOutput{}
	out.Body.Items = make([]OnboardingItem, 0, len(items))
	for _, it := range items {
		out.Body.Items = append(out.Body.Items, OnboardingItem{Title: it.Title, Description: it.Description, DueInDays: it.DueInDays})
	}
	return out, nil
}
