package api

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// IdentityStore is what authentication and the identity operations need from storage, beyond
// the module stores.
type IdentityStore interface {
	UsersByEmail(ctx context.Context, email, tenantSlug string) ([]models.User, error)
	UserByID(ctx context.Context, sys models.Scope, userID string) (*models.User, error)
	TenantByID(ctx context.Context, id string) (*models.Tenant, error)
	RolesOf(ctx context.Context, sys models.Scope, userID string) ([]string, error)
	SetPassword(ctx context.Context, sys models.Scope, userID, hash string) error
	CreateRefreshToken(ctx context.Context, t *models.RefreshToken) error
	RotateRefreshToken(ctx context.Context, oldHash string, next *models.RefreshToken, now time.Time) (*models.RefreshToken, error)
	RevokeRefreshFamily(ctx context.Context, hash string, now time.Time) error
	APIKeyByLookup(ctx context.Context, lookupID string) (*models.APIKey, error)
	TouchAPIKey(ctx context.Context, id string, now time.Time, interval time.Duration) error
	RedeemUserToken(ctx context.Context, purpose, hash, passwordHash string, now time.Time) (*models.User, error)
}
