package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, _, _, _ *stores.Scoped) {
		apply := func() string {
			a := &models.Application{Organisation: "Applicant", ContactName: "Ann", ContactEmail: f.unique("applicant"), PartnerType: models.PartnerAgency}
			if _, err := f.st.SubmitApplication(context.Background(), "matrix", a, nil); err != nil {
				t.Fatal(err)
			}
			return a.ID
		}
		f.ids["application"] = apply()
		f.fresh["application"] = func(string) string { return apply() }
	})
	decide := func(suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, role string) request {
			id := f.ids["application"]
			if role != "foreign" && role != "" {
				id = f.fresh["application"](role)
			}
			return request{http.MethodPost, "/api/applications/" + id + suffix, body}
		}
	}
	cases := map[string]matrixCase{
		"get-public-application-form": {publicStatus: http.StatusOK, call: get("/api/public/matrix/application-form")},
		"submit-application": {publicStatus: http.StatusAccepted, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/public/matrix/applications", map[string]any{"organisation": "Bots Inc", "contactName": "Bo",
				"contactEmail": f.unique("public"), "partnerType": "reseller"}}
		}},
		"get-application-form": {call: get("/api/application-form")},
		"set-application-form": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/application-form", map[string]any{"questions": []map[string]any{{"key": "region", "label": "Region"}},
				"reapplyAfterDays": 30, "autoApproveDomains": []string{}}}
		}},
		"list-applications": {call: get("/api/applications")},
		"get-application": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/applications/" + f.ids["application"], nil}
		}},
		"approve-application": {byID: true, call: decide("/approve", nil)},
		"reject-application":  {byID: true, call: decide("/reject", map[string]any{"reason": "not a fit"})},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
