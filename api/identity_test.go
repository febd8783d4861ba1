package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/rails"
	"github.com/partnerd/partnerd/rails/railstest"
)

const ownerPassword = "correct horse battery staple"

// identityServer is a Server on a real store, wired as cmd wires it.
func identityServer(t testing.TB, st *stores.Set) (*Server, *syncBuffer) {
	t.Helper()
	return identityServerWith(t, st, Config{Version: "test", SignupEnabled: true})
}

func identityServerWith(t testing.TB, st *stores.Set, cfg Config) (*Server, *syncBuffer) {
	t.Helper()
	return testServerWith(t, cfg, identityDeps(t, st))
}

// identityDeps are the dependencies of a Server on st, with a master key of its own; servers
// built on the same Deps accept each other's tokens, as processes of one installation do.
func identityDeps(t testing.TB, st *stores.Set) Deps {
	t.Helper()
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, err := models.NewKeyring(map[int][]byte{1: master}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return Deps{
		Tenants:      st,
		Identity:     st,
		Modules:      modulesOf(st),
		Tokens:       authn.NewTokens(keys, "partnerd", "partnerd-api"),
		Authorizer:   authz.NewAuthorizer(st),
		Webhooks:     WebhookDeps{Keyring: webhookTestKeys, Starter: &fakeStarter{}},
		Applications: st,
		SurveyLinks:  st,
		Brands:       st,
		Domains:      &fakeDomains{},
		Payouts:      &fakePayouts{},
		Runs:         &fakeRuns{},
		Health:       &syncHealth{st: st},
		Idempotency:  st,
		Blobs:        testBlobs(t),
		RateLimiter:  st,
		Certificates: authn.NewCertificates(keys),
		Rails:        RailDeps{Store: st, Stripe: &rails.Stripe{URL: railstest.StripeFixture(t)}},
	}
}

// seedTenant creates a tenant whose owner signs in with ownerPassword.
func seedTenant(t testing.TB, st *stores.Set, slug string) (tenantID, ownerEmail string) {
	t.Helper()
	hash, err := authn.HashPassword(ownerPassword)
	if err != nil {
		t.Fatal(err)
	}
	tenant := &models.Tenant{Slug: slug, Name: strings.ToUpper(slug)}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner", PasswordHash: hash}
	if err := st.CreateTenant(context.Background(), tenant, owner); err != nil {
		t.Fatal(err)
	}
	return tenant.ID, owner.Email
}

func jsonBody(t testing.TB, v any) *strings.Reader {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReader(string(b))
}

func decode[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
	return v
}

type tokens struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken"`
	ExpiresIn    int    `json:"expiresIn"`
	Tenant       struct {
		Slug string `json:"slug"`
	} `json:"tenant"`
}

