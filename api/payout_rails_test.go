package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// signedStripeEvent is a Stripe event about a transfer, signed with secret as Stripe signs.
func signedStripeEvent(typ, secret string, transfer map[string]any) (body []byte, signature string) {
	ev := map[string]any{"id": "evt_" + models.NewID()[:8], "object": "event", "api_version": "2025-08-27.basil", "type": typ,
		"created": time.Now().Unix(), "data": map[string]any{"object": transfer}}
	raw, _ := json.Marshal(ev)
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: raw, Secret: secret, Timestamp: time.Now()})
	return signed.Payload, signed.Header
}

func TestPayoutRailsOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "payout-rails")
		const stripeKey, webhookSecret, paypalSecret, wiseToken = "sk_test_51RailsSecretKey0000", "whsec_cmFpbHMtd2ViaG9vay1zZWNyZXQ=", "EPaypalSecretValue-123", "wise-token-3f9a1c"
		onboard := map[string]any{"refreshUrl": "https://partners.example.com/portal/payouts", "returnUrl": "https://partners.example.com/portal/payouts?done=1"}

		t.Run("onboarding needs the tenant's Stripe key", func(t *testing.T) {
			e := e.on(t)
			e.problem(e.call(http.MethodPost, "/api/payout-methods/stripe-onboarding", e.p1, "", onboard), 409, "PAYOUT_RAIL_NOT_CONFIGURED")
		})

		t.Run("the rails' credentials are sealed and never shown", func(t *testing.T) {
			e := e.on(t)
			e.problem(e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual", "stripeSecretKey": "pk_live_notasecret"}), 422, "VALIDATION_FAILED")
			e.problem(e.call(http.MethodPut, "/api/payout-settings", e.p1, "", map[string]any{"provider": "manual", "batchDaily": true}), 403, "PERMISSION_DENIED")
			set := decode[PayoutSettings](t, e.want(200, e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual",
				"stripeSecretKey": stripeKey, "stripeWebhookSecret": webhookSecret, "paypalClientId": "AbC-client", "paypalSecret": paypalSecret,
				"wiseProfileId": "16000001", "wiseToken": wiseToken})))
			if !set.StripeSecretKeySet || !set.StripeWebhookSecretSet || !set.PayPalSecretSet || !set.WiseTokenSet || set.PayPalClientID != "AbC-client" ||
				set.WiseProfileID != "16000001" || set.BatchDaily || set.StripeWebhookPath != "/api/payout-webhooks/stripe/"+e.tenantID {
				t.Fatalf("settings %+v", set)
			}
			// Omitted secrets are kept; an empty one is removed.
			kept := decode[PayoutSettings](t, e.want(200, e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual", "wiseToken": "", "batchDaily": true})))
			if !kept.StripeSecretKeySet || !kept.PayPalSecretSet || kept.WiseTokenSet || !kept.BatchDaily {
				t.Fatalf("kept settings %+v", kept)
			}
			stored, err := e.owner.PayoutSettings(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got, err := webhookTestKeys.Open(stored.StripeSecretKey, models.SealContext{TenantID: e.tenantID, Table: "payout_settings", RowID: e.tenantID, Field: "stripe_secret_key"}); err != nil || got.Reveal() != stripeKey {
				t.Fatalf("the sealed Stripe key opens to %v, %v", got, err)
			}
			e.want(200, e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual", "batchDaily": false}))
		})

		t.Run("stripe and wise methods are checked and masked", func(t *testing.T) {
			e := e.on(t)
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "stripe", "details": map[string]string{"accountId": "acct"}}), 422, "INVALID_PAYOUT_DETAILS")
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "wise", "details": map[string]string{"iban": "DE89370400440532013000"}}), 422, "INVALID_PAYOUT_DETAILS")
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "wise", "details": map[string]string{"recipientId": "x12"}}), 422, "INVALID_PAYOUT_DETAILS")
			wise := decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "wise",
				"details": map[string]string{"iban": "DE89 3704 0044 0532 0130 00", "accountHolder": "Alpha GmbH"}})))
			if wise.Kind != "wise" || wise.Masked != "Wise IBAN ••••3000" {
				t.Fatalf("wise method %+v", wise)
			}
			byRecipient := decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", e.p2, "", map[string]any{"kind": "wise",
				"details": map[string]string{"recipientId": "40000000"}})))
			if byRecipient.Masked != "Wise recipient ••••0000" {
				t.Fatalf("wise recipient %+v", byRecipient)
			}
		})

		var stripeMethod PayoutMethod
		t.Run("a partner onboards its Stripe connected account once", func(t *testing.T) {
			e := e.on(t)
			first := decode[StripeOnboarding](t, e.want(200, e.call(http.MethodPost, "/api/payout-methods/stripe-onboarding", e.p1, "", onboard)))
			if first.Method.Kind != "stripe" || first.Method.PartnerID != e.partner1 || !strings.HasPrefix(first.URL, "https://connect.stripe.com/") ||
				first.Method.Masked != "Stripe ••••CVdK" || first.ExpiresAt.IsZero() {
				t.Fatalf("onboarding %+v", first)
			}
			again := decode[StripeOnboarding](t, e.want(200, e.call(http.MethodPost, "/api/payout-methods/stripe-onboarding", e.op, "", map[string]any{
				"partnerId": e.partner1, "refreshUrl": onboard["refreshUrl"], "returnUrl": onboard["returnUrl"]})))
			if again.Method.ID != first.Method.ID {
				t.Fatalf("a second onboarding made another method: %+v", again)
			}
			e.problem(e.call(http.MethodPost, "/api/payout-methods/stripe-onboarding", e.p1, "", map[string]any{"partnerId": e.partner2,
				"refreshUrl": onboard["refreshUrl"], "returnUrl": onboard["returnUrl"]}), 403, "OTHER_PARTNER")
			e.problem(e.call(http.MethodPost, "/api/payout-methods/stripe-onboarding", e.op, "", onboard), 422, "INVALID_ONBOARDING")
			e.problem(e.call(http.MethodPost, "/api/payout-methods/stripe-onboarding", e.p1, "", map[string]any{"refreshUrl": "javascript:alert(1)", "returnUrl": "/x"}), 422, "INVALID_ONBOARDING")
			stripeMethod = first.Method
		})

		t.Run("Stripe's signed webhook settles a pending stripe payout", func(t *testing.T) {
			e := e.on(t)
			e.want(201, e.call(http.MethodPost, "/api/ledger/adjustments", e.finance, "rails-open", map[string]any{"partnerId": e.partner1, "amount": 500_00, "currency": "EUR", "reason": "opening"}))
			w := decode[Withdrawal](t, e.want(201, e.call(http.MethodPost, "/api/withdrawals", e.p1, "rails-w1", map[string]any{"amount": 120_00, "currency": "EUR", "payoutMethodId": stripeMethod.ID})))
			approved := decode[Withdrawal](t, e.want(200, e.call(http.MethodPost, "/api/withdrawals/"+w.ID+"/approve", e.finance, "", nil)))
			if approved.Provider != "stripe" {
				t.Fatalf("approved %+v", approved)
			}
			w = decode[Withdrawal](t, e.want(200, e.call(http.MethodGet, "/api/withdrawals/"+w.ID, e.finance, "", nil)))
			transfer := map[string]any{"id": "tr_1Rails", "object": "transfer", "amount": 120_00, "currency": "eur", "reversed": false, "destination": "acct_1Nv0FGQ9RKHgCVdK",
				"metadata": map[string]string{"payout_id": w.Payout.ID, "withdrawal_id": w.ID, "tenant_id": e.tenantID}}
			path := "/api/payout-webhooks/stripe/" + e.tenantID
			body, sig := signedStripeEvent("transfer.created", webhookSecret, transfer)

			forged, forgedSig := signedStripeEvent("transfer.created", "whsec_Zm9yZ2Vk", transfer)
			e.problem(do(t, e.h, http.MethodPost, path, strings.NewReader(string(forged)), "Stripe-Signature", forgedSig, "Content-Type", "application/json"), 400, "STRIPE_SIGNATURE_INVALID")
			e.problem(do(t, e.h, http.MethodPost, path, strings.NewReader(strings.Replace(string(body), "12000", "1", 1)), "Stripe-Signature", sig, "Content-Type", "application/json"), 400, "STRIPE_SIGNATURE_INVALID")
			e.problem(do(t, e.h, http.MethodPost, "/api/payout-webhooks/stripe/"+models.NewID(), strings.NewReader(string(body)), "Stripe-Signature", sig, "Content-Type", "application/json"), 404, "STRIPE_WEBHOOK_NOT_CONFIGURED")
			if got, _, _ := e.owner.Withdrawal(t.Context(), w.ID); got.Status != models.WithdrawalApproved {
				t.Fatalf("a refused webhook changed the withdrawal: %+v", got)
			}

			res := decode[struct{ Received, Settled bool }](t, e.want(200, do(t, e.h, http.MethodPost, path, strings.NewReader(string(body)), "Stripe-Signature", sig, "Content-Type", "application/json")))
			if !res.Received || !res.Settled {
				t.Fatalf("webhook answer %+v", res)
			}
			paid := decode[Withdrawal](t, e.want(200, e.call(http.MethodGet, "/api/withdrawals/"+w.ID, e.p1, "", nil)))
			if paid.Status != "paid" || paid.Reference != "tr_1Rails" || paid.Payout.Status != "paid" {
				t.Fatalf("withdrawal after the webhook %+v", paid)
			}
			// Stripe delivers again: acknowledged, nothing settles twice.
			res = decode[struct{ Received, Settled bool }](t, e.want(200, do(t, e.h, http.MethodPost, path, strings.NewReader(string(body)), "Stripe-Signature", sig, "Content-Type", "application/json")))
			if !res.Received || res.Settled {
				t.Fatalf("replayed webhook answer %+v", res)
			}
			if b := e.balance(e.finance, e.partner1); b.Paid != 120_00 || b.Held != 0 {
				t.Fatalf("balance %+v", b)
			}
		})

		t.Run("payout batches are finance's to see", func(t *testing.T) {
			e := e.on(t)
			e.want(200, e.call(http.MethodGet, "/api/payout-batches", e.finance, "", nil))
			e.problem(e.call(http.MethodGet, "/api/payout-batches", e.p1, "", nil), 403, "PERMISSION_DENIED")
		})

		for _, secret := range []string{stripeKey, webhookSecret, paypalSecret, wiseToken} {
			for _, b := range *e.bodies {
				if strings.Contains(b, secret) {
					t.Fatalf("a response carried a secret: %s", b)
				}
			}
			if strings.Contains(e.logs.String(), secret) {
				t.Fatalf("the logs carry a secret")
			}
		}
	})
}
