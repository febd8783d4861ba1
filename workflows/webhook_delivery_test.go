package workflows_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// receiver is an endpoint that answers with the statuses of a script, then 200.
type receiver struct {
	mu       sync.Mutex
	script   []func(w http.ResponseWriter)
	requests []received
	srv      *httptest.Server
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, script ...func(w http.ResponseWriter)) *receiver {
	r := &receiver{script: script}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.requests)
		r.requests = append(r.requests, received{req.Header.Clone(), body})
		r.mu.Unlock()
		if n < len(r.script) {
			r.script[n](w)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.requests...)
}

func status(code int, headers ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, strings.Repeat("x", 3000))
	}
}

// deliveryFixture is a tenant with one endpoint pointing at a receiver, on a real store.
type deliveryFixture struct {
	st     *stores.Set
	sc     *stores.Scoped
	tenant string
	hook   *models.Webhook
	secret models.Secret
	keys   *models.Keyring
	acts   *activities.Webhooks
}

func newDeliveryFixture(t *testing.T, st *stores.Set, url string) *deliveryFixture {
	t.Helper()
	ctx := context.Background()
	tenant := &models.Tenant{Slug: "acme", Name: "Acme"}
	owner := &models.User{Email: "owner@acme.test", Name: "Owner"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		t.Fatal(err)
	}
	sc := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})
	m := make([]byte, 32)
	_, _ = rand.Read(m)
	keys, _ := models.NewKeyring(map[int][]byte{1: m}, 1)
	secret, _ := models.NewWebhookSecret()
	w := &models.Webhook{ID: models.NewID(), URL: url, Enabled: true, SecretHint: secret.Masked()}
	w.Secret, _ = keys.Seal(secret, models.SealContext{TenantID: tenant.ID, Table: "webhooks", RowID: w.ID, Field: "secret"})
	if err := sc.CreateWebhook(ctx, w, []string{"customer.*"}); err != nil {
		t.Fatal(err)
	}
	return &deliveryFixture{st: st, sc: sc, tenant: tenant.ID, hook: w, secret: secret, keys: keys, acts: &activities.Webhooks{
		Store: st, Keyring: keys, AllowedNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	}}
}

func (f *deliveryFixture) event(t *testing.T) *models.Event {
	t.Helper()
	cid := models.NewID()
	e, err := f.st.EmitEvent(context.Background(), models.System(f.tenant), models.NewEvent{Type: "customer.created", CustomerID: &cid, Payload: `{"seats":12345678901234567890}`})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deliver runs the delivery workflow of e to the endpoint with time skipping.
func (f *deliveryFixture) deliver(t *testing.T, in workflows.WebhookDeliveryInput, setup ...func(env *testsuite.TestWorkflowEnvironment)) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{DB: f.st}, Webhooks: f.acts})
	for _, s := range setup {
		s(env)
	}
	env.ExecuteWorkflow(workflows.WebhookDelivery, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the delivery did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
}

func (f *deliveryFixture) delivery(t *testing.T) (*models.WebhookDelivery, []models.WebhookAttempt) {
	t.Helper()
	list, _, err := f.sc.ListWebhookDeliveries(context.Background(), f.hook.ID, models.DeliveryFilter{}, models.Page{})
	if err != nil || len(list) != 1 {
		t.Fatalf("deliveries = %v, %v", list, err)
	}
	d, attempts, err := f.sc.WebhookDelivery(context.Background(), f.hook.ID, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return d, attempts
}

func gaps(attempts []models.WebhookAttempt) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(attempts); i++ {
		out = append(out, attempts[i].AttemptedAt.Sub(attempts[i-1].AttemptedAt))
	}
	return out
}

