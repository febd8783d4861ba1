package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// fixture is one tenant with a user per built-in role, two partner organisations, machine keys
// and records to aim at, plus a second tenant.
type fixture struct {
	tokens      map[string]string // role → access token (operator roles; partner roles in partner1)
	foreign     string            // access token of another tenant's owner
	partner1    string
	partner2    string
	p1User      string // a partner user of partner1 to act on
	p2User      string // a partner user of partner2
	opUser      string // an operator user to act on
	opReset     string // an operator user to reset
	roleID      string // a custom role to read and change
	newRole     func() string
	p1Reset     string // a partner user of partner1 to reset
	apiKeyID    string
	keyFor      map[authz.Permission]string // a machine key holding exactly one permission
	keyWithout  string                      // a machine key holding only profile:read
	seq         atomic.Int64
	ownerEmail  string
	roleEmails  map[string]string
	roleUserIDs map[string]string
	// ids holds records that modules' fixture hooks create, by name.
	ids map[string]string
	// fresh makes a new record by name for operations that consume one (deletes).
	fresh map[string]func(role string) string
	// st is the store under test, for hooks that need more than a scoped view.
	st *stores.Set
	// h is the server under test, for hooks that create records through it (uploads).
	h http.Handler
}

// fixtureHooks let each module add the records its matrix cases aim at; sc is the owner's
// scoped store of the matrix tenant, p1 and p2 the scoped stores of a partner admin of
// partner1 and partner2.
var fixtureHooks []func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped)

func (f *fixture) unique(prefix string) string {
	return fmt.Sprintf("%s-%d@example.test", prefix, f.seq.Add(1))
}

// request is what a matrix case sends.
type request struct {
	method, path string
	body         any
}

// rawBody is a request body sent as its bytes, not encoded as JSON (uploads).
type rawBody []byte

// matrixCase says how to call one operation. Every operation of the live document needs one.
type matrixCase struct {
	call func(f *fixture, role string) request
	// byID marks operations aimed at one record of the tenant: a foreign tenant gets 404.
	byID bool
	// otherPartner aims the call at partner2's records: partner users of partner1 get 404 or 403.
	otherPartner func(f *fixture) request
	// public operations answer this status without credentials.
	publicStatus int
}

func get(path string) func(*fixture, string) request {
	return func(*fixture, string) request { return request{method: http.MethodGet, path: path} }
}

