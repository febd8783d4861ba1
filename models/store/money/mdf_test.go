package money_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// mdfEnv is the Partners fixture (A and B at level gold) with a second operator, finance, and a
// payout method of partner A.
type mdfEnv struct {
	*storetest.Partners
	s        *stores.Set
	finance  *stores.Scoped
	methodID string
}

func newMDFEnv(t *testing.T, s *stores.Set) *mdfEnv {
	t.Helper()
	e := &mdfEnv{Partners: storetest.NewPartners(t, s), s: s}
	e.finance = s.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: e.TenantID, UserID: models.NewID()})
	m := &models.PayoutMethod{ID: money.NewPayoutMethodID(), Kind: models.PayoutBank, Label: "main", Details: "v1:sealed", Masked: "IBAN ••••1234"}
	if err := e.A.AddPayoutMethod(e.Ctx, m); err != nil {
		t.Fatal(err)
	}
	e.methodID = m.ID
	return e
}

func (e *mdfEnv) fund(t *testing.T, partnerID, level string, amount int64) *models.MDFFund {
	t.Helper()
	f, err := e.Op.CreateMDFFund(e.Ctx, models.NewMDFFund{Name: "Q1 " + level, PartnerID: partnerID, Level: level, Currency: "EUR", Amount: amount,
		PeriodStart: "2026-01-01", PeriodEnd: "2026-03-31", ExpiresAt: time.Now().Add(90 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (e *mdfEnv) request(sc *stores.Scoped, fundID string, budget int64) (*models.MDFRequest, error) {
	return sc.SubmitMDFRequest(e.Ctx, models.NewMDFRequest{FundID: fundID, Activity: "Webinar series", Description: "Three webinars",
		PlannedStart: "2026-02-01", PlannedEnd: "2026-02-28", Budget: budget, ExpectedPipeline: 50_000_00})
}

func (e *mdfEnv) mustFund(t *testing.T, id string) *models.MDFFund {
	t.Helper()
	f, err := e.Op.MDFFund(e.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (e *mdfEnv) checkLedger(t *testing.T) {
	t.Helper()
	chk, err := e.s.CheckLedger(e.Ctx, models.System(e.TenantID))
	if err != nil || len(chk.Mismatches) > 0 || len(chk.Unbalanced) > 0 {
		t.Fatalf("ledger check %+v, %v", chk, err)
	}
}

func (e *mdfEnv) balance(t *testing.T, partnerID string) models.Balance {
	t.Helper()
	bs, err := e.Op.Balances(e.Ctx, partnerID, "EUR")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) == 0 {
		return models.Balance{}
	}
	return bs[0]
}

func TestAnMDFFundGoesFromRequestToClaimToAnMDFWithdrawal(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		f := e.fund(t, e.PartnerA, "", 1_000_00)

		if _, err := e.request(e.A, f.ID, 1_000_01); storetest.Code(err) != "MDF_FUND_EXHAUSTED" {
			t.Fatalf("a budget above the fund: %v", err)
		}
		if _, err := e.request(e.B, f.ID, 100_00); storetest.Code(err) != "MDF_FUND_NOT_FOUND" {
			t.Fatalf("another partner's fund: %v", err)
		}
		r, err := e.request(e.A, f.ID, 400_00)
		if err != nil || r.Status != models.MDFRequestSubmitted || r.Currency != "EUR" {
			t.Fatalf("request = %+v, %v", r, err)
		}
		if _, err := e.A.ApproveMDFRequest(e.Ctx, r.ID, 0); storetest.Code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner approving: %v", err)
		}
		if r, err = e.Op.RequestMDFChanges(e.Ctx, r.ID, "Name the webinar dates"); err != nil || r.Status != models.MDFRequestChangesRequested {
			t.Fatalf("changes = %+v, %v", r, err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, r.ID, 0); storetest.Code(err) != "ILLEGAL_MDF_REQUEST_TRANSITION" {
			t.Fatalf("approving a request sent back: %v", err)
		}
		if _, err := e.B.ResubmitMDFRequest(e.Ctx, r.ID, models.NewMDFRequest{Activity: "x", PlannedStart: "2026-02-01", PlannedEnd: "2026-02-02", Budget: 1}); storetest.Code(err) != "MDF_REQUEST_NOT_FOUND" {
			t.Fatalf("another partner resubmitting: %v", err)
		}
		r, err = e.A.ResubmitMDFRequest(e.Ctx, r.ID, models.NewMDFRequest{Activity: "Webinars on 3, 10 and 17 Feb", PlannedStart: "2026-02-03", PlannedEnd: "2026-02-17", Budget: 500_00, ExpectedPipeline: 80_000_00})
		if err != nil || r.Status != models.MDFRequestSubmitted || r.Budget != 500_00 || r.Reason != "" {
			t.Fatalf("resubmitted = %+v, %v", r, err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, r.ID, 500_01); storetest.Code(err) != "INVALID_MDF_APPROVAL" {
			t.Fatalf("approving more than the budget: %v", err)
		}
		if r, err = e.Op.ApproveMDFRequest(e.Ctx, r.ID, 300_00); err != nil || r.Status != models.MDFRequestApproved || r.Approved != 300_00 {
			t.Fatalf("approved = %+v, %v", r, err)
		}
		if got := e.mustFund(t, f.ID); got.Committed != 300_00 || got.Spent != 0 || got.Uncommitted() != 700_00 {
			t.Fatalf("fund after approval = %+v", got)
		}

		mine := e.Register(t, e.A, "Hooli", "hooli.com", "gavin@hooli.com", 12_000_00)
		theirs := e.Register(t, e.B, "Initech", "initech.com", "bill@initech.com", 5_000_00)
		claim := models.NewMDFClaim{RequestID: r.ID, Amount: 200_00, Description: "Invoices attached", Leads: 42, DealIDs: []string{mine.ID},
			Links: []string{"https://example.com/webinar-recording"}}
		if _, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: 300_01}); storetest.Code(err) != "MDF_CLAIM_EXCEEDS_REQUEST" {
			t.Fatalf("claiming more than approved: %v", err)
		}
		if _, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: 1, DealIDs: []string{theirs.ID}}); storetest.Code(err) != "DEAL_NOT_FOUND" {
			t.Fatalf("another partner's deal: %v", err)
		}
		if _, err := e.B.SubmitMDFClaim(e.Ctx, claim); storetest.Code(err) != "MDF_REQUEST_NOT_FOUND" {
			t.Fatalf("claiming on another partner's request: %v", err)
		}
		c, err := e.A.SubmitMDFClaim(e.Ctx, claim)
		if err != nil || c.Status != models.MDFClaimSubmitted || len(c.DealIDs) != 1 || len(c.LinkList()) != 1 {
			t.Fatalf("claim = %+v, %v", c, err)
		}
		if _, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: 100_01}); storetest.Code(err) != "MDF_CLAIM_EXCEEDS_REQUEST" {
			t.Fatalf("a claim beyond what waiting claims leave: %v", err)
		}
		noProof, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: 10_00})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.finance.ApproveMDFClaim(e.Ctx, noProof.ID); storetest.Code(err) != "MDF_PROOF_REQUIRED" {
			t.Fatalf("approving without proof: %v", err)
		}
		if c, err = e.A.AttachMDFProof(e.Ctx, noProof.ID, models.MDFProof{BlobKey: "mdf/x", FileName: "invoice.pdf", ContentType: "application/pdf", Size: 10, SHA256: "ab"}); err != nil || len(c.Proofs) != 1 {
			t.Fatalf("proof = %+v, %v", c, err)
		}
		if c, err = e.finance.RejectMDFClaim(e.Ctx, noProof.ID, "the invoice is for another event"); err != nil || c.Status != models.MDFClaimRejected {
			t.Fatalf("rejected = %+v, %v", c, err)
		}
		c, err = e.finance.ApproveMDFClaim(e.Ctx, claim2ID(t, e, r.ID))
		if err != nil || c.Status != models.MDFClaimApproved || c.MovementID == nil {
			t.Fatalf("approved claim = %+v, %v", c, err)
		}
		if _, err := e.finance.ApproveMDFClaim(e.Ctx, c.ID); storetest.Code(err) != "ILLEGAL_MDF_CLAIM_TRANSITION" {
			t.Fatalf("approving twice: %v", err)
		}
		b := e.balance(t, e.PartnerA)
		if b.MDFAvailable != 200_00 || b.MDFReimbursed != 200_00 || b.Available != 0 || b.TotalEarned != 0 {
			t.Fatalf("balance after reimbursement = %+v", b)
		}
		e.checkLedger(t)
		got := e.mustFund(t, f.ID)
		if got.Committed != 300_00 || got.Spent != 200_00 {
			t.Fatalf("fund after the claim = %+v", got)
		}
		if _, ok := got.ROIBasisPoints(); !ok || got.InfluencedRevenue != 0 {
			t.Fatalf("an open deal is no revenue yet: %+v", got)
		}
		if _, err := e.Op.ApproveDeal(e.Ctx, mine.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.MoveDeal(e.Ctx, mine.ID, models.DealMove{StageID: e.WonID}); err != nil {
			t.Fatal(err)
		}
		got = e.mustFund(t, f.ID)
		if roi, ok := got.ROIBasisPoints(); !ok || got.InfluencedRevenue != 12_000_00 || roi != 600_000 {
			t.Fatalf("ROI of 12 000.00 won on 200.00 spent = %d (%v), revenue %d", roi, ok, got.InfluencedRevenue)
		}

		// The MDF balance is withdrawn on its own: commissions are not touched.
		if _, err := e.A.RequestWithdrawal(e.Ctx, models.NewWithdrawal{Amount: 1_00, Currency: "EUR", PayoutMethodID: e.methodID}, ""); storetest.Code(err) != "INSUFFICIENT_BALANCE" {
			t.Fatalf("a commission withdrawal from an MDF balance: %v", err)
		}
		if _, err := e.A.RequestWithdrawal(e.Ctx, models.NewWithdrawal{Amount: 200_01, Currency: "EUR", PayoutMethodID: e.methodID, Account: models.WithdrawFromMDF}, ""); storetest.Code(err) != "INSUFFICIENT_BALANCE" {
			t.Fatalf("more than the MDF balance: %v", err)
		}
		w, err := e.A.RequestWithdrawal(e.Ctx, models.NewWithdrawal{Amount: 150_00, Currency: "EUR", PayoutMethodID: e.methodID, Account: models.WithdrawFromMDF}, "")
		if err != nil || w.Account != models.WithdrawFromMDF {
			t.Fatalf("MDF withdrawal = %+v, %v", w, err)
		}
		if _, err := e.finance.ApproveWithdrawal(e.Ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CompletePayout(e.Ctx, models.System(e.TenantID), w.ID, "BANK-MDF-1"); err != nil {
			t.Fatal(err)
		}
		if b := e.balance(t, e.PartnerA); b.MDFAvailable != 50_00 || b.MDFHeld != 0 || b.MDFPaid != 150_00 || b.Paid != 0 || b.Available != 0 {
			t.Fatalf("balance after the MDF payout = %+v", b)
		}
		e.checkLedger(t)
	})
}

