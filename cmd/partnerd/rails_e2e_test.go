package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/partnerd/partnerd/rails/railstest"
)

// TestAnApprovedWithdrawalIsPaidByAStripeTransferThroughStripeMock runs a partner's Stripe
// payout on the embedded server: finance sets the tenant's Stripe key, the partner onboards its
// connected account, withdraws, finance approves, and the payout workflow pays it by a Connect
// transfer through stripe-mock; Stripe's webhook about the transfer is verified and changes
// nothing more.
func TestAnApprovedWithdrawalIsPaidByAStripeTransferThroughStripeMock(t *testing.T) {
	mock := railstest.StripeMock(t)
	const password = "bootstrap-Password-0451"
	const webhookSecret = "whsec_ZTJlLXN0cmlwZS13ZWJob29rLXNlY3JldA=="
	r := startServe(t, map[string]string{
		"PARTNERD_DATA_DIR":           t.TempDir(),
		"PARTNERD_HTTP_ADDR":          "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":      freeTCPPort(t),
		"PARTNERD_BOOTSTRAP_EMAIL":    "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD": password,
		"PARTNERD_STRIPE_API_URL":     mock,
	})
	defer r.shutdown(t)
	base := "http://" + r.addr
	owner := login(t, base, "founder@example.test", password)
	bob := login(t, base, "bob@contoso.demo", password)

	var settings struct {
		StripeSecretKeySet bool   `json:"stripeSecretKeySet"`
		StripeWebhookPath  string `json:"stripeWebhookPath"`
	}
	if code := call(t, http.MethodPut, base+"/api/payout-settings", owner, map[string]any{"provider": "manual",
		"stripeSecretKey": "sk_test_e2eStripeKey01", "stripeWebhookSecret": webhookSecret}, &settings); code != http.StatusOK || !settings.StripeSecretKeySet {
		t.Fatalf("payout settings = %d %+v", code, settings)
	}
	var onboarding struct {
		Method struct {
			ID        string `json:"id"`
			PartnerID string `json:"partnerId"`
			Kind      string `json:"kind"`
		} `json:"method"`
		URL string `json:"url"`
	}
	if code := call(t, http.MethodPost, base+"/api/payout-methods/stripe-onboarding", bob, map[string]any{
		"refreshUrl": base + "/portal/payouts", "returnUrl": base + "/portal/payouts?done=1"}, &onboarding); code != http.StatusOK || onboarding.Method.Kind != "stripe" || onboarding.URL == "" {
		t.Fatalf("onboarding = %d %+v", code, onboarding)
	}
	if code := callKeyed(t, http.MethodPost, base+"/api/ledger/adjustments", owner, "e2e-stripe-open", map[string]any{"partnerId": onboarding.Method.PartnerID,
		"amount": 640_00, "currency": "EUR", "reason": "opening balance"}, nil); code != http.StatusCreated {
		t.Fatalf("adjustment = %d", code)
	}
	before := balanceOf(t, base, bob)
	w := paidByStripe(t, base, bob, owner, "e2e-stripe-w", map[string]any{"amount": 640_00, "currency": "EUR",
		"payoutMethodId": onboarding.Method.ID})
	if b := balanceOf(t, base, bob); b.Paid != before.Paid+640_00 || b.Held != before.Held || b.Available != before.Available-640_00 {
		t.Fatalf("balance %+v, before %+v", b, before)
	}

	// Stripe's webhook about the transfer verifies and settles nothing twice.
	ev, _ := json.Marshal(map[string]any{"id": "evt_e2e", "object": "event", "type": "transfer.created", "created": time.Now().Unix(),
		"data": map[string]any{"object": map[string]any{"id": w.Reference, "object": "transfer", "amount": 640_00, "currency": "eur",
			"metadata": map[string]string{"payout_id": w.Payout.ID, "withdrawal_id": w.ID}}}})
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: ev, Secret: webhookSecret, Timestamp: time.Now()})
	req, _ := http.NewRequest(http.MethodPost, base+settings.StripeWebhookPath, bytes.NewReader(signed.Payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", signed.Header)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"settled":false`) {
		t.Fatalf("webhook = %d %s", res.StatusCode, raw)
	}
	var paid struct {
		Data []struct{ Type string } `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/events?type=payout.paid&limit=100", owner, nil, &paid)
	if len(paid.Data) != 1 {
		t.Fatalf("payout.paid events %+v", paid)
	}
}
