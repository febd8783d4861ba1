package money_test

import (
	"encoding/json"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// railMethod adds a partner's payout method of kind (its sealed details are not opened here).
func (e *moneyEnv) railMethod(t *testing.T, kind string) string {
	t.Helper()
	m := &models.PayoutMethod{ID: money.NewPayoutMethodID(), Kind: kind, Label: kind, Details: "v1:sealed", Masked: kind + " ••••0001"}
	if err := e.partner.AddPayoutMethod(e.ctx, m); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func (e *moneyEnv) approve(t *testing.T, methodID string, amount int64) (*models.Withdrawal, error) {
	t.Helper()
	if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: amount, Currency: "EUR", Reason: "opening", Key: models.NewID()}); err != nil {
		t.Fatal(err)
	}
	w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: amount, Currency: "EUR", PayoutMethodID: methodID}, "")
	if err != nil {
		t.Fatal(err)
	}
	return e.op.ApproveWithdrawal(e.ctx, w.ID)
}

func (e *moneyEnv) saveRails(t *testing.T, st models.PayoutSettings) {
	t.Helper()
	st.Provider, st.Minimums, st.ConfirmDays = models.ProviderManual, "{}", 14
	if _, err := e.op.SavePayoutSettings(e.ctx, st, false); err != nil {
		t.Fatal(err)
	}
}

func TestThePartnersMethodChoosesItsRailAtApproval(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "rails-choice")
		stripe, wise, paypal := e.railMethod(t, models.PayoutStripe), e.railMethod(t, models.PayoutWise), e.railMethod(t, models.PayoutPayPal)
		if _, err := e.approve(t, stripe, 10_00); storetest.Code(err) != "PAYOUT_RAIL_NOT_CONFIGURED" {
			t.Fatalf("a stripe method without the tenant's Stripe key: %v", err)
		}
		// Without PayPal credentials a paypal method is paid by the tenant's provider.
		if w, err := e.approve(t, paypal, 10_00); err != nil || w.Provider != models.ProviderManual {
			t.Fatalf("paypal without credentials: %+v, %v", w, err)
		}
		e.saveRails(t, models.PayoutSettings{StripeSecretKey: "v1:sealed-key", PayPalClientID: "client", PayPalSecret: "v1:sealed-secret",
			WiseToken: "v1:sealed-token", WiseProfileID: "16000001"})
		for method, provider := range map[string]string{stripe: models.ProviderStripe, wise: models.ProviderWise, paypal: models.ProviderPayPal, e.methodID: models.ProviderManual} {
			w, err := e.approve(t, method, 10_00)
			if err != nil || w.Provider != provider {
				t.Fatalf("approval with method %s: %+v, %v, want provider %s", method, w, err, provider)
			}
			_, p, err := e.op.Withdrawal(e.ctx, w.ID)
			if err != nil || p.Provider != provider || p.ProviderStatus != "" || p.BatchID != nil {
				t.Fatalf("payout %+v, %v", p, err)
			}
		}
	})
}