// claim2ID files a fresh claim of 200.00 with a link on request r and returns its id.
func claim2ID(t *testing.T, e *mdfEnv, requestID string) string {
	t.Helper()
	cs, _, err := e.Op.ListMDFClaims(e.Ctx, models.MDFClaimFilter{RequestID: requestID, Status: models.MDFClaimSubmitted}, models.Page{Limit: 10})
	if err != nil || len(cs) != 1 || cs[0].Amount != 200_00 {
		t.Fatalf("waiting claims = %+v, %v", cs, err)
	}
	return cs[0].ID
}

func TestPartnersSeeTheirOwnAndTheirLevelsFunds(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		own := e.fund(t, e.PartnerA, "", 100_00)
		level := e.fund(t, "", "gold", 100_00)
		silver := e.fund(t, "", "silver", 100_00)
		list := func(sc *stores.Scoped) []string {
			fs, _, err := sc.ListMDFFunds(e.Ctx, models.MDFFundFilter{}, models.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, f := range fs {
				ids = append(ids, f.ID)
			}
			return ids
		}
		if got := list(e.A); len(got) != 2 || got[0] != own.ID || got[1] != level.ID {
			t.Fatalf("A sees %v", got)
		}
		if got := list(e.B); len(got) != 1 || got[0] != level.ID {
			t.Fatalf("B sees %v", got)
		}
		if got := list(e.Op); len(got) != 3 {
			t.Fatalf("the operator sees %v", got)
		}
		if _, err := e.B.MDFFund(e.Ctx, own.ID); storetest.Code(err) != "MDF_FUND_NOT_FOUND" {
			t.Fatalf("B reading A's fund: %v", err)
		}
		if _, err := e.B.MDFFund(e.Ctx, silver.ID); storetest.Code(err) != "MDF_FUND_NOT_FOUND" {
			t.Fatalf("B reading another level's fund: %v", err)
		}
		if _, err := e.A.CreateMDFFund(e.Ctx, models.NewMDFFund{PartnerID: e.PartnerA, Currency: "EUR", Amount: 1, PeriodStart: "2026-01-01", PeriodEnd: "2026-01-02", ExpiresAt: time.Now().Add(time.Hour)}); storetest.Code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner allocating: %v", err)
		}
		bad := models.NewMDFFund{PartnerID: e.PartnerA, Level: "gold", Currency: "eur", Amount: 0, PeriodStart: "2026-02-01", PeriodEnd: "2026-01-01", ExpiresAt: time.Now().Add(-time.Hour)}
		if _, err := e.Op.CreateMDFFund(e.Ctx, bad); storetest.Code(err) != "INVALID_MDF_FUND" {
			t.Fatalf("an invalid fund: %v", err)
		}
		rb, err := e.request(e.B, level.ID, 60_00)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.MDFRequest(e.Ctx, rb.ID); storetest.Code(err) != "MDF_REQUEST_NOT_FOUND" {
			t.Fatalf("A reading B's request: %v", err)
		}
		if rs, _, err := e.A.ListMDFRequests(e.Ctx, models.MDFRequestFilter{}, models.Page{Limit: 10}); err != nil || len(rs) != 0 {
			t.Fatalf("A lists %+v, %v", rs, err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, rb.ID, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := e.request(e.A, level.ID, 40_01); storetest.Code(err) != "MDF_FUND_EXHAUSTED" {
			t.Fatalf("a level's fund is shared: %v", err)
		}
	})
}

