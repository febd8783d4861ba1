package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		ctx := context.Background()
		newHook := func() string {
			w := sealedWebhook(t, sc.Principal().TenantID, "https://hooks.example.com/matrix")
			if err := sc.CreateWebhook(ctx, w, []string{"customer.*"}); err != nil {
				t.Fatal(err)
			}
			return w.ID
		}
		f.ids["webhook1"] = newHook()
		body := `{"type":"webhook.tested"}`
		d := &models.WebhookDelivery{EventType: models.EventWebhookTested, Body: &body}
		if err := sc.CreateTestDelivery(ctx, f.ids["webhook1"], d); err != nil {
			t.Fatal(err)
		}
		f.ids["delivery1"] = d.ID
		f.fresh["webhook"] = func(string) string { return newHook() }
	})
	hook := func(f *fixture) string { return "/api/webhooks/" + f.ids["webhook1"] }
	cases := map[string]matrixCase{
		"list-webhooks": {call: get("/api/webhooks")},
		"create-webhook": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/webhooks", map[string]any{"url": "https://hooks.example.com/new", "eventTypes": []string{"deal.*"}}}
		}},
		"get-webhook": {byID: true, call: func(f *fixture, _ string) request { return request{http.MethodGet, hook(f), nil} }},
		"update-webhook": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, hook(f), map[string]any{"description": "changed"}}
		}},
		"delete-webhook": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["webhook1"]
			if role != "foreign" && role != "" {
				id = f.fresh["webhook"](role)
			}
			return request{http.MethodDelete, "/api/webhooks/" + id, nil}
		}},
		"rotate-webhook-secret": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, hook(f) + "/rotate-secret", nil}
		}},
		"test-webhook": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, hook(f) + "/test", nil}
		}},
		"list-webhook-deliveries": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, hook(f) + "/deliveries", nil}
		}},
		"get-webhook-delivery": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, hook(f) + "/deliveries/" + f.ids["delivery1"], nil}
		}},
		"replay-webhook-delivery": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, hook(f) + "/deliveries/" + f.ids["delivery1"] + "/replay", nil}
		}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
