package onboarding

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/partners"
)

func applicationPayload(a *models.Application) string {
	b, _ := json.Marshal(models.ApplicationEventPayload{ApplicationID: a.ID, Organisation: a.Organisation, PartnerType: a.PartnerType,
		ContactEmail: a.ContactEmail, Status: a.Status, PartnerID: store.Deref(a.PartnerID), AutoApproved: a.AutoApproved, Reason: a.Reason})
	return string(b)
}

// ApplicationFormOf is the recruitment form of the tenant called slug, for the public page.
func (s *Store) ApplicationFormOf(ctx context.Context, slug string) (models.ApplicationForm, error) {
	t, err := s.core.TenantBySlug(ctx, slug)
	if err != nil {
		return models.ApplicationForm{}, err
	}
	return models.ParseApplicationForm(t.ApplicationForm), nil
}

// SubmitApplication records an application to the tenant called slug. An applicant with a
// pending application, or one rejected less than the tenant's waiting period ago, is refused
// with 409. It reports the stored application and whether the form approves it at once.
func (s *Store) SubmitApplication(ctx context.Context, slug string, a *models.Application, answers map[string]string) (bool, error) {
	t, err := s.core.TenantBySlug(ctx, slug)
	if err != nil {
		return false, err
	}
	form := models.ParseApplicationForm(t.ApplicationForm)
	if err := form.CheckAnswers(answers); err != nil {
		return false, err
	}
	b, _ := json.Marshal(answers)
	a.ID, a.TenantID, a.Answers, a.Status = models.NewID(), t.ID, string(b), models.ApplicationPending
	a.ContactEmail = store.NormalizeEmail(a.ContactEmail)
	a.CreatedAt = time.Now().UTC()
	err = s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var prior []models.Application
		if err := tx.Where(store.System(t.ID).Tenant()).Where("contact_email = ? AND status IN ?", a.ContactEmail,
			[]string{models.ApplicationPending, models.ApplicationRejected}).Order("id DESC").Limit(5).Find(&prior).Error; err != nil {
			return err
		}
		for _, p := range prior {
			if p.Status == models.ApplicationPending {
				return models.Errorf(models.KindConflict, "APPLICATION_PENDING", "an application from this email is under review")
			}
			if p.DecidedAt != nil && p.DecidedAt.After(a.CreatedAt.AddDate(0, 0, -form.ReapplyAfterDays)) {
				return models.Errorf(models.KindConflict, "REAPPLY_TOO_SOON", "a rejected applicant may apply again %d days after the decision", form.ReapplyAfterDays)
			}
		}
		if err := tx.Create(a).Error; err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, t.ID, models.NewEvent{Type: models.EventPartnerApplied, SubjectID: &a.ID, Payload: applicationPayload(a)})
		return err
	})
	return err == nil && form.AutoApproves(a.ContactEmail), err
}

// SetApplicationForm replaces the tenant's recruitment form; operators only.
func (sc *Scoped) SetApplicationForm(ctx context.Context, f models.ApplicationForm) (models.ApplicationForm, error) {
	if err := f.Validate(); err != nil {
		return f, err
	}
	for i, d := range f.AutoApproveDomains {
		f.AutoApproveDomains[i] = strings.ToLower(strings.TrimSpace(d))
	}
	b, _ := json.Marshal(f)
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.Tenant{}).Where("id = ?", sc.P.TenantID).Update("application_form", string(b)).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "application_form.replaced", "tenant", sc.P.TenantID, "questions", "reapplyAfterDays", "autoApproveDomains")
	})
	return models.ParseApplicationForm(string(b)), err
}

// ApplicationForm is the tenant's recruitment form.
func (sc *Scoped) ApplicationForm(ctx context.Context) (models.ApplicationForm, error) {
	t, err := sc.s.core.TenantByID(ctx, sc.P.TenantID)
	if err != nil {
		return models.ApplicationForm{}, err
	}
	return models.ParseApplicationForm(t.ApplicationForm), nil
}

// ListApplications lists the tenant's applications, oldest first; operators only.
func (sc *Scoped) ListApplications(ctx context.Context, f models.ApplicationFilter, pg models.Page) ([]models.Application, string, error) {
	q := sc.Rows(ctx, &models.Application{})
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	return store.Page(q, pg, func(a models.Application) string { return a.ID })
}

// Application finds one application; operators only.
func (sc *Scoped) Application(ctx context.Context, id string) (*models.Application, error) {
	var a models.Application
	err := sc.Rows(ctx, &models.Application{}).Where("id = ?", id).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("APPLICATION_NOT_FOUND", "application")
	}
	return &a, err
}

