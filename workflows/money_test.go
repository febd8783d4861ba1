package workflows_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// payoutEnv is a tenant with one partner, a payout method with sealed details and a keyring.
type payoutEnv struct {
	ctx       context.Context
	st        *stores.Set
	keys      *models.Keyring
	op        *stores.Scoped
	partner   *stores.Scoped
	tenantID  string
	partnerID string
	methodID  string
}

func newPayoutEnv(t *testing.T, slug string) *payoutEnv {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, storetest.Engines(t)[0])
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, err := models.NewKeyring(map[int][]byte{1: master}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tenant := &models.Tenant{Slug: slug, Name: slug}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		t.Fatal(err)
	}
	e := &payoutEnv{ctx: ctx, st: st, keys: keys, tenantID: tenant.ID,
		op: st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})}
	p := &models.Partner{Name: "Alpha", Type: "reseller", Level: "gold", Status: "active"}
	if err := e.op.CreatePartner(ctx, p); err != nil {
		t.Fatal(err)
	}
	e.partnerID = p.ID
	e.partner = st.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: tenant.ID, UserID: models.NewID(), PartnerID: p.ID})
	m := &models.PayoutMethod{ID: money.NewPayoutMethodID(), Kind: models.PayoutBank, Masked: "IBAN ••••3000"}
	m.Details, err = keys.Seal(`{"iban":"DE89370400440532013000"}`, models.SealContext{TenantID: tenant.ID, Table: "payout_methods", RowID: m.ID, Field: "details"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.partner.AddPayoutMethod(ctx, m); err != nil {
		t.Fatal(err)
	}
	e.methodID = m.ID
	return e
}

func httpProvider() map[string]activities.PayoutProvider {
	return map[string]activities.PayoutProvider{models.ProviderHTTP: &activities.HTTPProvider{HTTP: http.DefaultClient}}
}

func (e *payoutEnv) money(a *activities.Money) *activities.Money {
	a.Store, a.Keyring = e.st, e.keys
	return a
}

func (e *payoutEnv) balance(t *testing.T) models.Balance {
	t.Helper()
	bs, err := e.op.Balances(e.ctx, e.partnerID, "EUR")
	if err != nil || len(bs) != 1 {
		t.Fatalf("balances %+v, %v", bs, err)
	}
	chk, err := e.st.CheckLedger(e.ctx, models.System(e.tenantID))
	if err != nil || len(chk.Mismatches)+len(chk.Unbalanced) > 0 {
		t.Fatalf("ledger check %+v, %v", chk, err)
	}
	return bs[0]
}

// approvedWithdrawal credits the partner, requests a withdrawal of amount and approves it.
func (e *payoutEnv) approvedWithdrawal(t *testing.T, amount int64) *models.Withdrawal {
	t.Helper()
	if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: amount, Currency: "EUR", Reason: "opening", Key: models.NewID()}); err != nil {
		t.Fatal(err)
	}
	w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: amount, Currency: "EUR", PayoutMethodID: e.methodID}, "")
	if err != nil {
		t.Fatal(err)
	}
	if w, err = e.op.ApproveWithdrawal(e.ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestAWonDealAccruesOnceBecomesAvailableAfterFourteenDaysAndIsPaidOut(t *testing.T) {
	e := newPayoutEnv(t, "headline")
	if _, err := e.op.CreateCommissionPlan(e.ctx, "Resellers 10 %", "", models.PlanDefinition{
		Trigger: models.EventDealWon, HoldingDays: 14, Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 1000}}); err != nil {
		t.Fatal(err)
	}
	partner := e.partnerID
	won, err := e.st.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: models.EventDealWon, PartnerID: &partner,
		Payload: `{"dealId":"d1","amountMinor":123456,"currency":"EUR"}`})
	if err != nil {
		t.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	deps := worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: e.st}, Money: e.money(&activities.Money{})}

	// The fan-out runs twice (a relay's second hand-over): one accrual, and its holding timer
	// (stubbed here, run on its own below) asked for with the accrual's end of holding.
	var accrualID string
	var holds []workflows.CommissionHoldInput
	for range 2 {
		env := suite.NewTestWorkflowEnvironment()
		worker.Register(env, deps)
		env.OnWorkflow(workflows.CommissionHold, mock.Anything, mock.Anything).Return(func(_ workflow.Context, in workflows.CommissionHoldInput) error {
			holds = append(holds, in)
			return nil
		})
		env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.tenantID, EventID: won.ID, Type: won.Type})
		var res workflows.EventFanoutResult
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		if len(res.Accruals) != 1 || (accrualID != "" && res.Accruals[0] != accrualID) {
			t.Fatalf("fan-out result %+v", res)
		}
		accrualID = res.Accruals[0]
	}
	if b := e.balance(t); b.Pending != 12346 || b.Available != 0 || b.TotalEarned != 12346 {
		t.Fatalf("after the accrual: %+v", b)
	}
	accrual, err := e.op.Accrual(e.ctx, accrualID)
	if err != nil {
		t.Fatal(err)
	}
	if len(holds) != 2 || holds[0] != holds[1] || holds[0].AccrualID != accrualID || !holds[0].AvailableAt.Equal(accrual.AvailableAt) ||
		accrual.AvailableAt.Sub(won.OccurredAt) != 14*24*time.Hour {
		t.Fatalf("holding timers %+v for accrual %+v", holds, accrual)
	}

	// The holding timer sleeps fourteen days of workflow time, then releases.
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, deps)
	start := env.Now()
	env.ExecuteWorkflow(workflows.CommissionHold, workflows.CommissionHoldInput{TenantID: e.tenantID, AccrualID: accrualID, AvailableAt: accrual.AvailableAt})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if slept := env.Now().Sub(start); slept < 14*24*time.Hour-time.Minute {
		t.Fatalf("released after %v of workflow time", slept)
	}
	if b := e.balance(t); b.Pending != 0 || b.Available != 12346 {
		t.Fatalf("after the holding period: %+v", b)
	}

	// The partner withdraws everything, finance approves, then confirms the manual payout.
	w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 12346, Currency: "EUR", PayoutMethodID: e.methodID}, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if b := e.balance(t); b.Available != 0 || b.Held != 12346 {
		t.Fatalf("after the request: %+v", b)
	}
	if _, err := e.op.ApproveWithdrawal(e.ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	env = suite.NewTestWorkflowEnvironment()
	worker.Register(env, deps)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.PayoutDecisionSignal, workflows.PayoutDecision{Paid: true, Reference: "BANK-42", By: "finance-user"})
	}, 2*time.Hour)
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalPaid || res.Reference != "BANK-42" {
		t.Fatalf("payout %+v, %v", res, err)
	}
	if b := e.balance(t); b.Held != 0 || b.Paid != 12346 || b.Available != 0 || b.Pending != 0 || b.TotalEarned != 12346 {
		t.Fatalf("after the payout: %+v", b)
	}
	got, _, _ := e.op.Withdrawal(e.ctx, w.ID)
	if got.Status != models.WithdrawalPaid || got.Reference != "BANK-42" || got.PaidAt == nil {
		t.Fatalf("withdrawal %+v", got)
	}
}