func TestConcurrentMDFRequestsAndClaimsNeverExceedTheFund(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		f := e.fund(t, "", "gold", 100_00)
		// 32 partners of level gold ask for part of the level's fund and are approved at once.
		partners := make([]*stores.Scoped, 32)
		for i := range partners {
			p := &models.Partner{Name: fmt.Sprintf("Racer %d", i), Type: "reseller", Level: "gold", Status: "active"}
			if err := e.Op.CreatePartner(e.Ctx, p); err != nil {
				t.Fatal(err)
			}
			partners[i] = s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: e.TenantID, UserID: models.NewID(), PartnerID: p.ID})
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var approved, refused int
		var sum int64
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				budget := int64(5_00 + (i%4)*1_00)
				r, err := e.request(partners[i], f.ID, budget)
				if err == nil {
					_, err = e.Op.ApproveMDFRequest(e.Ctx, r.ID, 0)
				}
				mu.Lock()
				defer mu.Unlock()
				switch storetest.Code(err) {
				case "":
					approved++
					sum += budget
				case "MDF_FUND_EXHAUSTED":
					refused++
				default:
					t.Errorf("requester %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		got := e.mustFund(t, f.ID)
		if got.Committed != sum || sum > 100_00 || approved+refused != 32 || refused == 0 {
			t.Fatalf("approved %d (sum %d), refused %d, fund %+v", approved, sum, refused, got)
		}
		rs, _, err := e.Op.ListMDFRequests(e.Ctx, models.MDFRequestFilter{FundID: f.ID, Status: models.MDFRequestApproved}, models.Page{Limit: 100})
		if err != nil || len(rs) != approved {
			t.Fatalf("approved requests %d, %v", len(rs), err)
		}

		// 32 concurrent claims of one request, each approved at once, never spend beyond it.
		r := rs[0]
		var spent int64
		var accepted int
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				amount := int64(50 + (i%3)*25)
				c, err := partnerOf(partners, r.PartnerID).SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: amount, Links: []string{"https://example.com/p"}})
				if err == nil {
					_, err = e.finance.ApproveMDFClaim(e.Ctx, c.ID)
				}
				mu.Lock()
				defer mu.Unlock()
				switch storetest.Code(err) {
				case "":
					accepted++
					spent += amount
				case "MDF_CLAIM_EXCEEDS_REQUEST":
				default:
					t.Errorf("claim %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		after, err := e.Op.MDFRequest(e.Ctx, r.ID)
		if err != nil || after.Spent != spent || spent > after.Approved || accepted == 0 || accepted == 32 {
			t.Fatalf("accepted %d (spent %d), request %+v, %v", accepted, spent, after, err)
		}
		if got := e.mustFund(t, f.ID); got.Spent != spent || got.Spent > got.Committed || got.Committed > got.Allocated {
			t.Fatalf("fund after the claims = %+v", got)
		}
		if b := e.balance(t, r.PartnerID); b.MDFAvailable != spent {
			t.Fatalf("MDF balance %+v, want %d", b, spent)
		}
		e.checkLedger(t)
	})
}