func login(t testing.TB, h http.Handler, email, password string) tokens {
	t.Helper()
	res := do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": password}))
	if res.Status != http.StatusOK {
		t.Fatalf("login %s = %d %s", email, res.Status, res.Body)
	}
	return decode[tokens](t, res)
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

func TestLoginRefreshAndLogout(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, logs := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")

		bad := do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": "wrong"}))
		if p := bad.problem(t); p.Status != http.StatusUnauthorized || p.Code != "INVALID_CREDENTIALS" {
			t.Fatalf("wrong password = %+v", p)
		}
		tok := login(t, h, strings.ToUpper(email), ownerPassword)
		if tok.ExpiresIn < 890 || tok.ExpiresIn > 900 || tok.Tenant.Slug != "acme" || !strings.HasPrefix(tok.RefreshToken, "pdr_") {
			t.Fatalf("tokens = %+v", tok)
		}

		me := do(t, h, http.MethodGet, "/api/me", nil, bearer(tok.AccessToken)...)
		meBody := decode[struct {
			Kind        string                `json:"kind"`
			Email       string                `json:"email"`
			Roles       []string              `json:"roles"`
			Permissions []string              `json:"permissions"`
			Tenant      struct{ Slug string } `json:"tenant"`
		}](t, me)
		if me.Status != http.StatusOK || meBody.Kind != "operator" || meBody.Email != email || meBody.Tenant.Slug != "acme" ||
			len(meBody.Roles) != 1 || meBody.Roles[0] != "owner" || len(meBody.Permissions) != len(authz.All()) {
			t.Fatalf("GET /api/me = %d %s", me.Status, me.Body)
		}

		refreshed := do(t, h, http.MethodPost, "/api/auth/refresh", jsonBody(t, map[string]string{"refreshToken": tok.RefreshToken}))
		next := decode[tokens](t, refreshed)
		if refreshed.Status != http.StatusOK || next.RefreshToken == tok.RefreshToken || next.AccessToken == "" {
			t.Fatalf("refresh = %d %s", refreshed.Status, refreshed.Body)
		}
		reuse := do(t, h, http.MethodPost, "/api/auth/refresh", jsonBody(t, map[string]string{"refreshToken": tok.RefreshToken}))
		if p := reuse.problem(t); p.Status != http.StatusUnauthorized || p.Code != "REFRESH_TOKEN_REUSED" {
			t.Fatalf("reusing a refresh token = %+v", p)
		}
		if res := do(t, h, http.MethodPost, "/api/auth/refresh", jsonBody(t, map[string]string{"refreshToken": next.RefreshToken})); res.Status != http.StatusUnauthorized {
			t.Fatalf("the family survived a reuse: %d", res.Status)
		}

		again := login(t, h, email, ownerPassword)
		if res := do(t, h, http.MethodPost, "/api/auth/logout", jsonBody(t, map[string]string{"refreshToken": again.RefreshToken})); res.Status != http.StatusNoContent {
			t.Fatalf("logout = %d %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/auth/refresh", jsonBody(t, map[string]string{"refreshToken": again.RefreshToken})); res.Status != http.StatusUnauthorized {
			t.Fatalf("refresh after logout = %d", res.Status)
		}

		for _, secret := range []string{ownerPassword, tok.AccessToken, tok.RefreshToken, next.RefreshToken} {
			if strings.Contains(logs.String(), secret) {
				t.Fatalf("a credential reached the logs")
			}
		}
	})
}

func TestFailedLoginsAreRateLimited(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		for range 5 {
			do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": "guess"}))
		}
		res := do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": ownerPassword}))
		if p := res.problem(t); p.Status != http.StatusTooManyRequests || p.Code != "RATE_LIMITED" {
			t.Fatalf("the sixth attempt = %+v", p)
		}
		if res.Header.Get("Retry-After") == "" || res.Header.Get("RateLimit-Policy") == "" {
			t.Fatalf("429 without Retry-After or RateLimit-Policy: %v", res.Header)
		}
	})
}

// A guesser who knows an email slows only itself: the account's owner signs in from another
// client, and a guesser spreading over many clients meets the account's own ceiling.
func TestFailedLoginsNeverLockTheOwnerOut(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		// A quota returns one unit every window/limit (GCRA, ADR 22): 9 s for the account's
		// default 100 per 15 minutes. Windows of a day keep the 120 sign-ins below from earning
		// units back on a slow machine; the ceilings stay 5, 20 and 100.
		limits := DefaultRateLimits()
		limits.LoginAccountClient.Window, limits.LoginClient.Window, limits.LoginAccount.Window = 24*time.Hour, 24*time.Hour, 24*time.Hour
		s, _ := identityServerWith(t, st, Config{Version: "test", SignupEnabled: true, RateLimits: &limits})
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		login := func(addr, password string) response {
			return doFrom(t, h, addr, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": password}))
		}
		const attacker, owner = "203.0.113.9:4000", "198.51.100.7:5000"
		for i := range 5 {
			if r := login(attacker, "guess"); r.Status != http.StatusUnauthorized {
				t.Fatalf("guess %d = %d", i+1, r.Status)
			}
		}
		if r := login(attacker, ownerPassword); r.Status != http.StatusTooManyRequests {
			t.Fatalf("the guesser's sixth try, even right, = %d; want 429", r.Status)
		}
		if r := login(owner, ownerPassword); r.Status != http.StatusOK {
			t.Fatalf("the owner from another client = %d %s; want 200", r.Status, r.Body)
		}
		// The guesser moves on to other accounts from the same client: the client's own limit stops it.
		for i := range 15 {
			r := doFrom(t, h, attacker, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": fmt.Sprintf("someone%d@example.test", i), "password": "guess"}))
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("guess on another account %d = %d", i, r.Status)
			}
		}
		if r := doFrom(t, h, attacker, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": "fresh@example.test", "password": "guess"})); r.Status != http.StatusTooManyRequests {
			t.Fatalf("the client's 21st failure = %d; want 429", r.Status)
		}
		// Guesses spread over many clients reach the account's ceiling (100), and the owner is then
		// slowed too: that is the price of stopping a distributed guesser, and it needs 100 clients.
		for i := range 100 {
			login(fmt.Sprintf("192.0.2.%d:1000", i+1), "guess")
		}
		if r := login("198.51.100.8:5000", ownerPassword); r.Status != http.StatusTooManyRequests {
			t.Fatalf("after 100 failures from many clients the account = %d; want 429", r.Status)
		}
	})
}

