package money_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

type moneyEnv struct {
	ctx       context.Context
	s         *stores.Set
	op        *stores.Scoped
	partner   *stores.Scoped
	tenantID  string
	partnerID string
	methodID  string
}

func newMoneyEnv(t *testing.T, s *stores.Set, slug string) *moneyEnv {
	t.Helper()
	ctx := context.Background()
	owner := storetest.Tenant(t, s.Core(), slug)
	e := &moneyEnv{ctx: ctx, s: s, op: s.For(owner), tenantID: owner.TenantID}
	p := &models.Partner{Name: "Alpha", Type: "reseller", Level: "gold", Status: "active"}
	if err := e.op.CreatePartner(ctx, p); err != nil {
		t.Fatal(err)
	}
	e.partnerID = p.ID
	e.partner = s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: owner.TenantID, UserID: models.NewID(), PartnerID: p.ID})
	m := &models.PayoutMethod{ID: money.NewPayoutMethodID(), Kind: models.PayoutBank, Label: "main", Details: "v1:sealed", Masked: "IBAN ••••1234"}
	if err := e.partner.AddPayoutMethod(ctx, m); err != nil {
		t.Fatal(err)
	}
	e.methodID = m.ID
	return e
}

func (e *moneyEnv) balance(t *testing.T) models.Balance {
	t.Helper()
	bs, err := e.op.Balances(e.ctx, e.partnerID, "EUR")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) == 0 {
		return models.Balance{PartnerID: e.partnerID, Currency: "EUR"}
	}
	return bs[0]
}

func (e *moneyEnv) expect(t *testing.T, step string, pending, available, held, paid, earned int64) {
	t.Helper()
	b := e.balance(t)
	if b.Pending != pending || b.Available != available || b.Held != held || b.Paid != paid || b.TotalEarned != earned {
		t.Fatalf("%s: balance %+v; want pending %d available %d held %d paid %d earned %d", step, b, pending, available, held, paid, earned)
	}
	chk, err := e.s.CheckLedger(e.ctx, models.System(e.tenantID))
	if err != nil || len(chk.Mismatches) > 0 || len(chk.Unbalanced) > 0 {
		t.Fatalf("%s: ledger check %+v, %v", step, chk, err)
	}
}

func (e *moneyEnv) won(t *testing.T, dealID string, amount int64, occurred time.Time) string {
	t.Helper()
	partner := e.partnerID
	ev, err := e.s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: models.EventDealWon, PartnerID: &partner, OccurredAt: occurred,
		Payload: `{"dealId":"` + dealID + `","amountMinor":` + strconv.FormatInt(amount, 10) + `,"currency":"EUR"}`})
	if err != nil {
		t.Fatal(err)
	}
	return ev.ID
}

