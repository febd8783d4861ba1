package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// webhookTestKeys seals the webhook secrets of API tests; it never changes after init.
var webhookTestKeys = func() *models.Keyring {
	m := make([]byte, 32)
	_, _ = rand.Read(m)
	k, err := models.NewKeyring(map[int][]byte{1: m}, 1)
	if err != nil {
		panic(err)
	}
	return k
}()

// webhookTestDeps are the webhook dependencies of API tests: the test keyring and a starter
// that records what it was asked to start.
func webhookTestDeps() WebhookDeps {
	return WebhookDeps{Keyring: webhookTestKeys, Starter: &fakeStarter{}}
}

// sealedWebhook is an endpoint record whose secret is sealed with the test keyring.
func sealedWebhook(t *testing.T, tenantID, url string) *models.Webhook {
	t.Helper()
	secret, _ := models.NewWebhookSecret()
	w := &models.Webhook{ID: models.NewID(), URL: url, Enabled: true, SecretHint: secret.Masked()}
	var err error
	if w.Secret, err = webhookTestKeys.Seal(secret, models.SealContext{TenantID: tenantID, Table: "webhooks", RowID: w.ID, Field: "secret"}); err != nil {
		t.Fatal(err)
	}
	return w
}

type startCall struct {
	kind, tenantID, webhookID, eventID, deliveryID string
	n                                              int
}

// fakeStarter records starts; its test-sends record one successful attempt when st is set.
type fakeStarter struct {
	mu    sync.Mutex
	calls []startCall
	st    *stores.Set
}

func (f *fakeStarter) ReplayDelivery(_ context.Context, tenantID, webhookID, eventID, deliveryID string, n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, startCall{"replay", tenantID, webhookID, eventID, deliveryID, n})
	return nil
}

func (f *fakeStarter) TestSend(ctx context.Context, tenantID, webhookID, deliveryID string) error {
	f.mu.Lock()
	f.calls = append(f.calls, startCall{kind: "test", tenantID: tenantID, webhookID: webhookID, deliveryID: deliveryID})
	f.mu.Unlock()
	if f.st == nil {
		return nil
	}
	_, err := f.st.RecordWebhookAttempt(ctx, models.AttemptRecord{TenantID: tenantID, WebhookID: webhookID, DeliveryID: deliveryID,
		AttemptID: models.NewID(), StatusCode: 204, LatencyMS: 3, At: time.Now(), Final: true})
	return err
}

func (f *fakeStarter) last() startCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return startCall{}
	}
	return f.calls[len(f.calls)-1]
}

func webhookServer(t *testing.T, st *stores.Set, wd WebhookDeps) (*Server, *syncBuffer) {
	t.Helper()
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, _ := models.NewKeyring(map[int][]byte{1: master}, 1)
	return testServerWith(t, Config{Version: "test"}, Deps{
		Tenants: st, Identity: st, Modules: modulesOf(st),
		Tokens: authn.NewTokens(keys, "partnerd", "partnerd-api"), Authorizer: authz.NewAuthorizer(st), Webhooks: wd,
		Idempotency: st, RateLimiter: st,
	})
}

type webhookOut struct {
	Webhook
	Secret *string `json:"secret"`
}