type keyOut struct {
	ID     string   `json:"id"`
	Key    string   `json:"key"`
	Prefix string   `json:"prefix"`
	Scopes []string `json:"scopes"`
}

func TestMachineKeysAreShownOnceAndLimitedToTheirScopes(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, logs := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)

		created := do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "ci", "scopes": []string{"apikeys:read"}}),
			append(bearer(owner.AccessToken), HeaderRequestID, "create-key-1")...)
		key := decode[keyOut](t, created)
		if created.Status != http.StatusCreated || !strings.HasPrefix(key.Key, "pd_live_") || !strings.HasPrefix(key.Key, key.Prefix) {
			t.Fatalf("create = %d %s", created.Status, created.Body)
		}
		listed := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(owner.AccessToken)...)
		got := do(t, h, http.MethodGet, "/api/apikeys/"+key.ID, nil, bearer(owner.AccessToken)...)
		for _, r := range []response{listed, got} {
			if r.Status != http.StatusOK || strings.Contains(string(r.Body), key.Key) || !strings.Contains(string(r.Body), key.Prefix) {
				t.Fatalf("a list or get shows the key or lacks the prefix: %d %s", r.Status, r.Body)
			}
		}

		if r := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(key.Key)...); r.Status != http.StatusOK {
			t.Fatalf("the key on its own scope = %d %s", r.Status, r.Body)
		}
		if p := do(t, h, http.MethodGet, "/api/me", nil, bearer(key.Key)...).problem(t); p.Status != http.StatusForbidden {
			t.Fatalf("the key outside its scopes = %d", p.Status)
		}
		if p := do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "x", "scopes": []string{"apikeys:read"}}), bearer(key.Key)...).problem(t); p.Status != http.StatusUnauthorized {
			t.Fatalf("a key on a users-only operation = %d", p.Status)
		}
		malformed := key.Key[:len(key.Key)-1] + "x"
		if malformed == key.Key {
			malformed = key.Key[:len(key.Key)-1] + "y"
		}
		if p := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(malformed)...).problem(t); p.Status != http.StatusUnauthorized {
			t.Fatalf("a key with a bad checksum = %d", p.Status)
		}

		invalid := do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "x", "scopes": []string{"made:up", "apikeys:read"}}), bearer(owner.AccessToken)...)
		if p := invalid.problem(t); p.Status != http.StatusUnprocessableEntity || len(p.Errors) != 1 || p.Errors[0].Location != "body.scopes[0]" {
			t.Fatalf("an unknown scope = %+v", p)
		}
		massAssign := do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "x", "scopes": []string{"apikeys:read"}, "tenantId": "other"}), bearer(owner.AccessToken)...)
		if massAssign.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a body with tenantId = %d, want 422 (unknown field)", massAssign.Status)
		}

		if r := do(t, h, http.MethodDelete, "/api/apikeys/"+key.ID, nil, bearer(owner.AccessToken)...); r.Status != http.StatusOK {
			t.Fatalf("revoke = %d %s", r.Status, r.Body)
		}
		if p := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(key.Key)...).problem(t); p.Status != http.StatusUnauthorized {
			t.Fatalf("a revoked key = %d", p.Status)
		}

		audit := do(t, h, http.MethodGet, "/api/audit-log?targetType=apikey", nil, bearer(owner.AccessToken)...)
		if audit.Status != http.StatusOK || !strings.Contains(string(audit.Body), "apikey.created") ||
			!strings.Contains(string(audit.Body), "apikey.revoked") || !strings.Contains(string(audit.Body), "create-key-1") {
			t.Fatalf("audit = %d %s", audit.Status, audit.Body)
		}
		if strings.Contains(logs.String(), key.Key) {
			t.Fatal("the key plaintext reached the logs")
		}
	})
}

