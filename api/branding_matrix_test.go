package api

import (
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, _, _, _ *stores.Scoped) {
		f.ids["logoPNG"] = string(testPNG(t, 120, 40))
	})
	logo := func(method, kind string) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			return request{method, "/api/settings/branding/" + kind, rawBody(f.ids["logoPNG"])}
		}
	}
	partnerLogo := func(method string, partner func(*fixture) string) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			var body any
			if method == http.MethodPut {
				body = rawBody(f.ids["logoPNG"])
			}
			return request{method, "/api/partners/" + partner(f) + "/branding/logo", body}
		}
	}
	p1 := func(f *fixture) string { return f.partner1 }
	p2 := func(f *fixture) string { return f.partner2 }
	cases := map[string]matrixCase{
		// Without a verified host or a known tenant the public operations find nothing.
		"get-public-branding": {publicStatus: http.StatusNotFound, call: get("/api/branding?tenant=no-such-tenant")},
		"get-brand-image":     {publicStatus: http.StatusNotFound, call: get("/api/branding/images/" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")},
		"get-branding":        {call: get("/api/settings/branding")},
		"update-branding": {call: func(*fixture, string) request {
			return request{http.MethodPatch, "/api/settings/branding", map[string]any{"theme": map[string]string{"primary": "#123456"}}}
		}},
		"upload-brand-image": {call: logo(http.MethodPut, "logo")},
		"delete-brand-image": {call: logo(http.MethodDelete, "favicon")},
		// Co-brands are the operators' (partners get 403 from the policy); another tenant's
		// partner is 404.
		"get-partner-branding": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/partners/" + f.partner1 + "/branding", nil}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodGet, "/api/partners/" + f.partner2 + "/branding", nil}
		}},
		"upload-partner-logo": {byID: true, call: partnerLogo(http.MethodPut, p1), otherPartner: func(f *fixture) request { return partnerLogo(http.MethodPut, p2)(f, "") }},
		"delete-partner-logo": {byID: true, call: partnerLogo(http.MethodDelete, p1), otherPartner: func(f *fixture) request { return partnerLogo(http.MethodDelete, p2)(f, "") }},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