func TestCommissionLifecycleKeepsEveryBalanceRight(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money")
		plan, err := e.op.CreateCommissionPlan(e.ctx, "Resellers 10 %", "", models.PlanDefinition{
			Trigger: models.EventDealWon, HoldingDays: 14, ClawbackTrigger: "crm.deal_refunded",
			Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		// A deal won now is pending for 14 days; the accrual is booked once however often it runs.
		ev1 := e.won(t, "deal-1", 1_000_00, time.Now().UTC())
		for range 3 {
			res, err := s.AccrueCommissions(e.ctx, models.System(e.tenantID), ev1)
			if err != nil || len(res) != 1 || res[0].AccrualID == "" || !res[0].Pending {
				t.Fatalf("accrual = %+v, %v", res, err)
			}
		}
		e.expect(t, "after the accrual", 100_00, 0, 0, 0, 100_00)
		accruals, _, _ := e.op.ListAccruals(e.ctx, models.AccrualFilter{PlanID: plan.ID}, models.Page{})
		if len(accruals) != 1 || accruals[0].PlanVersion != 1 || accruals[0].RateBps != 1000 || accruals[0].Amount != 100_00 {
			t.Fatalf("accruals = %+v", accruals)
		}
		rel, err := s.ReleaseAccrual(e.ctx, models.System(e.tenantID), accruals[0].ID, time.Now())
		if err != nil || rel.Done || !rel.WakeAt.Equal(accruals[0].AvailableAt) {
			t.Fatalf("early release = %+v, %v", rel, err)
		}
		e.expect(t, "after an early release", 100_00, 0, 0, 0, 100_00)

		// A second version of the plan pays 20 %; a deal whose holding period ends in a moment
		// accrues under it and is released once the period is over.
		if _, err := e.op.UpdateCommissionPlan(e.ctx, plan.ID, plan.Name, "", models.PlanDefinition{
			Trigger: models.EventDealWon, HoldingDays: 14, ClawbackTrigger: "crm.deal_refunded",
			Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 2000}}); err != nil {
			t.Fatal(err)
		}
		ev2 := e.won(t, "deal-2", 500_00, time.Now().UTC().AddDate(0, 0, -13))
		res, err := s.AccrueCommissions(e.ctx, models.System(e.tenantID), ev2)
		if err != nil || len(res) != 1 || !res[0].Created {
			t.Fatalf("second accrual = %+v, %v", res, err)
		}
		a2, _ := e.op.Accrual(e.ctx, res[0].AccrualID)
		if a2.PlanVersion != 2 || a2.Amount != 100_00 {
			t.Fatalf("the second accrual = %+v", a2)
		}
		e.expect(t, "after the second accrual", 200_00, 0, 0, 0, 200_00)
		if rel, err := s.ReleaseAccrual(e.ctx, models.System(e.tenantID), a2.ID, a2.AvailableAt.Add(-time.Second)); err != nil || rel.Done {
			t.Fatalf("a release a second early = %+v, %v", rel, err)
		}
		if rel, err := s.ReleaseAccrual(e.ctx, models.System(e.tenantID), a2.ID, a2.AvailableAt); err != nil || !rel.Done {
			t.Fatalf("a release when due = %+v, %v", rel, err)
		}
		if again, _ := s.ReleaseAccrual(e.ctx, models.System(e.tenantID), a2.ID, time.Now()); !again.Done {
			t.Fatal("a released accrual asks to wait")
		}
		e.expect(t, "after the release", 100_00, 100_00, 0, 0, 200_00)

		// Withdraw: the hold, a refusal above the balance, a rejection, an approval, a payout.
		w1, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 60_00, Currency: "EUR", PayoutMethodID: e.methodID}, "key-1")
		if err != nil {
			t.Fatal(err)
		}
		e.expect(t, "after the request", 100_00, 40_00, 60_00, 0, 200_00)
		if _, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 50_00, Currency: "EUR", PayoutMethodID: e.methodID}, "key-2"); storetest.Code(err) != "INSUFFICIENT_BALANCE" {
			t.Fatalf("an overdraw: %v", err)
		}
		if _, err := e.op.RejectWithdrawal(e.ctx, w1.ID, "wrong account"); err != nil {
			t.Fatal(err)
		}
		e.expect(t, "after the rejection", 100_00, 100_00, 0, 0, 200_00)
		if _, err := e.op.ApproveWithdrawal(e.ctx, w1.ID); storetest.Code(err) != "ILLEGAL_WITHDRAWAL_TRANSITION" {
			t.Fatalf("approving a rejected withdrawal: %v", err)
		}
		w2, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 100_00, Currency: "EUR", PayoutMethodID: e.methodID}, "key-3")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.ApproveWithdrawal(e.ctx, w2.ID); err != nil {
			t.Fatal(err)
		}
		e.expect(t, "after the approval", 100_00, 0, 100_00, 0, 200_00)
		for range 2 {
			if w, err := s.CompletePayout(e.ctx, models.System(e.tenantID), w2.ID, "BANK-REF-1"); err != nil || w.Status != models.WithdrawalPaid {
				t.Fatalf("payout = %+v, %v", w, err)
			}
		}
		e.expect(t, "after the payout", 100_00, 0, 0, 100_00, 200_00)
		if _, err := s.FailPayout(e.ctx, models.System(e.tenantID), w2.ID, "too late"); err != nil {
			t.Fatal(err)
		}
		e.expect(t, "after a late failure of a paid payout", 100_00, 0, 0, 100_00, 200_00)

		// A refund of the paid-out deal claws its accrual back: available goes negative and
		// blocks withdrawals until an adjustment recovers it.
		partner := e.partnerID
		refund, err := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "crm.deal_refunded", PartnerID: &partner, Payload: `{"dealId":"deal-2"}`})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := s.ClawbackCommissions(e.ctx, models.System(e.tenantID), refund.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.expect(t, "after the clawback", 100_00, -100_00, 0, 100_00, 100_00)
		if _, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 1, Currency: "EUR", PayoutMethodID: e.methodID}, "key-4"); storetest.Code(err) != "BALANCE_NEGATIVE" {
			t.Fatalf("a withdrawal from a negative balance: %v", err)
		}
		// The pending accrual of deal-1 is clawed back from pending by finance.
		if _, err := e.op.ReverseAccrual(e.ctx, accruals[0].ID, "duplicate deal"); err != nil {
			t.Fatal(err)
		}
		e.expect(t, "after the manual reversal", 0, -100_00, 0, 100_00, 0)
		if _, err := e.op.ReverseAccrual(e.ctx, accruals[0].ID, "again"); storetest.Code(err) != "ACCRUAL_REVERSED" {
			t.Fatalf("a second reversal: %v", err)
		}
		if rel, _ := s.ReleaseAccrual(e.ctx, models.System(e.tenantID), accruals[0].ID, time.Now().AddDate(1, 0, 0)); !rel.Done {
			t.Fatal("a reversed accrual waits for release")
		}
		for range 2 {
			if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 150_00, Currency: "EUR", Reason: "goodwill", Key: "adj-1"}); err != nil {
				t.Fatal(err)
			}
		}
		e.expect(t, "after one adjustment sent twice", 0, 50_00, 0, 100_00, 150_00)
		entries, _, err := e.partner.ListLedgerEntries(e.ctx, models.EntryFilter{}, models.Page{Limit: 100})
		if err != nil || len(entries) != 2*10 {
			t.Fatalf("%d entries, %v", len(entries), err)
		}
		st, err := e.partner.Statement(e.ctx, e.partnerID, "EUR", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		if err != nil || st.Opening != (models.Balance{PartnerID: e.partnerID, Currency: "EUR"}) || st.Closing != e.balance(t) || len(st.Entries) != 20 {
			t.Fatalf("statement = %+v, %v", st, err)
		}
	})
}

