package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

// minimalPDF is a file told to be a PDF by its bytes.
const minimalPDF = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"

var matrixW9 = models.TaxDetails{LegalName: "Partner One Inc.", Country: "US", FormKind: models.TaxFormW9, TaxID: "123456789"}

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, _ *stores.Scoped) {
		ctx := context.Background()
		for _, partner := range []string{f.partner1, f.partner2} {
			if _, err := sc.SubmitTaxDetails(ctx, partner, matrixW9, "v1:sealed", "••••6789"); err != nil {
				t.Fatal(err)
			}
		}
		// fresh submits partner1's record again by its partner admin with a signed form, so that
		// every reviewer finds it waiting for review.
		f.fresh["taxRecord"] = func(string) string {
			if _, err := p1.SubmitTaxDetails(ctx, f.partner1, matrixW9, "v1:sealed", "••••6789"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := p1.AttachTaxForm(ctx, f.partner1, models.TaxFormFile{BlobKey: "tax/matrix-" + models.NewID(), FileName: "w9.pdf", ContentType: "application/pdf"}); err != nil {
				t.Fatal(err)
			}
			return f.partner1
		}
		// formReady uploads a real signed form to partner1's record through the API.
		f.fresh["taxForm"] = func(string) string {
			r := do(t, f.h, http.MethodPut, "/api/tax-records/"+f.partner1+"/form?name=w9.pdf", strings.NewReader(minimalPDF),
				append(bearer(f.tokens[authz.RolePartnerAdmin]), "Content-Type", "application/octet-stream")...)
			if r.Status != http.StatusOK {
				t.Fatalf("upload = %d %s", r.Status, r.Body)
			}
			return f.partner1
		}
	})
	record := func(method, suffix string, body any, fresh string) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			if fresh != "" {
				f.fresh[fresh]("")
			}
			return request{method, "/api/tax-records/" + f.partner1 + suffix, body}
		}
	}
	other := func(method, suffix string, body any) func(*fixture) request {
		return func(f *fixture) request { return request{method, "/api/tax-records/" + f.partner2 + suffix, body} }
	}
	details := map[string]any{"legalName": "Partner One Inc.", "country": "US", "formKind": "w9", "taxId": "12-3456789"}
	reason := map[string]any{"reason": "The legal name does not match the form."}
	cases := map[string]matrixCase{
		"list-tax-records": {call: get("/api/tax-records?status=submitted")},
		"get-tax-record":   {byID: true, call: record(http.MethodGet, "", nil, ""), otherPartner: other(http.MethodGet, "", nil)},
		// Another tenant's owner names a partner its tenant does not have: 422 PARTNER_NOT_FOUND.
		"submit-tax-details": {call: record(http.MethodPut, "", details, ""), otherPartner: other(http.MethodPut, "", details)},
		"upload-tax-form": {byID: true, call: record(http.MethodPut, "/form?name=w9.pdf", rawBody(minimalPDF), ""),
			otherPartner: other(http.MethodPut, "/form?name=w9.pdf", rawBody(minimalPDF))},
		"download-tax-form":  {byID: true, call: record(http.MethodGet, "/form", nil, "taxForm"), otherPartner: other(http.MethodGet, "/form", nil)},
		"approve-tax-record": {byID: true, call: record(http.MethodPost, "/approve", nil, "taxRecord"), otherPartner: other(http.MethodPost, "/approve", nil)},
		"reject-tax-record":  {byID: true, call: record(http.MethodPost, "/reject", reason, "taxRecord"), otherPartner: other(http.MethodPost, "/reject", reason)},
		"get-tax-settings":   {call: get("/api/tax-settings")},
		// The matrix tenant keeps the rule off, so withdrawals elsewhere in the matrix still pass.
		"update-tax-settings": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/tax-settings", map[string]any{"requirement": "off"}}
		}},
		"export-payout-totals": {call: get("/api/tax-reports/payout-totals?year=2026")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
