package api

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// tokenAuthenticator knows one token per principal and records the schemes it was offered.
type tokenAuthenticator struct {
	principals map[string]*models.Principal
	schemes    []string
}

func (a *tokenAuthenticator) Authenticate(_ context.Context, header string, schemes []string) (*models.Principal, error) {
	a.schemes = schemes
	p, ok := a.principals[strings.TrimPrefix(header, "Bearer ")]
	if !ok {
		return nil, &models.Error{Kind: models.KindUnauthenticated, Code: "INVALID_CREDENTIALS", Message: "invalid credentials"}
	}
	return p, nil
}

// roleAuthorizer grants permissions to roles from a fixed table.
type roleAuthorizer map[string][]authz.Permission

func (r roleAuthorizer) Allowed(_ context.Context, p *models.Principal, perm authz.Permission) (bool, error) {
	for _, role := range p.Roles {
		if slices.Contains(r[role], perm) {
			return true, nil
		}
	}
	return false, nil
}

func (r roleAuthorizer) Permissions(ctx context.Context, p *models.Principal) ([]authz.Permission, error) {
	var out []authz.Permission
	for _, perm := range authz.All() {
		if ok, _ := r.Allowed(ctx, p, perm); ok {
			out = append(out, perm)
		}
	}
	return out, nil
}

func (roleAuthorizer) Invalidate(string) {}

type whoAmIOutput struct {
	Body struct {
		TenantID string `json:"tenantId"`
	}
}

func TestGuardEnforcesTheDeclaredPermission(t *testing.T) {
	authn := &tokenAuthenticator{principals: map[string]*models.Principal{
		"owner-token":   {Kind: models.PrincipalOperator, TenantID: "t1", UserID: "u1", Roles: []string{"owner"}},
		"analyst-token": {Kind: models.PrincipalOperator, TenantID: "t1", UserID: "u2", Roles: []string{"analyst"}},
	}}
	s, _ := testServer(t, Deps{Authenticator: authn, Authorizer: roleAuthorizer{"owner": {authz.TenantRead}}})
	reached := 0
	register(s, huma.Operation{OperationID: "who", Method: http.MethodGet, Path: "/test/who", Tags: []string{"Test"}, Security: UsersOrKeys},
		Requires(authz.TenantRead), func(ctx context.Context, _ *struct{}) (*whoAmIOutput, error) {
			reached++
			out := &whoAmIOutput{}
			out.Body.TenantID = models.PrincipalFrom(ctx).TenantID
			return out, nil
		})
	h := s.Handler()

	res := do(t, h, http.MethodGet, "/test/who", nil)
	if p := res.problem(t); p.Status != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("no credentials = %d, WWW-Authenticate %q", p.Status, res.Header.Get("WWW-Authenticate"))
	}
	if p := do(t, h, http.MethodGet, "/test/who", nil, "Authorization", "Bearer forged").problem(t); p.Status != http.StatusUnauthorized || p.Code != "INVALID_CREDENTIALS" {
		t.Fatalf("bad credentials = %+v", p)
	}
	if p := do(t, h, http.MethodGet, "/test/who", nil, "Authorization", "Bearer analyst-token").problem(t); p.Status != http.StatusForbidden || p.Code != "PERMISSION_DENIED" {
		t.Fatalf("missing permission = %+v", p)
	}
	if reached != 0 {
		t.Fatalf("the handler ran %d times for refused callers", reached)
	}
	res = do(t, h, http.MethodGet, "/test/who", nil, "Authorization", "Bearer owner-token")
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"tenantId":"t1"`) {
		t.Fatalf("owner = %d %s", res.Status, res.Body)
	}
	if !slices.Contains(authn.schemes, SchemeBearer) || !slices.Contains(authn.schemes, SchemeMachineKey) {
		t.Fatalf("the authenticator was offered %v, want both schemes of the operation", authn.schemes)
	}
}

func TestGuardWithoutAnAuthenticatorRefusesEveryGuardedOperation(t *testing.T) {
	s, _ := testServer(t, Deps{})
	register(s, huma.Operation{OperationID: "who", Method: http.MethodGet, Path: "/test/who", Tags: []string{"Test"}, Security: UsersOnly},
		Requires(authz.TenantRead), func(context.Context, *struct{}) (*struct{}, error) {
			t.Fatal("the handler ran")
			return nil, nil
		})
	if p := do(t, s.Handler(), http.MethodGet, "/test/who", nil, "Authorization", "Bearer anything").problem(t); p.Status != http.StatusUnauthorized {
		t.Fatalf("status = %d, want 401", p.Status)
	}
}
