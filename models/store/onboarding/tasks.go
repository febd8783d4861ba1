// Package onboarding keeps partner applications (public recruitment and its review) and tasks,
// with the onboarding checklist an approved partner starts with: the onboarding module's
// persistence and transactions on the core store.
package onboarding

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/customers"
	"github.com/partnerd/partnerd/models/store/deals"
	"github.com/partnerd/partnerd/models/store/partners"
)

// Store keeps partner applications and tasks, onboarding checklists among them, of every tenant.
type Store struct {
	core      *store.Store
	deals     *deals.Store
	customers *customers.Store
	partners  *partners.Store
}

// New is the onboarding store on core's database.
func New(core *store.Store, deals *deals.Store, customers *customers.Store, partners *partners.Store) *Store {
	return &Store{core: core, deals: deals, customers: customers, partners: partners}
}

// Scoped is the application and task store as one principal sees it: operators review applications; partners see their own organisation's tasks.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the onboarding store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func (sc *Scoped) taskRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Task{}, "partner_id")
}

// checkAssignee verifies that userID is an active user the task may be assigned to: for a
// partner principal, a user of its own organisation.
func (sc *Scoped) checkAssignee(tx *gorm.DB, userID string) error {
	q := tx.Model(&models.User{}).Where(sc.Scope.Tenant()).Where("id = ?", userID)
	if sc.P.PartnerID != "" {
		q = q.Where("partner_id = ?", sc.P.PartnerID)
	}
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("ASSIGNEE_NOT_FOUND", "no such user to assign", models.FieldError{Location: "body.assigneeUserId", Message: "no such user", Value: userID})
	}
	return nil
}

// checkLink verifies that the record a task links to exists and that the principal sees it.
func (sc *Scoped) checkLink(ctx context.Context, linkType, linkID string) error {
	if linkType == "" && linkID == "" {
		return nil
	}
	if !slices.Contains(models.TaskLinkTypes, linkType) || linkID == "" {
		return models.Invalid("INVALID_TASK_LINK", "a link names a type (deal, customer, partner) and an id",
			models.FieldError{Location: "body.linkType", Message: "deal, customer or partner, with linkId", Value: linkType})
	}
	var err error
	switch linkType {
	case "deal":
		_, err = sc.s.deals.For(&sc.P).Deal(ctx, linkID)
	case "customer":
		_, err = sc.s.customers.For(&sc.P).Customer(ctx, linkID)
	default:
		_, err = sc.s.partners.For(&sc.P).Partner(ctx, linkID)
	}
	if models.ErrorKind(err) == models.KindNotFound {
		return models.Invalid("TASK_LINK_NOT_FOUND", "the linked record does not exist", models.FieldError{Location: "body.linkId", Message: "no such " + linkType, Value: linkID})
	}
	return err
}

// CreateTask adds a task. Partner principals create tasks of their own organisation.
func (sc *Scoped) CreateTask(ctx context.Context, t *models.Task) error {
	t.ID = models.NewID()
	t.TenantID = sc.P.TenantID
	if sc.P.PartnerID != "" && t.PartnerID == nil {
		pid := sc.P.PartnerID
		t.PartnerID = &pid
	}
	t.Status, t.Source, t.CreatedBy = models.TaskOpen, models.TaskManual, sc.P.ActorID()
	if err := sc.checkLink(ctx, t.LinkType, t.LinkID); err != nil {
		return err
	}
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if t.PartnerID != nil {
			if err := sc.Scope.CheckPartner(tx, *t.PartnerID, "body.partnerId"); err != nil {
				return err
			}
		}
		if t.AssigneeUserID != nil {
			if err := sc.checkAssignee(tx, *t.AssigneeUserID); err != nil {
				return err
			}
		}
		if err := tx.Create(t).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, t.TenantID, "task.created", "task", t.ID, "title", "partnerId", "assigneeUserId", "dueDate", "link"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, t.TenantID, taskEvent(models.EventTaskCreated, t))
		return err
	})
}

// taskEvent is a task.* event about t.
func taskEvent(typ string, t *models.Task) models.NewEvent {
	id := t.ID
	return models.NewEvent{Type: typ, PartnerID: t.PartnerID, SubjectID: &id, Payload: store.MustJSON(models.TaskEventPayload{
		TaskID: t.ID, PartnerID: store.Deref(t.PartnerID), Title: t.Title, Status: t.Status, LinkType: t.LinkType, LinkID: t.LinkID})}
}

// ListTasks lists the tasks the principal may see, oldest first.
func (sc *Scoped) ListTasks(ctx context.Context, f models.TaskFilter, pg models.Page) ([]models.Task, string, error) {
	q := sc.taskRows(ctx)
	for col, v := range map[string]string{"partner_id": f.PartnerID, "assignee_user_id": f.AssigneeUserID, "status": f.Status,
		"link_type": f.LinkType, "link_id": f.LinkID, "source": f.Source} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	return store.Page(q, pg, func(t models.Task) string { return t.ID })
}

// Task finds one task the principal may see.
func (sc *Scoped) Task(ctx context.Context, id string) (*models.Task, error) {
	var t models.Task
	err := sc.taskRows(ctx).Where("id = ?", id).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TASK_NOT_FOUND", "task")
	}
	return &t, err
}

