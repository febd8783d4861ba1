package api

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// twoProcesses are two API servers over one store set, as two processes behind a load balancer
// over one database.
func twoProcesses(t *testing.T, st *stores.Set, limits RateLimits) [2]http.Handler {
	t.Helper()
	deps := identityDeps(t, st)
	var hs [2]http.Handler
	for i := range hs {
		s, _ := testServerWith(t, Config{Version: "test", SignupEnabled: true, RateLimits: &limits}, deps)
		hs[i] = s.Handler()
	}
	return hs
}

// Requests split across two API processes count against one quota, per machine key, per
// tenant and per sign-in identity, with the RateLimit headers on every answer and 429 with
// Retry-After past the quota.
func TestRateLimitsHoldAcrossAPIProcesses(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		limits := DefaultRateLimits()
		limits.MachineKey = models.Quota{Limit: 5, Window: time.Hour}
		limits.Tenant = models.Quota{Limit: 8, Window: time.Hour}
		hs := twoProcesses(t, st, limits)
		_, email := seedTenant(t, st, "acme")
		owner := login(t, hs[0], email, ownerPassword)
		newKey := func(name string) string {
			res := do(t, hs[1], http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": name, "scopes": []string{"apikeys:read"}}), bearer(owner.AccessToken)...)
			if res.Status != http.StatusCreated {
				t.Fatalf("create key = %d %s", res.Status, res.Body)
			}
			return decode[keyOut](t, res).Key
		}
		first, second := newKey("first"), newKey("second") // the tenant has spent 2 of 8

		for i := range 5 {
			res := do(t, hs[i%2], http.MethodGet, "/api/apikeys", nil, bearer(first)...)
			if res.Status != http.StatusOK {
				t.Fatalf("request %d of the key = %d %s", i+1, res.Status, res.Body)
			}
			if got, want := res.Header.Get("RateLimit-Policy"), `"machine-key";q=5;w=3600, "tenant";q=8;w=3600`; got != want {
				t.Fatalf("RateLimit-Policy = %q, want %q", got, want)
			}
			wantState := fmt.Sprintf(`"machine-key";r=%d;t=%d, "tenant";r=%d;t=%d`, 4-i, 720*(i+1), 8-3-i, 450*(i+3))
			if got := res.Header.Get("RateLimit"); got != wantState {
				t.Fatalf("request %d: RateLimit = %q, want %q", i+1, got, wantState)
			}
		}
		for i, h := range hs {
			res := do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(first)...)
			if p := res.problem(t); p.Status != http.StatusTooManyRequests || p.Code != "RATE_LIMITED" {
				t.Fatalf("the key's 6th request on process %d = %+v", i+1, p)
			}
			if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra < 715 || ra > 720 {
				t.Fatalf("Retry-After = %q, want 720 (one unit of 5 an hour)", res.Header.Get("Retry-After"))
			}
			if got := res.Header.Get("RateLimit"); len(got) == 0 || got[:len(`"machine-key";r=0`)] != `"machine-key";r=0` {
				t.Fatalf("429 RateLimit = %q", got)
			}
		}
		// The tenant has 1 of 8 left: the second key gets it, then the tenant refuses.
		if res := do(t, hs[0], http.MethodGet, "/api/apikeys", nil, bearer(second)...); res.Status != http.StatusOK {
			t.Fatalf("the second key = %d %s", res.Status, res.Body)
		}
		res := do(t, hs[1], http.MethodGet, "/api/apikeys", nil, bearer(second)...)
		if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
			t.Fatalf("past the tenant's quota = %d %v", res.Status, res.Header)
		}
		if got := res.Header.Get("RateLimit-Policy"); got == "" || !containsPolicy(got, "tenant") {
			t.Fatalf("the refusal names no tenant policy: %q", got)
		}
		// Users count against their tenant too.
		if res := do(t, hs[0], http.MethodGet, "/api/me", nil, bearer(owner.AccessToken)...); res.Status != http.StatusTooManyRequests {
			t.Fatalf("the owner past the tenant's quota = %d", res.Status)
		}

		// Failed sign-ins from one client count together on both processes.
		const client = "203.0.113.9:4000"
		for i := range 5 {
			if r := doFrom(t, hs[i%2], client, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": "guess"})); r.Status != http.StatusUnauthorized {
				t.Fatalf("guess %d = %d", i+1, r.Status)
			}
		}
		for i, h := range hs {
			r := doFrom(t, h, client, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": ownerPassword}))
			if ra, _ := strconv.Atoi(r.Header.Get("Retry-After")); r.Status != http.StatusTooManyRequests || ra < 170 || ra > 180 {
				t.Fatalf("the guesser's 6th try on process %d = %d, Retry-After %q; want 429 after 180 s", i+1, r.Status, r.Header.Get("Retry-After"))
			}
		}
	})
}

func containsPolicy(header, name string) bool {
	for i := 0; i+len(name)+2 <= len(header); i++ {
		if header[i:i+len(name)+2] == strconv.Quote(name) {
			return true
		}
	}
	return false
}