func TestOtherTenantsSeeNothingAndCursorsCannotBeForged(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, acmeEmail := seedTenant(t, st, "acme")
		_, globexEmail := seedTenant(t, st, "globex")
		acme := login(t, h, acmeEmail, ownerPassword)
		globex := login(t, h, globexEmail, ownerPassword)
		var ids []string
		for range 3 {
			k := decode[keyOut](t, do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "k", "scopes": []string{"apikeys:read"}}), bearer(acme.AccessToken)...))
			ids = append(ids, k.ID)
		}
		if p := do(t, h, http.MethodGet, "/api/apikeys/"+ids[0], nil, bearer(globex.AccessToken)...).problem(t); p.Status != http.StatusNotFound {
			t.Fatalf("another tenant's key = %d", p.Status)
		}
		if p := do(t, h, http.MethodDelete, "/api/apikeys/"+ids[0], nil, bearer(globex.AccessToken)...).problem(t); p.Status != http.StatusNotFound {
			t.Fatalf("revoking another tenant's key = %d", p.Status)
		}

		page1 := decode[ListBody[keyOut]](t, do(t, h, http.MethodGet, "/api/apikeys?limit=2", nil, bearer(acme.AccessToken)...))
		if len(page1.Data) != 2 || page1.NextCursor == "" {
			t.Fatalf("page 1 = %+v", page1)
		}
		page2 := decode[ListBody[keyOut]](t, do(t, h, http.MethodGet, "/api/apikeys?limit=2&cursor="+page1.NextCursor, nil, bearer(acme.AccessToken)...))
		if len(page2.Data) != 1 || page2.NextCursor != "" || page2.Data[0].ID != ids[2] {
			t.Fatalf("page 2 = %+v", page2)
		}
		if p := do(t, h, http.MethodGet, "/api/apikeys?cursor="+page1.NextCursor+"x", nil, bearer(acme.AccessToken)...).problem(t); p.Status != http.StatusBadRequest || p.Code != "INVALID_CURSOR" {
			t.Fatalf("a tampered cursor = %+v", p)
		}
		if p := do(t, h, http.MethodGet, "/api/apikeys?limit=-1", nil, bearer(acme.AccessToken)...).problem(t); p.Status != http.StatusBadRequest {
			t.Fatalf("a negative limit = %d", p.Status)
		}
		foreign := decode[ListBody[keyOut]](t, do(t, h, http.MethodGet, "/api/apikeys?cursor="+page1.NextCursor, nil, bearer(globex.AccessToken)...))
		if len(foreign.Data) != 0 {
			t.Fatal("another tenant's cursor showed acme's keys")
		}
		if r := do(t, h, http.MethodGet, "/api/apikeys?limit=1000", nil, bearer(acme.AccessToken)...); r.Status != http.StatusOK {
			t.Fatalf("a large limit = %d, want clamped", r.Status)
		}
	})
}

func TestSignupOpensATenantAndSignsTheOwnerIn(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, logs := identityServer(t, st)
		h := s.Handler()
		body := map[string]string{"organisationName": "Initech", "slug": "initech", "email": "peter@initech.test", "password": "tps-reports-2026!"}
		res := do(t, h, http.MethodPost, "/api/signup", jsonBody(t, body))
		tok := decode[tokens](t, res)
		if res.Status != http.StatusCreated || tok.Tenant.Slug != "initech" || tok.AccessToken == "" {
			t.Fatalf("signup = %d %s", res.Status, res.Body)
		}
		me := decode[struct {
			Roles []string `json:"roles"`
		}](t, do(t, h, http.MethodGet, "/api/me", nil, bearer(tok.AccessToken)...))
		if len(me.Roles) != 1 || me.Roles[0] != "owner" {
			t.Fatalf("the new owner's roles = %v", me.Roles)
		}
		if p := do(t, h, http.MethodPost, "/api/signup", jsonBody(t, body)).problem(t); p.Status != http.StatusConflict || p.Code != "TENANT_SLUG_TAKEN" {
			t.Fatalf("a taken slug = %+v", p)
		}
		bad := map[string]string{"organisationName": "X", "slug": "Not A Slug", "email": "nope", "password": "short"}
		if p := do(t, h, http.MethodPost, "/api/signup", jsonBody(t, bad)).problem(t); p.Status != http.StatusUnprocessableEntity || len(p.Errors) != 3 {
			t.Fatalf("bad input = %+v, want 422 naming slug, email and password", p)
		}
		if strings.Contains(logs.String(), "tps-reports-2026!") {
			t.Fatal("the password reached the logs")
		}
		for range 5 {
			do(t, h, http.MethodPost, "/api/signup", jsonBody(t, body))
		}
		if res := do(t, h, http.MethodPost, "/api/signup", jsonBody(t, body)); res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
			t.Fatalf("sign-ups past the limit = %d", res.Status)
		}

		off, _ := identityServerWith(t, st, Config{Version: "test"})
		body["slug"] = "other"
		if p := do(t, off.Handler(), http.MethodPost, "/api/signup", jsonBody(t, body)).problem(t); p.Status != http.StatusForbidden || p.Code != "SIGNUP_DISABLED" {
			t.Fatalf("sign-up turned off = %+v", p)
		}
	})
}