var matrix = map[string]matrixCase{
	"get-health":    {call: get("/healthz"), publicStatus: 200},
	"get-readiness": {call: get("/readyz"), publicStatus: 200},
	"login": {publicStatus: 200, call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/auth/login", map[string]string{"email": f.ownerEmail, "password": ownerPassword}}
	}},
	"signup": {publicStatus: 201, call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/signup", map[string]string{"organisationName": "Matrix", "slug": fmt.Sprintf("matrix-%d", f.seq.Add(1)),
			"email": f.unique("signup"), "password": ownerPassword}}
	}},
	"get-installation": {call: get("/api/installation"), publicStatus: 200},
	"refresh-token": {publicStatus: 401, call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/auth/refresh", map[string]string{"refreshToken": "pdr_unknown"}}
	}},
	"logout": {publicStatus: 204, call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/auth/logout", map[string]string{"refreshToken": "pdr_unknown"}}
	}},
	"change-password": {call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/me/password", map[string]string{"currentPassword": ownerPassword, "newPassword": ownerPassword}}
	}},
	"get-me":           {call: get("/api/me")},
	"list-permissions": {call: get("/api/permissions")},
	"list-audit-log":   {call: get("/api/audit-log")},
	"list-apikeys":     {call: get("/api/apikeys")},
	"create-apikey": {call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/apikeys", map[string]any{"name": "matrix", "scopes": []string{"profile:read"}}}
	}},
	"get-apikey": {byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodGet, "/api/apikeys/" + f.apiKeyID, nil}
	}},
	"revoke-apikey": {byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodDelete, "/api/apikeys/" + f.apiKeyID, nil}
	}},
	"list-users": {call: get("/api/users")},
	"create-user": {call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/users", map[string]any{"email": f.unique("op"), "name": "New", "roles": []string{"analyst"}}}
	}},
	"get-user": {byID: true, call: func(f *fixture, _ string) request { return request{http.MethodGet, "/api/users/" + f.opUser, nil} }},
	"update-user": {byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodPatch, "/api/users/" + f.opUser, map[string]any{"name": "Renamed"}}
	}},
	"deactivate-user": {byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/users/" + f.opUser + "/deactivate", nil}
	}},
	"reset-user-password": {byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/users/" + f.opReset + "/password-reset", nil}
	}},
	"reset-partner-user-password": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/partner-users/" + f.p1Reset + "/password-reset", nil}
		},
		otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/partner-users/" + f.p2User + "/password-reset", nil}
		}},
	"accept-invitation": {publicStatus: 401, call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/auth/accept-invitation", map[string]string{"token": "pdt_unknown", "password": ownerPassword}}
	}},
	"reset-password": {publicStatus: 401, call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/auth/reset-password", map[string]string{"token": "pdt_unknown", "password": ownerPassword}}
	}},
	"list-roles": {call: get("/api/roles")},
	"get-tenant": {call: get("/api/tenant")},
	"update-tenant": {call: func(*fixture, string) request {
		return request{http.MethodPatch, "/api/tenant", map[string]any{"name": "Matrix Program"}}
	}},
	"create-role": {call: func(f *fixture, _ string) request {
		return request{http.MethodPost, "/api/roles", map[string]any{"name": fmt.Sprintf("matrix_%d", f.seq.Add(1)), "audience": "operator", "permissions": []string{"profile:read"}}}
	}},
	"get-role": {byID: true, call: func(f *fixture, _ string) request { return request{http.MethodGet, "/api/roles/" + f.roleID, nil} }},
	"update-role": {byID: true, call: func(f *fixture, _ string) request {
		return request{http.MethodPatch, "/api/roles/" + f.roleID, map[string]any{"description": "changed"}}
	}},
	"delete-role": {byID: true, call: func(f *fixture, role string) request {
		id := f.roleID
		if role != "foreign" && role != "" {
			id = f.newRole()
		}
		return request{http.MethodDelete, "/api/roles/" + id, nil}
	}},
	"list-partners": {call: get("/api/partners")},
	"create-partner": {call: func(*fixture, string) request {
		return request{http.MethodPost, "/api/partners", map[string]any{"name": "Matrix Co", "type": "agency"}}
	}},
	"get-partner": {byID: true,
		call:         func(f *fixture, _ string) request { return request{http.MethodGet, "/api/partners/" + f.partner1, nil} },
		otherPartner: func(f *fixture) request { return request{http.MethodGet, "/api/partners/" + f.partner2, nil} }},
	"update-partner": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, "/api/partners/" + f.partner1, map[string]any{"level": "Gold"}}
		},
		otherPartner: func(f *fixture) request {
			return request{http.MethodPatch, "/api/partners/" + f.partner2, map[string]any{"level": "Gold"}}
		}},
	"list-partner-users": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/partners/" + f.partner1 + "/users", nil}
		},
		otherPartner: func(f *fixture) request {
			return request{http.MethodGet, "/api/partners/" + f.partner2 + "/users", nil}
		}},
	"create-partner-user": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/partners/" + f.partner1 + "/users", map[string]any{"email": f.unique("pu"), "name": "P", "roles": []string{"partner_user"}}}
		},
		otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/partners/" + f.partner2 + "/users", map[string]any{"email": f.unique("pu"), "name": "P", "roles": []string{"partner_user"}}}
		}},
	"get-partner-user": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/partner-users/" + f.p1User, nil}
		},
		otherPartner: func(f *fixture) request { return request{http.MethodGet, "/api/partner-users/" + f.p2User, nil} }},
	"update-partner-user": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, "/api/partner-users/" + f.p1User, map[string]any{"name": "Renamed"}}
		},
		otherPartner: func(f *fixture) request {
			return request{http.MethodPatch, "/api/partner-users/" + f.p2User, map[string]any{"name": "Renamed"}}
		}},
	"deactivate-partner-user": {byID: true,
		call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/partner-users/" + f.p1User + "/deactivate", nil}
		},
		otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/partner-users/" + f.p2User + "/deactivate", nil}
		}},
}

type docOperation struct {
	ID         string
	Permission string
	Schemes    []string
}

