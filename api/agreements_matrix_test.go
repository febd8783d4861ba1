package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		a, err := sc.CreateAgreement(ctx, models.NewAgreement{Kind: models.AgreementPartner, Title: "Matrix agreement"})
		if err != nil {
			t.Fatal(err)
		}
		v, err := sc.CreateAgreementVersion(ctx, a.ID, "# Matrix agreement\n", "")
		if err != nil {
			t.Fatal(err)
		}
		// Required of every partner, but only next month: the matrix's deals and withdrawals go on.
		if _, _, err := sc.PublishAgreementVersion(ctx, a.ID, v.ID, &models.AgreementRequirement{AllPartners: true,
			From: time.Now().Add(30 * 24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		accept := func(p *stores.Scoped) string {
			acc, _, err := p.AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID})
			if err != nil {
				t.Fatal(err)
			}
			return acc.ID
		}
		f.ids["agreement"], f.ids["agreementVersion"] = a.ID, v.ID
		f.ids["acceptance1"], f.ids["acceptance2"] = accept(p1), accept(p2)
		f.fresh["agreementDraft"] = func(string) string {
			d, err := sc.CreateAgreementVersion(ctx, a.ID, "# Matrix agreement, amended\n", "")
			if err != nil {
				t.Fatal(err)
			}
			return d.ID
		}
		f.ids["agreementDraft"] = f.fresh["agreementDraft"]("")
	})
	version := func(suffix string, body any) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/agreements/" + f.ids["agreement"] + "/versions/" + f.ids["agreementVersion"] + suffix, body}
		}
	}
	later := time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)
	cases := map[string]matrixCase{
		"list-agreements": {call: get("/api/agreements")},
		"create-agreement": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/agreements", map[string]any{"kind": "nda", "title": "Matrix NDA"}}
		}},
		"get-agreement": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/agreements/" + f.ids["agreement"], nil}
		}},
		"list-agreement-versions": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/agreements/" + f.ids["agreement"] + "/versions", nil}
		}},
		"create-agreement-version": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/agreements/" + f.ids["agreement"] + "/versions", map[string]any{"markdown": "# Draft\n"}}
		}},
		"upload-agreement-pdf": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/agreements/" + f.ids["agreement"] + "/pdf-versions?fileName=terms.pdf", rawBody(pdfBytes)}
		}},
		"get-agreement-version": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/agreements/" + f.ids["agreement"] + "/versions/" + f.ids["agreementVersion"], nil}
		}},
		"get-agreement-document": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/agreements/" + f.ids["agreement"] + "/versions/" + f.ids["agreementVersion"] + "/document", nil}
		}},
		"publish-agreement-version": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["agreementDraft"]
			if role != "foreign" && role != "" {
				id = f.fresh["agreementDraft"](role)
			}
			return request{http.MethodPost, "/api/agreements/" + f.ids["agreement"] + "/versions/" + id + "/publish", map[string]any{}}
		}},
		"set-agreement-requirement": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPut, "/api/agreements/" + f.ids["agreement"] + "/requirement",
				map[string]any{"versionId": f.ids["agreementVersion"], "allPartners": true, "from": later}}
		}},
		// Accepting again answers the first acceptance; operators record one for partner1.
		"accept-agreement-version": {byID: true, call: func(f *fixture, role string) request {
			body := map[string]any{"partnerId": f.partner1}
			return version("/accept", body)(f, role)
		}, otherPartner: func(f *fixture) request {
			return version("/accept", map[string]any{"partnerId": f.partner2})(f, "")
		}},
		"list-pending-agreements": {call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/pending-agreements?partnerId=" + f.partner1, nil}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodGet, "/api/pending-agreements?partnerId=" + f.partner2, nil}
		}},
		"list-agreement-acceptances":   {call: get("/api/agreement-acceptances")},
		"export-agreement-acceptances": {call: get("/api/agreement-acceptances/export")},
		"get-agreement-certificate": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/agreement-acceptances/" + f.ids["acceptance1"] + "/certificate", nil}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodGet, "/api/agreement-acceptances/" + f.ids["acceptance2"] + "/certificate", nil}
		}},
		"list-agreement-certificate-keys": {call: get("/api/agreement-certificate-keys"), publicStatus: http.StatusOK},
		"grant-agreement-grace": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/agreement-graces", map[string]any{"partnerId": f.partner1, "until": later, "reason": "matrix"}}
		}},
		"list-agreement-graces": {call: get("/api/agreement-graces")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
