package webhooks_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func testKeyring(t *testing.T) *models.Keyring {
	t.Helper()
	m := make([]byte, 32)
	_, _ = rand.Read(m)
	k, err := models.NewKeyring(map[int][]byte{1: m}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newWebhook creates an endpoint with a sealed secret and returns it with the plaintext.
func newWebhook(t *testing.T, sc *stores.Scoped, keys *models.Keyring, enabled bool, patterns ...string) (*models.Webhook, models.Secret) {
	t.Helper()
	secret, err := models.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	w := &models.Webhook{ID: models.NewID(), URL: "https://hooks.example.com/in", Enabled: enabled, SecretHint: secret.Masked()}
	p := sc.Principal()
	if w.Secret, err = keys.Seal(secret, models.SealContext{TenantID: p.TenantID, Table: "webhooks", RowID: w.ID, Field: "secret"}); err != nil {
		t.Fatal(err)
	}
	if err := sc.CreateWebhook(context.Background(), w, patterns); err != nil {
		t.Fatal(err)
	}
	return w, secret
}

func TestWebhookSubscriptionsFollowEnabledEndpointsAndTheirPatterns(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		other := storetest.Tenant(t, s.Core(), "globex")
		sc := s.For(owner)
		keys := testKeyring(t)

		// Nothing subscribes: an event costs no outbox row.
		if _, err := s.EmitEvent(ctx, models.System(owner.TenantID), models.NewEvent{Type: "customer.created"}); err != nil {
			t.Fatal(err)
		}
		if refs, _ := s.PendingOutbox(ctx, time.Now().Add(time.Hour), 10); len(refs) != 0 {
			t.Fatalf("outbox without subscribers = %v", refs)
		}
		deals, _ := newWebhook(t, sc, keys, true, "deal.*")
		all, _ := newWebhook(t, sc, keys, true, "customer.created", "customer.*")
		off, _ := newWebhook(t, sc, keys, false, "*")
		newWebhook(t, s.For(other), keys, true, "*")

		ids, err := s.WebhooksFor(ctx, models.System(owner.TenantID), "customer.created")
		if err != nil || !slices.Equal(ids, []string{all.ID}) {
			t.Fatalf("WebhooksFor(customer.created) = %v, %v; want only %s", ids, err, all.ID)
		}
		if ids, _ := s.WebhooksFor(ctx, models.System(owner.TenantID), "deal.stage_changed"); !slices.Equal(ids, []string{deals.ID}) {
			t.Fatalf("WebhooksFor(deal.stage_changed) = %v", ids)
		}
		// Creating webhooks invalidated the cached subscriptions at once.
		e, err := s.EmitEvent(ctx, models.System(owner.TenantID), models.NewEvent{Type: "customer.created"})
		if err != nil {
			t.Fatal(err)
		}
		refs, _ := s.PendingOutbox(ctx, time.Now().Add(time.Hour), 10)
		if len(refs) != 1 || refs[0].EventID != e.ID {
			t.Fatalf("outbox = %v, want the event %s", refs, e.ID)
		}

		// Enabling the catch-all and disabling the others changes the routes at once too.
		yes, no := true, false
		if _, err := sc.UpdateWebhook(ctx, off.ID, models.WebhookChanges{Enabled: &yes}); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.UpdateWebhook(ctx, all.ID, models.WebhookChanges{Enabled: &no}); err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.WebhooksFor(ctx, models.System(owner.TenantID), "customer.created"); !slices.Equal(ids, []string{off.ID}) {
			t.Fatalf("after the update WebhooksFor = %v, want %s", ids, off.ID)
		}
		if err := sc.DeleteWebhook(ctx, off.ID); err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.WebhooksFor(ctx, models.System(owner.TenantID), "customer.created"); len(ids) != 0 {
			t.Fatalf("after the delete WebhooksFor = %v", ids)
		}
		if _, err := s.For(other).Webhook(ctx, deals.ID); models.ErrorKind(err) != models.KindNotFound {
			t.Fatalf("another tenant reads the webhook: %v", err)
		}
		partner := &models.Principal{Kind: models.PrincipalPartner, TenantID: owner.TenantID, UserID: owner.UserID, PartnerID: models.NewID()}
		if list, _, _ := s.For(partner).ListWebhooks(ctx, models.Page{}); len(list) != 0 {
			t.Fatalf("a partner lists webhooks: %v", list)
		}
		audit, _, err := sc.ListAudit(ctx, models.AuditFilter{TargetType: "webhook"}, models.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, a := range audit {
			actions = append(actions, a.Action)
		}
		for _, want := range []string{"webhook.created", "webhook.updated", "webhook.deleted"} {
			if !slices.Contains(actions, want) {
				t.Errorf("audit log lacks %s: %v", want, actions)
			}
		}
	})
}

func TestWebhookSecretsAreStoredSealedAndRotateOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		sc := s.For(owner)
		keys := testKeyring(t)
		w, secret := newWebhook(t, sc, keys, true, "*")
		got, err := sc.Webhook(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Secret) == secret.Reveal() || got.Secret.KeyVersion() != 1 {
			t.Fatalf("stored secret %q is not sealed", string(got.Secret))
		}
		c := models.SealContext{TenantID: owner.TenantID, Table: "webhooks", RowID: w.ID, Field: "secret"}
		opened, err := keys.Open(got.Secret, c)
		if err != nil || opened != secret {
			t.Fatalf("the stored secret does not open to the plaintext: %v", err)
		}
		next, _ := models.NewWebhookSecret()
		sealedNext, _ := keys.Seal(next, c)
		prev, _ := keys.Seal(secret, models.SealContext{TenantID: owner.TenantID, Table: "webhooks", RowID: w.ID, Field: "previous_secret"})
		rot := models.WebhookSecretRotation{Expect: got.Secret, Secret: sealedNext, SecretHint: next.Masked(), PreviousSecret: prev, PreviousExpiresAt: time.Now().Add(time.Hour)}
		if _, err := sc.RotateWebhookSecret(ctx, w.ID, rot); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.RotateWebhookSecret(ctx, w.ID, rot); models.ErrorKind(err) != models.KindConflict {
			t.Fatalf("a rotation based on a stale secret: %v, want a conflict", err)
		}
		got, _ = sc.Webhook(ctx, w.ID)
		if o, err := keys.Open(got.Secret, c); err != nil || o != next {
			t.Fatalf("after rotation the secret does not open to the new one: %v", err)
		}
		if got.PreviousSecretExpiresAt == nil || got.SecretHint != next.Masked() {
			t.Fatalf("rotation state = %+v", got)
		}
	})
}