// liveOperations reads every operation from the served OpenAPI document.
func liveOperations(t *testing.T, h http.Handler) []docOperation {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Permission  string                `json:"x-permission"`
			Security    []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(do(t, h, http.MethodGet, "/openapi.json", nil).Body, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []docOperation
	for _, methods := range doc.Paths {
		for _, op := range methods {
			o := docOperation{ID: op.OperationID, Permission: op.Permission}
			for _, req := range op.Security {
				for scheme := range req {
					o.Schemes = append(o.Schemes, scheme)
				}
			}
			ops = append(ops, o)
		}
	}
	slices.SortFunc(ops, func(a, b docOperation) int { return strings.Compare(a.ID, b.ID) })
	return ops
}

func TestAuthorizationMatrix(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		f := buildFixture(t, st, h)

		send := func(r request, credential string) response {
			var body io.Reader
			switch b := r.body.(type) {
			case nil:
			case rawBody:
				body = bytes.NewReader(b)
			default:
				body = jsonBody(t, r.body)
			}
			// Operations that require an Idempotency-Key get a new one per call; others ignore it.
			key := []string{HeaderIdempotencyKey, fmt.Sprintf("matrix-%d", f.seq.Add(1))}
			if credential == "" {
				return do(t, h, r.method, r.path, body, key...)
			}
			return do(t, h, r.method, r.path, body, append(bearer(credential), key...)...)
		}
		is2xx := func(code int) bool { return code >= 200 && code < 300 }

		ops := liveOperations(t, h)
		checked := 0
		for _, op := range ops {
			c, ok := matrix[op.ID]
			if !ok {
				t.Errorf("operation %s has no expectation in the authorization matrix", op.ID)
				continue
			}
			t.Run(op.ID, func(t *testing.T) {
				if op.Permission == PublicPermission {
					if res := send(c.call(f, ""), ""); res.Status != c.publicStatus {
						t.Errorf("anonymous call = %d, want %d: %s", res.Status, c.publicStatus, res.Body)
					}
					return
				}
				perm := authz.Permission(op.Permission)
				if res := send(c.call(f, ""), ""); res.Status != http.StatusUnauthorized {
					t.Errorf("no credentials = %d, want 401", res.Status)
				}
				usersAccepted := slices.Contains(op.Schemes, SchemeBearer)
				for _, role := range authz.BuiltinRoles() {
					res := send(c.call(f, role.Name), f.tokens[role.Name])
					holds := slices.Contains(role.Permissions, perm)
					switch {
					case !usersAccepted:
						if res.Status != http.StatusUnauthorized {
							t.Errorf("keys-only operation: role %s's access token got %d, want 401", role.Name, res.Status)
						}
					case holds && !is2xx(res.Status):
						t.Errorf("role %s holds %s but got %d: %s", role.Name, perm, res.Status, res.Body)
					case !holds && res.Status != http.StatusForbidden:
						t.Errorf("role %s lacks %s but got %d", role.Name, perm, res.Status)
					}
				}
				keysAccepted := slices.Contains(op.Schemes, SchemeMachineKey)
				withScope := send(c.call(f, "key"), f.keyFor[perm])
				withoutScope := send(c.call(f, "key"), f.keyWithout)
				if keysAccepted {
					if !is2xx(withScope.Status) {
						t.Errorf("a key with scope %s got %d: %s", perm, withScope.Status, withScope.Body)
					}
					if perm != authz.ProfileRead && withoutScope.Status != http.StatusForbidden {
						t.Errorf("a key without scope %s got %d", perm, withoutScope.Status)
					}
				} else if withScope.Status != http.StatusUnauthorized || withoutScope.Status != http.StatusUnauthorized {
					t.Errorf("users-only operation: keys got %d and %d, want 401", withScope.Status, withoutScope.Status)
				}
				if c.byID {
					if res := send(c.call(f, "foreign"), f.foreign); res.Status != http.StatusNotFound {
						t.Errorf("another tenant's owner on this tenant's ids = %d, want 404", res.Status)
					}
				}
				if c.otherPartner != nil {
					for _, role := range []string{authz.RolePartnerAdmin, authz.RolePartnerUser} {
						res := send(c.otherPartner(f), f.tokens[role])
						if res.Status != http.StatusNotFound && res.Status != http.StatusForbidden {
							t.Errorf("%s of partner1 on partner2's ids = %d, want 404 or 403", role, res.Status)
						}
					}
				}
				checked++
			})
		}
		if checked == 0 {
			t.Fatal("the matrix checked no guarded operation")
		}
		t.Logf("matrix: %d operations, %d built-in roles, keys with and without scope, foreign tenant, foreign partner", len(ops), len(authz.BuiltinRoles()))
	})
}

