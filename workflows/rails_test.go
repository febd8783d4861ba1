package workflows_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/rails"
	"github.com/partnerd/partnerd/rails/railstest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// railMethod adds a payout method of kind with the given details, sealed as the API seals them.
func (e *payoutEnv) railMethod(t *testing.T, kind string, details map[string]string) string {
	t.Helper()
	raw, _ := json.Marshal(details)
	m := &models.PayoutMethod{ID: money.NewPayoutMethodID(), Kind: kind, Masked: kind + " ••••0001"}
	var err error
	if m.Details, err = e.keys.Seal(models.Secret(raw), models.SealContext{TenantID: e.tenantID, Table: "payout_methods", RowID: m.ID, Field: "details"}); err != nil {
		t.Fatal(err)
	}
	if err := e.partner.AddPayoutMethod(e.ctx, m); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// rails saves the tenant's rail credentials, sealed, and whether it batches daily.
func (e *payoutEnv) rails(t *testing.T, batch bool, secrets map[string]string, paypalClient, wiseProfile string) {
	t.Helper()
	st := models.PayoutSettings{Provider: models.ProviderManual, Minimums: "{}", ConfirmDays: 14, BatchDaily: batch, PayPalClientID: paypalClient, WiseProfileID: wiseProfile}
	for provider, secret := range secrets {
		sealed, err := e.keys.Seal(models.Secret(secret), models.SealContext{TenantID: e.tenantID, Table: "payout_settings", RowID: e.tenantID, Field: activities.RailField(provider)})
		if err != nil {
			t.Fatal(err)
		}
		switch provider {
		case models.ProviderStripe:
			st.StripeSecretKey = sealed
		case models.ProviderPayPal:
			st.PayPalSecret = sealed
		case models.ProviderWise:
			st.WiseToken = sealed
		}
	}
	if _, err := e.op.SavePayoutSettings(e.ctx, st, false); err != nil {
		t.Fatal(err)
	}
}

// withdrawTo credits the partner, requests a withdrawal to method and approves it.
func (e *payoutEnv) withdrawTo(t *testing.T, method string, amount int64) (*models.Withdrawal, *models.Payout) {
	t.Helper()
	if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: amount, Currency: "EUR", Reason: "opening", Key: models.NewID()}); err != nil {
		t.Fatal(err)
	}
	w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: amount, Currency: "EUR", PayoutMethodID: method}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err = e.op.ApproveWithdrawal(e.ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	w, p, err := e.op.Withdrawal(e.ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	return w, p
}

func railDeps(stripeURL, paypalURL, wiseURL string) map[string]activities.PayoutRail {
	return map[string]activities.PayoutRail{
		models.ProviderStripe: &activities.StripeRail{Client: &rails.Stripe{URL: stripeURL}},
		models.ProviderPayPal: &activities.PayPalRail{Client: &rails.PayPal{URL: paypalURL}},
		models.ProviderWise:   &activities.WiseRail{Client: &rails.Wise{URL: wiseURL}},
	}
}

func (e *payoutEnv) failedEvents(t *testing.T) []models.WithdrawalEventPayload {
	t.Helper()
	evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: models.EventPayoutFailed}, models.Page{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]models.WithdrawalEventPayload, len(evs))
	for i, ev := range evs {
		if err := json.Unmarshal([]byte(ev.Payload), &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestAStripePayoutIsAConnectTransferPaidThroughStripeMock(t *testing.T) {
	mock := railstest.StripeMock(t)
	e := newPayoutEnv(t, "stripe-payout")
	e.rails(t, false, map[string]string{models.ProviderStripe: "sk_test_partnerd"}, "", "")
	method := e.railMethod(t, models.PayoutStripe, map[string]string{"accountId": "acct_1Partner"})
	w, _ := e.withdrawTo(t, method, 321_00)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Rails: railDeps(mock, "", "")})})
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalPaid {
		t.Fatalf("payout %+v, %v", res, err)
	}
	got, payout, _ := e.op.Withdrawal(e.ctx, w.ID)
	if got.Status != models.WithdrawalPaid || !strings.HasPrefix(got.Reference, "tr_") || payout.Provider != models.ProviderStripe || payout.Attempts != 1 {
		t.Fatalf("withdrawal %+v payout %+v", got, payout)
	}
	if b := e.balance(t); b.Held != 0 || b.Paid != 321_00 {
		t.Fatalf("after the transfer: %+v", b)
	}
}

