package authz

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
	"github.com/casbin/casbin/v2/persist"

	"github.com/partnerd/partnerd/models"
)

//go:embed model.conf
var modelText string

// PolicySource reads tenants' access policies; the store implements it.
type PolicySource interface {
	AccessPolicy(ctx context.Context, sys models.Scope) (models.AccessPolicy, error)
	PolicyVersion(ctx context.Context, sys models.Scope) (int64, error)
}

// Authorizer evaluates permissions with one Casbin enforcer per tenant, built from our own
// tables. Changes made by this process apply at once (Invalidate); changes made by other
// processes apply within Staleness.
type Authorizer struct {
	source    PolicySource
	staleness time.Duration
	now       func() time.Time

	mu      sync.Mutex
	tenants map[string]*tenantEnforcer
}

type tenantEnforcer struct {
	mu        sync.Mutex
	version   int64
	checkedAt time.Time
	enforcer  *casbin.Enforcer
}

// DefaultStaleness bounds how long another process's policy change can go unseen.
const DefaultStaleness = 2 * time.Second

// NewAuthorizer returns an authorizer over source.
func NewAuthorizer(source PolicySource) *Authorizer {
	return &Authorizer{source: source, staleness: DefaultStaleness, now: time.Now, tenants: map[string]*tenantEnforcer{}}
}

// Allowed reports whether p holds perm in its tenant. Machine keys hold exactly their scopes.
func (a *Authorizer) Allowed(ctx context.Context, p *models.Principal, perm Permission) (bool, error) {
	if p == nil || p.TenantID == "" {
		return false, nil
	}
	if p.Kind == models.PrincipalMachineKey {
		return slices.Contains(p.Scopes, string(perm)), nil
	}
	e, err := a.enforcer(ctx, p.TenantID)
	if err != nil {
		return false, err
	}
	return e.Enforce(p.UserID, p.TenantID, perm.Resource(), perm.Action())
}

// Permissions lists every permission p holds, in catalogue order (for GET /api/me).
func (a *Authorizer) Permissions(ctx context.Context, p *models.Principal) ([]Permission, error) {
	var out []Permission
	for _, perm := range All() {
		ok, err := a.Allowed(ctx, p, perm)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, perm)
		}
	}
	return out, nil
}

// Invalidate drops the cached policy of a tenant after this process changed it.
func (a *Authorizer) Invalidate(tenantID string) {
	a.mu.Lock()
	delete(a.tenants, tenantID)
	a.mu.Unlock()
}

func (a *Authorizer) enforcer(ctx context.Context, tenantID string) (*casbin.Enforcer, error) {
	a.mu.Lock()
	te, ok := a.tenants[tenantID]
	if !ok {
		te = &tenantEnforcer{version: -1}
		a.tenants[tenantID] = te
	}
	a.mu.Unlock()

	te.mu.Lock()
	defer te.mu.Unlock()
	now := a.now()
	if te.enforcer != nil && now.Sub(te.checkedAt) < a.staleness {
		return te.enforcer, nil
	}
	if te.enforcer != nil {
		v, err := a.source.PolicyVersion(ctx, models.System(tenantID))
		if err != nil {
			return nil, fmt.Errorf("authz: policy version: %w", err)
		}
		if v == te.version {
			te.checkedAt = now
			return te.enforcer, nil
		}
	}
	policy, err := a.source.AccessPolicy(ctx, models.System(tenantID))
	if err != nil {
		return nil, fmt.Errorf("authz: load policy: %w", err)
	}
	e, err := newEnforcer(tenantID, policy)
	if err != nil {
		return nil, err
	}
	te.enforcer, te.version, te.checkedAt = e, policy.Version, now
	return e, nil
}

func newEnforcer(tenantID string, policy models.AccessPolicy) (*casbin.Enforcer, error) {
	m, err := model.NewModelFromString(modelText)
	if err != nil {
		return nil, fmt.Errorf("authz: model: %w", err)
	}
	e, err := casbin.NewEnforcer(m, &policyAdapter{tenantID: tenantID, policy: policy})
	if err != nil {
		return nil, fmt.Errorf("authz: enforcer: %w", err)
	}
	return e, nil
}

// policyAdapter is our Casbin adapter: it turns a tenant's policy (built-in roles from code,
// custom roles and assignments from our tables) into policy lines. It is read-only: the store
// writes the tables, in the same transaction as the audit entry.
type policyAdapter struct {
	tenantID string
	policy   models.AccessPolicy
}

var errReadOnly = errors.New("authz: the policy is written through the store, not through Casbin")

func (a *policyAdapter) LoadPolicy(m model.Model) error {
	for _, r := range builtinRoles() {
		for _, p := range r.Permissions {
			if err := persist.LoadPolicyArray([]string{"p", r.Name, "*", p.Resource(), p.Action()}, m); err != nil {
				return err
			}
		}
	}
	for _, r := range a.policy.CustomRoles {
		for _, name := range r.Permissions {
			p := Permission(name)
			if !Known(p) {
				continue // a permission retired from the catalogue grants nothing
			}
			if err := persist.LoadPolicyArray([]string{"p", r.Name, a.tenantID, p.Resource(), p.Action()}, m); err != nil {
				return err
			}
		}
	}
	for user, roles := range a.policy.Assignments {
		for _, role := range roles {
			if err := persist.LoadPolicyArray([]string{"g", user, role, a.tenantID}, m); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *policyAdapter) SavePolicy(model.Model) error                { return errReadOnly }
func (a *policyAdapter) AddPolicy(string, string, []string) error    { return errReadOnly }
func (a *policyAdapter) RemovePolicy(string, string, []string) error { return errReadOnly }
func (a *policyAdapter) RemoveFilteredPolicy(string, string, int, ...string) error {
	return errReadOnly
}