func TestWebhooksShowTheirSecretOnceAndValidateTheirURL(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, logs := webhookServer(t, st, webhookTestDeps())
		h := s.Handler()
		tenantID, _ := seedTenant(t, st, "acme")
		auth := bearer(login(t, h, "owner@acme.test", ownerPassword).AccessToken)

		res := do(t, h, http.MethodPost, "/api/webhooks", jsonBody(t, map[string]any{
			"url": "https://hooks.example.com/in", "description": "CRM", "eventTypes": []string{"deal.*", "customer.created"},
		}), auth...)
		if res.Status != http.StatusCreated || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("create = %d (%s) %s", res.Status, res.Header.Get("Cache-Control"), res.Body)
		}
		created := decode[webhookOut](t, res)
		if created.Secret == nil || !strings.HasPrefix(*created.Secret, "whsec_") {
			t.Fatalf("create shows no whsec_ secret: %s", res.Body)
		}
		secret := *created.Secret
		if raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_")); err != nil || len(raw) < 24 || len(raw) > 64 {
			t.Fatalf("secret is not base64 of 24..64 bytes: %v (%d bytes)", err, len(raw))
		}
		if !created.Enabled || len(created.EventTypes) != 2 || !strings.HasSuffix(secret, strings.TrimPrefix(created.SecretHint, "••••")) {
			t.Fatalf("created = %+v", created.Webhook)
		}

		for name, body := range map[string]map[string]any{
			"loopback":     {"url": "http://127.0.0.1:8080/x", "eventTypes": []string{"*"}},
			"metadata":     {"url": "http://169.254.169.254/latest/meta-data", "eventTypes": []string{"*"}},
			"private v6":   {"url": "http://[fd00:ec2::254]/", "eventTypes": []string{"*"}},
			"private":      {"url": "https://10.1.2.3/hook", "eventTypes": []string{"*"}},
			"localhost":    {"url": "http://localhost:9000/", "eventTypes": []string{"*"}},
			"user info":    {"url": "https://user:pass@hooks.example.com/", "eventTypes": []string{"*"}},
			"scheme":       {"url": "ftp://hooks.example.com/", "eventTypes": []string{"*"}},
			"pattern":      {"url": "https://hooks.example.com/", "eventTypes": []string{"Deal.Won"}},
			"no event":     {"url": "https://hooks.example.com/", "eventTypes": []string{}},
			"mapped v4-v6": {"url": "http://[::ffff:10.0.0.1]/", "eventTypes": []string{"*"}},
		} {
			res := do(t, h, http.MethodPost, "/api/webhooks", jsonBody(t, body), auth...)
			if res.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: create = %d, want 422: %s", name, res.Status, res.Body)
			}
		}
		if p := do(t, h, http.MethodPost, "/api/webhooks", jsonBody(t, map[string]any{"url": "http://192.168.1.1/", "eventTypes": []string{"*"}}), auth...).problem(t); p.Code != "WEBHOOK_URL_NOT_ALLOWED" {
			t.Errorf("private address problem code = %s", p.Code)
		}

		path := "/api/webhooks/" + created.ID
		got := do(t, h, http.MethodGet, path, nil, auth...)
		if got.Status != http.StatusOK || strings.Contains(string(got.Body), secret) || strings.Contains(string(got.Body), `"secret"`) {
			t.Fatalf("get = %d %s", got.Status, got.Body)
		}
		list := do(t, h, http.MethodGet, "/api/webhooks", nil, auth...)
		if !strings.Contains(string(list.Body), created.ID) || strings.Contains(string(list.Body), secret) {
			t.Fatalf("list = %s", list.Body)
		}
		upd := do(t, h, http.MethodPatch, path, jsonBody(t, map[string]any{"enabled": false, "eventTypes": []string{"*"}}), auth...)
		if u := decode[Webhook](t, upd); upd.Status != http.StatusOK || u.Enabled || len(u.EventTypes) != 1 || u.DisabledAt == nil {
			t.Fatalf("update = %d %s", upd.Status, upd.Body)
		}
		if res := do(t, h, http.MethodPatch, path, jsonBody(t, map[string]any{"url": "http://[::1]/"}), auth...); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("update to loopback = %d", res.Status)
		}

		rot := do(t, h, http.MethodPost, path+"/rotate-secret", nil, auth...)
		rotated := decode[webhookOut](t, rot)
		if rot.Status != http.StatusOK || rot.Header.Get("Cache-Control") != "no-store" || rotated.Secret == nil || *rotated.Secret == secret {
			t.Fatalf("rotate = %d %s", rot.Status, rot.Body)
		}
		if exp := rotated.PreviousSecretExpiresAt; exp == nil || exp.Before(time.Now().Add(23*time.Hour)) || exp.After(time.Now().Add(25*time.Hour)) {
			t.Fatalf("previous secret expires at %v, want in 24 h", exp)
		}
		if res := do(t, h, http.MethodPost, path+"/rotate-secret?gracePeriod=1000h", nil, auth...); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("rotate with 1000 h grace = %d", res.Status)
		}
		// The stored secret is sealed and opens to what rotation showed, this once.
		stored, _ := st.For(&models.Principal{TenantID: tenantID}).Webhook(context.Background(), created.ID)
		if strings.Contains(string(stored.Secret), *rotated.Secret) {
			t.Fatal("the secret is stored in the clear")
		}
		opened, err := webhookTestKeys.Open(stored.Secret, models.SealContext{TenantID: stored.TenantID, Table: "webhooks", RowID: stored.ID, Field: "secret"})
		if err != nil || opened.Reveal() != *rotated.Secret {
			t.Fatalf("stored secret does not open to the rotated one: %v", err)
		}

		audit := string(do(t, h, http.MethodGet, "/api/audit-log?targetType=webhook", nil, auth...).Body)
		for _, action := range []string{"webhook.created", "webhook.updated", "webhook.secret_rotated"} {
			if !strings.Contains(audit, action) {
				t.Errorf("audit log lacks %s", action)
			}
		}
		if res := do(t, h, http.MethodDelete, path, nil, auth...); res.Status != http.StatusNoContent {
			t.Fatalf("delete = %d", res.Status)
		}
		if res := do(t, h, http.MethodGet, path, nil, auth...); res.Status != http.StatusNotFound {
			t.Fatalf("get after delete = %d", res.Status)
		}
		for name, v := range map[string]string{"secret": secret, "rotated secret": *rotated.Secret} {
			if strings.Contains(logs.String(), v) {
				t.Errorf("the %s reached the logs", name)
			}
		}
	})
}