func TestAPayoutTheRailRefusesFailsWithTheRailsReasonReleasesTheHoldAndEmitsPayoutFailed(t *testing.T) {
	e := newPayoutEnv(t, "stripe-refused")
	e.rails(t, false, map[string]string{models.ProviderStripe: "sk_test_partnerd"}, "", "")
	// A method whose account is not a connected account is refused before any call.
	method := e.railMethod(t, models.PayoutStripe, map[string]string{"accountId": "acct-closed"})
	w, payout := e.withdrawTo(t, method, 80_00)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Rails: railDeps("http://127.0.0.1:1", "", "")})})
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalFailed {
		t.Fatalf("payout %+v, %v", res, err)
	}
	reason := "stripe: the payout method names no Stripe connected account (invalid_destination)"
	got, p, _ := e.op.Withdrawal(e.ctx, w.ID)
	if got.Status != models.WithdrawalFailed || got.Reason != reason || p.Failure != reason || got.FailedAt == nil {
		t.Fatalf("withdrawal %+v payout %+v", got, p)
	}
	if b := e.balance(t); b.Held != 0 || b.Available != 80_00 {
		t.Fatalf("the hold was not released: %+v", b)
	}
	evs := e.failedEvents(t)
	if len(evs) != 1 || evs[0].Reason != reason || evs[0].PayoutID != payout.ID || evs[0].Provider != models.ProviderStripe || evs[0].Amount != 80_00 {
		t.Fatalf("payout.failed %+v", evs)
	}
}

func TestTheDailyBatchPaysPayPalInOneRequestAndSettlesEachItemWithPayPalsWord(t *testing.T) {
	e := newPayoutEnv(t, "paypal-batch")
	e.rails(t, true, map[string]string{models.ProviderPayPal: "client-secret"}, "client-id", "")
	ada := e.railMethod(t, models.PayoutPayPal, map[string]string{"email": "ada@partner.example"})
	bob := e.railMethod(t, models.PayoutPayPal, map[string]string{"email": "bob@partner.example"})
	w1, p1 := e.withdrawTo(t, ada, 120_00)
	w2, p2 := e.withdrawTo(t, bob, 45_67)
	replay := railstest.NewReplay(t, "../rails/testdata/paypal/batch.json", map[string]string{"BATCH": "*", "PAYOUT_1": p1.ID, "PAYOUT_2": p2.ID,
		"EMAIL_1": "ada@partner.example", "EMAIL_2": "bob@partner.example",
		"BASIC": base64.StdEncoding.EncodeToString([]byte("client-id:client-secret"))})
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Rails: railDeps("", replay.URL, ""), PollEvery: time.Hour})})

	// Approval leaves a batched payout to the batch.
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w1.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != "batched" {
		t.Fatalf("the approval's payout %+v, %v", res, err)
	}

	// The schedule wakes at midnight (UTC), starts the day's PayPal batch, which polls PayPal
	// an hour later; a day and a half later the schedule is stopped.
	env = suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Rails: railDeps("", replay.URL, ""), PollEvery: time.Hour})})
	env.RegisterDelayedCallback(env.CancelWorkflow, 36*time.Hour)
	env.ExecuteWorkflow(workflows.PayoutBatchSchedule, workflows.PayoutBatchScheduleInput{})
	replay.Done()

	got1, pay1, _ := e.op.Withdrawal(e.ctx, w1.ID)
	got2, pay2, _ := e.op.Withdrawal(e.ctx, w2.ID)
	if got1.Status != models.WithdrawalPaid || got1.Reference != "8AELMXH8UB2P8" || pay1.BatchID == nil {
		t.Fatalf("ada's withdrawal %+v payout %+v", got1, pay1)
	}
	reason := "PayPal: Receiver's account is locked or inactive (RECEIVER_ACCOUNT_LOCKED)"
	if got2.Status != models.WithdrawalFailed || got2.Reason != reason || pay2.BatchID == nil || *pay2.BatchID != *pay1.BatchID {
		t.Fatalf("bob's withdrawal %+v payout %+v", got2, pay2)
	}
	if b := e.balance(t); b.Held != 0 || b.Paid != 120_00 || b.Available != 45_67 {
		t.Fatalf("after the batch: %+v", b)
	}
	batches, _, err := e.op.ListPayoutBatches(e.ctx, models.Page{Limit: 10})
	if err != nil || len(batches) != 1 || batches[0].Status != models.BatchSettled || batches[0].Reference != "5UXD2E8A7EBQJ" || batches[0].Payouts != 2 {
		t.Fatalf("batches %+v, %v", batches, err)
	}
	if evs := e.failedEvents(t); len(evs) != 1 || evs[0].Reason != reason || evs[0].BatchID != batches[0].ID {
		t.Fatalf("payout.failed %+v", evs)
	}
}