func TestInstallationSaysWhetherSignupIsOpen(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		body := map[string]string{"organisationName": "Open Program", "slug": "open-program", "email": "open@program.test", "password": ownerPassword}
		for _, open := range []bool{true, false} {
			s, _ := identityServerWith(t, st, Config{Version: "test", SignupEnabled: open})
			h := s.Handler()
			res := do(t, h, http.MethodGet, "/api/installation", nil)
			got := decode[struct {
				Signup *bool `json:"signup"`
			}](t, res)
			if res.Status != http.StatusOK || got.Signup == nil || *got.Signup != open {
				t.Fatalf("sign-up %v: GET /api/installation = %d %s", open, res.Status, res.Body)
			}
			// What it says is what POST /api/signup does.
			signup := do(t, h, http.MethodPost, "/api/signup", jsonBody(t, body))
			if open && signup.Status != http.StatusCreated || !open && signup.Status != http.StatusForbidden {
				t.Fatalf("sign-up %v: POST /api/signup = %d %s", open, signup.Status, signup.Body)
			}
			body["slug"], body["email"] = "closed-program", "closed@program.test"
		}
	})
}

func TestInvitationsAndPasswordResetsWorkOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, logs := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)

		created := do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "ana@acme.test", "name": "Ana", "roles": []string{"analyst"}}), bearer(owner.AccessToken)...)
		inv := decode[struct {
			ID         string `json:"id"`
			Status     string `json:"status"`
			Invitation struct {
				Token string `json:"token"`
			} `json:"invitation"`
		}](t, created)
		if created.Status != http.StatusCreated || inv.Status != "invited" || !strings.HasPrefix(inv.Invitation.Token, "pdt_") {
			t.Fatalf("create user = %d %s", created.Status, created.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": "ana@acme.test", "password": "anything-at-all"})); res.Status != http.StatusUnauthorized {
			t.Fatalf("an invited user signed in before accepting: %d", res.Status)
		}
		accept := do(t, h, http.MethodPost, "/api/auth/accept-invitation", jsonBody(t, map[string]string{"token": inv.Invitation.Token, "password": "ana-chooses-this-one"}))
		tok := decode[tokens](t, accept)
		if accept.Status != http.StatusOK || tok.AccessToken == "" {
			t.Fatalf("accept = %d %s", accept.Status, accept.Body)
		}
		me := decode[struct {
			Roles       []string `json:"roles"`
			Permissions []string `json:"permissions"`
		}](t, do(t, h, http.MethodGet, "/api/me", nil, bearer(tok.AccessToken)...))
		if len(me.Roles) != 1 || me.Roles[0] != "analyst" || len(me.Permissions) == 0 {
			t.Fatalf("the new user's me = %+v", me)
		}
		if res := do(t, h, http.MethodPost, "/api/auth/accept-invitation", jsonBody(t, map[string]string{"token": inv.Invitation.Token, "password": "second-try-password"})); res.Status != http.StatusUnauthorized {
			t.Fatalf("an invitation worked twice: %d", res.Status)
		}

		reset := decode[OneTimeToken](t, do(t, h, http.MethodPost, "/api/users/"+inv.ID+"/password-reset", nil, bearer(owner.AccessToken)...))
		if res := do(t, h, http.MethodPost, "/api/auth/reset-password", jsonBody(t, map[string]string{"token": reset.Token, "password": "ana-new-password-2"})); res.Status != http.StatusNoContent {
			t.Fatalf("reset = %d %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/auth/refresh", jsonBody(t, map[string]string{"refreshToken": tok.RefreshToken})); res.Status != http.StatusUnauthorized {
			t.Fatalf("a session survived the password reset: %d", res.Status)
		}
		login(t, h, "ana@acme.test", "ana-new-password-2")
		if res := do(t, h, http.MethodPost, "/api/auth/reset-password", jsonBody(t, map[string]string{"token": reset.Token, "password": "ana-third-password"})); res.Status != http.StatusUnauthorized {
			t.Fatalf("a reset token worked twice: %d", res.Status)
		}

		analyst := login(t, h, "ana@acme.test", "ana-new-password-2")
		escalate := do(t, h, http.MethodPatch, "/api/users/"+inv.ID, jsonBody(t, map[string]any{"roles": []string{"owner"}}), bearer(analyst.AccessToken)...)
		if escalate.Status != http.StatusForbidden {
			t.Fatalf("an analyst changed roles: %d", escalate.Status)
		}
		if res := do(t, h, http.MethodPost, "/api/users/"+inv.ID+"/deactivate", nil, bearer(owner.AccessToken)...); res.Status != http.StatusOK {
			t.Fatalf("deactivate = %d %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodGet, "/api/me", nil, bearer(analyst.AccessToken)...); res.Status != http.StatusUnauthorized {
			t.Fatalf("a deactivated user's access token still works: %d", res.Status)
		}
		for _, secret := range []string{inv.Invitation.Token, reset.Token, "ana-new-password-2"} {
			if strings.Contains(logs.String(), secret) {
				t.Fatal("a one-time token or password reached the logs")
			}
		}
	})
}

