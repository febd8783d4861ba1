package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// callKeyed is call with an Idempotency-Key.
func callKeyed(t *testing.T, method, url, bearer, key string, body, out any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Idempotency-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Logf("%s %s = %d %s", method, url, res.StatusCode, raw)
	} else if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, raw)
		}
	}
	return res.StatusCode
}

func login(t *testing.T, base, email, password string) string {
	t.Helper()
	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	if code := call(t, http.MethodPost, base+"/api/auth/login", "", map[string]string{"email": email, "password": password}, &tok); code != http.StatusOK {
		t.Fatalf("login %s = %d", email, code)
	}
	return tok.AccessToken
}

type e2eBalance struct {
	PartnerID   string `json:"partnerId"`
	Pending     int64  `json:"pending"`
	Available   int64  `json:"available"`
	Held        int64  `json:"held"`
	Paid        int64  `json:"paid"`
	TotalEarned int64  `json:"totalEarned"`
}

func balanceOf(t *testing.T, base, token string) e2eBalance {
	t.Helper()
	var out struct {
		Data []e2eBalance `json:"data"`
	}
	if code := call(t, http.MethodGet, base+"/api/ledger/balances?currency=EUR", token, nil, &out); code != http.StatusOK {
		t.Fatalf("balances = %d", code)
	}
	if len(out.Data) == 0 {
		return e2eBalance{}
	}
	return out.Data[0]
}