func partnerOf(partners []*stores.Scoped, partnerID string) *stores.Scoped {
	for _, p := range partners {
		if p.Principal().PartnerID == partnerID {
			return p
		}
	}
	return nil
}

func TestClaimsAboveTheTenantsAmountNeedTwoApprovers(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		limit := int64(100_00)
		if _, err := e.A.SaveMDFSettings(e.Ctx, &limit); storetest.Code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner changing the settings: %v", err)
		}
		if _, err := e.Op.SaveMDFSettings(e.Ctx, &limit); err != nil {
			t.Fatal(err)
		}
		f := e.fund(t, e.PartnerA, "", 1_000_00)
		r, err := e.request(e.A, f.ID, 500_00)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, r.ID, 0); err != nil {
			t.Fatal(err)
		}
		file := func(amount int64) *models.MDFClaim {
			c, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: amount, Links: []string{"https://example.com/proof"}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		small := file(100_00)
		if c, err := e.Op.ApproveMDFClaim(e.Ctx, small.ID); err != nil || c.Status != models.MDFClaimApproved {
			t.Fatalf("a claim at the amount = %+v, %v", c, err)
		}
		big := file(150_00)
		c, err := e.Op.ApproveMDFClaim(e.Ctx, big.ID)
		if err != nil || c.Status != models.MDFClaimAwaitingSecond || c.FirstApprovedBy == "" || c.MovementID != nil {
			t.Fatalf("first approval = %+v, %v", c, err)
		}
		if b := e.balance(t, e.PartnerA); b.MDFAvailable != 100_00 {
			t.Fatalf("a first approval reimbursed: %+v", b)
		}
		if _, err := e.Op.ApproveMDFClaim(e.Ctx, big.ID); storetest.Code(err) != "FOUR_EYES" {
			t.Fatalf("the same approver twice: %v", err)
		}
		if c, err = e.finance.ApproveMDFClaim(e.Ctx, big.ID); err != nil || c.Status != models.MDFClaimApproved || c.MovementID == nil {
			t.Fatalf("second approval = %+v, %v", c, err)
		}
		if b := e.balance(t, e.PartnerA); b.MDFAvailable != 250_00 {
			t.Fatalf("after the second approval: %+v", b)
		}
		// An operator who files a claim for the partner cannot approve it.
		own, err := e.Op.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: 1_00, Links: []string{"https://example.com/proof"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveMDFClaim(e.Ctx, own.ID); storetest.Code(err) != "FOUR_EYES" {
			t.Fatalf("approving one's own claim: %v", err)
		}
		for _, c := range []struct{ action, id string }{{"mdf_claim.submitted", big.ID}, {"mdf_claim.awaiting_second_approval", big.ID}, {"mdf_claim.approved", big.ID}} {
			rows, _, err := e.Op.ListAudit(e.Ctx, models.AuditFilter{Action: c.action, TargetID: c.id}, models.Page{Limit: 10})
			if err != nil || len(rows) != 1 {
				t.Errorf("audit %s: %d, %v", c.action, len(rows), err)
			}
		}
		want := map[string]int{models.EventMDFFundAllocated: 1, models.EventMDFRequestSubmitted: 1, models.EventMDFRequestApproved: 1,
			models.EventMDFClaimSubmitted: 3, models.EventMDFClaimFirstApproved: 1, models.EventMDFClaimApproved: 2}
		for typ, n := range want {
			evs, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: typ}, models.Page{Limit: 10})
			if err != nil || len(evs) != n {
				t.Errorf("%s events: %d, want %d (%v)", typ, len(evs), n, err)
			}
		}
		e.checkLedger(t)
	})
}