func TestWithdrawalRequestsAreIdempotentAndScoped(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-keys")
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: "EUR", Reason: "opening", Key: "open"}); err != nil {
			t.Fatal(err)
		}
		nw := models.NewWithdrawal{Amount: 30_00, Currency: "EUR", PayoutMethodID: e.methodID}
		w1, err := e.partner.RequestWithdrawal(e.ctx, nw, "same")
		if err != nil {
			t.Fatal(err)
		}
		w2, err := e.partner.RequestWithdrawal(e.ctx, nw, "same")
		if err != nil || w2.ID != w1.ID {
			t.Fatalf("a replayed request made %+v, %v", w2, err)
		}
		e.expect(t, "after a replayed request", 0, 70_00, 30_00, 0, 100_00)
		nw.Amount = 40_00
		if _, err := e.partner.RequestWithdrawal(e.ctx, nw, "same"); storetest.Code(err) != "IDEMPOTENCY_KEY_REUSED" {
			t.Fatalf("a key reused for another amount: %v", err)
		}
		if _, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 1, Currency: "EUR", PayoutMethodID: "nope"}, ""); storetest.Code(err) != "PAYOUT_METHOD_NOT_FOUND" {
			t.Fatalf("an unknown payout method: %v", err)
		}
		if _, err := e.op.SavePayoutSettings(e.ctx, models.PayoutSettings{Provider: models.ProviderManual, Minimums: `{"EUR":5000}`, ConfirmDays: 3}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 49_99, Currency: "EUR", PayoutMethodID: e.methodID}, ""); storetest.Code(err) != "BELOW_MINIMUM_WITHDRAWAL" {
			t.Fatalf("a withdrawal below the minimum: %v", err)
		}
		other := newMoneyEnv(t, s, "money-other")
		if _, _, err := other.op.Withdrawal(e.ctx, w1.ID); storetest.Code(err) != "WITHDRAWAL_NOT_FOUND" {
			t.Fatalf("another tenant sees the withdrawal: %v", err)
		}
		if _, err := other.op.CancelWithdrawal(e.ctx, w1.ID, ""); storetest.Code(err) != "WITHDRAWAL_NOT_FOUND" {
			t.Fatalf("another tenant cancels the withdrawal: %v", err)
		}
		if _, err := e.partner.CancelWithdrawal(e.ctx, w1.ID, "changed my mind"); err != nil {
			t.Fatal(err)
		}
		e.expect(t, "after the cancellation", 0, 100_00, 0, 0, 100_00)
		if bs, _ := other.partner.Balances(e.ctx, "", ""); len(bs) != 0 {
			t.Fatalf("another tenant's partner sees balances %+v", bs)
		}
	})
}

