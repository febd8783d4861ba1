// Package identity keeps who may act in a tenant: users and their roles, custom roles, machine
// keys, refresh tokens and one-time links, the access policy authorisation reads, and the audit log.
package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps users, their roles and custom roles, machine keys, refresh and one-time tokens, and the audit log.
type Store struct {
	core *store.Store
}

// New is the identity store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the identity store as one principal sees it: a partner manages only its own organisation's users and keys.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the identity store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// AccessPolicy returns a tenant's custom roles and role assignments (authz.PolicySource).
func (s *Store) AccessPolicy(ctx context.Context, sys models.Scope) (models.AccessPolicy, error) {
	db := s.core.DB(ctx)
	var p models.AccessPolicy
	var t models.Tenant
	if err := db.Select("policy_version").Where("id = ?", sys.TenantID()).Take(&t).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return p, nil
		}
		return p, err
	}
	p.Version = t.PolicyVersion
	var roles []models.CustomRole
	if err := db.Where(store.Of(sys).Tenant()).Find(&roles).Error; err != nil {
		return p, err
	}
	for _, r := range roles {
		var perms []string
		if err := json.Unmarshal([]byte(r.Permissions), &perms); err != nil {
			return p, fmt.Errorf("store: role %s permissions: %w", r.Name, err)
		}
		p.CustomRoles = append(p.CustomRoles, models.RoleDefinition{Name: r.Name, Permissions: perms})
	}
	var as []models.RoleAssignment
	if err := db.Joins("JOIN users ON users.id = role_assignments.user_id AND users.status = ?", models.UserStatusActive).
		Where(store.Of(sys).TenantOf("role_assignments")).Find(&as).Error; err != nil {
		return p, err
	}
	p.Assignments = map[string][]string{}
	for _, a := range as {
		p.Assignments[a.UserID] = append(p.Assignments[a.UserID], a.Role)
	}
	return p, nil
}

// PolicyVersion returns the counter that changes with every change of a tenant's access policy.
func (s *Store) PolicyVersion(ctx context.Context, sys models.Scope) (int64, error) {
	var t models.Tenant
	err := s.core.DB(ctx).Select("policy_version").Where("id = ?", sys.TenantID()).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, nil
	}
	return t.PolicyVersion, err
}

// RolesOf lists the role names a user holds.
func (s *Store) RolesOf(ctx context.Context, sys models.Scope, userID string) ([]string, error) {
	var roles []string
	err := s.core.DB(ctx).Model(&models.RoleAssignment{}).
		Where(store.Of(sys).Tenant()).Where("user_id = ?", userID).Order("role").Pluck("role", &roles).Error
	return roles, err
}

// UsersByEmail finds the users with an email in every tenant, for sign-in; with tenantSlug set,
// only in that tenant.
func (s *Store) UsersByEmail(ctx context.Context, email, tenantSlug string) ([]models.User, error) {
	q := s.core.DB(ctx).Where("users.email = ?", store.NormalizeEmail(email))
	if tenantSlug != "" {
		q = q.Joins("JOIN tenants ON tenants.id = users.tenant_id AND tenants.slug = ?", tenantSlug)
	}
	var users []models.User
	err := q.Order("users.created_at").Limit(50).Find(&users).Error
	return users, err
}

// UserByID finds a user of a tenant.
func (s *Store) UserByID(ctx context.Context, sys models.Scope, userID string) (*models.User, error) {
	var u models.User
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("id = ?", userID).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("USER_NOT_FOUND", "user")
	}
	return &u, err
}

// SetPassword replaces a user's password hash and revokes every refresh token of the user.
func (s *Store) SetPassword(ctx context.Context, sys models.Scope, userID, hash string) error {
	return s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&models.User{}).Where(store.Of(sys).Tenant()).Where("id = ?", userID).Update("password_hash", hash)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.NotFound("USER_NOT_FOUND", "user")
		}
		now := time.Now().UTC()
		if err := tx.Model(&models.RefreshToken{}).Where(store.Of(sys).Tenant()).Where("user_id = ? AND revoked_at IS NULL", userID).
			Update("revoked_at", now).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sys.TenantID(), "user.password_changed", "user", userID, "password")
	})
}