func TestAdminsCannotGrantRolesBeyondTheirOwnPermissions(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)
		created := decode[struct {
			ID         string                 `json:"id"`
			Invitation struct{ Token string } `json:"invitation"`
		}](t, do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "adm@acme.test", "name": "Adm", "roles": []string{"admin"}}), bearer(owner.AccessToken)...))
		admin := decode[tokens](t, do(t, h, http.MethodPost, "/api/auth/accept-invitation", jsonBody(t, map[string]string{"token": created.Invitation.Token, "password": "admin-password-1"})))
		res := do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "x@acme.test", "name": "X", "roles": []string{"owner"}}), bearer(admin.AccessToken)...)
		if p := res.problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != "INVALID_ROLES" {
			t.Fatalf("an admin granting owner = %+v", p)
		}
		res = do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "y@acme.test", "name": "Y", "roles": []string{"partner_user"}}), bearer(admin.AccessToken)...)
		if p := res.problem(t); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a partner role for an operator = %+v", p)
		}
	})
}

func TestCustomRolesGrantTheirPermissionsAtOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)
		role := decode[struct {
			ID string `json:"id"`
		}](t, do(t, h, http.MethodPost, "/api/roles", jsonBody(t, map[string]any{"name": "auditor", "audience": "operator", "permissions": []string{"audit:read", "profile:read"}}), bearer(owner.AccessToken)...))
		if role.ID == "" {
			t.Fatal("role not created")
		}
		created := decode[struct {
			ID         string                 `json:"id"`
			Invitation struct{ Token string } `json:"invitation"`
		}](t, do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "aud@acme.test", "name": "Aud", "roles": []string{"auditor"}}), bearer(owner.AccessToken)...))
		aud := decode[tokens](t, do(t, h, http.MethodPost, "/api/auth/accept-invitation", jsonBody(t, map[string]string{"token": created.Invitation.Token, "password": "auditor-password-1"})))
		if r := do(t, h, http.MethodGet, "/api/audit-log", nil, bearer(aud.AccessToken)...); r.Status != http.StatusOK {
			t.Fatalf("the custom role does not grant audit:read: %d", r.Status)
		}
		if r := do(t, h, http.MethodGet, "/api/users", nil, bearer(aud.AccessToken)...); r.Status != http.StatusForbidden {
			t.Fatalf("the custom role grants more than it lists: %d", r.Status)
		}
		do(t, h, http.MethodPatch, "/api/roles/"+role.ID, jsonBody(t, map[string]any{"permissions": []string{"profile:read"}}), bearer(owner.AccessToken)...)
		if r := do(t, h, http.MethodGet, "/api/audit-log", nil, bearer(aud.AccessToken)...); r.Status != http.StatusForbidden {
			t.Fatalf("a permission removed from the role still works: %d", r.Status)
		}
		if r := do(t, h, http.MethodDelete, "/api/roles/"+role.ID, nil, bearer(owner.AccessToken)...); r.Status != http.StatusNoContent {
			t.Fatalf("delete role = %d", r.Status)
		}
		if r := do(t, h, http.MethodGet, "/api/me", nil, bearer(aud.AccessToken)...); r.Status != http.StatusForbidden {
			t.Fatalf("a deleted role still grants profile:read: %d", r.Status)
		}
		bad := do(t, h, http.MethodPost, "/api/roles", jsonBody(t, map[string]any{"name": "leaky", "audience": "partner", "permissions": []string{"audit:read", "made:up"}}), bearer(owner.AccessToken)...)
		if p := bad.problem(t); p.Status != http.StatusUnprocessableEntity || len(p.Errors) != 2 {
			t.Fatalf("a partner role with operator-only and unknown permissions = %+v", p)
		}
		if p := do(t, h, http.MethodPost, "/api/roles", jsonBody(t, map[string]any{"name": "owner", "audience": "operator", "permissions": []string{"profile:read"}}), bearer(owner.AccessToken)...).problem(t); p.Status != http.StatusConflict {
			t.Fatalf("a custom role named like a built-in one = %d", p.Status)
		}
	})
}

