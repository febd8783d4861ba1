package money_test

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

var w9 = models.TaxDetails{LegalName: "Alpha Inc.", Country: "US", FormKind: models.TaxFormW9, TaxID: "123456789"}

func (e *moneyEnv) submitTax(t *testing.T, sc *stores.Scoped, d models.TaxDetails) *models.TaxRecord {
	t.Helper()
	r, err := sc.SubmitTaxDetails(e.ctx, e.partnerID, d, "v1:sealed-tax-id", "••••6789")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *moneyEnv) attachForm(t *testing.T, sc *stores.Scoped) {
	t.Helper()
	if _, _, err := sc.AttachTaxForm(e.ctx, e.partnerID, models.TaxFormFile{BlobKey: "tax/" + models.NewID(), FileName: "w9.pdf",
		ContentType: "application/pdf", SHA256: "ab", Size: 1234}); err != nil {
		t.Fatal(err)
	}
}

func TestATaxRecordIsReviewedByFinanceAfterItsSignedFormAndAudited(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "tax-review")
		r := e.submitTax(t, e.partner, w9)
		if r.Status != models.TaxRecordSubmitted || r.TaxIDMasked != "••••6789" {
			t.Fatalf("submitted record %+v", r)
		}
		if _, err := e.op.ReviewTaxRecord(e.ctx, e.partnerID, true, ""); storetest.Code(err) != "TAX_FORM_REQUIRED" {
			t.Fatalf("approval without the signed form: %v", err)
		}
		if _, err := e.partner.ReviewTaxRecord(e.ctx, e.partnerID, true, ""); storetest.Code(err) != "TAX_RECORD_NOT_FOUND" {
			t.Fatalf("a partner reviewing its own record: %v", err)
		}
		e.attachForm(t, e.partner)

		// Whoever submitted cannot approve.
		submitter := s.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: e.tenantID, UserID: "finance-1", Roles: []string{"finance"}})
		e.submitTax(t, submitter, w9)
		e.attachForm(t, submitter)
		if _, err := submitter.ReviewTaxRecord(e.ctx, e.partnerID, true, ""); storetest.Code(err) != "FOUR_EYES" {
			t.Fatalf("approval by the submitter: %v", err)
		}
		approved, err := e.op.ReviewTaxRecord(e.ctx, e.partnerID, true, "")
		if err != nil || approved.Status != models.TaxRecordApproved || approved.ReviewedBy == "" {
			t.Fatalf("approval: %+v, %v", approved, err)
		}
		if _, err := e.op.ReviewTaxRecord(e.ctx, e.partnerID, true, ""); storetest.Code(err) != "ILLEGAL_TAX_RECORD_TRANSITION" {
			t.Fatalf("approving twice: %v", err)
		}
		rejected, err := e.op.ReviewTaxRecord(e.ctx, e.partnerID, false, "The name does not match the W-9.")
		if err != nil || rejected.Status != models.TaxRecordRejected || rejected.Reason != "The name does not match the W-9." {
			t.Fatalf("rejection: %+v, %v", rejected, err)
		}
		// New details submit it again and drop the form that named the earlier ones.
		again := e.submitTax(t, e.partner, w9)
		if again.Status != models.TaxRecordSubmitted || again.HasForm() || again.Reason != "" || again.ID != r.ID {
			t.Fatalf("resubmitted record %+v", again)
		}

		rows, _, err := e.op.ListAudit(e.ctx, models.AuditFilter{TargetID: r.ID}, models.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]int{}
		for _, a := range rows {
			actions[a.Action]++
		}
		for action, n := range map[string]int{"tax_record.submitted": 3, "tax_record.form_uploaded": 2, "tax_record.approved": 1, "tax_record.rejected": 1} {
			if actions[action] != n {
				t.Errorf("%s audited %d times, want %d (%v)", action, actions[action], n, actions)
			}
		}
		for typ, n := range map[string]int{models.EventTaxRecordSubmitted: 5, models.EventTaxRecordApproved: 1, models.EventTaxRecordRejected: 1} {
			evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: typ}, models.Page{Limit: 10})
			if err != nil || len(evs) != n {
				t.Errorf("%s events: %d, want %d (%v)", typ, len(evs), n, err)
			}
		}
	})
}