// ErrRefreshReused reports a refresh token presented again after it was rotated; its whole
// family has been revoked.
var ErrRefreshReused = models.Errorf(models.KindUnauthenticated, "REFRESH_TOKEN_REUSED", "the refresh token was already used; sign in again")

// errRefreshInvalid reports an unknown, expired or revoked refresh token.
var errRefreshInvalid = models.Errorf(models.KindUnauthenticated, "INVALID_REFRESH_TOKEN", "the refresh token is not valid")

// CreateRefreshToken stores the first token of a new family for a user.
func (s *Store) CreateRefreshToken(ctx context.Context, t *models.RefreshToken) error {
	t.ID = models.NewID()
	if t.FamilyID == "" {
		t.FamilyID = t.ID
	}
	return s.core.DB(ctx).Create(t).Error
}

// RotateRefreshToken consumes the token with hash oldHash and stores next in its family. A token
// used twice revokes its family (ErrRefreshReused); an expired or revoked one is refused.
func (s *Store) RotateRefreshToken(ctx context.Context, oldHash string, next *models.RefreshToken, now time.Time) (*models.RefreshToken, error) {
	var old models.RefreshToken
	reused := false
	err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		q := tx
		if s.core.Dialect() == store.Postgres {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		if err := q.Where("hash = ?", oldHash).Take(&old).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return errRefreshInvalid
			}
			return err
		}
		if old.UsedAt != nil {
			reused = true
			return tx.Model(&models.RefreshToken{}).Where("family_id = ? AND revoked_at IS NULL", old.FamilyID).Update("revoked_at", now).Error
		}
		if old.RevokedAt != nil || !now.Before(old.ExpiresAt) {
			return errRefreshInvalid
		}
		res := tx.Model(&models.RefreshToken{}).Where("id = ? AND used_at IS NULL", old.ID).Update("used_at", now)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			reused = true
			return tx.Model(&models.RefreshToken{}).Where("family_id = ?", old.FamilyID).Update("revoked_at", now).Error
		}
		next.ID = models.NewID()
		next.TenantID, next.UserID, next.FamilyID = old.TenantID, old.UserID, old.FamilyID
		return tx.Create(next).Error
	})
	if err != nil {
		return nil, err
	}
	if reused {
		return nil, ErrRefreshReused
	}
	return &old, nil
}

// RevokeRefreshFamily revokes the family of the token with hash (sign-out). Unknown tokens are
// ignored, so sign-out never tells whether a token existed.
func (s *Store) RevokeRefreshFamily(ctx context.Context, hash string, now time.Time) error {
	var t models.RefreshToken
	err := s.core.DB(ctx).Where("hash = ?", hash).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.core.DB(ctx).Model(&models.RefreshToken{}).
		Where("family_id = ? AND revoked_at IS NULL", t.FamilyID).Update("revoked_at", now).Error
}

// APIKeyByLookup finds a machine key record by its lookup id, for authentication.
func (s *Store) APIKeyByLookup(ctx context.Context, lookupID string) (*models.APIKey, error) {
	var k models.APIKey
	err := s.core.DB(ctx).Where("lookup_id = ?", lookupID).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("API_KEY_NOT_FOUND", "machine key")
	}
	return &k, err
}

// TouchAPIKey records a use of a key, writing at most once per interval per key.
func (s *Store) TouchAPIKey(ctx context.Context, id string, now time.Time, interval time.Duration) error {
	return s.core.DB(ctx).Model(&models.APIKey{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, now.Add(-interval)).
		UpdateColumn("last_used_at", now).Error
}