func TestDeliveriesRecordAttemptsAndDisableFailingEndpoints(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		sc := s.For(owner)
		keys := testKeyring(t)
		w, _ := newWebhook(t, sc, keys, true, "customer.*")
		e, err := s.EmitEvent(ctx, models.System(owner.TenantID), models.NewEvent{Type: "customer.created", Payload: `{"n":12345678901234567890}`})
		if err != nil {
			t.Fatal(err)
		}
		start := models.DeliveryStart{TenantID: owner.TenantID, WebhookID: w.ID, EventID: e.ID}
		d, err := s.BeginWebhookDelivery(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.BeginWebhookDelivery(ctx, start)
		if err != nil || again.ID != d.ID || d.MessageID != e.ID {
			t.Fatalf("a second begin made another delivery: %v %v", again, err)
		}
		disp, err := s.WebhookDispatch(ctx, models.System(owner.TenantID), w.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := s.EventByID(ctx, models.System(owner.TenantID), e.ID)
		want, _ := models.WebhookBody(stored)
		if string(disp.Body) != string(want) {
			t.Fatalf("body = %s, want %s", disp.Body, want)
		}

		t0 := time.Now().UTC()
		rec := func(id string, status int, at time.Time, final bool) models.AttemptOutcome {
			t.Helper()
			out, err := s.RecordWebhookAttempt(ctx, models.AttemptRecord{TenantID: owner.TenantID, WebhookID: w.ID, DeliveryID: d.ID,
				AttemptID: id, StatusCode: status, LatencyMS: 5, ResponseBody: "nope", Error: "", At: at, Final: final, DisableAfter: 48 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		a1 := models.NewID()
		if out := rec(a1, 500, t0, false); out.Status != models.DeliveryPending || out.Disabled {
			t.Fatalf("first failure = %+v", out)
		}
		if out := rec(a1, 500, t0, false); out.Status != models.DeliveryPending {
			t.Fatalf("recording the same attempt again = %+v", out)
		}
		hook, _ := sc.Webhook(ctx, w.ID)
		if hook.FailingSince == nil {
			t.Fatal("failing_since not set after a failure")
		}
		if out := rec(models.NewID(), 200, t0.Add(time.Hour), false); out.Status != models.DeliverySucceeded {
			t.Fatalf("success = %+v", out)
		}
		if hook, _ = sc.Webhook(ctx, w.ID); hook.FailingSince != nil {
			t.Fatal("failing_since not cleared by a success")
		}
		got, attempts, err := sc.WebhookDelivery(ctx, w.ID, d.ID)
		if err != nil || got.Status != models.DeliverySucceeded || len(attempts) != 2 || attempts[0].Number != 1 || attempts[1].Number != 2 || attempts[1].StatusCode != http.StatusOK {
			t.Fatalf("delivery = %+v, attempts = %+v, %v", got, attempts, err)
		}

		// A replay continues the same delivery; failures over two days disable the endpoint.
		if _, err := sc.ReplayWebhookDelivery(ctx, w.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		start.DeliveryID = d.ID
		if d2, err := s.BeginWebhookDelivery(ctx, start); err != nil || d2.ID != d.ID || d2.Status != models.DeliveryPending {
			t.Fatalf("replay begin = %+v, %v", d2, err)
		}
		rec(models.NewID(), 503, t0.Add(2*time.Hour), false)
		out := rec(models.NewID(), 503, t0.Add(51*time.Hour), false)
		if !out.Disabled || out.DisabledReason != models.WebhookDisabledFailing || out.Status != models.DeliveryFailed {
			t.Fatalf("failing for 49 hours = %+v, want disabled", out)
		}
		if hook, _ = sc.Webhook(ctx, w.ID); hook.Enabled || hook.DisabledReason != models.WebhookDisabledFailing {
			t.Fatalf("endpoint after disabling = %+v", hook)
		}
		evs, _, _ := sc.ListEvents(ctx, models.EventFilter{Type: models.EventWebhookDisabled}, models.Page{})
		if len(evs) != 1 || evs[0].ActorKind != "system" {
			t.Fatalf("webhook.disabled events = %+v", evs)
		}
		if _, err := s.BeginWebhookDelivery(ctx, start); models.ErrorKind(err) != models.KindConflict {
			t.Fatalf("begin on a disabled endpoint: %v, want a conflict", err)
		}
		if _, err := sc.ReplayWebhookDelivery(ctx, w.ID, d.ID); models.ErrorKind(err) != models.KindConflict {
			t.Fatalf("replay on a disabled endpoint: %v, want a conflict", err)
		}
		list, _, err := sc.ListWebhookDeliveries(ctx, w.ID, models.DeliveryFilter{Status: models.DeliveryFailed}, models.Page{})
		if err != nil || len(list) != 1 {
			t.Fatalf("failed deliveries = %v, %v", list, err)
		}
		if list, _, _ = sc.ListWebhookDeliveries(ctx, w.ID, models.DeliveryFilter{Status: models.DeliveryPending}, models.Page{}); len(list) != 0 {
			t.Fatalf("pending deliveries = %v", list)
		}

		// 410 disables at once; test deliveries never touch the endpoint.
		yes := true
		if _, err := sc.UpdateWebhook(ctx, w.ID, models.WebhookChanges{Enabled: &yes}); err != nil {
			t.Fatal(err)
		}
		body := `{"type":"webhook.tested"}`
		td := &models.WebhookDelivery{EventType: models.EventWebhookTested, Body: &body}
		if err := sc.CreateTestDelivery(ctx, w.ID, td); err != nil {
			t.Fatal(err)
		}
		out, _ = s.RecordWebhookAttempt(ctx, models.AttemptRecord{TenantID: owner.TenantID, WebhookID: w.ID, DeliveryID: td.ID, AttemptID: models.NewID(), StatusCode: 410, At: t0})
		if out.Disabled || out.Status != models.DeliveryFailed {
			t.Fatalf("a test attempt answered 410 = %+v, want failed without disabling", out)
		}
		out = rec(models.NewID(), 410, t0.Add(52*time.Hour), false)
		if !out.Disabled || out.DisabledReason != models.WebhookDisabledGone {
			t.Fatalf("410 = %+v, want disabled as gone", out)
		}
		// Deleting the endpoint removes its deliveries; a late attempt is cancelled.
		if err := sc.DeleteWebhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if out := rec(models.NewID(), 200, t0, false); out.Status != models.DeliveryCancelled {
			t.Fatalf("attempt after delete = %+v", out)
		}
	})
}
