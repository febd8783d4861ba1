package identity

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// CreateAPIKey stores a new machine key of the principal's tenant, created by the principal.
func (sc *Scoped) CreateAPIKey(ctx context.Context, k *models.APIKey) error {
	k.ID = models.NewID()
	k.TenantID = sc.P.TenantID
	k.CreatedBy = sc.P.UserID
	k.CreatedAt = time.Now().UTC()
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(k).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, k.TenantID, "apikey.created", "apikey", k.ID, "name", "scopes", "partnerId", "expiresAt")
	})
}

// ListAPIKeys lists the tenant's machine keys, oldest first.
func (sc *Scoped) ListAPIKeys(ctx context.Context, pg models.Page) ([]models.APIKey, string, error) {
	return store.Page(sc.PartnerRows(ctx, &models.APIKey{}, "partner_id"), pg, func(k models.APIKey) string { return k.ID })
}

// APIKey finds one machine key of the tenant.
func (sc *Scoped) APIKey(ctx context.Context, id string) (*models.APIKey, error) {
	var k models.APIKey
	err := sc.PartnerRows(ctx, &models.APIKey{}, "partner_id").Where("id = ?", id).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("API_KEY_NOT_FOUND", "machine key")
	}
	return &k, err
}

// RevokeAPIKey revokes a machine key; revoking a revoked key changes nothing.
func (sc *Scoped) RevokeAPIKey(ctx context.Context, id string) (*models.APIKey, error) {
	k, err := sc.APIKey(ctx, id)
	if err != nil || k.RevokedAt != nil {
		return k, err
	}
	now := time.Now().UTC()
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.APIKey{}).Where(sc.Scope.Tenant()).Where("id = ?", id).Update("revoked_at", now).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "apikey.revoked", "apikey", id, "revokedAt")
	})
	k.RevokedAt = &now
	return k, err
}

// ListAudit lists the tenant's audit entries, oldest first, filtered.
func (sc *Scoped) ListAudit(ctx context.Context, f models.AuditFilter, pg models.Page) ([]models.AuditEntry, string, error) {
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.AuditEntry{}))
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.ActorID != "" {
		q = q.Where("actor_id = ?", f.ActorID)
	}
	if f.TargetType != "" {
		q = q.Where("target_type = ?", f.TargetType)
	}
	if f.TargetID != "" {
		q = q.Where("target_id = ?", f.TargetID)
	}
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", f.To)
	}
	return store.Page(q, pg, func(e models.AuditEntry) string { return e.ID })
}