// decideApplication moves a pending application to its decision in one transaction with fn.
func (sc *Scoped) decideApplication(ctx context.Context, id, status string, fn func(tx *gorm.DB, ev *store.Outbox, a *models.Application) error) (*models.Application, error) {
	a, err := sc.Application(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.Status != models.ApplicationPending {
		return nil, models.Errorf(models.KindConflict, "APPLICATION_DECIDED", "the application was %s already", a.Status)
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		now := time.Now().UTC()
		var by *string
		if sc.P.UserID != "" {
			u := sc.P.UserID
			by = &u
		}
		a.Status, a.DecidedAt, a.DecidedBy = status, &now, by
		if err := fn(tx, ev, a); err != nil {
			return err
		}
		res := tx.Model(&models.Application{}).Where("id = ? AND status = ?", a.ID, models.ApplicationPending).
			Updates(map[string]any{"status": a.Status, "decided_at": now, "decided_by": by, "reason": a.Reason, "partner_id": a.PartnerID, "auto_approved": a.AutoApproved})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.Errorf(models.KindConflict, "APPLICATION_DECIDED", "the application was decided already")
		}
		return store.WriteAudit(ctx, tx, a.TenantID, "application."+status, "application", a.ID, "status")
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// ApproveApplication creates the partner organisation (at the default level, onboarding) and
// its admin (invited, from the application's contact), starts its onboarding checklist when
// the tenant has one, and emits partner.approved. auto marks an approval by the form's rules.
func (sc *Scoped) ApproveApplication(ctx context.Context, id string, auto bool) (*models.Application, *models.User, error) {
	var admin *models.User
	a, err := sc.decideApplication(ctx, id, models.ApplicationApproved, func(tx *gorm.DB, ev *store.Outbox, a *models.Application) error {
		level, err := partners.DefaultLevel(tx, store.System(a.TenantID))
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		p := &models.Partner{ID: models.NewID(), TenantID: a.TenantID, Name: a.Organisation, Type: a.PartnerType, Level: level,
			Status: models.PartnerOnboarding, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(p).Error; err != nil {
			return err
		}
		pid := p.ID
		admin = &models.User{ID: models.NewID(), TenantID: a.TenantID, PartnerID: &pid, Email: a.ContactEmail, Name: a.ContactName,
			Status: models.UserStatusInvited, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(admin).Error; err != nil {
			return store.Translate(err, "EMAIL_TAKEN", "a user with the applicant's email exists in the tenant")
		}
		if err := tx.Create(&models.RoleAssignment{TenantID: a.TenantID, UserID: admin.ID, Role: "partner_admin"}).Error; err != nil {
			return err
		}
		if err := store.BumpPolicy(tx, a.TenantID); err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, a.TenantID, "partner.created", "partner", p.ID, "name", "type", "level", "status"); err != nil {
			return err
		}
		if err := startOnboarding(tx, a.TenantID, p.ID, sc.P.ActorID(), now); err != nil {
			return err
		}
		a.PartnerID, a.AutoApproved = &pid, auto
		_, err = ev.Emit(ctx, tx, a.TenantID, models.NewEvent{Type: models.EventPartnerApproved, PartnerID: &pid, SubjectID: &a.ID, Payload: applicationPayload(a)})
		return err
	})
	if err != nil {
		return nil, nil, store.Translate(err, "EMAIL_TAKEN", "a user with the applicant's email exists in the tenant")
	}
	return a, admin, nil
}

// startOnboarding creates a partner's onboarding tasks from the tenant's checklist, if any.
func startOnboarding(tx *gorm.DB, tenantID, partnerID, actor string, now time.Time) error {
	var items []models.OnboardingItem
	if err := tx.Where(store.System(tenantID).Tenant()).Order("position").Find(&items).Error; err != nil {
		return err
	}
	for _, it := range items {
		pid := partnerID
		t := &models.Task{ID: models.NewID(), TenantID: tenantID, PartnerID: &pid, Title: it.Title, Description: it.Description,
			Status: models.TaskOpen, Source: models.TaskOnboarding, LinkType: "partner", LinkID: partnerID, CreatedBy: actor, CreatedAt: now, UpdatedAt: now}
		if it.DueInDays > 0 {
			due := now.AddDate(0, 0, it.DueInDays).Format(time.DateOnly)
			t.DueDate = &due
		}
		if err := tx.Create(t).Error; err != nil {
			return err
		}
	}
	return nil
}

// RejectApplication rejects an application with a reason; the applicant may apply again after
// the tenant's waiting period.
func (sc *Scoped) RejectApplication(ctx context.Context, id, reason string) (*models.Application, error) {
	return sc.decideApplication(ctx, id, models.ApplicationRejected, func(tx *gorm.DB, ev *store.Outbox, a *models.Application) error {
		a.Reason = reason
		_, err := ev.Emit(ctx, tx, a.TenantID, models.NewEvent{Type: models.EventPartnerRejected, SubjectID: &a.ID, Payload: applicationPayload(a)})
		return err
	})
}
