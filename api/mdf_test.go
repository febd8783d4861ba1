package api

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestMarketDevelopmentFundsOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "mdf-http")
		expires := time.Now().Add(60 * 24 * time.Hour).UTC().Format(time.RFC3339)
		fundBody := map[string]any{"name": "Q1 co-marketing", "partnerId": e.partner1, "currency": "EUR", "amount": 1_000_00,
			"periodStart": "2026-01-01", "periodEnd": "2026-03-31", "expiresAt": expires}
		e.problem(e.call(http.MethodPost, "/api/mdf/funds", e.p1, "", fundBody), 403, "PERMISSION_DENIED")
		e.problem(e.call(http.MethodPost, "/api/mdf/funds", e.op, "", map[string]any{"currency": "EUR", "amount": 1, "periodStart": "2026-02-01",
			"periodEnd": "2026-01-01", "expiresAt": expires}), 422, "INVALID_MDF_FUND")
		fund := decode[MDFFund](t, e.want(201, e.call(http.MethodPost, "/api/mdf/funds", e.op, "", fundBody)))
		if fund.Status != "open" || fund.Uncommitted != 1_000_00 || fund.ROIBps != nil {
			t.Fatalf("fund = %+v", fund)
		}
		e.problem(e.call(http.MethodGet, "/api/mdf/funds/"+fund.ID, e.p2, "", nil), 404, "MDF_FUND_NOT_FOUND")
		if list := decode[ListBody[MDFFund]](t, e.want(200, e.call(http.MethodGet, "/api/mdf/funds", e.p2, "", nil))); len(list.Data) != 0 {
			t.Fatalf("partner2 sees %+v", list.Data)
		}

		req := map[string]any{"fundId": fund.ID, "activity": "Webinar series", "plannedStart": "2026-02-01", "plannedEnd": "2026-02-28",
			"budget": 600_00, "expectedPipeline": 90_000_00}
		e.problem(e.call(http.MethodPost, "/api/mdf/requests", e.p2, "", req), 422, "MDF_FUND_NOT_FOUND")
		r := decode[MDFRequest](t, e.want(201, e.call(http.MethodPost, "/api/mdf/requests", e.p1, "", req)))
		e.problem(e.call(http.MethodPost, "/api/mdf/requests/"+r.ID+"/approve", e.p1, "", map[string]any{}), 403, "PERMISSION_DENIED")
		r = decode[MDFRequest](t, e.want(200, e.call(http.MethodPost, "/api/mdf/requests/"+r.ID+"/request-changes", e.op, "", map[string]any{"reason": "Name the dates"})))
		if r.Status != "changes_requested" || r.Reason != "Name the dates" {
			t.Fatalf("sent back = %+v", r)
		}
		req["activity"], req["budget"] = "Webinars on 3, 10 and 17 February", 500_00
		r = decode[MDFRequest](t, e.want(200, e.call(http.MethodPut, "/api/mdf/requests/"+r.ID, e.p1, "", req)))
		e.problem(e.call(http.MethodPost, "/api/mdf/requests/"+r.ID+"/approve", e.op, "", map[string]any{"amount": 500_01}), 422, "INVALID_MDF_APPROVAL")
		r = decode[MDFRequest](t, e.want(200, e.call(http.MethodPost, "/api/mdf/requests/"+r.ID+"/approve", e.op, "", map[string]any{"amount": 400_00})))
		if r.Status != "approved" || r.Approved != 400_00 {
			t.Fatalf("approved = %+v", r)
		}
		queue := decode[ListBody[MDFRequest]](t, e.want(200, e.call(http.MethodGet, "/api/mdf/requests?status=submitted&limit=1", e.op, "", nil)))
		if len(queue.Data) != 0 {
			t.Fatalf("queue = %+v", queue.Data)
		}

		claimBody := map[string]any{"requestId": r.ID, "amount": 300_00, "description": "Venue and catering", "leads": 17}
		e.problem(e.call(http.MethodPost, "/api/mdf/claims", e.p2, "", claimBody), 404, "MDF_REQUEST_NOT_FOUND")
		e.problem(e.call(http.MethodPost, "/api/mdf/claims", e.p1, "", map[string]any{"requestId": r.ID, "amount": 1, "links": []string{"javascript:alert(1)"}}), 422, "INVALID_MDF_CLAIM")
		c := decode[MDFClaim](t, e.want(201, e.call(http.MethodPost, "/api/mdf/claims", e.p1, "", claimBody)))
		e.problem(e.call(http.MethodPost, "/api/mdf/claims/"+c.ID+"/approve", e.finance, "", nil), 409, "MDF_PROOF_REQUIRED")
		e.problem(e.call(http.MethodPost, "/api/mdf/claims/"+c.ID+"/approve", e.p1, "", nil), 403, "PERMISSION_DENIED")
		upload := func(token, claimID string, file []byte) response {
			return do(t, e.h, http.MethodPut, "/api/mdf/claims/"+claimID+"/proofs?name=invoice.pdf", bytes.NewReader(file),
				append(bearer(token), "Content-Type", "application/octet-stream")...)
		}
		e.problem(upload(e.p1, c.ID, []byte("plain text, not a document\n")), 415, "UNSUPPORTED_FILE_TYPE")
		e.problem(upload(e.p2, c.ID, []byte(minimalPDF)), 404, "MDF_CLAIM_NOT_FOUND")
		c = decode[MDFClaim](t, e.want(200, upload(e.p1, c.ID, []byte(minimalPDF))))
		if len(c.Proofs) != 1 || c.Proofs[0].ContentType != "application/pdf" {
			t.Fatalf("proofs = %+v", c.Proofs)
		}
		dl := e.want(200, e.call(http.MethodGet, "/api/mdf/claims/"+c.ID+"/proofs/"+c.Proofs[0].ID, e.finance, "", nil))
		if string(dl.Body) != minimalPDF {
			t.Fatalf("download = %q", dl.Body)
		}
		e.problem(e.call(http.MethodGet, "/api/mdf/claims/"+c.ID+"/proofs/"+c.Proofs[0].ID, e.p2, "", nil), 404, "MDF_CLAIM_NOT_FOUND")
		c = decode[MDFClaim](t, e.want(200, e.call(http.MethodPost, "/api/mdf/claims/"+c.ID+"/approve", e.finance, "", nil)))
		if c.Status != "approved" || c.MovementID == "" {
			t.Fatalf("approved claim = %+v", c)
		}
		b := e.balance(e.p1, e.partner1)
		if b.MDFAvailable != 300_00 || b.Available != 0 || b.MDFReimbursed != 300_00 {
			t.Fatalf("balance = %+v", b)
		}
		fund = decode[MDFFund](t, e.want(200, e.call(http.MethodGet, "/api/mdf/funds/"+fund.ID, e.p1, "", nil)))
		if fund.Committed != 400_00 || fund.Spent != 300_00 || fund.Uncommitted != 600_00 || fund.ROIBps == nil || *fund.ROIBps != 0 {
			t.Fatalf("fund after the claim = %+v", fund)
		}

		// The MDF balance is paid by the same withdrawals, drawing on account mdf.
		method := decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "bank",
			"details": map[string]string{"iban": "DE89370400440532013000"}})))
		w := map[string]any{"amount": 100_00, "currency": "EUR", "payoutMethodId": method.ID}
		e.problem(e.call(http.MethodPost, "/api/withdrawals", e.p1, "mdf-w-1", w), 409, "INSUFFICIENT_BALANCE")
		w["account"] = "mdf"
		wd := decode[Withdrawal](t, e.want(201, e.call(http.MethodPost, "/api/withdrawals", e.p1, "mdf-w-2", w)))
		if wd.Account != "mdf" || wd.Status != "requested" {
			t.Fatalf("withdrawal = %+v", wd)
		}
		if b := e.balance(e.p1, e.partner1); b.MDFAvailable != 200_00 || b.MDFHeld != 100_00 {
			t.Fatalf("balance after the MDF withdrawal = %+v", b)
		}

		// Four eyes above the tenant's amount.
		e.problem(e.call(http.MethodPut, "/api/mdf/settings", e.p1, "", map[string]any{"fourEyesAbove": 50_00}), 403, "PERMISSION_DENIED")
		settings := decode[MDFSettings](t, e.want(200, e.call(http.MethodPut, "/api/mdf/settings", e.finance, "", map[string]any{"fourEyesAbove": 50_00})))
		if settings.FourEyesAbove == nil || *settings.FourEyesAbove != 50_00 {
			t.Fatalf("settings = %+v", settings)
		}
		big := decode[MDFClaim](t, e.want(201, e.call(http.MethodPost, "/api/mdf/claims", e.p1, "", map[string]any{"requestId": r.ID, "amount": 100_00,
			"links": []string{"https://example.com/photos"}})))
		e.problem(e.call(http.MethodPost, "/api/mdf/claims", e.p1, "", map[string]any{"requestId": r.ID, "amount": 1, "links": []string{"https://example.com/x"}}), 409, "MDF_CLAIM_EXCEEDS_REQUEST")
		big = decode[MDFClaim](t, e.want(200, e.call(http.MethodPost, "/api/mdf/claims/"+big.ID+"/approve", e.finance, "", nil)))
		if big.Status != "awaiting_second_approval" {
			t.Fatalf("after the first approval = %+v", big)
		}
		e.problem(e.call(http.MethodPost, "/api/mdf/claims/"+big.ID+"/approve", e.finance, "", nil), 403, "FOUR_EYES")
		big = decode[MDFClaim](t, e.want(200, e.call(http.MethodPost, "/api/mdf/claims/"+big.ID+"/approve", e.op, "", nil)))
		if big.Status != "approved" || big.FirstApprovedBy != e.financeID || big.ReviewedBy != e.ownerID {
			t.Fatalf("after the second approval = %+v", big)
		}
		list := decode[ListBody[MDFClaim]](t, e.want(200, e.call(http.MethodGet, "/api/mdf/claims?status=approved&limit=1", e.p1, "", nil)))
		if len(list.Data) != 1 || list.NextCursor == "" {
			t.Fatalf("first page = %+v", list)
		}
		next := decode[ListBody[MDFClaim]](t, e.want(200, e.call(http.MethodGet, "/api/mdf/claims?status=approved&limit=1&cursor="+list.NextCursor, e.p1, "", nil)))
		if len(next.Data) != 1 || next.Data[0].ID == list.Data[0].ID || next.NextCursor != "" {
			t.Fatalf("second page = %+v", next)
		}
		chk, err := st.CheckLedger(t.Context(), models.System(e.tenantID))
		if err != nil || len(chk.Mismatches) > 0 || len(chk.Unbalanced) > 0 {
			t.Fatalf("ledger check %+v, %v", chk, err)
		}
	})
}
