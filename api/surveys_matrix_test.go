package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		if _, _, err := sc.RequestSurveys(context.Background(), models.SurveyRequest{Kind: models.SurveyNPS, PartnerIDs: []string{f.partner1, f.partner2}}); err != nil {
			t.Fatal(err)
		}
	})
	cases := map[string]matrixCase{
		// Without a valid link the public operations find nothing.
		"get-public-survey": {publicStatus: http.StatusNotFound, call: get("/api/survey-links/unknown-token")},
		"answer-survey": {publicStatus: http.StatusNotFound, call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/survey-links/unknown-token", map[string]any{"score": 9}}
		}},
		"send-surveys": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/surveys", map[string]any{"kind": "csat", "partnerIds": []string{f.partner1}}}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/surveys", map[string]any{"kind": "csat", "partnerIds": []string{f.partner2}}}
		}},
		// Partners list and score only their own organisation's surveys (TestSurveysAnsweredThroughTheirLink).
		"list-surveys":      {call: get("/api/surveys")},
		"get-survey-scores": {call: get("/api/survey-scores?kind=nps")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
