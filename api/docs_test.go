package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// externalURL matches an address on another origin: a scheme or a scheme-relative reference.
var externalURL = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*:)?//[a-z0-9]`)

var bundleInPage = regexp.MustCompile(`<script src="(/docs/scalar\.js\?v=[0-9a-f]+)"></script>`)

// docsPageOK asserts that target answers an HTML page with no external address and returns it
// with its policy.
func docsPageOK(t *testing.T, h http.Handler, target string) (body, csp string) {
	t.Helper()
	res := do(t, h, http.MethodGet, target, nil)
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET %s = %d %s", target, res.Status, res.Header.Get("Content-Type"))
	}
	body, csp = string(res.Body), res.Header.Get("Content-Security-Policy")
	if m := externalURL.FindString(body); m != "" {
		t.Errorf("GET %s: the page names another origin (%q): %s", target, m, body)
	}
	if csp == "" || externalURL.MatchString(csp) || strings.Contains(csp, "*") {
		t.Errorf("GET %s: policy %q allows another origin or is missing", target, csp)
	}
	for _, directive := range []string{"frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, directive) {
			t.Errorf("GET %s: the policy lacks %q", target, directive)
		}
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("GET %s: headers %v", target, res.Header)
	}
	return body, csp
}

func TestTheAPIReferenceLoadsItsRendererFromTheServer(t *testing.T) {
	bundle := []byte(`window.Scalar = {}; /* the reference's renderer */`)
	console := fstest.MapFS{
		"index.html":     {Data: []byte(`<!doctype html><div id="root"></div>`)},
		"docs/scalar.js": {Data: bundle, ModTime: time.Unix(1, 0)},
	}
	s, _ := testServerWith(t, Config{Version: "test", Console: console}, Deps{})
	h := s.Handler()

	body, csp := docsPageOK(t, h, "/docs")
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "img-src 'self' data:"} {
		if !strings.Contains(csp, directive) {
			t.Errorf("the reference's policy lacks %q: %q", directive, csp)
		}
	}
	if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
		t.Errorf("the reference's policy lets scripts run from the page: %q", csp)
	}
	if !strings.Contains(body, `data-url="/openapi.json"`) || !strings.Contains(body, "&#34;withDefaultFonts&#34;:false") {
		t.Errorf("the page does not point the renderer at /openapi.json with system fonts: %s", body)
	}
	m := bundleInPage.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the page does not load the renderer from /docs/scalar.js: %s", body)
	}

	res := do(t, h, http.MethodGet, m[1], nil)
	if res.Status != http.StatusOK || !bytes.Equal(res.Body, bundle) ||
		res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
		res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("GET %s = %d %v %q", m[1], res.Status, res.Header, res.Body)
	}
	if res := do(t, h, http.MethodGet, "/docs/scalar.js", nil); res.Status != http.StatusOK || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("the renderer under an address without its digest = %d, Cache-Control %q, want no-cache", res.Status, res.Header.Get("Cache-Control"))
	}
	res = do(t, h, http.MethodGet, m[1], nil, "Accept-Encoding", "br, gzip;q=0.8")
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("the renderer to a browser taking gzip: %v", res.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	if unpacked, err := io.ReadAll(zr); err != nil || !bytes.Equal(unpacked, bundle) {
		t.Fatalf("the gzipped renderer unpacks to %q (%v)", unpacked, err)
	}
	if res := do(t, h, http.MethodGet, m[1], nil, "Accept-Encoding", "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip sent to a browser refusing it")
	}

	// A console served from disk is rebuilt: the page names the new renderer.
	console["docs/scalar.js"] = &fstest.MapFile{Data: []byte(`window.Scalar = {v: 2}`), ModTime: time.Unix(2, 0)}
	again, _ := docsPageOK(t, h, "/docs")
	if n := bundleInPage.FindStringSubmatch(again); n == nil || n[1] == m[1] {
		t.Errorf("after a rebuild the page still names %s", m[1])
	}
	if res := do(t, h, http.MethodGet, m[1], nil); res.Header.Get("Cache-Control") != "no-cache" || string(res.Body) != `window.Scalar = {v: 2}` {
		t.Errorf("the old digest after a rebuild = %v %q, want the new file, not cached for good", res.Header, res.Body)
	}

	for _, target := range []string{"/docs/other.js", "/docs/", "/docs/scalar.js/x"} {
		if res := do(t, h, http.MethodGet, target, nil); res.Status != http.StatusNotFound && res.Status != http.StatusMovedPermanently {
			t.Errorf("GET %s = %d, want no console page", target, res.Status)
		}
	}
}

func TestWithoutTheConsoleTheAPIReferenceSaysHowToBuildIt(t *testing.T) {
	old := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><div id="root"></div>`)}}
	for name, console := range map[string]fstest.MapFS{"no console": nil, "a console without the renderer": old} {
		t.Run(name, func(t *testing.T) {
			cfg := Config{Version: "test"}
			if console != nil {
				cfg.Console = console
			}
			s, _ := testServerWith(t, cfg, Deps{})
			body, csp := docsPageOK(t, s.Handler(), "/docs")
			if !strings.Contains(body, "make web") || !strings.Contains(body, `href="/openapi.json"`) || strings.Contains(body, "<script") {
				t.Errorf("the page without a renderer: %s", body)
			}
			if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
				t.Errorf("the page without a renderer has policy %q", csp)
			}
			if res := do(t, s.Handler(), http.MethodGet, "/docs/scalar.js", nil); res.Status != http.StatusNotFound ||
				!strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
				t.Errorf("GET /docs/scalar.js without a renderer = %d %s", res.Status, res.Header.Get("Content-Type"))
			}
		})
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "br, gzip;q=0.8": true, "gzip;q=0": false, "gzip; q=0.000": false,
		"deflate, br": false, "x-gzip": false, "identity, gzip ; q=1": true,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}