func TestAnExpiredFundReleasesWhatNoRequestCommitted(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		f := e.fund(t, e.PartnerA, "", 1_000_00)
		approved, err := e.request(e.A, f.ID, 300_00)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, approved.ID, 0); err != nil {
			t.Fatal(err)
		}
		waiting, err := e.request(e.A, f.ID, 100_00)
		if err != nil {
			t.Fatal(err)
		}
		sys := models.System(e.TenantID)
		// mdf.fund_allocated is a system subscription: its fan-out starts the fund's expiry timer.
		if ok, err := s.Subscribed(e.Ctx, sys, models.EventMDFFundAllocated); err != nil || !ok {
			t.Fatalf("mdf.fund_allocated subscribed = %v, %v", ok, err)
		}
		allocated, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: models.EventMDFFundAllocated}, models.Page{Limit: 10})
		if err != nil || len(allocated) != 1 {
			t.Fatalf("mdf.fund_allocated: %v, %v", allocated, err)
		}
		if routes, err := s.EventRoutes(e.Ctx, sys, allocated[0].ID); err != nil || routes.ExpireMDFFund != f.ID {
			t.Fatalf("routes of mdf.fund_allocated: %+v, %v", routes, err)
		}
		next, err := s.AdvanceMDFFundExpiry(context.Background(), sys, f.ID, f.ExpiresAt.Add(-time.Minute))
		if err != nil || next.Done || !next.WakeAt.Equal(f.ExpiresAt) {
			t.Fatalf("before expiry = %+v, %v", next, err)
		}
		if next, err = s.AdvanceMDFFundExpiry(context.Background(), sys, f.ID, f.ExpiresAt); err != nil || !next.Done {
			t.Fatalf("at expiry = %+v, %v", next, err)
		}
		got := e.mustFund(t, f.ID)
		if got.Status != models.MDFFundExpired || got.Released != 700_00 || got.Committed != 300_00 || got.ExpiredAt == nil {
			t.Fatalf("expired fund = %+v", got)
		}
		if r, err := e.A.MDFRequest(e.Ctx, waiting.ID); err != nil || r.Status != models.MDFRequestExpired {
			t.Fatalf("the waiting request = %+v, %v", r, err)
		}
		if _, err := e.request(e.A, f.ID, 1_00); storetest.Code(err) != "MDF_FUND_EXPIRED" {
			t.Fatalf("a request on an expired fund: %v", err)
		}
		// The committed money stays claimable.
		if _, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: approved.ID, Amount: 300_00, Links: []string{"https://example.com/p"}}); err != nil {
			t.Fatal(err)
		}
		if next, err = s.AdvanceMDFFundExpiry(context.Background(), sys, f.ID, f.ExpiresAt.Add(time.Hour)); err != nil || !next.Done {
			t.Fatalf("again = %+v, %v", next, err)
		}
		evs, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: models.EventMDFFundExpired}, models.Page{Limit: 10})
		if err != nil || len(evs) != 1 {
			t.Fatalf("fund_expired events %d, %v", len(evs), err)
		}
	})
}

