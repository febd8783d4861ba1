package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestCORSGrantsOnlyVerifiedOriginsOfTheTenant(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		deps := identityDeps(t, st)
		deps.Hosts = st
		srv := httptest.NewServer(New(Config{Version: "test", OwnHosts: []string{"127.0.0.1", "app.partnerd.example"}}, deps).Handler())
		t.Cleanup(srv.Close)
		acmeID, _ := seedTenant(t, st, "acme")
		globexID, _ := seedTenant(t, st, "globex")
		addDomain := func(tenantID, host string, verified bool) {
			owner := &models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: models.NewID()}
			d, err := st.For(owner).AddDomain(context.Background(), host, "")
			if err != nil {
				t.Fatal(err)
			}
			if !verified {
				return
			}
			if _, err := st.RecordDomainCheck(context.Background(), models.System(tenantID), d.ID, models.DomainCheck{Found: true}, d.CreatedAt, false, models.DomainGrace); err != nil {
				t.Fatal(err)
			}
		}
		addDomain(acmeID, "partners.acme.example", true)
		addDomain(acmeID, "pending.acme.example", false)
		addDomain(globexID, "partners.globex.example", true)

		call := func(method, host, origin string, headers ...string) *http.Response {
			t.Helper()
			req, err := http.NewRequest(method, srv.URL+"/api/branding?tenant=acme", nil)
			if err != nil {
				t.Fatal(err)
			}
			if host != "" {
				req.Host = host
			}
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			for i := 0; i+1 < len(headers); i += 2 {
				req.Header.Set(headers[i], headers[i+1])
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			return res
		}
		preflight := func(host, origin string) *http.Response {
			t.Helper()
			return call(http.MethodOptions, host, origin, "Access-Control-Request-Method", http.MethodPatch, "Access-Control-Request-Headers", "authorization, content-type")
		}
		hasVaryOrigin := func(res *http.Response) bool {
			for _, v := range res.Header.Values("Vary") {
				for _, f := range splitComma(v) {
					if http.CanonicalHeaderKey(f) == "Origin" {
						return true
					}
				}
			}
			return false
		}
		granted := func(what string, res *http.Response, origin string, preflight bool) {
			t.Helper()
			h := res.Header
			if got := h.Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != origin {
				t.Fatalf("%s: Access-Control-Allow-Origin = %q, want %q", what, got, origin)
			}
			if h.Get("Access-Control-Allow-Credentials") != "true" || !hasVaryOrigin(res) {
				t.Fatalf("%s: credentials %q, vary %q", what, h.Get("Access-Control-Allow-Credentials"), h.Values("Vary"))
			}
			if preflight {
				if res.StatusCode != http.StatusNoContent || h.Get("Access-Control-Max-Age") != "600" || h.Get("Access-Control-Allow-Methods") != http.MethodPatch ||
					h.Get("Access-Control-Allow-Headers") == "" {
					t.Fatalf("%s: %d, max-age %q, methods %q, headers %q", what, res.StatusCode, h.Get("Access-Control-Max-Age"),
						h.Get("Access-Control-Allow-Methods"), h.Get("Access-Control-Allow-Headers"))
				}
			} else if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: status %d", what, res.StatusCode)
			}
		}
		refused := func(what string, res *http.Response) {
			t.Helper()
			for k := range res.Header {
				if len(k) > len("Access-Control-") && k[:len("Access-Control-")] == "Access-Control-" {
					t.Fatalf("%s: refused origin got %s: %q", what, k, res.Header.Values(k))
				}
			}
			if !hasVaryOrigin(res) {
				t.Fatalf("%s: no Vary: Origin on a refusal (a shared cache would serve it to a granted origin)", what)
			}
		}

		// A verified host's origin: preflight and actual request on the installation's own host.
		const acme = "https://partners.acme.example"
		granted("preflight", preflight("", acme), acme, true)
		granted("actual", call(http.MethodGet, "", acme), acme, false)
		granted("default port", call(http.MethodGet, "", "https://partners.acme.example:443"), "https://partners.acme.example:443", false)
		// On the tenant's own custom domain, its other verified hosts are granted; another
		// tenant's verified host is not.
		granted("portal host", call(http.MethodGet, "partners.acme.example", acme), acme, false)
		refused("another tenant's origin on a portal", call(http.MethodGet, "partners.acme.example", "https://partners.globex.example"))
		refused("another tenant's origin preflight on a portal", preflight("partners.acme.example", "https://partners.globex.example"))

		for _, origin := range []string{
			"null", "https://evil.example", "https://pending.acme.example", "http://partners.acme.example",
			"https://partners.acme.example:8443", "https://x.partners.acme.example", "https://*.acme.example",
			"https://partners.acme.example/path", "https://user@partners.acme.example",
		} {
			refused(origin+" preflight", preflight("", origin))
			res := call(http.MethodGet, "", origin)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: a refused origin's request = %d (the browser, not the server, withholds the answer)", origin, res.StatusCode)
			}
			refused(origin, res)
		}
		// A request with no Origin is same-origin: no CORS headers.
		if res := call(http.MethodGet, "", ""); res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("no origin got %q", res.Header.Get("Access-Control-Allow-Origin"))
		}
	})
}

