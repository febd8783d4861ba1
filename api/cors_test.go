package api

import (
	"context"
	"net/http"
	"net/http/httptest"
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