func TestDeliveriesAreSignedPerStandardWebhooks(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		r := newReceiver(t)
		f := newDeliveryFixture(t, st, r.srv.URL+"/hooks?token=abc")
		e := f.event(t)
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID})
		reqs := r.got()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		req := reqs[0]
		// Verified by the public Standard Webhooks library, not by our own code.
		wh, err := standardwebhooks.NewWebhook(f.secret.Reveal())
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(req.body, req.header); err != nil {
			t.Fatalf("the Standard Webhooks library rejects the delivery: %v", err)
		}
		if got := req.header.Get("webhook-id"); got != e.ID {
			t.Fatalf("webhook-id = %q, want the event id %s", got, e.ID)
		}
		var env struct {
			Type      string    `json:"type"`
			Timestamp time.Time `json:"timestamp"`
			Data      struct {
				ID, Type, CustomerID string
				Payload              json.RawMessage
				OccurredAt           time.Time
			} `json:"data"`
		}
		if err := json.Unmarshal(req.body, &env); err != nil {
			t.Fatal(err)
		}
		if env.Type != "customer.created" || env.Data.ID != e.ID || env.Data.CustomerID != *e.CustomerID ||
			string(env.Data.Payload) != `{"seats":12345678901234567890}` || env.Data.OccurredAt.IsZero() || env.Timestamp.IsZero() {
			t.Fatalf("envelope = %s", req.body)
		}
		d, attempts := f.delivery(t)
		if d.Status != models.DeliverySucceeded || len(attempts) != 1 || attempts[0].StatusCode != http.StatusOK || attempts[0].ResponseBody != "ok" {
			t.Fatalf("delivery = %+v, attempts = %+v", d, attempts)
		}

		// During a rotation's grace period both secrets sign; the library accepts either.
		next, _ := models.NewWebhookSecret()
		sealedNext, _ := f.keys.Seal(next, models.SealContext{TenantID: f.tenant, Table: "webhooks", RowID: f.hook.ID, Field: "secret"})
		prev, _ := f.keys.Seal(f.secret, models.SealContext{TenantID: f.tenant, Table: "webhooks", RowID: f.hook.ID, Field: "previous_secret"})
		if _, err := f.sc.RotateWebhookSecret(context.Background(), f.hook.ID, models.WebhookSecretRotation{
			Expect: f.hook.Secret, Secret: sealedNext, SecretHint: next.Masked(), PreviousSecret: prev, PreviousExpiresAt: time.Now().Add(time.Hour),
		}); err != nil {
			t.Fatal(err)
		}
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID, DeliveryID: d.ID})
		reqs = r.got()
		last := reqs[len(reqs)-1]
		if sigs := strings.Fields(last.header.Get("webhook-signature")); len(sigs) != 2 {
			t.Fatalf("signatures during the grace period = %q, want two", last.header.Get("webhook-signature"))
		}
		if last.header.Get("webhook-id") != e.ID {
			t.Fatal("a replay changed the webhook-id")
		}
		for name, s := range map[string]models.Secret{"new": next, "old": f.secret} {
			wh, _ := standardwebhooks.NewWebhook(s.Reveal())
			if err := wh.Verify(last.body, last.header); err != nil {
				t.Errorf("the %s secret does not verify during the grace period: %v", name, err)
			}
		}
	})
}

func TestFailedDeliveriesFollowTheRetryScheduleUntilSuccess(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		r := newReceiver(t, status(500), status(502), status(404), status(301, "Location", "https://example.com/"))
		f := newDeliveryFixture(t, st, r.srv.URL)
		e := f.event(t)
		// The conventions' schedule, in skipped time.
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID})
		if n := len(r.got()); n != 5 {
			t.Fatalf("%d requests, want 4 failures and a success", n)
		}
		d, attempts := f.delivery(t)
		if d.Status != models.DeliverySucceeded || d.Attempts != 5 || len(attempts) != 5 {
			t.Fatalf("delivery = %+v with %d attempts", d, len(attempts))
		}
		for i, want := range []int{500, 502, 404, 301, 200} {
			a := attempts[i]
			if a.Number != i+1 || a.StatusCode != want {
				t.Errorf("attempt %d = #%d status %d, want status %d", i, a.Number, a.StatusCode, want)
			}
			if i < 4 && (len(a.ResponseBody) != activities.MaxWebhookResponseBody || a.Error == "") {
				t.Errorf("attempt %d kept %d bytes of response and error %q", i, len(a.ResponseBody), a.Error)
			}
		}
		for i, g := range gaps(attempts) {
			want := models.DefaultWebhookSchedule[i+1]
			if g < want*9/10 || g > want*11/10+time.Second {
				t.Errorf("wait before attempt %d = %v, want %v ±10%%", i+2, g, want)
			}
		}
		if hook, _ := f.sc.Webhook(context.Background(), f.hook.ID); hook.FailingSince != nil || !hook.Enabled {
			t.Fatalf("after success the endpoint = %+v", hook)
		}
	})
}

func TestAGoneEndpointIsDisabledAtOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		r := newReceiver(t, status(410))
		f := newDeliveryFixture(t, st, r.srv.URL)
		f.acts.Schedule = []time.Duration{0, time.Second, time.Second}
		e := f.event(t)
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID})
		if n := len(r.got()); n != 1 {
			t.Fatalf("%d requests after a 410, want 1", n)
		}
		d, _ := f.delivery(t)
		hook, _ := f.sc.Webhook(context.Background(), f.hook.ID)
		if d.Status != models.DeliveryFailed || hook.Enabled || hook.DisabledReason != models.WebhookDisabledGone {
			t.Fatalf("delivery %s, endpoint %+v", d.Status, hook)
		}
		assertDisabledEvent(t, f, models.WebhookDisabledGone)
	})
}