func (sc *Scoped) changeTask(ctx context.Context, id, action string, fn func(tx *gorm.DB, t *models.Task) ([]string, error)) (*models.Task, error) {
	t, err := sc.Task(ctx, id)
	if err != nil {
		return nil, err
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		changed, err := fn(tx, t)
		if err != nil || len(changed) == 0 {
			return err
		}
		t.UpdatedAt = time.Now().UTC()
		if err := tx.Save(t).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, t.TenantID, action, "task", t.ID, changed...); err != nil {
			return err
		}
		if action == models.EventTaskCompleted || action == models.EventTaskReopened {
			_, err = ev.Emit(ctx, tx, t.TenantID, taskEvent(action, t))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// UpdateTask changes a task's title, description, due date or assignee.
func (sc *Scoped) UpdateTask(ctx context.Context, id string, c models.TaskChanges) (*models.Task, error) {
	return sc.changeTask(ctx, id, "task.updated", func(tx *gorm.DB, t *models.Task) ([]string, error) {
		var changed []string
		models.SetChanged(&changed, "title", c.Title, &t.Title)
		models.SetChanged(&changed, "description", c.Description, &t.Description)
		if c.DueDate != nil && *c.DueDate != store.Deref(t.DueDate) {
			t.DueDate, changed = store.NonEmpty(*c.DueDate), append(changed, "dueDate")
		}
		if c.AssigneeUserID != nil && *c.AssigneeUserID != store.Deref(t.AssigneeUserID) {
			if *c.AssigneeUserID != "" {
				if err := sc.checkAssignee(tx, *c.AssigneeUserID); err != nil {
					return nil, err
				}
			}
			t.AssigneeUserID, changed = store.NonEmpty(*c.AssigneeUserID), append(changed, "assigneeUserId")
		}
		return changed, nil
	})
}

// CompleteTask marks a task done; completing a done task changes nothing.
func (sc *Scoped) CompleteTask(ctx context.Context, id string) (*models.Task, error) {
	return sc.changeTask(ctx, id, "task.completed", func(_ *gorm.DB, t *models.Task) ([]string, error) {
		if t.Status == models.TaskDone {
			return nil, nil
		}
		now, by := time.Now().UTC(), sc.P.ActorID()
		t.Status, t.CompletedAt, t.CompletedBy = models.TaskDone, &now, &by
		return []string{"status"}, nil
	})
}

// ReopenTask marks a done task open again.
func (sc *Scoped) ReopenTask(ctx context.Context, id string) (*models.Task, error) {
	return sc.changeTask(ctx, id, "task.reopened", func(_ *gorm.DB, t *models.Task) ([]string, error) {
		if t.Status == models.TaskOpen {
			return nil, nil
		}
		t.Status, t.CompletedAt, t.CompletedBy = models.TaskOpen, nil, nil
		return []string{"status"}, nil
	})
}

// DeleteTask removes a task.
func (sc *Scoped) DeleteTask(ctx context.Context, id string) error {
	t, err := sc.Task(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where(store.System(t.TenantID).Tenant()).Delete(&models.Task{}, "id = ?", t.ID).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, t.TenantID, "task.deleted", "task", t.ID)
	})
}

// OnboardingTemplate is the tenant's onboarding checklist, in order.
func (sc *Scoped) OnboardingTemplate(ctx context.Context) ([]models.OnboardingItem, error) {
	var items []models.OnboardingItem
	err := sc.Rows(ctx, &models.OnboardingItem{}).Order("position").Find(&items).Error
	return items, err
}

// SetOnboardingTemplate replaces the tenant's onboarding checklist; operators only.
func (sc *Scoped) SetOnboardingTemplate(ctx context.Context, items []models.OnboardingItem) ([]models.OnboardingItem, error) {
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where(sc.Scope.Tenant()).Delete(&models.OnboardingItem{}).Error; err != nil {
			return err
		}
		for i := range items {
			items[i].ID, items[i].TenantID, items[i].Position = models.NewID(), sc.P.TenantID, i+1
			items[i].Title = strings.TrimSpace(items[i].Title)
			if err := tx.Create(&items[i]).Error; err != nil {
				return err
			}
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "onboarding_template.replaced", "tenant", sc.P.TenantID, "items")
	})
	return items, err
}

// StartOnboarding turns the tenant's checklist into tasks of a partner organisation, once.
func (sc *Scoped) StartOnboarding(ctx context.Context, partnerID string) (*models.OnboardingProgress, error) {
	if _, err := sc.s.partners.For(&sc.P).Partner(ctx, partnerID); err != nil {
		return nil, err
	}
	items, err := sc.OnboardingTemplate(ctx)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, models.Errorf(models.KindConflict, "NO_ONBOARDING_TEMPLATE", "the tenant has no onboarding checklist; set one first")
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&models.Task{}).Where(sc.Scope.Tenant()).Where("partner_id = ? AND source = ?", partnerID, models.TaskOnboarding).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return models.Errorf(models.KindConflict, "ONBOARDING_STARTED", "the partner's onboarding checklist exists already")
		}
		if err := startOnboarding(tx, sc.P.TenantID, partnerID, sc.P.ActorID(), time.Now().UTC()); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "onboarding.started", "partner", partnerID, "tasks")
	})
	if err != nil {
		return nil, err
	}
	return sc.OnboardingProgress(ctx, partnerID)
}

// OnboardingProgress reports a partner's onboarding tasks and how many are done.
func (sc *Scoped) OnboardingProgress(ctx context.Context, partnerID string) (*models.OnboardingProgress, error) {
	if _, err := sc.s.partners.For(&sc.P).Partner(ctx, partnerID); err != nil {
		return nil, err
	}
	out := &models.OnboardingProgress{PartnerID: partnerID}
	if err := sc.taskRows(ctx).Where("partner_id = ? AND source = ?", partnerID, models.TaskOnboarding).Order("id").Limit(200).Find(&out.Tasks).Error; err != nil {
		return nil, err
	}
	out.Total = len(out.Tasks)
	for _, t := range out.Tasks {
		if t.Status == models.TaskDone {
			out.Done++
		}
	}
	return out, nil
}
