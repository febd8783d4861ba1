package api

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

var nonceInCSP = regexp.MustCompile(`style-src 'self' 'nonce-([A-Za-z0-9+/=]+)'`)

func TestTheConsoleIsServedBesideTheAPI(t *testing.T) {
	console := fstest.MapFS{
		"index.html":          {Data: []byte(`<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><div id="root"></div>`)},
		"assets/app-3f2a9.js": {Data: []byte(`console.log("app")`)},
		"favicon.svg":         {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
	}
	s, _ := testServerWith(t, Config{Version: "test", Console: console}, Deps{})
	h := s.Handler()

	page := func(target string) (response, string) {
		t.Helper()
		res := do(t, h, http.MethodGet, target, nil)
		if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s = %d %s", target, res.Status, res.Header.Get("Content-Type"))
		}
		m := nonceInCSP.FindStringSubmatch(res.Header.Get("Content-Security-Policy"))
		if m == nil || !strings.Contains(string(res.Body), `content="`+m[1]+`"`) || strings.Contains(string(res.Body), "__CSP_NONCE__") {
			t.Fatalf("GET %s: the page does not carry the nonce of its policy %q: %s", target, res.Header.Get("Content-Security-Policy"), res.Body)
		}
		for _, directive := range []string{"script-src 'self'", "default-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
			if !strings.Contains(res.Header.Get("Content-Security-Policy"), directive) {
				t.Errorf("GET %s: the policy lacks %q", target, directive)
			}
		}
		if res.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", target, res.Header.Get("Cache-Control"))
		}
		return res, m[1]
	}
	_, first := page("/")
	_, second := page("/deals/0192")                 // a route of the console: the same page
	_, third := page("/partners/x/../users?tab=all") // cleaned, still the console
	page("/apiary")                                  // not under /api/: the console
	if first == second || second == third {
		t.Error("two answers share a nonce")
	}

	asset := do(t, h, http.MethodGet, "/assets/app-3f2a9.js", nil)
	if asset.Status != http.StatusOK || string(asset.Body) != `console.log("app")` ||
		asset.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || !strings.Contains(asset.Header.Get("Content-Type"), "javascript") {
		t.Fatalf("hashed asset = %d %q %v", asset.Status, asset.Body, asset.Header)
	}
	if icon := do(t, h, http.MethodGet, "/favicon.svg", nil); icon.Status != http.StatusOK || icon.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("favicon = %d %v", icon.Status, icon.Header)
	}
	for _, target := range []string{"/assets/missing-1.js", "/robots.txt", "/api/no-such-thing", "/api", "/swagger/nothing", "/../../etc/passwd.txt"} {
		res := do(t, h, http.MethodGet, target, nil)
		if res.Status != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("GET %s = %d %s, want a 404 problem", target, res.Status, res.Header.Get("Content-Type"))
		}
	}
	if res := do(t, h, http.MethodPost, "/deals", nil); res.Status != http.StatusNotFound {
		t.Errorf("POST to a console route = %d, want 404", res.Status)
	}
}

func TestWithoutTheConsoleTheRootSaysHowToBuildIt(t *testing.T) {
	s, _ := testServerWith(t, Config{Version: "test"}, Deps{})
	res := do(t, s.Handler(), http.MethodGet, "/", nil)
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "make web") ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("GET / without a console = %d %v %s", res.Status, res.Header, res.Body)
	}
	if res := do(t, s.Handler(), http.MethodGet, "/api/nothing", nil); res.Status != http.StatusNotFound {
		t.Fatalf("GET /api/nothing = %d", res.Status)
	}
}
