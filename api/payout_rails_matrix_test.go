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
		tenantID := sc.Principal().TenantID
		f.ids["tenant"] = tenantID
		seal := func(v, field string) models.Sealed {
			s, err := webhookTestKeys.Seal(models.Secret(v), models.SealContext{TenantID: tenantID, Table: "payout_settings", RowID: tenantID, Field: field})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		if _, err := sc.SavePayoutSettings(context.Background(), models.PayoutSettings{Provider: models.ProviderManual, Minimums: "{}", ConfirmDays: 14,
			StripeSecretKey: seal("sk_test_matrix00000000", "stripe_secret_key"), StripeWebhookSecret: seal("whsec_bWF0cml4", "stripe_webhook_secret")}, false); err != nil {
			t.Fatal(err)
		}
	})
	onboarding := func(partner string) map[string]any {
		return map[string]any{"partnerId": partner, "refreshUrl": "https://partners.example.com/portal/payouts", "returnUrl": "https://partners.example.com/portal/payouts"}
	}
	cases := map[string]matrixCase{
		"onboard-stripe-account": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/payout-methods/stripe-onboarding", onboarding(f.partner1)}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/payout-methods/stripe-onboarding", onboarding(f.partner2)}
		}},
		// Public, as Stripe calls it: without Stripe's signature it answers 400.
		"receive-stripe-webhook": {publicStatus: http.StatusBadRequest, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/payout-webhooks/stripe/" + f.ids["tenant"], rawBody(`{"id": "evt_1", "type": "transfer.created"}`)}
		}},
		"list-payout-batches": {call: get("/api/payout-batches")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
