package api

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// IdentityStore is what authentication and the identity operations need from storage, beyond
// the scoped store.
type IdentityStore interface {
	UsersByEmail(ctx context.Context, email, tenantSlug string) ([]models.User, error)
	UserByID(ctx context.Context, tenantID, userID string) (*models.User, error)
	TenantByID(ctx context.Context, id string) (*models.Tenant, error)
	RolesOf(ctx context.Context, tenantID, userID string) ([]string, error)
	SetPassword(ctx context.Context, tenantID, userID, hash string) error
	CreateRefreshToken(ctx context.Context, t *models.RefreshToken) error
	RotateRefreshToken(ctx context.Context, oldHash string, next *models.RefreshToken, now time.Time) (*models.RefreshToken, error)
	RevokeRefreshFamily(ctx context.Context, hash string, now time.Time) error
	APIKeyByLookup(ctx context.Context, lookupID string) (*models.APIKey, error)
	TouchAPIKey(ctx context.Context, id string, now time.Time, interval time.Duration) error
	RedeemUserToken(ctx context.Context, purpose, hash, passwordHash string, now time.Time) (*models.User, error)
}

// ScopedStore is the store as one principal sees it: every method is limited to the principal's
// tenant and, for partner principals, to its partner organisation.
type ScopedStore interface {
	CreateAPIKey(ctx context.Context, k *models.APIKey) error
	ListAPIKeys(ctx context.Context, pg models.Page) ([]models.APIKey, string, error)
	APIKey(ctx context.Context, id string) (*models.APIKey, error)
	RevokeAPIKey(ctx context.Context, id string) (*models.APIKey, error)
	ListAudit(ctx context.Context, f models.AuditFilter, pg models.Page) ([]models.AuditEntry, string, error)
	PeopleStore
	RoleStore
	TenantStore
	EventsStore
	CustomerStore
	WebhookStore
	MetricStore
	DealStore
	TaskStore
	LevelStore
	ApplicationStore
	MailStore
	CommissionStore
	LedgerStore
	WithdrawalStore
	PlaybookStore
}

// scoped is the one way handlers reach tenant-owned data: the store scoped to the principal
// the guard put in ctx.
func (s *Server) scoped(ctx context.Context) ScopedStore {
	return s.deps.Scope(models.PrincipalFrom(ctx))
}
