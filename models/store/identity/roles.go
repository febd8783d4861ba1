package identity

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// CreateCustomRole adds a role to the principal's tenant.
func (sc *Scoped) CreateCustomRole(ctx context.Context, r *models.CustomRole) error {
	r.ID = models.NewID()
	r.TenantID = sc.P.TenantID
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(r).Error; err != nil {
			return err
		}
		if err := store.BumpPolicy(tx, r.TenantID); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, r.TenantID, "role.created", "role", r.ID, "name", "description", "audience", "permissions")
	})
	return store.Translate(err, "ROLE_NAME_TAKEN", "a role with this name exists")
}

// ListCustomRoles lists the tenant's custom roles.
func (sc *Scoped) ListCustomRoles(ctx context.Context, pg models.Page) ([]models.CustomRole, string, error) {
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.CustomRole{}))
	return store.Page(q, pg, func(r models.CustomRole) string { return r.ID })
}

// CustomRole finds a custom role by id or, with byName, by name.
func (sc *Scoped) CustomRole(ctx context.Context, key string, byName bool) (*models.CustomRole, error) {
	col := "id"
	if byName {
		col = "name"
	}
	var r models.CustomRole
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.CustomRole{}))
	err := q.Where(col+" = ?", key).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("ROLE_NOT_FOUND", "role")
	}
	return &r, err
}

// UpdateCustomRole changes a role's description and permissions (a JSON array); nil stays.
func (sc *Scoped) UpdateCustomRole(ctx context.Context, id string, description, permissions *string) (*models.CustomRole, error) {
	r, err := sc.CustomRole(ctx, id, false)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{"updated_at": time.Now().UTC()}
	var changed []string
	if description != nil && *description != r.Description {
		updates["description"], r.Description = *description, *description
		changed = append(changed, "description")
	}
	if permissions != nil && *permissions != r.Permissions {
		updates["permissions"], r.Permissions = *permissions, *permissions
		changed = append(changed, "permissions")
	}
	if len(changed) == 0 {
		return r, nil
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.CustomRole{}).Where(store.System(r.TenantID).Tenant()).Where("id = ?", r.ID).Updates(updates).Error; err != nil {
			return err
		}
		if err := store.BumpPolicy(tx, r.TenantID); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, r.TenantID, "role.updated", "role", r.ID, changed...)
	})
	return r, err
}

// DeleteCustomRole removes a role and every assignment of it.
func (sc *Scoped) DeleteCustomRole(ctx context.Context, id string) error {
	r, err := sc.CustomRole(ctx, id, false)
	if err != nil {
		return err
	}
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where(store.System(r.TenantID).Tenant()).Where("role = ?", r.Name).Delete(&models.RoleAssignment{}).Error; err != nil {
			return err
		}
		if err := tx.Where("id = ?", r.ID).Delete(&models.CustomRole{}).Error; err != nil {
			return err
		}
		if err := store.BumpPolicy(tx, r.TenantID); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, r.TenantID, "role.deleted", "role", r.ID, "name")
	})
}