func TestAManualPayoutNobodyConfirmsFailsAndReleasesTheHold(t *testing.T) {
	e := newPayoutEnv(t, "unconfirmed")
	if _, err := e.op.SavePayoutSettings(e.ctx, models.PayoutSettings{Provider: models.ProviderManual, Minimums: "{}", ConfirmDays: 3}, false); err != nil {
		t.Fatal(err)
	}
	w := e.approvedWithdrawal(t, 500_00)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{})})
	start := env.Now()
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalFailed {
		t.Fatalf("payout %+v, %v", res, err)
	}
	if waited := env.Now().Sub(start); waited < 3*24*time.Hour-time.Hour {
		t.Fatalf("gave up after %v", waited)
	}
	if b := e.balance(t); b.Held != 0 || b.Available != 500_00 || b.Paid != 0 {
		t.Fatalf("after the failure: %+v", b)
	}
	types := eventTypes(t, e.op, "payout.*")
	if len(types) != 1 || types[0] != models.EventPayoutFailed {
		t.Fatalf("payout events %v", types)
	}
}

// httpProvider configures the tenant's http payout provider at url and returns its secret.
func (e *payoutEnv) httpProvider(t *testing.T, url string) string {
	t.Helper()
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	secret := "whsec_" + base64.StdEncoding.EncodeToString(raw)
	sealed, err := e.keys.Seal(models.Secret(secret), models.SealContext{TenantID: e.tenantID, Table: "payout_settings", RowID: e.tenantID, Field: "http_secret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.SavePayoutSettings(e.ctx, models.PayoutSettings{Provider: models.ProviderHTTP, HTTPURL: url, HTTPSecret: sealed, Minimums: "{}", ConfirmDays: 14}, false); err != nil {
		t.Fatal(err)
	}
	return secret
}

func TestAnHTTPPayoutRetriesWithBackoffUntilTheProviderAccepts(t *testing.T) {
	e := newPayoutEnv(t, "http-payout")
	fail := func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }
	provider := newReceiver(t, fail, fail, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"reference":"PSP-77"}`))
	})
	secret := e.httpProvider(t, provider.srv.URL)
	w := e.approvedWithdrawal(t, 250_00)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Providers: httpProvider(), RetryInitial: time.Second, MaxAttempts: 5})})
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalPaid || res.Reference != "PSP-77" {
		t.Fatalf("payout %+v, %v", res, err)
	}
	reqs := provider.got()
	if len(reqs) != 3 {
		t.Fatalf("the provider got %d requests", len(reqs))
	}
	_, payout, _ := e.op.Withdrawal(e.ctx, w.ID)
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		if r.header.Get("Idempotency-Key") != payout.ID || r.header.Get("webhook-id") != payout.ID {
			t.Fatalf("request %d keys: %v", i, r.header)
		}
		if err := verifier.Verify(r.body, r.header); err != nil {
			t.Fatalf("request %d signature: %v", i, err)
		}
		var body struct {
			Amount   int64
			Currency string
			Details  map[string]string
		}
		if err := json.Unmarshal(r.body, &body); err != nil || body.Amount != 250_00 || body.Currency != "EUR" || body.Details["iban"] != "DE89370400440532013000" {
			t.Fatalf("request %d body %s", i, r.body)
		}
	}
	if payout.Attempts != 3 || payout.Status != models.PayoutPaid || payout.Reference != "PSP-77" {
		t.Fatalf("payout record %+v", payout)
	}
	if b := e.balance(t); b.Held != 0 || b.Paid != 250_00 {
		t.Fatalf("after the payout: %+v", b)
	}
}

func TestAnHTTPPayoutThatNeverSucceedsFailsAndReleasesTheHold(t *testing.T) {
	e := newPayoutEnv(t, "http-fail")
	fail := func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) }
	provider := newReceiver(t, fail, fail, fail, fail)
	e.httpProvider(t, provider.srv.URL)
	w := e.approvedWithdrawal(t, 90_00)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Money: e.money(&activities.Money{Providers: httpProvider(), RetryInitial: time.Second, MaxAttempts: 3})})
	env.ExecuteWorkflow(workflows.Payout, workflows.PayoutInput{TenantID: e.tenantID, WithdrawalID: w.ID})
	var res workflows.PayoutResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Status != models.WithdrawalFailed {
		t.Fatalf("payout %+v, %v", res, err)
	}
	if n := len(provider.got()); n != 3 {
		t.Fatalf("the provider got %d requests, want 3 attempts", n)
	}
	got, payout, _ := e.op.Withdrawal(e.ctx, w.ID)
	if got.Status != models.WithdrawalFailed || payout.Status != models.PayoutFailed || payout.Failure == "" {
		t.Fatalf("withdrawal %+v payout %+v", got, payout)
	}
	if b := e.balance(t); b.Held != 0 || b.Available != 90_00 {
		t.Fatalf("after the failure: %+v", b)
	}
}
