package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// upload sends a file's bytes as the signed form of partnerID's tax record.
func (e *moneyEnv) uploadForm(partnerID, token, name string, file []byte) response {
	e.t.Helper()
	res := do(e.t, e.h, http.MethodPut, "/api/tax-records/"+partnerID+"/form?name="+name, bytes.NewReader(file),
		append(bearer(token), "Content-Type", "application/octet-stream")...)
	*e.bodies = append(*e.bodies, string(res.Body))
	return res
}

func TestTaxRecordsOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "tax-http")
		ctx := context.Background()
		const ein = "98-7654321"
		path := "/api/tax-records/" + e.partner1

		t.Run("a partner submits its own details; the tax id is sealed and only ever shown masked", func(t *testing.T) {
			e := e.on(t)
			e.problem(e.call(http.MethodPut, path, e.p1, "", map[string]any{"legalName": "P1 GmbH", "country": "DE", "formKind": "w9", "taxId": "987654321"}), 422, "INVALID_TAX_DETAILS")
			e.problem(e.call(http.MethodPut, path, e.p1, "", map[string]any{"legalName": "P1 BV", "country": "NL", "formKind": "eu_vat", "taxId": "NL12345678B01"}), 422, "INVALID_TAX_DETAILS")
			e.problem(e.call(http.MethodPut, "/api/tax-records/"+e.partner2, e.p1, "", map[string]any{"legalName": "P2 Inc.", "country": "US", "formKind": "w9", "taxId": ein}), 403, "OTHER_PARTNER")
			r := decode[TaxRecord](t, e.want(200, e.call(http.MethodPut, path, e.p1, "", map[string]any{"legalName": "P1 Inc.", "country": "us", "formKind": "w9", "taxId": ein})))
			if r.PartnerID != e.partner1 || r.Country != "US" || r.Status != "submitted" || r.TaxIDMasked != "••••4321" || r.Form != nil {
				t.Fatalf("submitted = %+v", r)
			}
			stored, err := e.owner.TaxRecord(ctx, e.partner1)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(stored.TaxID), "7654321") {
				t.Fatal("the tax id is stored in the clear")
			}
			opened, err := webhookTestKeys.Open(stored.TaxID, models.SealContext{TenantID: e.tenantID, Table: "tax_records", RowID: e.partner1, Field: "tax_id"})
			if err != nil || opened.Reveal() != "987654321" {
				t.Fatalf("the sealed tax id opens to %v, %v", opened, err)
			}
			e.want(200, e.call(http.MethodGet, path, e.finance, "", nil))
			e.problem(e.call(http.MethodGet, "/api/tax-records/"+e.partner2, e.p1, "", nil), 404, "TAX_RECORD_NOT_FOUND")
			list := decode[struct{ Data []TaxRecord }](t, e.want(200, e.call(http.MethodGet, "/api/tax-records", e.p2, "", nil)))
			if len(list.Data) != 0 {
				t.Fatalf("partner2 sees %+v", list.Data)
			}
		})

		t.Run("the signed form is a PDF or image within the size limit, downloaded by its partner and finance", func(t *testing.T) {
			e := e.on(t)
			e.problem(e.uploadForm(e.partner1, e.p1, "w9.txt", []byte("not a form at all, just text\n")), 415, "UNSUPPORTED_FILE_TYPE")
			big := append([]byte(minimalPDF), bytes.Repeat([]byte{' '}, models.MaxTaxFormBytes)...)
			if res := e.uploadForm(e.partner1, e.p1, "w9.pdf", big); res.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("an oversized form = %d %s", res.Status, res.Body)
			}
			e.problem(e.uploadForm(e.partner2, e.p1, "w9.pdf", []byte(minimalPDF)), 404, "TAX_RECORD_NOT_FOUND")
			r := decode[TaxRecord](t, e.want(200, e.uploadForm(e.partner1, e.p1, "w9-signed.pdf", []byte(minimalPDF))))
			if r.Form == nil || r.Form.ContentType != "application/pdf" || r.Form.FileName != "w9-signed.pdf" || r.Form.Size != int64(len(minimalPDF)) {
				t.Fatalf("form = %+v", r.Form)
			}
			for _, token := range []string{e.p1, e.finance} {
				res := e.want(200, e.call(http.MethodGet, path+"/form", token, "", nil))
				if string(res.Body) != minimalPDF || res.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") {
					t.Fatalf("download = %q %v", res.Body, res.Header)
				}
			}
			e.problem(e.call(http.MethodGet, path+"/form", e.p2, "", nil), 404, "TAX_RECORD_NOT_FOUND")
		})

		t.Run("finance approves or rejects with a reason; partners cannot", func(t *testing.T) {
			e := e.on(t)
			e.want(403, e.call(http.MethodPost, path+"/approve", e.p1, "", nil))
			r := decode[TaxRecord](t, e.want(200, e.call(http.MethodPost, path+"/reject", e.finance, "", map[string]any{"reason": "Unsigned."})))
			if r.Status != "rejected" || r.Reason != "Unsigned." {
				t.Fatalf("rejected = %+v", r)
			}
			e.problem(e.call(http.MethodPost, path+"/approve", e.finance, "", nil), 409, "ILLEGAL_TAX_RECORD_TRANSITION")
			e.want(200, e.uploadForm(e.partner1, e.p1, "w9-signed.pdf", []byte(minimalPDF)))
			r = decode[TaxRecord](t, e.want(200, e.call(http.MethodPost, path+"/approve", e.finance, "", nil)))
			if r.Status != "approved" || r.ReviewedBy == "" || r.Reason != "" {
				t.Fatalf("approved = %+v", r)
			}
		})

		t.Run("the tenant's rule blocks or warns on withdrawals of partners without an approved record", func(t *testing.T) {
			e := e.on(t)
			e.want(201, e.call(http.MethodPost, "/api/ledger/adjustments", e.finance, "tax-open-1", map[string]any{"partnerId": e.partner1, "amount": 100_00, "currency": "EUR", "reason": "opening"}))
			e.want(201, e.call(http.MethodPost, "/api/ledger/adjustments", e.finance, "tax-open-2", map[string]any{"partnerId": e.partner2, "amount": 100_00, "currency": "EUR", "reason": "opening"}))
			method := func(token string) string {
				return decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", token, "", map[string]any{"kind": "paypal",
					"details": map[string]string{"email": "pay@example.com"}}))).ID
			}
			m1, m2 := method(e.p1), method(e.p2)
			withdraw := func(token, method, key string) response {
				return e.call(http.MethodPost, "/api/withdrawals", token, key, map[string]any{"amount": 10_00, "currency": "EUR", "payoutMethodId": method})
			}
			if got := decode[TaxSettings](t, e.want(200, e.call(http.MethodGet, "/api/tax-settings", e.finance, "", nil))); got.Requirement != "off" {
				t.Fatalf("default settings = %+v", got)
			}
			e.problem(e.call(http.MethodPut, "/api/tax-settings", e.finance, "", map[string]any{"requirement": "never"}), 422, "VALIDATION_FAILED")
			e.want(200, e.call(http.MethodPut, "/api/tax-settings", e.finance, "", map[string]any{"requirement": "warn"}))
			if w := decode[Withdrawal](t, e.want(201, withdraw(e.p2, m2, "tax-w-1"))); w.Warning == "" {
				t.Fatalf("a warned withdrawal = %+v", w)
			}
			if w := decode[Withdrawal](t, e.want(201, withdraw(e.p1, m1, "tax-w-2"))); w.Warning != "" {
				t.Fatalf("an approved record's withdrawal warns: %+v", w)
			}
			e.want(200, e.call(http.MethodPut, "/api/tax-settings", e.finance, "", map[string]any{"requirement": "block"}))
			e.problem(withdraw(e.p2, m2, "tax-w-3"), 403, "TAX_RECORD_REQUIRED")
			e.want(201, withdraw(e.p1, m1, "tax-w-4"))
			e.want(200, e.call(http.MethodPut, "/api/tax-settings", e.finance, "", map[string]any{"requirement": "off"}))
		})

		t.Run("finance exports a year's payout totals per partner and currency as CSV", func(t *testing.T) {
			e := e.on(t)
			ws := decode[struct{ Data []Withdrawal }](t, e.want(200, e.call(http.MethodGet, "/api/withdrawals?partnerId="+e.partner1+"&status=requested", e.finance, "", nil)))
			if len(ws.Data) == 0 {
				t.Fatal("no withdrawal to pay")
			}
			for _, w := range ws.Data {
				e.want(200, e.call(http.MethodPost, "/api/withdrawals/"+w.ID+"/approve", e.finance, "", nil))
				if _, err := st.CompletePayout(ctx, models.System(e.tenantID), w.ID, "BANK-"+w.ID); err != nil {
					t.Fatal(err)
				}
			}
			year := strconv.Itoa(time.Now().UTC().Year())
			res := e.want(200, e.call(http.MethodGet, "/api/tax-reports/payout-totals?year="+year, e.finance, "", nil))
			if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
				t.Fatalf("content type %q", res.Header.Get("Content-Type"))
			}
			rows, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			want := []string{e.partner1, "P", "P1 Inc.", "US", "w9", "••••4321", "approved", "EUR", strconv.Itoa(len(ws.Data) * 10_00), strconv.Itoa(len(ws.Data))}
			if len(rows) != 2 || strings.Join(rows[1], "|") != strings.Join(want, "|") {
				t.Fatalf("report = %q, want the header and %q", rows, want)
			}
			e.want(403, e.call(http.MethodGet, "/api/tax-reports/payout-totals?year="+year, e.p1, "", nil))
		})

		for _, b := range *e.bodies {
			if strings.Contains(b, "7654321") {
				t.Fatalf("a response carries the tax id: %s", b)
			}
		}
		if strings.Contains(e.logs.String(), "7654321") {
			t.Fatal("the logs carry the tax id")
		}
	})
}