func TestBatchedPayoutsWaitForTheirProvidersDailyBatch(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "rails-batch")
		e.saveRails(t, models.PayoutSettings{StripeSecretKey: "v1:k", PayPalClientID: "c", PayPalSecret: "v1:s", BatchDaily: true})
		stripe, paypal := e.railMethod(t, models.PayoutStripe), e.railMethod(t, models.PayoutPayPal)
		var stripeIDs []string
		for range 2 {
			w, err := e.approve(t, stripe, 20_00)
			if err != nil {
				t.Fatal(err)
			}
			stripeIDs = append(stripeIDs, w.ID)
		}
		pw, err := e.approve(t, paypal, 30_00)
		if err != nil {
			t.Fatal(err)
		}
		// A manual payout never waits for a batch.
		if w, err := e.approve(t, e.methodID, 5_00); err != nil || w.Provider != models.ProviderManual {
			t.Fatal(w, err)
		}
		order, _, _, ok, err := s.PayoutOrder(e.ctx, models.System(e.tenantID), stripeIDs[0])
		if err != nil || !ok || !order.Batched || order.BatchID != "" {
			t.Fatalf("a batched payout's order %+v %v %v", order, ok, err)
		}
		due, err := s.DuePayoutBatches(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		mine := map[string]bool{}
		for _, d := range due {
			if d.TenantID == e.tenantID {
				mine[d.Provider] = true
			}
		}
		if len(mine) != 2 || !mine[models.ProviderStripe] || !mine[models.ProviderPayPal] {
			t.Fatalf("due batches %+v", due)
		}
		b, ids, err := s.OpenPayoutBatch(e.ctx, models.System(e.tenantID), models.ProviderStripe, "2026-11-28")
		if err != nil || b.Payouts != 2 || len(ids) != 2 || b.Status != models.BatchOpen {
			t.Fatalf("opened batch %+v %v %v", b, ids, err)
		}
		// A later approval waits for the next day's batch; opening the same day again returns the same batch.
		late, err := e.approve(t, stripe, 7_00)
		if err != nil {
			t.Fatal(err)
		}
		again, ids2, err := s.OpenPayoutBatch(e.ctx, models.System(e.tenantID), models.ProviderStripe, "2026-11-28")
		if err != nil || again.ID != b.ID || len(ids2) != 2 {
			t.Fatalf("reopened %+v %v %v", again, ids2, err)
		}
		if _, p, _ := e.op.Withdrawal(e.ctx, late.ID); p.BatchID != nil || p.ProviderStatus != money.ProviderStatusBatched {
			t.Fatalf("the late payout %+v", p)
		}
		order, _, _, _, _ = s.PayoutOrder(e.ctx, models.System(e.tenantID), stripeIDs[1])
		if order.BatchID != b.ID || order.Batched {
			t.Fatalf("a gathered payout's order %+v", order)
		}
		// Settled payouts close the batch; payout.paid names it.
		for _, id := range ids {
			if _, err := s.CompletePayout(e.ctx, models.System(e.tenantID), id, "tr_"+id[:8]); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CloseBatch(e.ctx, models.System(e.tenantID), b.ID); err != nil {
			t.Fatal(err)
		}
		batches, _, err := e.op.ListPayoutBatches(e.ctx, models.Page{Limit: 10})
		if err != nil || len(batches) != 1 || batches[0].Status != models.BatchSettled {
			t.Fatalf("batches %+v, %v", batches, err)
		}
		if hidden, _, err := e.partner.ListPayoutBatches(e.ctx, models.Page{Limit: 10}); err != nil || len(hidden) != 0 {
			t.Fatalf("a partner sees batches %+v, %v", hidden, err)
		}
		evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: models.EventPayoutPaid}, models.Page{Limit: 10})
		if err != nil || len(evs) != 2 {
			t.Fatalf("payout.paid events %d, %v", len(evs), err)
		}
		var payload models.WithdrawalEventPayload
		if err := json.Unmarshal([]byte(evs[0].Payload), &payload); err != nil || payload.BatchID != b.ID {
			t.Fatalf("payout.paid payload %s", evs[0].Payload)
		}
		_ = pw
	})
}