func TestConcurrentWithdrawalsNeverOverdraw(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-race")
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: "EUR", Reason: "opening", Key: "open"}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var accepted, refused int
		var sum int64
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				amount := int64(5_00 + (i%4)*1_00)
				_, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: amount, Currency: "EUR", PayoutMethodID: e.methodID}, "")
				mu.Lock()
				defer mu.Unlock()
				switch storetest.Code(err) {
				case "":
					accepted++
					sum += amount
				case "INSUFFICIENT_BALANCE":
					refused++
				default:
					t.Errorf("request %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		b := e.balance(t)
		if sum > 100_00 || b.Held != sum || b.Available != 100_00-sum || b.Available < 0 || accepted+refused != 32 || refused == 0 {
			t.Fatalf("accepted %d (sum %d), refused %d, balance %+v", accepted, sum, refused, b)
		}
		e.expect(t, "after the race", 0, 100_00-sum, sum, 0, 100_00)
	})
}

func TestTheLedgerRefusesUpdatesAndDeletesInTheDatabase(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-immutable")
		mv, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 10_00, Currency: "EUR", Reason: "opening", Key: "open"})
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			"UPDATE ledger_entries SET amount = amount + 1",
			"UPDATE ledger_entries SET account = 'paid' WHERE movement_id = '" + mv.ID + "'",
			"DELETE FROM ledger_entries",
			"DELETE FROM ledger_entries WHERE movement_id = '" + mv.ID + "'",
			"UPDATE ledger_movements SET reason = 'changed'",
			"DELETE FROM ledger_movements",
		} {
			err := s.Core().DB(e.ctx).Exec(stmt).Error
			if err == nil {
				t.Errorf("%s succeeded", stmt)
			}
		}
		if s.Dialect() == store.Postgres {
			if err := s.Core().DB(e.ctx).Exec("TRUNCATE ledger_entries").Error; err == nil {
				t.Error("TRUNCATE succeeded")
			}
		}
		e.expect(t, "after the attempts", 0, 10_00, 0, 0, 10_00)
	})
}

