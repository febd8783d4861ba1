package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		fund := func(partnerID string) string {
			fd, err := sc.CreateMDFFund(ctx, models.NewMDFFund{Name: "Matrix", PartnerID: partnerID, Currency: "EUR", Amount: 1_000_000_00,
				PeriodStart: "2026-01-01", PeriodEnd: "2026-12-31", ExpiresAt: time.Now().Add(365 * 24 * time.Hour)})
			must(err)
			return fd.ID
		}
		f.ids["mdfFund1"], f.ids["mdfFund2"] = fund(f.partner1), fund(f.partner2)
		submit := func(scope *stores.Scoped, fundID string, budget int64) string {
			r, err := scope.SubmitMDFRequest(ctx, models.NewMDFRequest{FundID: fundID, Activity: "Matrix webinar", PlannedStart: "2026-03-01", PlannedEnd: "2026-03-02", Budget: budget})
			must(err)
			return r.ID
		}
		approved := func(scope *stores.Scoped, fundID string) string {
			id := submit(scope, fundID, 100_000_00)
			_, err := sc.ApproveMDFRequest(ctx, id, 0)
			must(err)
			return id
		}
		f.ids["mdfRequest1"], f.ids["mdfRequest2"] = approved(p1, f.ids["mdfFund1"]), approved(p2, f.ids["mdfFund2"])
		f.fresh["mdfRequest"] = func(string) string { return submit(p1, f.ids["mdfFund1"], 1_00) }
		f.fresh["mdfChanges"] = func(string) string {
			id := submit(p1, f.ids["mdfFund1"], 1_00)
			_, err := sc.RequestMDFChanges(ctx, id, "matrix")
			must(err)
			return id
		}
		claim := func(scope *stores.Scoped, requestID string) string {
			c, err := scope.SubmitMDFClaim(ctx, models.NewMDFClaim{RequestID: requestID, Amount: 1_00, Links: []string{"https://example.com/proof"}})
			must(err)
			return c.ID
		}
		f.ids["mdfClaim1"], f.ids["mdfClaim2"] = claim(p1, f.ids["mdfRequest1"]), claim(p2, f.ids["mdfRequest2"])
		f.fresh["mdfClaim"] = func(string) string { return claim(p1, f.ids["mdfRequest1"]) }
		// mdfProof uploads a real proof file to partner1's claim through the API, once.
		f.fresh["mdfProof"] = func(string) string {
			if id := f.ids["mdfProof1"]; id != "" {
				return id
			}
			r := do(t, f.h, http.MethodPut, "/api/mdf/claims/"+f.ids["mdfClaim1"]+"/proofs?name=invoice.pdf", strings.NewReader(minimalPDF),
				append(bearer(f.tokens[authz.RolePartnerAdmin]), "Content-Type", "application/octet-stream")...)
			if r.Status != http.StatusOK {
				t.Fatalf("proof upload = %d %s", r.Status, r.Body)
			}
			c := decode[MDFClaim](t, r)
			f.ids["mdfProof1"] = c.Proofs[len(c.Proofs)-1].ID
			return f.ids["mdfProof1"]
		}
	})
	// fresh aims a consuming call at a new record, and the foreign and anonymous calls at the
	// fixture's record of that kind.
	fresh := func(method, prefix, kind, stable, suffix string, body any) func(*fixture, string) request {
		return func(f *fixture, role string) request {
			id := f.ids[stable]
			if role != "foreign" && role != "" {
				id = f.fresh[kind](role)
			}
			return request{method, prefix + id + suffix, body}
		}
	}
	on := func(method, prefix, name, suffix string, body any) func(*fixture, string) request {
		return func(f *fixture, _ string) request { return request{method, prefix + f.ids[name] + suffix, body} }
	}
	other := func(method, prefix, name, suffix string, body any) func(*fixture) request {
		return func(f *fixture) request { return request{method, prefix + f.ids[name] + suffix, body} }
	}
	const funds, requests, claims = "/api/mdf/funds/", "/api/mdf/requests/", "/api/mdf/claims/"
	reason := map[string]any{"reason": "matrix"}
	requestBody := func(partner, fund string) func(*fixture) map[string]any {
		return func(f *fixture) map[string]any {
			return map[string]any{"fundId": f.ids[fund], "partnerId": partner, "activity": "Matrix event", "plannedStart": "2026-04-01",
				"plannedEnd": "2026-04-02", "budget": 100, "expectedPipeline": 10000}
		}
	}
	resubmit := map[string]any{"activity": "Matrix event, changed", "plannedStart": "2026-04-01", "plannedEnd": "2026-04-03", "budget": 100}
	cases := map[string]matrixCase{
		"create-mdf-fund": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/mdf/funds", map[string]any{"partnerId": f.partner1, "currency": "EUR", "amount": 100000,
				"periodStart": "2026-01-01", "periodEnd": "2026-03-31", "expiresAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)}}
		}},
		"list-mdf-funds": {call: get("/api/mdf/funds?status=open")},
		"get-mdf-fund":   {byID: true, call: on(http.MethodGet, funds, "mdfFund1", "", nil), otherPartner: other(http.MethodGet, funds, "mdfFund2", "", nil)},
		"submit-mdf-request": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/mdf/requests", requestBody(f.partner1, "mdfFund1")(f)}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/mdf/requests", requestBody(f.partner2, "mdfFund2")(f)}
		}},
		"list-mdf-requests": {call: get("/api/mdf/requests?status=submitted")},
		"get-mdf-request": {byID: true, call: on(http.MethodGet, requests, "mdfRequest1", "", nil),
			otherPartner: other(http.MethodGet, requests, "mdfRequest2", "", nil)},
		"resubmit-mdf-request": {byID: true, call: fresh(http.MethodPut, requests, "mdfChanges", "mdfRequest1", "", resubmit),
			otherPartner: other(http.MethodPut, requests, "mdfRequest2", "", resubmit)},
		"approve-mdf-request": {byID: true, call: fresh(http.MethodPost, requests, "mdfRequest", "mdfRequest1", "/approve", map[string]any{}),
			otherPartner: other(http.MethodPost, requests, "mdfRequest2", "/approve", map[string]any{})},
		"reject-mdf-request": {byID: true, call: fresh(http.MethodPost, requests, "mdfRequest", "mdfRequest1", "/reject", reason),
			otherPartner: other(http.MethodPost, requests, "mdfRequest2", "/reject", reason)},
		"request-mdf-changes": {byID: true, call: fresh(http.MethodPost, requests, "mdfRequest", "mdfRequest1", "/request-changes", reason),
			otherPartner: other(http.MethodPost, requests, "mdfRequest2", "/request-changes", reason)},
		"submit-mdf-claim": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/mdf/claims", map[string]any{"requestId": f.ids["mdfRequest1"], "amount": 1, "leads": 3, "links": []string{"https://example.com/p"}}}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/mdf/claims", map[string]any{"requestId": f.ids["mdfRequest2"], "amount": 1}}
		}},
		"list-mdf-claims": {call: get("/api/mdf/claims?status=submitted")},
		"get-mdf-claim": {byID: true, call: on(http.MethodGet, claims, "mdfClaim1", "", nil),
			otherPartner: other(http.MethodGet, claims, "mdfClaim2", "", nil)},
		"upload-mdf-proof": {byID: true, call: fresh(http.MethodPut, claims, "mdfClaim", "mdfClaim1", "/proofs?name=invoice.pdf", rawBody(minimalPDF)),
			otherPartner: other(http.MethodPut, claims, "mdfClaim2", "/proofs?name=invoice.pdf", rawBody(minimalPDF))},
		"download-mdf-proof": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, claims + f.ids["mdfClaim1"] + "/proofs/" + f.fresh["mdfProof"](""), nil}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodGet, claims + f.ids["mdfClaim2"] + "/proofs/" + f.fresh["mdfProof"](""), nil}
		}},
		"approve-mdf-claim": {byID: true, call: fresh(http.MethodPost, claims, "mdfClaim", "mdfClaim1", "/approve", nil),
			otherPartner: other(http.MethodPost, claims, "mdfClaim2", "/approve", nil)},
		"reject-mdf-claim": {byID: true, call: fresh(http.MethodPost, claims, "mdfClaim", "mdfClaim1", "/reject", reason),
			otherPartner: other(http.MethodPost, claims, "mdfClaim2", "/reject", reason)},
		"get-mdf-settings": {call: get("/api/mdf/settings")},
		"update-mdf-settings": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/mdf/settings", map[string]any{}}
		}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