func TestAPartnerSeesAndSubmitsOnlyItsOwnTaxRecord(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "tax-scope")
		other := &models.Partner{Name: "Beta", Type: "reseller", Level: "gold", Status: "active"}
		if err := e.op.CreatePartner(e.ctx, other); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.SubmitTaxDetails(e.ctx, other.ID, w9, "v1:x", "••••"); err != nil {
			t.Fatal(err)
		}
		e.submitTax(t, e.partner, w9)
		if _, err := e.partner.SubmitTaxDetails(e.ctx, other.ID, w9, "v1:x", "••••"); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("submitting for another partner: %v", err)
		}
		if _, err := e.partner.TaxRecord(e.ctx, other.ID); storetest.Code(err) != "TAX_RECORD_NOT_FOUND" {
			t.Fatalf("reading another partner's record: %v", err)
		}
		if _, _, err := e.partner.AttachTaxForm(e.ctx, other.ID, models.TaxFormFile{BlobKey: "k"}); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("uploading for another partner: %v", err)
		}
		mine, _, err := e.partner.ListTaxRecords(e.ctx, models.TaxRecordFilter{}, models.Page{Limit: 10})
		if err != nil || len(mine) != 1 || mine[0].PartnerID != e.partnerID {
			t.Fatalf("a partner's list: %+v, %v", mine, err)
		}
		all, _, err := e.op.ListTaxRecords(e.ctx, models.TaxRecordFilter{Status: models.TaxRecordSubmitted}, models.Page{Limit: 10})
		if err != nil || len(all) != 2 {
			t.Fatalf("finance's list: %d, %v", len(all), err)
		}
		if _, err := e.partner.SaveTaxSettings(e.ctx, models.TaxRequirementOff); storetest.Code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner changing the tax settings: %v", err)
		}
		if _, err := e.partner.PayoutTotals(e.ctx, 2026); storetest.Code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner reading payout totals: %v", err)
		}
	})
}

func TestTheTaxSettingBlocksOrWarnsOnWithdrawalsWithoutAnApprovedRecord(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "tax-gate")
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: "EUR", Reason: "opening", Key: "open"}); err != nil {
			t.Fatal(err)
		}
		request := func() (*models.Withdrawal, error) {
			return e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 10_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		}
		w, err := request()
		if err != nil || w.Warning != "" {
			t.Fatalf("with the setting off: %+v, %v", w, err)
		}
		if _, err := e.op.SaveTaxSettings(e.ctx, models.TaxRequirementWarn); err != nil {
			t.Fatal(err)
		}
		warned, err := request()
		if err != nil || warned.Warning != models.TaxWarningMissing {
			t.Fatalf("with warn: %+v, %v", warned, err)
		}
		if _, err := e.op.SaveTaxSettings(e.ctx, models.TaxRequirementBlock); err != nil {
			t.Fatal(err)
		}
		if _, err := request(); storetest.Code(err) != "TAX_RECORD_REQUIRED" {
			t.Fatalf("with block and no record: %v", err)
		}
		e.submitTax(t, e.partner, w9)
		if _, err := request(); storetest.Code(err) != "TAX_RECORD_REQUIRED" {
			t.Fatalf("with block and a record not yet approved: %v", err)
		}
		// Approval of a withdrawal requested earlier is refused too: money does not move.
		if _, err := e.op.ApproveWithdrawal(e.ctx, warned.ID); storetest.Code(err) != "TAX_RECORD_REQUIRED" {
			t.Fatalf("approving with block and no approved record: %v", err)
		}
		e.attachForm(t, e.partner)
		if _, err := e.op.ReviewTaxRecord(e.ctx, e.partnerID, true, ""); err != nil {
			t.Fatal(err)
		}
		ok, err := request()
		if err != nil || ok.Warning != "" {
			t.Fatalf("with an approved record: %+v, %v", ok, err)
		}
		if _, err := e.op.ApproveWithdrawal(e.ctx, warned.ID); err != nil {
			t.Fatalf("approving with an approved record: %v", err)
		}
		if _, err := e.op.SaveTaxSettings(e.ctx, "sometimes"); storetest.Code(err) != "INVALID_TAX_SETTINGS" {
			t.Fatalf("an unknown requirement: %v", err)
		}
		rows, _, err := e.op.ListAudit(e.ctx, models.AuditFilter{Action: "tax_settings.updated"}, models.Page{Limit: 10})
		if err != nil || len(rows) != 2 {
			t.Fatalf("settings changes audited: %d, %v", len(rows), err)
		}
		// Held: 10 (off) + 10 (warn) + 10 (approved record); the refused requests held nothing.
		e.expect(t, "after the gated requests", 0, 70_00, 30_00, 0, 100_00)
	})
}