func TestARailsWebhookSettlesOnlyTheMatchingPendingPayout(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "rails-webhook")
		e.saveRails(t, models.PayoutSettings{StripeSecretKey: "v1:k", StripeWebhookSecret: "v1:w"})
		stripe := e.railMethod(t, models.PayoutStripe)
		paid, err := e.approve(t, stripe, 40_00)
		if err != nil {
			t.Fatal(err)
		}
		failed, err := e.approve(t, stripe, 15_00)
		if err != nil {
			t.Fatal(err)
		}
		sys := models.System(e.tenantID)
		_, p1, _ := e.op.Withdrawal(e.ctx, paid.ID)
		_, p2, _ := e.op.Withdrawal(e.ctx, failed.ID)
		if sec, err := s.StripeWebhookSecret(e.ctx, sys); err != nil || sec != "v1:w" {
			t.Fatalf("webhook secret %q %v", sec, err)
		}
		for name, r := range map[string]models.RailSettlement{
			"another amount":   {Provider: models.ProviderStripe, PayoutID: p1.ID, WithdrawalID: paid.ID, Amount: 1, Currency: "EUR", Paid: true},
			"another currency": {Provider: models.ProviderStripe, PayoutID: p1.ID, WithdrawalID: paid.ID, Amount: 40_00, Currency: "USD", Paid: true},
			"another provider": {Provider: models.ProviderWise, PayoutID: p1.ID, WithdrawalID: paid.ID, Amount: 40_00, Currency: "EUR", Paid: true},
			"another payout":   {Provider: models.ProviderStripe, PayoutID: p2.ID, WithdrawalID: paid.ID, Amount: 40_00, Currency: "EUR", Paid: true},
		} {
			if ok, _, err := s.SettleRailPayout(e.ctx, sys, r); ok || err != nil {
				t.Fatalf("%s settled: %v %v", name, ok, err)
			}
		}
		ok, w, err := s.SettleRailPayout(e.ctx, sys, models.RailSettlement{Provider: models.ProviderStripe, PayoutID: p1.ID, WithdrawalID: paid.ID,
			Amount: 40_00, Currency: "EUR", Paid: true, Reference: "tr_1"})
		if !ok || err != nil || w.Status != models.WithdrawalPaid || w.Reference != "tr_1" {
			t.Fatalf("paid by webhook: %v %+v %v", ok, w, err)
		}
		// A reversal after the payout is paid changes nothing: paid is final.
		if ok, _, err := s.SettleRailPayout(e.ctx, sys, models.RailSettlement{Provider: models.ProviderStripe, PayoutID: p1.ID, WithdrawalID: paid.ID,
			Amount: 40_00, Currency: "EUR", Reason: "reversed"}); ok || err != nil {
			t.Fatalf("a reversal of a paid payout settled: %v %v", ok, err)
		}
		before := e.balance(t)
		reason := "stripe: the transfer tr_2 was reversed"
		ok, w, err = s.SettleRailPayout(e.ctx, sys, models.RailSettlement{Provider: models.ProviderStripe, PayoutID: p2.ID, WithdrawalID: failed.ID,
			Amount: 15_00, Currency: "EUR", Reason: reason})
		if !ok || err != nil || w.Status != models.WithdrawalFailed || w.Reason != reason {
			t.Fatalf("failed by webhook: %v %+v %v", ok, w, err)
		}
		after := e.balance(t)
		if after.Held != before.Held-15_00 || after.Available != before.Available+15_00 {
			t.Fatalf("the hold was not released: before %+v after %+v", before, after)
		}
		_, p2, _ = e.op.Withdrawal(e.ctx, failed.ID)
		if p2.Status != models.PayoutFailed || p2.Failure != reason {
			t.Fatalf("failed payout %+v", p2)
		}
		evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: models.EventPayoutFailed}, models.Page{Limit: 10})
		if err != nil || len(evs) != 1 {
			t.Fatalf("payout.failed events %d, %v", len(evs), err)
		}
		var payload models.WithdrawalEventPayload
		if err := json.Unmarshal([]byte(evs[0].Payload), &payload); err != nil || payload.Reason != reason || payload.Provider != models.ProviderStripe ||
			payload.PayoutID != p2.ID || payload.Amount != 15_00 || payload.Status != models.WithdrawalFailed {
			t.Fatalf("payout.failed payload %s", evs[0].Payload)
		}
		chk, err := s.CheckLedger(e.ctx, sys)
		if err != nil || len(chk.Mismatches)+len(chk.Unbalanced) > 0 {
			t.Fatalf("ledger %+v %v", chk, err)
		}
		// The submission of a rail is kept for later questions, only while pending.
		third, err := e.approve(t, stripe, 1_00)
		if err != nil {
			t.Fatal(err)
		}
		_, p3, _ := e.op.Withdrawal(e.ctx, third.ID)
		if err := s.RecordPayoutSubmission(e.ctx, sys, p3.ID, "5UXD2E8A7EBQJ", "PENDING"); err != nil {
			t.Fatal(err)
		}
		order, _, _, _, err := s.PayoutOrder(e.ctx, sys, third.ID)
		if err != nil || order.Reference != "5UXD2E8A7EBQJ" {
			t.Fatalf("submitted order %+v %v", order, err)
		}
	})
}