func TestAllowedNetworksOpenInternalAddresses(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		wd := webhookTestDeps()
		wd.AllowedNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		s, _ := webhookServer(t, st, wd)
		h := s.Handler()
		seedTenant(t, st, "acme")
		auth := bearer(login(t, h, "owner@acme.test", ownerPassword).AccessToken)
		if res := do(t, h, http.MethodPost, "/api/webhooks", jsonBody(t, map[string]any{"url": "http://127.0.0.1:9/in", "eventTypes": []string{"*"}}), auth...); res.Status != http.StatusCreated {
			t.Fatalf("allowed loopback = %d %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/webhooks", jsonBody(t, map[string]any{"url": "http://10.0.0.1/in", "eventTypes": []string{"*"}}), auth...); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("private address outside the allow-list = %d", res.Status)
		}
	})
}

func TestDeliveriesAreListedReplayedAndTested(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		ctx := context.Background()
		starter := &fakeStarter{st: st}
		wd := webhookTestDeps()
		wd.Starter = starter
		s, _ := webhookServer(t, st, wd)
		h := s.Handler()
		tenantID, _ := seedTenant(t, st, "acme")
		auth := bearer(login(t, h, "owner@acme.test", ownerPassword).AccessToken)
		created := decode[webhookOut](t, do(t, h, http.MethodPost, "/api/webhooks", jsonBody(t, map[string]any{
			"url": "https://hooks.example.com/in", "eventTypes": []string{"customer.*"}}), auth...))
		path := "/api/webhooks/" + created.ID

		e, err := st.EmitEvent(ctx, models.System(tenantID), models.NewEvent{Type: "customer.created"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := st.BeginWebhookDelivery(ctx, models.DeliveryStart{TenantID: tenantID, WebhookID: created.ID, EventID: e.ID})
		if err != nil {
			t.Fatal(err)
		}
		for i, code := range []int{500, 0} {
			if _, err := st.RecordWebhookAttempt(ctx, models.AttemptRecord{TenantID: tenantID, WebhookID: created.ID, DeliveryID: d.ID,
				AttemptID: models.NewID(), StatusCode: code, Error: "boom", ResponseBody: "down", At: time.Now(), Final: i == 1}); err != nil {
				t.Fatal(err)
			}
		}
		failed := decode[ListBody[WebhookDelivery]](t, do(t, h, http.MethodGet, path+"/deliveries?status=failed", nil, auth...))
		if len(failed.Data) != 1 || failed.Data[0].ID != d.ID || failed.Data[0].MessageID != e.ID || failed.Data[0].AttemptCount != 2 {
			t.Fatalf("failed deliveries = %+v", failed)
		}
		if pending := decode[ListBody[WebhookDelivery]](t, do(t, h, http.MethodGet, path+"/deliveries?status=pending", nil, auth...)); len(pending.Data) != 0 {
			t.Fatalf("pending deliveries = %+v", pending)
		}
		if res := do(t, h, http.MethodGet, path+"/deliveries?status=lost", nil, auth...); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("unknown status filter = %d", res.Status)
		}
		detail := decode[WebhookDeliveryDetail](t, do(t, h, http.MethodGet, path+"/deliveries/"+d.ID, nil, auth...))
		if len(detail.Attempts) != 2 || detail.Attempts[0].StatusCode != http.StatusInternalServerError || detail.Attempts[0].ResponseBody != "down" || detail.Attempts[1].Number != 2 {
			t.Fatalf("detail = %+v", detail)
		}

		res := do(t, h, http.MethodPost, path+"/deliveries/"+d.ID+"/replay", nil, auth...)
		if res.Status != http.StatusAccepted {
			t.Fatalf("replay = %d %s", res.Status, res.Body)
		}
		if c := starter.last(); c.kind != "replay" || c.deliveryID != d.ID || c.eventID != e.ID || c.tenantID != tenantID || c.n != 1 {
			t.Fatalf("replay started %+v", c)
		}

		res = do(t, h, http.MethodPost, path+"/test", nil, auth...)
		tested := decode[WebhookDeliveryDetail](t, res)
		if res.Status != http.StatusOK || !tested.Test || tested.Status != models.DeliverySucceeded || len(tested.Attempts) != 1 || tested.Attempts[0].StatusCode != http.StatusNoContent {
			t.Fatalf("test-send = %d %s", res.Status, res.Body)
		}
		if c := starter.last(); c.kind != "test" || c.deliveryID != tested.ID {
			t.Fatalf("test-send started %+v", c)
		}
		if tested.EventType != models.EventWebhookTested || tested.MessageID != tested.ID {
			t.Fatalf("test delivery = %+v", tested.WebhookDelivery)
		}

		// Disabled endpoints are not replayed; unconfigured servers say so.
		do(t, h, http.MethodPatch, path, jsonBody(t, map[string]any{"enabled": false}), auth...)
		if p := do(t, h, http.MethodPost, path+"/deliveries/"+d.ID+"/replay", nil, auth...).problem(t); p.Status != http.StatusConflict || p.Code != "WEBHOOK_DISABLED" {
			t.Fatalf("replay on a disabled endpoint = %d %s", p.Status, p.Code)
		}
		bare, _ := webhookServer(t, st, WebhookDeps{})
		bareAuth := bearer(login(t, bare.Handler(), "owner@acme.test", ownerPassword).AccessToken)
		if res := do(t, bare.Handler(), http.MethodPost, "/api/webhooks", jsonBody(t, map[string]any{"url": "https://hooks.example.com/", "eventTypes": []string{"*"}}), bareAuth...); res.Status != http.StatusServiceUnavailable {
			t.Fatalf("create without a keyring = %d %s", res.Status, res.Body)
		}
	})
}