func TestPayoutTotalsSumAYearPerPartnerAndCurrency(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "tax-totals")
		for _, c := range []string{"EUR", "USD"} {
			if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 100_00, Currency: c, Reason: "opening", Key: "open-" + c}); err != nil {
				t.Fatal(err)
			}
		}
		pay := func(amount int64, currency string) string {
			t.Helper()
			w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: amount, Currency: currency, PayoutMethodID: e.methodID}, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.op.ApproveWithdrawal(e.ctx, w.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.CompletePayout(e.ctx, models.System(e.tenantID), w.ID, "BANK-"+w.ID); err != nil {
				t.Fatal(err)
			}
			return w.ID
		}
		pay(10_00, "EUR")
		pay(15_00, "EUR")
		pay(7_00, "USD")
		lastYear := pay(20_00, "EUR")
		if err := s.Core().DB(e.ctx).Model(&models.Payout{}).Where("withdrawal_id = ?", lastYear).
			Update("completed_at", time.Date(2025, 12, 31, 23, 59, 0, 0, time.UTC)).Error; err != nil {
			t.Fatal(err)
		}
		// A failed payout is not income.
		failed, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 5_00, Currency: "EUR", PayoutMethodID: e.methodID}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.ApproveWithdrawal(e.ctx, failed.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FailPayout(e.ctx, models.System(e.tenantID), failed.ID, "account closed"); err != nil {
			t.Fatal(err)
		}
		e.submitTax(t, e.partner, w9)

		year := time.Now().UTC().Year()
		totals, err := e.op.PayoutTotals(e.ctx, year)
		if err != nil {
			t.Fatal(err)
		}
		if len(totals) != 2 {
			t.Fatalf("totals %+v", totals)
		}
		eur, usd := totals[0], totals[1]
		if eur.Currency != "EUR" || eur.Amount != 25_00 || eur.Payouts != 2 || eur.PartnerName != "Alpha" || eur.Record == nil || eur.Record.TaxIDMasked != "••••6789" {
			t.Errorf("EUR total %+v", eur)
		}
		if usd.Currency != "USD" || usd.Amount != 7_00 || usd.Payouts != 1 {
			t.Errorf("USD total %+v", usd)
		}
		if year != 2025 {
			before, err := e.op.PayoutTotals(e.ctx, 2025)
			if err != nil || len(before) != 1 || before[0].Amount != 20_00 {
				t.Errorf("2025 totals %+v, %v", before, err)
			}
		}
	})
}

func TestNoWithdrawalConvertsBetweenCurrencies(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMoneyEnv(t, s, "no-conversion")
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 1_000_000_00, Currency: "EUR", Reason: "opening", Key: "open"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.AdjustBalance(e.ctx, models.Adjustment{PartnerID: e.partnerID, Amount: 5_00, Currency: "GBP", Reason: "opening", Key: "open-gbp"}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name     string
			amount   int64
			currency string
		}{
			{"a currency the partner never earned in", 1_00, "USD"},
			{"more than the currency's own balance, however much another holds", 6_00, "GBP"},
		} {
			_, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: c.amount, Currency: c.currency, PayoutMethodID: e.methodID}, "")
			if storetest.Code(err) != "INSUFFICIENT_BALANCE" {
				t.Errorf("%s: %v, want INSUFFICIENT_BALANCE", c.name, err)
			}
		}
		w, err := e.partner.RequestWithdrawal(e.ctx, models.NewWithdrawal{Amount: 5_00, Currency: "GBP", PayoutMethodID: e.methodID}, "")
		if err != nil || w.Currency != "GBP" || w.Amount != 5_00 {
			t.Fatalf("a withdrawal within the currency's balance: %+v, %v", w, err)
		}
		bs, err := e.op.Balances(e.ctx, e.partnerID, "")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]models.Balance{}
		for _, b := range bs {
			got[b.Currency] = b
		}
		if len(got) != 2 || got["EUR"].Available != 1_000_000_00 || got["EUR"].Held != 0 || got["GBP"].Available != 0 || got["GBP"].Held != 5_00 {
			t.Fatalf("balances after the refusals: %+v", got)
		}
		if _, ok := got["USD"]; ok {
			t.Fatal("a USD balance appeared")
		}
	})
}