func TestFinanceCannotApproveItsOwnRequestOrPayOutFromANegativeBalance(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-review")
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: "EUR", Reason: "opening", Key: "open"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 99_00, Currency: "EUR", Reason: "other", Key: "open"}); storetest.Code(err) != "IDEMPOTENCY_KEY_REUSED" {
			t.Fatalf("an adjustment key reused for another amount: %v", err)
		}
		own, err := e.op.RequestWithdrawal(e.ctx, models.NewWithdrawal{PartnerID: e.partnerID, Amount: 10_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.ApproveWithdrawal(e.ctx, own.ID); storetest.Code(err) != "FOUR_EYES" {
			t.Fatalf("the requester approved its own withdrawal: %v", err)
		}
		w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 90_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: -50_00, Currency: "EUR", Reason: "chargeback", Key: "cb"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.ApproveWithdrawal(e.ctx, w.ID); storetest.Code(err) != "BALANCE_NEGATIVE" {
			t.Fatalf("a payout approved while the available balance is negative: %v", err)
		}
		e.expect(t, "after the refused approval", 0, -50_00, 100_00, 0, 50_00)
	})
}

func TestARefundProcessedBeforeItsSaleLeavesNothingToPay(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-early-refund")
		if _, err := e.op.CreateCommissionPlan(e.ctx, "Invoices 10 %", "", models.PlanDefinition{
			Trigger: "invoice.paid", AmountPath: "total", Currency: "EUR", ReferencePath: "invoiceId", ClawbackTrigger: "invoice.refunded",
			Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 1000}}); err != nil {
			t.Fatal(err)
		}
		partner := e.partnerID
		refund, err := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.refunded", PartnerID: &partner, Payload: `{"invoiceId":"inv-9"}`})
		if err != nil {
			t.Fatal(err)
		}
		if reversed, err := s.ClawbackCommissions(e.ctx, models.System(e.tenantID), refund.ID); err != nil || len(reversed) != 0 {
			t.Fatalf("an early refund reversed %v, %v", reversed, err)
		}
		paid, err := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &partner, Payload: `{"invoiceId":"inv-9","total":50000}`})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.AccrueCommissions(e.ctx, models.System(e.tenantID), paid.ID)
		if err != nil || len(res) != 1 || res[0].AccrualID != "" || res[0].Reason == "" {
			t.Fatalf("the late sale accrued %+v, %v", res, err)
		}
		other, _ := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &partner, Payload: `{"invoiceId":"inv-10","total":50000}`})
		if res, err := s.AccrueCommissions(e.ctx, models.System(e.tenantID), other.ID); err != nil || len(res) != 1 || !res[0].Created {
			t.Fatalf("another invoice did not accrue: %+v, %v", res, err)
		}
		e.expect(t, "after the early refund and two sales", 0, 50_00, 0, 0, 50_00)
	})
}

func TestARecordedPaymentWinsOverThePayoutDeadline(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-decision")
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: "EUR", Reason: "opening", Key: "open"}); err != nil {
			t.Fatal(err)
		}
		w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 100_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.ApproveWithdrawal(e.ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.RecordPayoutDecision(e.ctx, w.ID, true, "BANK-77"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.RecordPayoutDecision(e.ctx, w.ID, false, "bounced"); storetest.Code(err) != "PAYOUT_NOT_AWAITING_CONFIRMATION" {
			t.Fatalf("a second decision: %v", err)
		}
		// The deadline passes before the confirmation reaches the payout: it is paid anyway.
		got, err := s.FailPayout(e.ctx, models.System(e.tenantID), w.ID, "finance did not confirm in time")
		if err != nil || got.Status != models.WithdrawalPaid || got.Reference != "BANK-77" {
			t.Fatalf("payout after the deadline = %+v, %v", got, err)
		}
		e.expect(t, "after the payout", 0, 0, 0, 100_00, 100_00)
	})
}