func buildFixture(t *testing.T, st *stores.Set, h http.Handler) *fixture {
	t.Helper()
	ctx := context.Background()
	tenantID, ownerEmail := seedTenant(t, st, "matrix")
	_, foreignEmail := seedTenant(t, st, "foreign")
	ownerUsers, err := st.UsersByEmail(ctx, ownerEmail, "matrix")
	if err != nil || len(ownerUsers) != 1 {
		t.Fatalf("owner lookup: %v", err)
	}
	owner := &models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: ownerUsers[0].ID}
	sc := st.For(owner)
	hash, _ := authn.HashPassword(ownerPassword)
	f := &fixture{tokens: map[string]string{}, keyFor: map[authz.Permission]string{}, ownerEmail: ownerEmail,
		roleEmails: map[string]string{}, roleUserIDs: map[string]string{}, ids: map[string]string{}, fresh: map[string]func(string) string{}, st: st, h: h}

	p1 := &models.Partner{Name: "Partner One", Type: models.PartnerReseller}
	p2 := &models.Partner{Name: "Partner Two", Type: models.PartnerAgency}
	for _, p := range []*models.Partner{p1, p2} {
		if err := sc.CreatePartner(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	f.partner1, f.partner2 = p1.ID, p2.ID

	newUser := func(email string, partner *string, roles ...string) string {
		u := &models.User{Email: email, Name: email, PasswordHash: hash, PartnerID: partner, Status: models.UserStatusActive}
		if err := sc.CreateUser(ctx, u, roles); err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	for _, role := range authz.BuiltinRoles() {
		email := "role-" + role.Name + "@matrix.test"
		var partner *string
		if role.Audience == authz.ForPartners {
			partner = &p1.ID
		}
		f.roleUserIDs[role.Name] = newUser(email, partner, role.Name)
		f.roleEmails[role.Name] = email
		f.tokens[role.Name] = login(t, h, email, ownerPassword).AccessToken
	}
	f.opUser = newUser("target-op@matrix.test", nil, authz.RoleSupport)
	f.p1User = newUser("target-p1@matrix.test", &p1.ID, authz.RolePartnerUser)
	f.p2User = newUser("target-p2@matrix.test", &p2.ID, authz.RolePartnerUser)
	f.opReset = newUser("reset-op@matrix.test", nil, authz.RoleSupport)
	f.p1Reset = newUser("reset-p1@matrix.test", &p1.ID, authz.RolePartnerUser)
	f.foreign = login(t, h, foreignEmail, ownerPassword).AccessToken
	f.newRole = func() string {
		r := &models.CustomRole{Name: fmt.Sprintf("fixture_%d", f.seq.Add(1)), Audience: "operator", Permissions: `["profile:read"]`}
		if err := sc.CreateCustomRole(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	f.roleID = f.newRole()

	mint := func(scopes ...authz.Permission) (string, string) {
		k, err := authn.NewMachineKey()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(scopes)
		rec := &models.APIKey{Name: "matrix", LookupID: k.LookupID, Hash: k.Hash, Scopes: string(b)}
		if err := sc.CreateAPIKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		return k.Plaintext, rec.ID
	}
	for _, perm := range authz.All() {
		f.keyFor[perm], _ = mint(perm)
	}
	f.keyWithout, _ = mint(authz.ProfileRead)
	_, f.apiKeyID = mint(authz.ProfileRead)
	partnerScope := func(partnerID string) *stores.Scoped {
		return st.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: tenantID, UserID: f.roleUserIDs[authz.RolePartnerAdmin], PartnerID: partnerID})
	}
	for _, hook := range fixtureHooks {
		hook(t, f, sc, partnerScope(p1.ID), partnerScope(p2.ID))
	}
	return f
}