// approvedDeal registers a deal as partner and approves it as owner; it returns the deal and
// the won stage of the default pipeline.
func approvedDeal(t *testing.T, base, owner, partner, company, domain string, amount int64) (string, string) {
	t.Helper()
	var pipes struct {
		Data []struct {
			Stages []struct{ ID, Outcome string } `json:"stages"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/pipelines", owner, nil, &pipes)
	won := ""
	for _, st := range pipes.Data[0].Stages {
		if st.Outcome == "won" {
			won = st.ID
		}
	}
	var deal struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, base+"/api/deals", partner, map[string]any{"customerCompany": company, "customerDomain": domain,
		"amountMinor": amount, "currency": "EUR"}, &deal); code != http.StatusCreated {
		t.Fatalf("register deal = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/deals/"+deal.ID+"/approve", owner, map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("approve deal = %d", code)
	}
	return deal.ID, won
}

// eventually polls check every 200 ms until it reports true or the timeout passes.
func eventually(t *testing.T, what string, timeout time.Duration, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type e2eWithdrawal struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Reference string `json:"reference"`
	Payout    *struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
	} `json:"payout"`
}

// paidByStripe has partner withdraw what body asks under the Idempotency-Key key and finance
// approve it, then waits until the payout is paid by a Stripe transfer and booked once in the
// ledger; it returns the paid withdrawal.
func paidByStripe(t *testing.T, base, partner, finance, key string, body map[string]any) e2eWithdrawal {
	t.Helper()
	var w e2eWithdrawal
	if code := callKeyed(t, http.MethodPost, base+"/api/withdrawals", partner, key, body, &w); code != http.StatusCreated {
		t.Fatalf("withdraw = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/withdrawals/"+w.ID+"/approve", finance, map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("approve withdrawal = %d", code)
	}
	eventually(t, "the Stripe payout", 2*time.Minute, func() bool {
		call(t, http.MethodGet, base+"/api/withdrawals/"+w.ID, partner, nil, &w)
		return w.Status == "paid" || w.Status == "failed"
	})
	if w.Status != "paid" || !strings.HasPrefix(w.Reference, "tr_") || w.Payout == nil {
		t.Fatalf("withdrawal %+v: not paid by a Stripe transfer", w)
	}
	var entries struct {
		Data []struct{ Account string } `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/ledger/entries?kind=payout&sourceId="+w.Payout.ID, finance, nil, &entries)
	if len(entries.Data) != 2 {
		t.Fatalf("payout entries %+v: booked other than once", entries)
	}
	return w
}

// TestMoneyFlowsFromAWonDealToAPayoutAndSurvivesAKilledWorker runs the headline flow on the
// embedded Temporal server: a deal won under a 10 % plan without holding accrues once and is
// available at once, the partner withdraws, finance approves and confirms the manual payout.
// Then an http payout's worker is stopped while the provider holds the first call; after a
// restart on the same data directory the payout completes exactly once.
func TestMoneyFlowsFromAWonDealToAPayoutAndSurvivesAKilledWorker(t *testing.T) {
	const password = "bootstrap-Password-0451"
	provider := newPayoutProvider(t, "PSP-1")

	env := map[string]string{
		"PARTNERD_DATA_DIR":                 t.TempDir(),
		"PARTNERD_HTTP_ADDR":                "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":            freeTCPPort(t),
		"PARTNERD_BOOTSTRAP_EMAIL":          "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD":       password,
		"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
	}
	r := startServe(t, env)
	base := "http://" + r.addr
	owner := login(t, base, "founder@example.test", password)
	bob := login(t, base, "bob@contoso.demo", password)

	// A 10 % plan without holding replaces the demo's 14-day plan.
	var plans struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/commission-plans", owner, nil, &plans)
	for _, p := range plans.Data {
		if code := call(t, http.MethodPost, base+"/api/commission-plans/"+p.ID+"/archive", owner, nil, nil); code != http.StatusOK {
			t.Fatalf("archive plan = %d", code)
		}
	}
	var plan struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, base+"/api/commission-plans", owner, map[string]any{"name": "10 % at once",
		"definition": map[string]any{"trigger": "deal.won", "holdingDays": 0, "calculation": map[string]any{"kind": "percentage", "rateBps": 1000}}}, &plan); code != http.StatusCreated {
		t.Fatalf("create plan = %d", code)
	}
	dealID, won := approvedDeal(t, base, owner, bob, "Umbrella", "umbrella.test", 100_000_00)
	before := balanceOf(t, base, bob)
	if code := call(t, http.MethodPost, base+"/api/deals/"+dealID+"/move", bob, map[string]any{"stageId": won}, nil); code != http.StatusOK {
		t.Fatalf("win deal = %d", code)
	}
	eventually(t, "the accrual", time.Minute, func() bool { return balanceOf(t, base, bob).Available == before.Available+10_000_00 })
	var accruals struct {
		Data []struct {
			Amount int64  `json:"amount"`
			Status string `json:"status"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/ledger/accruals?planId="+plan.ID, bob, nil, &accruals)
	if len(accruals.Data) != 1 || accruals.Data[0].Amount != 10_000_00 || accruals.Data[0].Status != "available" {
		t.Fatalf("accruals %+v", accruals)
	}
	after := balanceOf(t, base, bob)
	if after.Pending != before.Pending || after.TotalEarned != before.TotalEarned+10_000_00 {
		t.Fatalf("balance after the accrual %+v (before %+v)", after, before)
	}

	// The partner withdraws it all; finance approves and confirms the bank transfer.
	var method struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, base+"/api/payout-methods", bob, map[string]any{"kind": "bank", "label": "Main",
		"details": map[string]string{"iban": "DE89370400440532013000", "accountHolder": "Contoso Agency"}}, &method); code != http.StatusCreated {
		t.Fatalf("payout method = %d", code)
	}
	withdraw := map[string]any{"amount": after.Available, "currency": "EUR", "payoutMethodId": method.ID}
	var w, again e2eWithdrawal
	if code := callKeyed(t, http.MethodPost, base+"/api/withdrawals", bob, "w-1", withdraw, &w); code != http.StatusCreated {
		t.Fatalf("withdraw = %d", code)
	}
	if code := callKeyed(t, http.MethodPost, base+"/api/withdrawals", bob, "w-1", withdraw, &again); code != http.StatusCreated || again.ID != w.ID {
		t.Fatalf("replayed withdrawal = %d %+v", code, again)
	}
	if b := balanceOf(t, base, bob); b.Available != 0 || b.Held != after.Held+after.Available {
		t.Fatalf("balance after the request %+v", b)
	}
	if code := call(t, http.MethodPost, base+"/api/withdrawals/"+w.ID+"/approve", owner, map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("approve = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/withdrawals/"+w.ID+"/confirm-payout", owner, map[string]any{"reference": "BANK-1"}, nil); code != http.StatusAccepted {
		t.Fatalf("confirm = %d", code)
	}
	eventually(t, "the manual payout", time.Minute, func() bool {
		call(t, http.MethodGet, base+"/api/withdrawals/"+w.ID, bob, nil, &w)
		return w.Status == "paid"
	})
	if b := balanceOf(t, base, bob); b.Available != 0 || b.Held != after.Held || b.Paid != after.Paid+after.Available || w.Reference != "BANK-1" {
		t.Fatalf("balance after the payout %+v, withdrawal %+v", b, w)
	}

	// An http payout whose worker stops while the provider holds the first call.
	provider.configure(t, base, owner)
	if code := callKeyed(t, http.MethodPost, base+"/api/ledger/adjustments", owner, "bonus-1",
		map[string]any{"partnerId": after.PartnerID, "amount": 50_00, "currency": "EUR", "reason": "launch bonus"}, nil); code != http.StatusCreated {
		t.Fatalf("adjustment = %d", code)
	}
	var w2 e2eWithdrawal
	if code := callKeyed(t, http.MethodPost, base+"/api/withdrawals", bob, "w-2", map[string]any{"amount": 50_00, "currency": "EUR", "payoutMethodId": method.ID}, &w2); code != http.StatusCreated {
		t.Fatalf("second withdrawal = %d", code)
	}
	if code := call(t, http.MethodPost, base+"/api/withdrawals/"+w2.ID+"/approve", owner, map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("approve = %d", code)
	}
	provider.awaitFirstCall(t)
	r.shutdown(t)
	r = startServe(t, env)
	defer r.shutdown(t)
	base = "http://" + r.addr
	owner = login(t, base, "founder@example.test", password)
	eventually(t, "the payout after the restart", 2*time.Minute, func() bool {
		call(t, http.MethodGet, base+"/api/withdrawals/"+w2.ID, owner, nil, &w2)
		return w2.Status == "paid"
	})
	provider.checkCalls(t, w2)
	var entries struct {
		Data []struct {
			Account string `json:"account"`
			Amount  int64  `json:"amount"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/ledger/entries?kind=payout&sourceId="+w2.Payout.ID, owner, nil, &entries)
	if len(entries.Data) != 2 {
		t.Fatalf("payout entries %+v: the payout was booked other than once", entries)
	}
	var paid struct {
		Data []struct {
			Payload map[string]any `json:"payload"`
		} `json:"data"`
	}
	call(t, http.MethodGet, base+"/api/events?type=payout.paid&limit=100", owner, nil, &paid)
	n := 0
	for _, e := range paid.Data {
		if e.Payload["withdrawalId"] == w2.ID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d payout.paid events for the withdrawal", n)
	}
}
