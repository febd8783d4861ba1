package authz

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

// memorySource is a PolicySource held in memory, counting its loads.
type memorySource struct {
	mu       sync.Mutex
	policies map[string]models.AccessPolicy
	loads    int
}

func (m *memorySource) AccessPolicy(_ context.Context, sys models.Scope) (models.AccessPolicy, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads++
	return m.policies[sys.TenantID()], nil
}

func (m *memorySource) PolicyVersion(_ context.Context, sys models.Scope) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.policies[sys.TenantID()].Version, nil
}

func (m *memorySource) set(tenantID string, p models.AccessPolicy) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.policies[tenantID] = p
}

func user(tenant, id string) *models.Principal {
	return &models.Principal{Kind: models.PrincipalOperator, TenantID: tenant, UserID: id}
}

func TestBuiltinRolesGrantTheirDocumentedPermissions(t *testing.T) {
	src := &memorySource{policies: map[string]models.AccessPolicy{"t1": {Version: 1, Assignments: map[string][]string{}}}}
	for _, r := range BuiltinRoles() {
		src.policies["t1"].Assignments["u-"+r.Name] = []string{r.Name}
	}
	a := NewAuthorizer(src)
	ctx := context.Background()
	for _, r := range BuiltinRoles() {
		for _, perm := range All() {
			got, err := a.Allowed(ctx, user("t1", "u-"+r.Name), perm)
			if err != nil {
				t.Fatal(err)
			}
			if want := slices.Contains(r.Permissions, perm); got != want {
				t.Errorf("role %s, permission %s: allowed %v, want %v", r.Name, perm, got, want)
			}
		}
	}
	if ok, _ := a.Allowed(ctx, user("t1", "nobody"), ProfileRead); ok {
		t.Error("a user without roles holds a permission")
	}
}

func TestBuiltinRoleSetsAreSound(t *testing.T) {
	owner, _ := BuiltinRole(RoleOwner)
	if len(owner.Permissions) != len(All()) {
		t.Errorf("the owner lacks permissions: %v", owner.Permissions)
	}
	analyst, _ := BuiltinRole(RoleAnalyst)
	for _, p := range analyst.Permissions {
		if p.Action() != "read" && p != ProfileWrite {
			t.Errorf("the read-only analyst holds %s", p)
		}
	}
	for _, r := range BuiltinRoles() {
		for _, p := range r.Permissions {
			if !Known(p) {
				t.Errorf("role %s holds uncatalogued %s", r.Name, p)
			}
		}
		if r.Audience == ForPartners {
			for _, p := range r.Permissions {
				if ForOperatorsOnly(p) {
					t.Errorf("partner role %s holds operator-only %s", r.Name, p)
				}
			}
		}
	}
}

func TestCustomRolesStayInTheirTenant(t *testing.T) {
	src := &memorySource{policies: map[string]models.AccessPolicy{
		"t1": {Version: 1, CustomRoles: []models.RoleDefinition{{Name: "auditor", Permissions: []string{string(AuditRead)}}},
			Assignments: map[string][]string{"u1": {"auditor"}}},
		"t2": {Version: 1, Assignments: map[string][]string{"u1": {"auditor"}}},
	}}
	a := NewAuthorizer(src)
	ctx := context.Background()
	if ok, _ := a.Allowed(ctx, user("t1", "u1"), AuditRead); !ok {
		t.Fatal("the custom role does not grant its permission")
	}
	if ok, _ := a.Allowed(ctx, user("t1", "u1"), UsersRead); ok {
		t.Fatal("the custom role grants more than it lists")
	}
	if ok, _ := a.Allowed(ctx, user("t2", "u1"), AuditRead); ok {
		t.Fatal("a role of tenant t1 grants permissions in tenant t2")
	}
}

func TestMachineKeysHoldExactlyTheirScopes(t *testing.T) {
	a := NewAuthorizer(&memorySource{policies: map[string]models.AccessPolicy{}})
	key := &models.Principal{Kind: models.PrincipalMachineKey, TenantID: "t1", KeyID: "k1", Scopes: []string{string(PartnersRead)}}
	if ok, _ := a.Allowed(context.Background(), key, PartnersRead); !ok {
		t.Fatal("a key does not hold its scope")
	}
	if ok, _ := a.Allowed(context.Background(), key, PartnersWrite); ok {
		t.Fatal("a key holds a permission outside its scopes")
	}
}

func TestPolicyChangesApplyAfterInvalidateOrWithinStaleness(t *testing.T) {
	src := &memorySource{policies: map[string]models.AccessPolicy{"t1": {Version: 1, Assignments: map[string][]string{"u1": {RoleAnalyst}}}}}
	a := NewAuthorizer(src)
	clock := time.Unix(1_700_000_000, 0)
	a.now = func() time.Time { return clock }
	ctx := context.Background()
	if ok, _ := a.Allowed(ctx, user("t1", "u1"), UsersWrite); ok {
		t.Fatal("the analyst may write users")
	}
	src.set("t1", models.AccessPolicy{Version: 2, Assignments: map[string][]string{"u1": {RoleAdmin}}})
	if ok, _ := a.Allowed(ctx, user("t1", "u1"), UsersWrite); ok {
		t.Fatal("the cached policy was not used within the staleness window")
	}
	clock = clock.Add(DefaultStaleness + time.Millisecond)
	if ok, _ := a.Allowed(ctx, user("t1", "u1"), UsersWrite); !ok {
		t.Fatal("another process's change was not seen after the staleness window")
	}
	loads := src.loads
	clock = clock.Add(DefaultStaleness + time.Millisecond)
	_, _ = a.Allowed(ctx, user("t1", "u1"), UsersWrite)
	if src.loads != loads {
		t.Fatal("an unchanged version reloaded the policy")
	}
	src.set("t1", models.AccessPolicy{Version: 3, Assignments: map[string][]string{}})
	a.Invalidate("t1")
	if ok, _ := a.Allowed(ctx, user("t1", "u1"), UsersWrite); ok {
		t.Fatal("Invalidate did not apply the change at once")
	}
}
