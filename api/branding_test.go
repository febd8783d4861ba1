package api

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// testPNG is a w×h PNG image.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, 0, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestBrandingThroughHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, ownerEmail := seedTenant(t, st, "acme")
		op := bearer(login(t, h, ownerEmail, ownerPassword).AccessToken)

		// Colours and CSS variables are checked; arbitrary CSS is refused.
		if res := do(t, h, http.MethodPatch, "/api/settings/branding", jsonBody(t, map[string]any{"cssVariables": []map[string]string{{"name": "--bg", "value": "url(javascript:alert(1))"}}}), op...); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("css url() = %d: %s", res.Status, res.Body)
		}
		res := do(t, h, http.MethodPatch, "/api/settings/branding", jsonBody(t, map[string]any{"name": "Acme Partners",
			"theme": map[string]string{"primary": "#1f6feb"}, "supportEmail": "help@acme.example", "cssVariables": []map[string]string{{"name": "--brand-radius", "value": "6px"}}}), op...)
		if res.Status != http.StatusOK {
			t.Fatalf("update = %d: %s", res.Status, res.Body)
		}

		put := func(path string, body []byte) response {
			return do(t, h, http.MethodPut, path, bytes.NewReader(body), op...)
		}
		// SVG is refused, whatever it is called; so are non-images, tiny, huge and non-square favicons.
		svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>`)
		if res := put("/api/settings/branding/logo", svg); res.Status != http.StatusUnsupportedMediaType || res.problem(t).Code != "UNSUPPORTED_IMAGE_TYPE" {
			t.Fatalf("svg = %d: %s", res.Status, res.Body)
		}
		if res := put("/api/settings/branding/logo", []byte("<html><script>alert(1)</script></html>")); res.Status != http.StatusUnsupportedMediaType {
			t.Fatalf("html = %d: %s", res.Status, res.Body)
		}
		if res := put("/api/settings/branding/logo", testPNG(t, 8, 8)); res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != "IMAGE_DIMENSIONS" {
			t.Fatalf("tiny logo = %d: %s", res.Status, res.Body)
		}
		if res := put("/api/settings/branding/favicon", testPNG(t, 64, 32)); res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != "IMAGE_NOT_SQUARE" {
			t.Fatalf("oblong favicon = %d: %s", res.Status, res.Body)
		}
		broken := append(testPNG(t, 64, 64)[:20:20], make([]byte, 100)...)
		if res := put("/api/settings/branding/logo", broken); res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != "IMAGE_UNREADABLE" {
			t.Fatalf("broken png = %d: %s", res.Status, res.Body)
		}
		big := make([]byte, 600<<10)
		copy(big, testPNG(t, 64, 64))
		if res := put("/api/settings/branding/logo", big); res.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("big logo = %d: %s", res.Status, res.Body)
		}
		logo := testPNG(t, 240, 60)
		res = put("/api/settings/branding/logo", logo)
		if res.Status != http.StatusOK {
			t.Fatalf("logo = %d: %s", res.Status, res.Body)
		}
		b := decode[Branding](t, res)
		if b.Logo == nil || b.Logo.Width != 240 || b.Logo.Height != 60 || b.Logo.ContentType != "image/png" {
			t.Fatalf("logo = %+v", b.Logo)
		}
		if res := put("/api/settings/branding/favicon", testPNG(t, 32, 32)); res.Status != http.StatusOK {
			t.Fatalf("favicon = %d: %s", res.Status, res.Body)
		}

		// The public brand: presentation data only, by the tenant's slug on the own host, with an ETag.
		res = do(t, h, http.MethodGet, "/api/branding?tenant=acme", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("public = %d: %s", res.Status, res.Body)
		}
		pub := decode[PublicBranding](t, res)
		if pub.Name != "Acme Partners" || pub.Theme.Primary != "#1f6feb" || pub.Logo == nil || pub.Favicon == nil || pub.Tenant != "acme" {
			t.Fatalf("public = %+v", pub)
		}
		for _, secret := range []string{`"branding/`, `"key"`, "tenantId", "updatedAt"} {
			if strings.Contains(string(res.Body), secret) {
				t.Fatalf("public brand shows %q: %s", secret, res.Body)
			}
		}
		etag := res.Header.Get("ETag")
		if etag == "" || !strings.Contains(res.Header.Get("Cache-Control"), "max-age") {
			t.Fatalf("validators: %v", res.Header)
		}
		if res := do(t, h, http.MethodGet, "/api/branding?tenant=acme", nil, "If-None-Match", etag); res.Status != http.StatusNotModified || len(res.Body) != 0 {
			t.Fatalf("conditional = %d: %s", res.Status, res.Body)
		}
		// A change of brand changes the ETag.
		do(t, h, http.MethodPatch, "/api/settings/branding", jsonBody(t, map[string]any{"theme": map[string]string{"primary": "#000000"}}), op...)
		if res := do(t, h, http.MethodGet, "/api/branding?tenant=acme", nil, "If-None-Match", etag); res.Status != http.StatusOK || res.Header.Get("ETag") == etag {
			t.Fatalf("after a change = %d, etag %s", res.Status, res.Header.Get("ETag"))
		}

		// The image is served publicly by its hash, as an image that is never sniffed.
		res = do(t, h, http.MethodGet, pub.Logo.URL, nil)
		if res.Status != http.StatusOK || !bytes.Equal(res.Body, logo) || res.Header.Get("Content-Type") != "image/png" ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Fatalf("image = %d %v", res.Status, res.Header)
		}
		// Replacing the logo retires the old image.
		if res := put("/api/settings/branding/logo", testPNG(t, 300, 60)); res.Status != http.StatusOK {
			t.Fatalf("second logo = %d: %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodGet, pub.Logo.URL, nil); res.Status != http.StatusNotFound {
			t.Fatalf("replaced image = %d", res.Status)
		}
		if res := do(t, h, http.MethodGet, "/api/branding?tenant=nobody", nil); res.Status != http.StatusNotFound {
			t.Fatalf("unknown tenant = %d", res.Status)
		}
	})
}
