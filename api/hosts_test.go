package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// countingHosts counts the database reads of host resolution.
type countingHosts struct {
	HostResolver
	reads atomic.Int64
}

func (c *countingHosts) VerifiedHost(ctx context.Context, host string) (models.DomainSite, error) {
	c.reads.Add(1)
	return c.HostResolver.VerifiedHost(ctx, host)
}

func onHost(t *testing.T, h http.Handler, method, host, target string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestOnlyVerifiedHostsServeAPortalAndEachItsOwnTenant(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		deps := identityDeps(t, st)
		counter := &countingHosts{HostResolver: st}
		deps.Hosts = counter
		h := New(Config{Version: "test", OwnHosts: []string{"app.partnerd.example", "example.com"}, TrustedProxies: []string{"10.0.0.0/8"}}, deps).Handler()
		acmeID, acmeOwner := seedTenant(t, st, "acme")
		globexID, _ := seedTenant(t, st, "globex")
		verify := func(tenantID, host string) {
			owner := &models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: models.NewID()}
			d, err := st.For(owner).AddDomain(context.Background(), host, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.RecordDomainCheck(context.Background(), models.System(tenantID), d.ID, models.DomainCheck{Found: true}, d.CreatedAt, false, models.DomainGrace); err != nil {
				t.Fatal(err)
			}
		}
		verify(acmeID, "partners.acme.example")
		// globex claims acme's second host but never verifies it.
		if _, err := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: globexID, UserID: models.NewID()}).AddDomain(context.Background(), "portal.acme.example", ""); err != nil {
			t.Fatal(err)
		}
		do(t, h, http.MethodPatch, "/api/settings/branding", jsonBody(t, map[string]any{"name": "Acme Portal"}), bearer(login(t, h, acmeOwner, ownerPassword).AccessToken)...)

		// The installation's own host and bare addresses are served as always.
		if rec := onHost(t, h, http.MethodGet, "app.partnerd.example", "/api/branding?tenant=acme"); rec.Code != http.StatusOK {
			t.Fatalf("own host = %d", rec.Code)
		}
		if rec := onHost(t, h, http.MethodGet, "127.0.0.1:8080", "/healthz"); rec.Code != http.StatusOK {
			t.Fatalf("address = %d", rec.Code)
		}
		// A verified host serves its tenant's brand with no slug, and its sign-in knows the tenant.
		before := counter.reads.Load()
		rec := onHost(t, h, http.MethodGet, "Partners.Acme.Example:443", "/api/branding")
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"name":"Acme Portal"`) {
			t.Fatalf("verified host = %d: %s", rec.Code, rec.Body)
		}
		for range 20 {
			onHost(t, h, http.MethodGet, "partners.acme.example", "/api/branding")
		}
		if n := counter.reads.Load() - before; n != 1 {
			t.Fatalf("21 requests on a verified host read the database %d times, want 1", n)
		}
		req := httptest.NewRequest(http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": acmeOwner, "password": ownerPassword}))
		req.Host = "partners.acme.example"
		req.Header.Set("Content-Type", "application/json")
		lrec := httptest.NewRecorder()
		h.ServeHTTP(lrec, req)
		if lrec.Code != http.StatusOK || !strings.Contains(lrec.Body.String(), `"slug":"acme"`) {
			t.Fatalf("sign-in on the custom domain = %d: %s", lrec.Code, lrec.Body)
		}
		// Unknown and unverified hosts get a plain 421, never another tenant's page.
		for _, host := range []string{"portal.acme.example", "evil.example", "partners.globex.example"} {
			rec := onHost(t, h, http.MethodGet, host, "/api/branding?tenant=acme")
			if rec.Code != http.StatusMisdirectedRequest || strings.Contains(rec.Body.String(), "Acme") || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
				t.Fatalf("%s = %d: %s", host, rec.Code, rec.Body)
			}
		}
		// X-Forwarded-Host is believed from a trusted proxy only.
		rec = onHost(t, h, http.MethodGet, "app.partnerd.example", "/api/branding", "X-Forwarded-Host", "partners.acme.example")
		if rec.Code != http.StatusNotFound {
			t.Fatalf("forwarded host from an untrusted peer = %d: %s", rec.Code, rec.Body)
		}
		req = httptest.NewRequest(http.MethodGet, "/api/branding", nil)
		req.Host, req.RemoteAddr = "app.partnerd.example", "10.1.2.3:5555"
		req.Header.Set("X-Forwarded-Host", "partners.acme.example")
		prec := httptest.NewRecorder()
		h.ServeHTTP(prec, req)
		if prec.Code != http.StatusOK || !strings.Contains(prec.Body.String(), "Acme Portal") {
			t.Fatalf("forwarded host from a trusted proxy = %d: %s", prec.Code, prec.Body)
		}
	})
}

// BenchmarkHostResolutionHit measures resolving a verified host that is in the cache.
func BenchmarkHostResolutionHit(b *testing.B) {
	r := newHostRouter(staticHosts{}, []string{"app.partnerd.example"}, nil)
	ctx := context.Background()
	if _, ok, _ := r.resolve(ctx, "partners.acme.example"); !ok {
		b.Fatal("not resolved")
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, _ := r.resolve(ctx, "partners.acme.example"); !ok {
				b.Fatal("miss")
			}
		}
	})
}

// staticHosts verifies every host for one tenant.
type staticHosts struct{}

func (staticHosts) VerifiedHost(_ context.Context, host string) (models.DomainSite, error) {
	return models.DomainSite{Host: host, TenantID: "t1"}, nil
}

// On-demand TLS obtains certificates for verified custom domains only.
func TestCertificatesAreAllowedForVerifiedCustomDomainsOnly(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		deps := identityDeps(t, st)
		deps.Hosts = st
		srv := New(Config{Version: "test", OwnHosts: []string{"app.partnerd.example"}}, deps)
		acmeID, _ := seedTenant(t, st, "acme")
		owner := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: acmeID, UserID: models.NewID()})
		add := func(host string, found bool, final bool) {
			d, err := owner.AddDomain(context.Background(), host, "")
			if err != nil {
				t.Fatal(err)
			}
			if found || final {
				if _, err := st.RecordDomainCheck(context.Background(), models.System(acmeID), d.ID, models.DomainCheck{Found: found}, d.CreatedAt, final, models.DomainGrace); err != nil {
					t.Fatal(err)
				}
			}
		}
		add("partners.acme.example", true, false)
		add("pending.acme.example", false, false)
		add("failed.acme.example", false, true)
		ctx := context.Background()
		if err := srv.AllowCertificate(ctx, "partners.acme.example"); err != nil {
			t.Fatalf("a verified host was refused: %v", err)
		}
		for _, name := range []string{
			"pending.acme.example", "failed.acme.example", "unknown.example", "app.partnerd.example", "127.0.0.1", "::1",
			"localhost", "", "PARTNERS.ACME.EXAMPLE", "partners.acme.example.", "x.partners.acme.example", "*.acme.example",
		} {
			if err := srv.AllowCertificate(ctx, name); err == nil {
				t.Errorf("%q was allowed a certificate", name)
			}
		}
		// Without host routing no certificate is allowed at all.
		off := New(Config{Version: "test"}, deps)
		if err := off.AllowCertificate(ctx, "partners.acme.example"); err == nil {
			t.Fatal("host routing off, a certificate was allowed")
		}
	})
}

// The app's index.html says whether it is served on a verified custom domain: there the app
// shows the portal in the tenant's brand.
func TestTheAppIsToldWhenItIsServedOnACustomDomain(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		deps := identityDeps(t, st)
		deps.Hosts = st
		index := `<meta name="partnerd-portal" content="__PARTNERD_PORTAL__" /><meta name="csp-nonce" content="__CSP_NONCE__" />`
		h := New(Config{Version: "test", OwnHosts: []string{"app.partnerd.example"}, Console: fstest.MapFS{"index.html": {Data: []byte(index)}}}, deps).Handler()
		acmeID, _ := seedTenant(t, st, "acme")
		d, err := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: acmeID, UserID: models.NewID()}).AddDomain(context.Background(), "partners.acme.example", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.RecordDomainCheck(context.Background(), models.System(acmeID), d.ID, models.DomainCheck{Found: true}, d.CreatedAt, false, models.DomainGrace); err != nil {
			t.Fatal(err)
		}
		for host, want := range map[string]string{"partners.acme.example": `content="1"`, "app.partnerd.example": `content="" />`, "127.0.0.1:8080": `content="" />`} {
			rec := onHost(t, h, http.MethodGet, host, "/login")
			if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Body.String(), `<meta name="partnerd-portal" `+want) || strings.Contains(rec.Body.String(), "__") {
				t.Fatalf("%s: %d %s", host, rec.Code, rec.Body)
			}
		}
	})
}
