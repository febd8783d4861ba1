package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
)

// CreateUser adds a user to the principal's tenant with the given roles. For partner principals
// the user joins their own partner organisation, whatever the input says.
func (sc *Scoped) CreateUser(ctx context.Context, u *models.User, roles []string) error {
	u.ID = models.NewID()
	u.TenantID = sc.p.TenantID
	if sc.p.PartnerID != "" {
		pid := sc.p.PartnerID
		u.PartnerID = &pid
	}
	u.Email = NormalizeEmail(u.Email)
	if u.Status == "" {
		u.Status = models.UserStatusActive
	}
	err := sc.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if u.PartnerID != nil {
			var n int64
			if err := tx.Model(&models.Partner{}).Where(System(u.TenantID).Tenant()).Where("id = ?", *u.PartnerID).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				return models.NotFound("PARTNER_NOT_FOUND", "partner")
			}
		}
		if err := tx.Create(u).Error; err != nil {
			return err
		}
		for _, r := range roles {
			if err := tx.Create(&models.RoleAssignment{TenantID: u.TenantID, UserID: u.ID, Role: r}).Error; err != nil {
				return err
			}
		}
		if err := BumpPolicy(tx, u.TenantID); err != nil {
			return err
		}
		return WriteAudit(ctx, tx, u.TenantID, "user.created", "user", u.ID, "email", "name", "partnerId", "roles", "status")
	})
	return Translate(err, "EMAIL_TAKEN", "a user with this email exists in the tenant")
}

// usersOf starts a query on the users the principal may see: operators see every user of the
// tenant (kind selects operators or partner users), partner principals their organisation's.
func (sc *Scoped) usersOf(ctx context.Context, partnerUsers bool) *gorm.DB {
	q := sc.partnerRows(ctx, &models.User{}, "partner_id")
	if partnerUsers {
		return q.Where("partner_id IS NOT NULL")
	}
	return q.Where("partner_id IS NULL")
}

// ListUsers lists operator users (partnerUsers false) or partner users (true), optionally of
// one partner organisation.
func (sc *Scoped) ListUsers(ctx context.Context, partnerUsers bool, partnerID string, pg models.Page) ([]models.User, string, error) {
	q := sc.usersOf(ctx, partnerUsers)
	if partnerID != "" {
		q = q.Where("partner_id = ?", partnerID)
	}
	return Page(q, pg, func(u models.User) string { return u.ID })
}

// User finds one user the principal may see.
func (sc *Scoped) User(ctx context.Context, partnerUser bool, id string) (*models.User, error) {
	var u models.User
	err := sc.usersOf(ctx, partnerUser).Where("id = ?", id).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("USER_NOT_FOUND", "user")
	}
	return &u, err
}

// UpdateUser changes a user's name and, when roles is not nil, replaces its roles.
func (sc *Scoped) UpdateUser(ctx context.Context, partnerUser bool, id string, name *string, roles []string) (*models.User, error) {
	u, err := sc.User(ctx, partnerUser, id)
	if err != nil {
		return nil, err
	}
	var changed []string
	err = sc.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if name != nil && *name != u.Name {
			if err := tx.Model(&models.User{}).Where("id = ?", u.ID).Update("name", *name).Error; err != nil {
				return err
			}
			u.Name = *name
			changed = append(changed, "name")
		}
		if roles != nil {
			if err := tx.Where(System(u.TenantID).Tenant()).Where("user_id = ?", u.ID).Delete(&models.RoleAssignment{}).Error; err != nil {
				return err
			}
			for _, r := range roles {
				if err := tx.Create(&models.RoleAssignment{TenantID: u.TenantID, UserID: u.ID, Role: r}).Error; err != nil {
					return err
				}
			}
			if err := BumpPolicy(tx, u.TenantID); err != nil {
				return err
			}
			changed = append(changed, "roles")
		}
		if len(changed) == 0 {
			return nil
		}
		return WriteAudit(ctx, tx, u.TenantID, "user.updated", "user", u.ID, changed...)
	})
	return u, err
}

// DeactivateUser stops a user from signing in and revokes its sessions.
func (sc *Scoped) DeactivateUser(ctx context.Context, partnerUser bool, id string) (*models.User, error) {
	u, err := sc.User(ctx, partnerUser, id)
	if err != nil || u.Status == models.UserStatusDeactivated {
		return u, err
	}
	now := time.Now().UTC()
	err = sc.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.User{}).Where("id = ?", u.ID).Updates(map[string]any{"status": models.UserStatusDeactivated, "deactivated_at": now}).Error; err != nil {
			return err
		}
		if err := tx.Model(&models.RefreshToken{}).Where("user_id = ? AND revoked_at IS NULL", u.ID).Update("revoked_at", now).Error; err != nil {
			return err
		}
		if err := BumpPolicy(tx, u.TenantID); err != nil {
			return err
		}
		return WriteAudit(ctx, tx, u.TenantID, "user.deactivated", "user", u.ID, "status")
	})
	u.Status, u.DeactivatedAt = models.UserStatusDeactivated, &now
	return u, err
}