func splitComma(v string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ',' {
			f := v[start:i]
			for len(f) > 0 && f[0] == ' ' {
				f = f[1:]
			}
			for len(f) > 0 && f[len(f)-1] == ' ' {
				f = f[:len(f)-1]
			}
			if f != "" {
				out = append(out, f)
			}
			start = i + 1
		}
	}
	return out
}

func TestCORSGrantsTheOriginsATenantListsAndRevokesARemovedOneAtOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		deps := identityDeps(t, st)
		deps.Hosts, deps.Origins = st, st
		h := New(Config{Version: "test", OwnHosts: []string{"example.com"}}, deps).Handler()
		acmeID, acmeOwner := seedTenant(t, st, "acme")
		globexID, globexOwner := seedTenant(t, st, "globex")
		acme := bearer(login(t, h, acmeOwner, ownerPassword).AccessToken)
		globex := bearer(login(t, h, globexOwner, ownerPassword).AccessToken)
		verify := func(tenantID, host string) string {
			d, err := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: models.NewID()}).AddDomain(context.Background(), host, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.RecordDomainCheck(context.Background(), models.System(tenantID), d.ID, models.DomainCheck{Found: true}, d.CreatedAt, false, models.DomainGrace); err != nil {
				t.Fatal(err)
			}
			return d.ID
		}
		acmeDomain := verify(acmeID, "partners.acme.example")
		verify(globexID, "partners.globex.example")
		set := func(auth []string, origins ...string) response {
			t.Helper()
			return do(t, h, http.MethodPut, "/api/settings/cors-origins", jsonBody(t, map[string]any{"origins": origins}), auth...)
		}
		allowOrigin := func(host, origin string) string {
			t.Helper()
			req := httptest.NewRequest(http.MethodOptions, "/api/me", nil)
			req.Host = host
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", http.MethodGet)
			req.Header.Set("Access-Control-Request-Headers", "authorization")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec.Header().Get("Access-Control-Allow-Origin")
		}

		const site, dev = "https://www.acme.example", "http://localhost:3000"
		if got := allowOrigin("example.com", site); got != "" {
			t.Fatalf("an unlisted origin was granted: %q", got)
		}
		// Invalid lists are refused whole, with the offending entries named.
		for _, bad := range [][]string{
			{"null"}, {"*"}, {"https://*.acme.example"}, {"https://www.acme.example/path"}, {"http://www.acme.example"},
			{"https://user@www.acme.example"}, {"www.acme.example"}, {"https://10.0.0.1"}, {"ftp://www.acme.example"},
			{"https://www.acme.example?x=1"}, {"https://www.acme.example:0"}, {"https://www.acme.example:99999"},
		} {
			res := set(acme, bad...)
			if res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != "INVALID_ORIGIN" {
				t.Fatalf("%q: %d %s", bad, res.Status, res.Body)
			}
		}
		many := make([]string, models.MaxCORSOrigins+1)
		for i := range many {
			many[i] = fmt.Sprintf("https://s%d.acme.example", i)
		}
		if res := set(acme, many...); res.Status != http.StatusRequestEntityTooLarge && res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("21 origins: %d %s", res.Status, res.Body)
		}
		// The owner lists two origins (normalised: case and the default port dropped).
		res := set(acme, "HTTPS://WWW.ACME.EXAMPLE:443", dev, site)
		if res.Status != http.StatusOK || strings.TrimSpace(string(res.Body)) != `{"origins":["http://localhost:3000","https://www.acme.example"]}` {
			t.Fatalf("set = %d %s", res.Status, res.Body)
		}
		if got := allowOrigin("example.com", site); got != site {
			t.Fatalf("a listed origin on the installation's host = %q", got)
		}
		if got := allowOrigin("example.com", dev); got != dev {
			t.Fatalf("a listed localhost origin = %q", got)
		}
		// On acme's custom domain the origin is acme's; on globex's it is not.
		if got := allowOrigin("partners.acme.example", site); got != site {
			t.Fatalf("acme's origin on acme's domain = %q", got)
		}
		if got := allowOrigin("partners.globex.example", site); got != "" {
			t.Fatalf("acme's origin on globex's domain = %q", got)
		}
		if res := do(t, h, http.MethodGet, "/api/settings/cors-origins", nil, globex...); strings.TrimSpace(string(res.Body)) != `{"origins":[]}` {
			t.Fatalf("globex sees %s", res.Body)
		}
		// Removing the origin revokes it at once, though the cache had granted it a moment ago.
		if res := set(acme, dev); res.Status != http.StatusOK {
			t.Fatalf("remove = %d %s", res.Status, res.Body)
		}
		if got := allowOrigin("example.com", site); got != "" {
			t.Fatalf("a removed origin is still granted: %q", got)
		}
		if got := allowOrigin("partners.acme.example", site); got != "" {
			t.Fatalf("a removed origin is still granted on the custom domain: %q", got)
		}
		if got := allowOrigin("example.com", dev); got != dev {
			t.Fatalf("the origin kept = %q", got)
		}
		if res := do(t, h, http.MethodGet, "/api/settings/cors-origins", nil, acme...); strings.TrimSpace(string(res.Body)) != `{"origins":["http://localhost:3000"]}` {
			t.Fatalf("get = %s", res.Body)
		}
		// A verified host's origin, granted a moment ago, is refused at once once its domain is removed.
		if got := allowOrigin("example.com", "https://partners.acme.example"); got != "https://partners.acme.example" {
			t.Fatalf("the verified host's origin = %q", got)
		}
		if res := do(t, h, http.MethodDelete, "/api/domains/"+acmeDomain, nil, acme...); res.Status != http.StatusOK {
			t.Fatalf("remove the domain = %d %s", res.Status, res.Body)
		}
		if got := allowOrigin("example.com", "https://partners.acme.example"); got != "" {
			t.Fatalf("a removed domain's origin is still granted: %q", got)
		}
		// The change is audited with the origins added and removed.
		res = do(t, h, http.MethodGet, "/api/audit-log?limit=10", nil, acme...)
		if !strings.Contains(string(res.Body), `"cors_origins.updated"`) || !strings.Contains(string(res.Body), `-https://www.acme.example`) {
			t.Fatalf("audit: %s", res.Body)
		}
	})
}

// BenchmarkCORSListedOriginHit measures the origin check of a listed origin whose decision is
// kept.
func BenchmarkCORSListedOriginHit(b *testing.B) {
	s := &Server{hosts: newHostRouter(staticMisses{}, []string{"app.partnerd.example"}, nil), origins: newOriginCache(staticOrigins{}), decisions: newCORSDecisions()}
	req := httptest.NewRequest(http.MethodGet, "/api/me", nil)
	const origin = "https://www.acme.example"
	if !s.corsOriginAllowed(req, origin) {
		b.Fatal("not allowed")
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !s.corsOriginAllowed(req, origin) {
				b.Fatal("refused")
			}
		}
	})
}

// staticMisses verifies no host.
type staticMisses struct{}

func (staticMisses) VerifiedHost(context.Context, string) (models.DomainSite, error) {
	return models.DomainSite{}, models.NotFound("HOST_NOT_FOUND", "host")
}

// staticOrigins lists every origin.
type staticOrigins struct{}

func (staticOrigins) AllowsOrigin(context.Context, string, string) (bool, error) { return true, nil }