func TestAWisePayoutIsAskedAboutUntilWiseSendsIt(t *testing.T) {
	e := newPayoutEnv(t, "wise-payout")
	e.rails(t, false, map[string]string{models.ProviderWise: "wise-token"}, "", "16000001")
	method := e.railMethod(t, models.PayoutWise, map[string]string{"recipientId": "40000000"})
	w, p := e.withdrawTo(t, method, 250_50)
	replay := railstest.NewReplay(t, "../rails/testdata/wise/recipient.json", map[string]string{"PROFILE": "16000001", "TOKEN": "wise-token", "PAYOUT": p.ID})
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Rails: railDeps("", "", replay.URL), PollEvery: 30 * time.Minute})})
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalPaid {
		t.Fatalf("payout %+v, %v", res, err)
	}
	replay.Done()
	got, payout, _ := e.op.Withdrawal(e.ctx, w.ID)
	if got.Reference != "16521632" || payout.Status != models.PayoutPaid || payout.Attempts != 1 {
		t.Fatalf("withdrawal %+v payout %+v", got, payout)
	}
}

func TestAStripeBatchIsOneTransferPerPayoutThroughStripeMock(t *testing.T) {
	mock := railstest.StripeMock(t)
	e := newPayoutEnv(t, "stripe-batch")
	e.rails(t, true, map[string]string{models.ProviderStripe: "sk_test_partnerd"}, "", "")
	method := e.railMethod(t, models.PayoutStripe, map[string]string{"accountId": "acct_1Partner"})
	w1, _ := e.withdrawTo(t, method, 10_00)
	w2, _ := e.withdrawTo(t, method, 20_00)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Rails: railDeps(mock, "", "")})})
	env.ExecuteWorkflow(workflows.PayoutBatch, workflows.PayoutBatchInput{TenantID: e.tenantID, Provider: models.ProviderStripe, Day: "2026-11-28"})
	var res workflows.PayoutBatchResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Payouts != 2 || res.Paid != 2 || res.Failed != 0 {
		t.Fatalf("batch %+v, %v", res, err)
	}
	got1, p1, _ := e.op.Withdrawal(e.ctx, w1.ID)
	got2, p2, _ := e.op.Withdrawal(e.ctx, w2.ID)
	if got1.Status != models.WithdrawalPaid || got2.Status != models.WithdrawalPaid || !strings.HasPrefix(got1.Reference, "tr_") ||
		got1.Reference == got2.Reference || p1.BatchID == nil || p2.BatchID == nil || *p1.BatchID != res.BatchID {
		t.Fatalf("withdrawals %+v %+v, payouts %+v %+v", got1, got2, p1, p2)
	}
	if b := e.balance(t); b.Held != 0 || b.Paid != 30_00 {
		t.Fatalf("after the batch: %+v", b)
	}
}