// CreatePartner adds a partner organisation to the principal's tenant.
func (sc *Scoped) CreatePartner(ctx context.Context, p *models.Partner) error {
	p.ID = models.NewID()
	p.TenantID = sc.p.TenantID
	if p.Status == "" {
		p.Status = models.PartnerActive
	}
	return sc.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if p.Level == "" {
			var err error
			if p.Level, err = DefaultLevel(tx, p.TenantID); err != nil {
				return err
			}
		}
		if err := tx.Create(p).Error; err != nil {
			return err
		}
		return WriteAudit(ctx, tx, p.TenantID, "partner.created", "partner", p.ID, "name", "type", "level", "status")
	})
}

// ListPartners lists the partner organisations the principal may see (its own for partners).
func (sc *Scoped) ListPartners(ctx context.Context, pg models.Page) ([]models.Partner, string, error) {
	return Page(sc.partnerRows(ctx, &models.Partner{}, "id"), pg, func(p models.Partner) string { return p.ID })
}

// Partner finds one partner organisation the principal may see.
func (sc *Scoped) Partner(ctx context.Context, id string) (*models.Partner, error) {
	var p models.Partner
	err := sc.partnerRows(ctx, &models.Partner{}, "id").Where("id = ?", id).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PARTNER_NOT_FOUND", "partner")
	}
	return &p, err
}

// UpdatePartner applies changes to a partner organisation.
func (sc *Scoped) UpdatePartner(ctx context.Context, id string, c models.PartnerChanges) (*models.Partner, error) {
	p, err := sc.Partner(ctx, id)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{}
	var changed []string
	set := func(col string, v *string, dst *string) {
		if models.SetChanged(&changed, col, v, dst) {
			updates[col] = *v
		}
	}
	fromStatus, fromLevel := p.Status, p.Level
	if c.Status != nil && *c.Status != p.Status {
		if err := models.CheckPartnerTransition(p.Status, *c.Status); err != nil {
			return nil, err
		}
	}
	set("name", c.Name, &p.Name)
	set("type", c.Type, &p.Type)
	set("level", c.Level, &p.Level)
	set("status", c.Status, &p.Status)
	if len(changed) == 0 {
		return p, nil
	}
	err = sc.s.Transact(ctx, func(tx *gorm.DB, ev *Outbox) error {
		return SavePartnerChange(ctx, tx, ev, p, updates, changed, fromStatus, fromLevel)
	})
	return p, err
}

// SavePartnerChange writes updates (the columns named by changed) to partner p, which already
// holds the new values, audits the change, and emits partner.status_changed and
// partner.level_changed when the status or level moved from fromStatus or fromLevel.
func SavePartnerChange(ctx context.Context, tx *gorm.DB, ev *Outbox, p *models.Partner, updates map[string]any, changed []string, fromStatus, fromLevel string) error {
	if err := tx.Model(&models.Partner{}).Where(System(p.TenantID).Tenant()).Where("id = ?", p.ID).Updates(updates).Error; err != nil {
		return err
	}
	if err := WriteAudit(ctx, tx, p.TenantID, "partner.updated", "partner", p.ID, changed...); err != nil {
		return err
	}
	if p.Status != fromStatus {
		if err := emitPartner(ctx, tx, ev, p, models.EventPartnerStatusChanged, fromStatus, fromLevel); err != nil {
			return err
		}
	}
	if p.Level != fromLevel {
		return emitPartner(ctx, tx, ev, p, models.EventPartnerLevelChanged, fromStatus, fromLevel)
	}
	return nil
}

// emitPartner writes a partner.* event about p.
func emitPartner(ctx context.Context, tx *gorm.DB, ev *Outbox, p *models.Partner, typ, fromStatus, fromLevel string) error {
	b, _ := json.Marshal(models.PartnerEventPayload{PartnerID: p.ID, Name: p.Name, Type: p.Type, Level: p.Level, Status: p.Status,
		PreviousStatus: fromStatus, PreviousLevel: fromLevel})
	id := p.ID
	_, err := ev.Emit(ctx, tx, p.TenantID, models.NewEvent{Type: typ, PartnerID: &id, SubjectID: &id, Payload: string(b)})
	return err
}

// BumpPolicy marks a tenant's access policy changed, in the transaction that changed it.
func BumpPolicy(tx *gorm.DB, tenantID string) error {
	return tx.Model(&models.Tenant{}).Where("id = ?", tenantID).
		UpdateColumn("policy_version", gorm.Expr("policy_version + 1")).Error
}

// PartnerOf finds a partner of a tenant.
func (s *Store) PartnerOf(ctx context.Context, tenantID, partnerID string) (*models.Partner, error) {
	var p models.Partner
	err := s.db.WithContext(ctx).Where(System(tenantID).Tenant()).Where("id = ?", partnerID).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PARTNER_NOT_FOUND", "partner")
	}
	return &p, err
}