func assertDisabledEvent(t *testing.T, f *deliveryFixture, reason string) {
	t.Helper()
	evs, _, _ := f.sc.ListEvents(context.Background(), models.EventFilter{Type: models.EventWebhookDisabled}, models.Page{})
	if len(evs) != 1 {
		t.Fatalf("%d webhook.disabled events, want 1", len(evs))
	}
	var p models.WebhookDisabledPayload
	_ = json.Unmarshal([]byte(evs[0].Payload), &p)
	if p.WebhookID != f.hook.ID || p.Reason != reason || p.URL != f.hook.URL {
		t.Fatalf("webhook.disabled payload = %s", evs[0].Payload)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		r := newReceiver(t, status(429, "Retry-After", "3600"), status(503, "Retry-After", "1"))
		f := newDeliveryFixture(t, st, r.srv.URL)
		f.acts.Schedule = []time.Duration{0, 10 * time.Second, 10 * time.Second, 10 * time.Second}
		e := f.event(t)
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID})
		_, attempts := f.delivery(t)
		g := gaps(attempts)
		if len(g) != 2 || g[0] < time.Hour || g[0] > time.Hour+time.Minute || g[1] < 9*time.Second || g[1] > 12*time.Second {
			t.Fatalf("waits = %v, want an hour (Retry-After) then the schedule's 10 s", g)
		}
	})
}

func TestAnEndpointFailingForTheConfiguredPeriodIsDisabled(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		var script []func(http.ResponseWriter)
		for range 20 {
			script = append(script, status(500))
		}
		r := newReceiver(t, script...)
		f := newDeliveryFixture(t, st, r.srv.URL)
		f.acts.Schedule = []time.Duration{0, time.Hour, time.Hour, time.Hour, time.Hour}
		f.acts.DisableAfter = 150 * time.Minute
		e := f.event(t)
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID})
		// Failing since attempt 1: attempts at about 0, 1 h, 2 h, 3 h; the fourth is past 2.5 h.
		if n := len(r.got()); n != 4 {
			t.Fatalf("%d requests, want 4", n)
		}
		d, _ := f.delivery(t)
		hook, _ := f.sc.Webhook(context.Background(), f.hook.ID)
		if d.Status != models.DeliveryFailed || hook.Enabled || hook.DisabledReason != models.WebhookDisabledFailing {
			t.Fatalf("delivery %s, endpoint %+v", d.Status, hook)
		}
		assertDisabledEvent(t, f, models.WebhookDisabledFailing)
		if ids, _ := st.WebhooksFor(context.Background(), models.System(f.tenant), "customer.created"); len(ids) != 0 {
			t.Fatalf("a disabled endpoint still receives events: %v", ids)
		}
	})
}

func TestDisablingAnEndpointStopsPendingRetries(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		r := newReceiver(t, status(500), status(500), status(500))
		f := newDeliveryFixture(t, st, r.srv.URL)
		f.acts.Schedule = []time.Duration{0, time.Hour, time.Hour}
		e := f.event(t)
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID}, func(env *testsuite.TestWorkflowEnvironment) {
			env.RegisterDelayedCallback(func() {
				off := false
				if _, err := f.sc.UpdateWebhook(context.Background(), f.hook.ID, models.WebhookChanges{Enabled: &off}); err != nil {
					t.Error(err)
				}
			}, 30*time.Minute)
		})
		if n := len(r.got()); n != 1 {
			t.Fatalf("%d requests, want 1 before the endpoint was disabled", n)
		}
		if d, _ := f.delivery(t); d.Status != models.DeliveryCancelled {
			t.Fatalf("delivery status = %s, want cancelled", d.Status)
		}
	})
}

func TestATestSendIsOneAttempt(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		r := newReceiver(t, status(500))
		f := newDeliveryFixture(t, st, r.srv.URL)
		body := `{"type":"webhook.tested"}`
		d := &models.WebhookDelivery{EventType: models.EventWebhookTested, Body: &body}
		if err := f.sc.CreateTestDelivery(context.Background(), f.hook.ID, d); err != nil {
			t.Fatal(err)
		}
		f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, DeliveryID: d.ID})
		reqs := r.got()
		if len(reqs) != 1 || string(reqs[0].body) != body || reqs[0].header.Get("webhook-id") != d.ID {
			t.Fatalf("requests = %d", len(reqs))
		}
		got, attempts := f.delivery(t)
		if got.Status != models.DeliveryFailed || len(attempts) != 1 {
			t.Fatalf("test delivery = %+v, %d attempts", got, len(attempts))
		}
		if hook, _ := f.sc.Webhook(context.Background(), f.hook.ID); hook.FailingSince != nil {
			t.Fatal("a failed test-send marked the endpoint failing")
		}
	})
}
