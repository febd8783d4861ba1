package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/partnerd/partnerd/rails/railstest"
)

type e2eFund struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Allocated int64  `json:"allocated"`
	Committed int64  `json:"committed"`
	Spent     int64  `json:"spent"`
	Released  int64  `json:"released"`
}

type e2eMDFBalance struct {
	Available     int64 `json:"available"`
	MDFAvailable  int64 `json:"mdfAvailable"`
	MDFHeld       int64 `json:"mdfHeld"`
	MDFPaid       int64 `json:"mdfPaid"`
	MDFReimbursed int64 `json:"mdfReimbursed"`
}

// TestAnMDFFundGoesFromAllocationToAPaidClaimOnTheEmbeddedServer runs market development funds on
// the embedded Temporal server: a fund allocated to a partner, its request approved for less,
// a claim with proof approved and reimbursed into the MDF balance, withdrawn with account=mdf and
// paid by a Stripe Connect transfer through stripe-mock, booked once; and a second fund whose expiry timer,
// started by the fan-out of mdf.fund_allocated, releases it and emits mdf.fund_expired.
func TestAnMDFFundGoesFromAllocationToAPaidClaimOnTheEmbeddedServer(t *testing.T) {
	mock := railstest.StripeMock(t)
	const password = "bootstrap-Password-0451"
	env := map[string]string{
		"PARTNERD_DATA_DIR":           t.TempDir(),
		"PARTNERD_HTTP_ADDR":          "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":      freeTCPPort(t),
		"PARTNERD_BOOTSTRAP_EMAIL":    "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD": password,
		"PARTNERD_STRIPE_API_URL":     mock,
	}
	r := startServe(t, env)
	defer r.shutdown(t)
	base := "http://" + r.addr
	owner := login(t, base, "founder@example.test", password)
	bob := login(t, base, "bob@contoso.demo", password)
	var me struct {
		PartnerID string `json:"partnerId"`
	}
	call(t, http.MethodGet, base+"/api/me", bob, nil, &me)
	if me.PartnerID == "" {
		t.Fatal("bob has no partner organisation")
	}
	mdfBalance := func() e2eMDFBalance {
		var out struct {
			Data []e2eMDFBalance `json:"data"`
		}
		call(t, http.MethodGet, base+"/api/ledger/balances?currency=EUR", bob, nil, &out)
		if len(out.Data) == 0 {
			return e2eMDFBalance{}
		}
		return out.Data[0]
	}
	before := mdfBalance()

	var fund, short e2eFund
	if code := call(t, http.MethodPost, base+"/api/mdf/funds", owner, map[string]any{"name": "Q1", "partnerId": me.PartnerID, "currency": "EUR",
		"amount": 2_000_00, "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "expiresAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)}, &fund); code != http.StatusCreated {
		t.Fatalf("allocate = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/mdf/funds", owner, map[string]any{"name": "Flash", "partnerId": me.PartnerID, "currency": "EUR",
		"amount": 500_00, "periodStart": "2026-01-01", "periodEnd": "2026-01-31", "expiresAt": time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)}, &short); code != http.StatusCreated {
		t.Fatalf("allocate the short fund = %d", code)
	}

	var req struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Approved int64  `json:"approved"`
	}
	if code := call(t, http.MethodPost, base+"/api/mdf/requests", bob, map[string]any{"fundId": fund.ID, "activity": "Trade show booth",
		"plannedStart": "2026-02-10", "plannedEnd": "2026-02-12", "budget": 1_500_00, "expectedPipeline": 40_000_00}, &req); code != http.StatusCreated {
		t.Fatalf("request = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/mdf/requests/"+req.ID+"/approve", owner, map[string]any{"amount": 1_200_00}, &req); code != http.StatusOK || req.Approved != 1_200_00 {
		t.Fatalf("approve = %d %+v", code, req)
	}
	var claim struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		MovementID string `json:"movementId"`
	}
	if code := call(t, http.MethodPost, base+"/api/mdf/claims", bob, map[string]any{"requestId": req.ID, "amount": 1_000_00, "leads": 25,
		"links": []string{"https://example.com/booth-photos"}}, &claim); code != http.StatusCreated {
		t.Fatalf("claim = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/mdf/claims/"+claim.ID+"/approve", owner, nil, &claim); code != http.StatusOK || claim.Status != "approved" || claim.MovementID == "" {
		t.Fatalf("approve claim = %d %+v", code, claim)
	}
	if b := mdfBalance(); b.MDFAvailable != before.MDFAvailable+1_000_00 || b.Available != before.Available {
		t.Fatalf("balance after the reimbursement %+v (before %+v)", b, before)
	}

	// The MDF balance is paid by the same withdrawal and payout machinery: here a Stripe Connect
	// transfer to the partner's connected account, through stripe-mock.
	if code := call(t, http.MethodPut, base+"/api/payout-settings", owner, map[string]any{"provider": "manual",
		"stripeSecretKey": "sk_test_e2eMDFStripeKey1"}, nil); code != http.StatusOK {
		t.Fatalf("payout settings = %d", code)
	}
	var onboarding struct {
		Method struct {
			ID   string `json:"id"`
			Kind string `json:"kind"`
		} `json:"method"`
	}
	if code := call(t, http.MethodPost, base+"/api/payout-methods/stripe-onboarding", bob, map[string]any{
		"refreshUrl": base + "/portal/payout-methods", "returnUrl": base + "/portal/payout-methods?done=1"}, &onboarding); code != http.StatusOK || onboarding.Method.Kind != "stripe" {
		t.Fatalf("onboarding = %d %+v", code, onboarding)
	}
	paidByStripe(t, base, bob, owner, "mdf-w-1", map[string]any{"amount": 1_000_00, "currency": "EUR",
		"payoutMethodId": onboarding.Method.ID, "account": "mdf"})
	if b := mdfBalance(); b.MDFPaid != before.MDFPaid+1_000_00 || b.MDFAvailable != before.MDFAvailable || b.MDFHeld != before.MDFHeld || b.Available != before.Available {
		t.Fatalf("balance after the MDF payout %+v (before %+v)", b, before)
	}
	call(t, http.MethodGet, base+"/api/mdf/funds/"+fund.ID, bob, nil, &fund)
	if fund.Committed != 1_200_00 || fund.Spent != 1_000_00 || fund.Status != "open" {
		t.Fatalf("fund %+v", fund)
	}

	// The short fund's timer releases it at its expiry.
	eventually(t, "the expiry of the short fund", time.Minute, func() bool {
		call(t, http.MethodGet, base+"/api/mdf/funds/"+short.ID, owner, nil, &short)
		return short.Status == "expired"
	})
	if short.Released != 500_00 || short.Committed != 0 {
		t.Fatalf("expired fund %+v", short)
	}
	var events struct {
		Data []struct {
			Payload struct {
				FundID   string `json:"fundId"`
				Released int64  `json:"released"`
			} `json:"payload"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/events?type=mdf.fund_expired", owner, nil, &events)
	if len(events.Data) != 1 || events.Data[0].Payload.FundID != short.ID || events.Data[0].Payload.Released != 500_00 {
		t.Fatalf("mdf.fund_expired events %+v", events)
	}
}