func TestTheDatabaseRefusesAFundOrRequestOutOfBounds(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		f := e.fund(t, e.PartnerA, "", 100_00)
		r, err := e.request(e.A, f.ID, 50_00)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, r.ID, 40_00); err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			"UPDATE mdf_funds SET committed = allocated + 1 WHERE id = '" + f.ID + "'",
			"UPDATE mdf_funds SET spent = committed + 1 WHERE id = '" + f.ID + "'",
			"UPDATE mdf_funds SET released = allocated WHERE id = '" + f.ID + "'",
			"UPDATE mdf_funds SET committed = -1 WHERE id = '" + f.ID + "'",
			"UPDATE mdf_requests SET approved = budget + 1 WHERE id = '" + r.ID + "'",
			"UPDATE mdf_requests SET spent = approved + 1 WHERE id = '" + r.ID + "'",
		} {
			if err := s.Core().DB(e.Ctx).Exec(stmt).Error; err == nil {
				t.Errorf("%s succeeded", stmt)
			}
		}
		if got := e.mustFund(t, f.ID); got.Committed != 40_00 || got.Spent != 0 || got.Released != 0 {
			t.Fatalf("fund after the attempts = %+v", got)
		}
	})
}

func TestARejectedOrFailedMDFWithdrawalGoesBackToTheMDFBalance(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newMDFEnv(t, s)
		f := e.fund(t, e.PartnerA, "", 100_00)
		r, err := e.request(e.A, f.ID, 100_00)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveMDFRequest(e.Ctx, r.ID, 0); err != nil {
			t.Fatal(err)
		}
		c, err := e.A.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: 100_00, Links: []string{"https://example.com/p"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.finance.ApproveMDFClaim(e.Ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		withdraw := func() *models.Withdrawal {
			w, err := e.A.RequestWithdrawal(e.Ctx, models.NewWithdrawal{Amount: 100_00, Currency: "EUR", PayoutMethodID: e.methodID, Account: models.WithdrawFromMDF}, "")
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		rejected := withdraw()
		if _, err := e.finance.RejectWithdrawal(e.Ctx, rejected.ID, "wrong account"); err != nil {
			t.Fatal(err)
		}
		if b := e.balance(t, e.PartnerA); b.MDFAvailable != 100_00 || b.MDFHeld != 0 || b.Available != 0 {
			t.Fatalf("after the rejection %+v", b)
		}
		failed := withdraw()
		if _, err := e.finance.ApproveWithdrawal(e.Ctx, failed.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FailPayout(e.Ctx, models.System(e.TenantID), failed.ID, "account closed"); err != nil {
			t.Fatal(err)
		}
		if b := e.balance(t, e.PartnerA); b.MDFAvailable != 100_00 || b.MDFHeld != 0 || b.MDFPaid != 0 || b.Available != 0 {
			t.Fatalf("after the failed payout %+v", b)
		}
		if _, err := e.A.RequestWithdrawal(e.Ctx, models.NewWithdrawal{Amount: 1, Currency: "EUR", PayoutMethodID: e.methodID, Account: "bonus"}, ""); storetest.Code(err) != "INVALID_WITHDRAWAL" {
			t.Fatalf("an unknown account: %v", err)
		}
		e.checkLedger(t)
	})
}