func TestEveryWithdrawalTransitionAndAdjustmentIsAuditedAndEvented(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-audit")
		mv, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: "EUR", Reason: "opening", Key: "open"})
		if err != nil {
			t.Fatal(err)
		}
		cancelled, _ := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 10_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if _, err := e.partner.CancelWithdrawal(e.ctx, cancelled.ID, "changed my mind"); err != nil {
			t.Fatal(err)
		}
		rejected, _ := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 10_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if _, err := e.op.RejectWithdrawal(e.ctx, rejected.ID, "wrong account"); err != nil {
			t.Fatal(err)
		}
		paid, _ := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 10_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if _, err := e.op.ApproveWithdrawal(e.ctx, paid.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CompletePayout(e.ctx, models.System(e.tenantID), paid.ID, "BANK-1"); err != nil {
			t.Fatal(err)
		}
		audited := func(action, targetID string) {
			t.Helper()
			rows, _, err := e.op.ListAudit(e.ctx, models.AuditFilter{Action: action, TargetID: targetID}, models.Page{Limit: 10})
			if err != nil || len(rows) != 1 {
				t.Errorf("audit entries for %s on %s: %d, %v", action, targetID, len(rows), err)
			}
		}
		audited("ledger.adjusted", mv.ID)
		for _, c := range []struct{ id, status string }{
			{cancelled.ID, "requested"}, {cancelled.ID, "cancelled"}, {rejected.ID, "requested"}, {rejected.ID, "rejected"},
			{paid.ID, "requested"}, {paid.ID, "approved"}, {paid.ID, "paid"},
		} {
			audited("withdrawal."+c.status, c.id)
		}
		want := map[string]int{models.EventLedgerAdjusted: 1, models.EventWithdrawalRequested: 3, models.EventWithdrawalCancelled: 1,
			models.EventWithdrawalRejected: 1, models.EventWithdrawalApproved: 1, models.EventPayoutPaid: 1}
		for typ, n := range want {
			evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: typ}, models.Page{Limit: 10})
			if err != nil || len(evs) != n {
				t.Errorf("%s events: %d, want %d (%v)", typ, len(evs), n, err)
			}
		}
	})
}

func TestAnArchivedPlanStillClawsBackItsAccruals(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "money-archived-clawback")
		rec := &storetest.Recorder{}
		s.SetDispatcher(rec.Dispatch)
		plan, err := e.op.CreateCommissionPlan(e.ctx, "Invoices 10 %", "", models.PlanDefinition{
			Trigger: "invoice.paid", AmountPath: "total", Currency: "EUR", ReferencePath: "invoiceId", ClawbackTrigger: "invoice.refunded",
			Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		partner := e.partnerID
		paid, err := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &partner, Payload: `{"invoiceId":"inv-1","total":50000}`})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := s.AccrueCommissions(e.ctx, models.System(e.tenantID), paid.ID); err != nil || len(res) != 1 || !res[0].Created {
			t.Fatalf("accrual: %+v, %v", res, err)
		}
		if _, err := e.op.ArchiveCommissionPlan(e.ctx, plan.ID); err != nil {
			t.Fatal(err)
		}
		// The fan-out is asked for refunds of an archived plan's sales, not for its sales.
		if accrue, clawback, err := s.HasCommissionRoutes(e.ctx, models.System(e.tenantID), "invoice.refunded"); err != nil || accrue || !clawback {
			t.Fatalf("routes of invoice.refunded = %v %v %v, want a clawback route", accrue, clawback, err)
		}
		if accrue, clawback, err := s.HasCommissionRoutes(e.ctx, models.System(e.tenantID), "invoice.paid"); err != nil || accrue || clawback {
			t.Fatalf("routes of invoice.paid = %v %v %v, want none for an archived plan", accrue, clawback, err)
		}
		rec.Reset()
		refund, err := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.refunded", PartnerID: &partner, Payload: `{"invoiceId":"inv-1"}`})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &partner, Payload: `{"invoiceId":"inv-2","total":50000}`}); err != nil {
			t.Fatal(err)
		}
		if got := rec.Types(); len(got) != 1 || got[0] != "invoice.refunded" {
			t.Fatalf("dispatched %v, want only the refund", got)
		}
		if reversed, err := s.ClawbackCommissions(e.ctx, models.System(e.tenantID), refund.ID); err != nil || len(reversed) != 1 {
			t.Fatalf("clawback reversed %v, %v", reversed, err)
		}
	})
}