func TestTenantRenameIsAuditedAndKeysBindOnlyToKnownPartners(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)
		if r := do(t, h, http.MethodPatch, "/api/tenant", jsonBody(t, map[string]any{"name": "Acme Partners"}), bearer(owner.AccessToken)...); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Acme Partners") {
			t.Fatalf("rename = %d %s", r.Status, r.Body)
		}
		audit := do(t, h, http.MethodGet, "/api/audit-log?action=tenant.updated", nil, bearer(owner.AccessToken)...)
		if !strings.Contains(string(audit.Body), `"changedFields":["name"]`) {
			t.Fatalf("the rename is not audited with its field: %s", audit.Body)
		}
		res := do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "k", "scopes": []string{"partners:read"}, "partnerId": "01900000-0000-7000-8000-000000000000"}), bearer(owner.AccessToken)...)
		if p := res.problem(t); p.Status != http.StatusUnprocessableEntity || p.Errors[0].Location != "body.partnerId" {
			t.Fatalf("a key bound to an unknown partner = %+v", p)
		}
		partner := decode[struct {
			ID string `json:"id"`
		}](t, do(t, h, http.MethodPost, "/api/partners", jsonBody(t, map[string]any{"name": "P", "type": "broker"}), bearer(owner.AccessToken)...))
		other := decode[struct {
			ID string `json:"id"`
		}](t, do(t, h, http.MethodPost, "/api/partners", jsonBody(t, map[string]any{"name": "Q", "type": "broker"}), bearer(owner.AccessToken)...))
		key := decode[keyOut](t, do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "k", "scopes": []string{"partners:read"}, "partnerId": partner.ID}), bearer(owner.AccessToken)...))
		list := decode[ListBody[Partner]](t, do(t, h, http.MethodGet, "/api/partners", nil, bearer(key.Key)...))
		if len(list.Data) != 1 || list.Data[0].ID != partner.ID {
			t.Fatalf("a partner-bound key lists %+v, want only its partner", list.Data)
		}
		if r := do(t, h, http.MethodGet, "/api/partners/"+other.ID, nil, bearer(key.Key)...); r.Status != http.StatusNotFound {
			t.Fatalf("a partner-bound key reads another partner: %d", r.Status)
		}
	})
}

func TestExpiredMachineKeysAreRefused(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)
		if r := do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "past", "scopes": []string{"apikeys:read"}, "expiresAt": "2020-01-01T00:00:00Z"}), bearer(owner.AccessToken)...); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a key expiring in the past was created: %d", r.Status)
		}
		expiry := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		key := decode[keyOut](t, do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "soon", "scopes": []string{"apikeys:read"}, "expiresAt": expiry.Format(time.RFC3339)}), bearer(owner.AccessToken)...))
		if r := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(key.Key)...); r.Status != http.StatusOK {
			t.Fatalf("a key before its expiry = %d", r.Status)
		}
		auth := s.deps.Authenticator.(*credentialAuthenticator)
		auth.now = func() time.Time { return expiry.Add(time.Second) }
		if p := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(key.Key)...).problem(t); p.Status != http.StatusUnauthorized {
			t.Fatalf("a key after its expiry = %d", p.Status)
		}
	})
}
