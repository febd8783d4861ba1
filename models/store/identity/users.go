package identity

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// CreateUser adds a user to the principal's tenant with the given roles. For partner principals
// the user joins their own partner organisation, whatever the input says.
func (sc *Scoped) CreateUser(ctx context.Context, u *models.User, roles []string) error {
	u.ID = models.NewID()
	u.TenantID = sc.P.TenantID
	if sc.P.PartnerID != "" {
		pid := sc.P.PartnerID
		u.PartnerID = &pid
	}
	u.Email = store.NormalizeEmail(u.Email)
	if u.Status == "" {
		u.Status = models.UserStatusActive
	}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if u.PartnerID != nil {
			var n int64
			if err := tx.Model(&models.Partner{}).Where(store.System(u.TenantID).Tenant()).Where("id = ?", *u.PartnerID).Count(&n).Error; err != nil {
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
		if err := store.BumpPolicy(tx, u.TenantID); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, u.TenantID, "user.created", "user", u.ID, "email", "name", "partnerId", "roles", "status")
	})
	return store.Translate(err, "EMAIL_TAKEN", "a user with this email exists in the tenant")
}

// usersOf starts a query on the users the principal may see: operators see every user of the
// tenant (kind selects operators or partner users), partner principals their organisation's.
func (sc *Scoped) usersOf(ctx context.Context, partnerUsers bool) *gorm.DB {
	q := sc.PartnerRows(ctx, &models.User{}, "partner_id")
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
	return store.Page(q, pg, func(u models.User) string { return u.ID })
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
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if name != nil && *name != u.Name {
			if err := tx.Model(&models.User{}).Where("id = ?", u.ID).Update("name", *name).Error; err != nil {
				return err
			}
			u.Name = *name
			changed = append(changed, "name")
		}
		if roles != nil {
			if err := tx.Where(store.System(u.TenantID).Tenant()).Where("user_id = ?", u.ID).Delete(&models.RoleAssignment{}).Error; err != nil {
				return err
			}
			for _, r := range roles {
				if err := tx.Create(&models.RoleAssignment{TenantID: u.TenantID, UserID: u.ID, Role: r}).Error; err != nil {
					return err
				}
			}
			if err := store.BumpPolicy(tx, u.TenantID); err != nil {
				return err
			}
			changed = append(changed, "roles")
		}
		if len(changed) == 0 {
			return nil
		}
		return store.WriteAudit(ctx, tx, u.TenantID, "user.updated", "user", u.ID, changed...)
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
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.User{}).Where("id = ?", u.ID).Updates(map[string]any{"status": models.UserStatusDeactivated, "deactivated_at": now}).Error; err != nil {
			return err
		}
		if err := tx.Model(&models.RefreshToken{}).Where("user_id = ? AND revoked_at IS NULL", u.ID).Update("revoked_at", now).Error; err != nil {
			return err
		}
		if err := store.BumpPolicy(tx, u.TenantID); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, u.TenantID, "user.deactivated", "user", u.ID, "status")
	})
	u.Status, u.DeactivatedAt = models.UserStatusDeactivated, &now
	return u, err
}
