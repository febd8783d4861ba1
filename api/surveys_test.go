package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestSurveysAnsweredThroughTheirLink(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		h := e.h
		if res := do(t, h, http.MethodPost, "/api/surveys", jsonBody(t, map[string]any{"kind": "nps", "partnerIds": []string{e.goldID}}), e.gold...); res.Status != http.StatusForbidden {
			t.Fatalf("a partner sending surveys = %d", res.Status)
		}
		res := do(t, h, http.MethodPost, "/api/surveys", jsonBody(t, map[string]any{"kind": "nps", "levels": []string{"Gold"}}), e.op...)
		sent := decode[struct {
			BatchID    string
			Recipients int
		}](t, res)
		if res.Status != http.StatusAccepted || sent.Recipients != 1 || sent.BatchID == "" {
			t.Fatalf("send = %d: %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/surveys", jsonBody(t, map[string]any{"kind": "nps"}), e.op...); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("send to nobody = %d: %s", res.Status, res.Body)
		}
		list := decode[ListBody[Survey]](t, do(t, h, http.MethodGet, "/api/surveys?answered=false", nil, e.op...))
		if len(list.Data) != 1 || list.Data[0].PartnerID != e.goldID || list.Data[0].Level != "Gold" {
			t.Fatalf("invitations %+v", list)
		}
		token, err := st.IssueSurveyLink(context.Background(), models.System(e.tenantID), list.Data[0].ID)
		if err != nil {
			t.Fatal(err)
		}

		// The link shows the question and nothing else, without credentials.
		res = do(t, h, http.MethodGet, "/api/survey-links/"+token, nil)
		var shown map[string]any
		if err := json.Unmarshal(res.Body, &shown); err != nil || res.Status != http.StatusOK {
			t.Fatalf("public survey = %d: %s", res.Status, res.Body)
		}
		keys := []string{}
		for k := range shown {
			if k != "$schema" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		if strings.Join(keys, ",") != "kind,maxScore,minScore,program,question" || shown["kind"] != "nps" || shown["maxScore"] != 10.0 ||
			strings.Contains(string(res.Body), e.goldID) || strings.Contains(string(res.Body), "admin@gold.test") || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("the public survey shows %s", res.Body)
		}
		answer := func(tok string, body map[string]any) response {
			return do(t, h, http.MethodPost, "/api/survey-links/"+tok, jsonBody(t, body))
		}
		if res := answer(token, map[string]any{"score": 11}); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("score 11 = %d", res.Status)
		}
		if res := answer(token, map[string]any{"score": 9, "comment": strings.Repeat("x", 2001)}); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a long comment = %d", res.Status)
		}
		if res := answer("wrong-token", map[string]any{"score": 9}); res.Status != http.StatusNotFound {
			t.Fatalf("a wrong token = %d", res.Status)
		}
		if res := answer(token, map[string]any{"score": 9, "comment": "Great program"}); res.Status != http.StatusNoContent {
			t.Fatalf("answer = %d: %s", res.Status, res.Body)
		}
		if res := answer(token, map[string]any{"score": 3}); res.Status != http.StatusConflict || decode[problemBody](t, res).Code != "SURVEY_ANSWERED" {
			t.Fatalf("answering again = %d: %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodGet, "/api/survey-links/"+token, nil); res.Status != http.StatusConflict {
			t.Fatalf("an answered link = %d", res.Status)
		}

		// A partner sees its own answers and scores; another partner nothing.
		mine := decode[ListBody[Survey]](t, do(t, h, http.MethodGet, "/api/surveys?answered=true", nil, e.gold...))
		if len(mine.Data) != 1 || *mine.Data[0].Score != 9 || mine.Data[0].Comment != "Great program" {
			t.Fatalf("gold's answers %+v", mine)
		}
		if theirs := decode[ListBody[Survey]](t, do(t, h, http.MethodGet, "/api/surveys", nil, e.silver...)); len(theirs.Data) != 0 {
			t.Fatalf("silver sees %+v", theirs)
		}
		type scores struct {
			Groups []models.SurveyScore
		}
		got := decode[scores](t, do(t, h, http.MethodGet, "/api/survey-scores?kind=nps&groupBy=level", nil, e.op...))
		if len(got.Groups) != 1 || got.Groups[0].Group != "Gold" || got.Groups[0].Promoters != 1 || *got.Groups[0].Score != 100 {
			t.Fatalf("scores %+v", got)
		}
		if none := decode[scores](t, do(t, h, http.MethodGet, "/api/survey-scores?kind=nps", nil, e.silver...)); len(none.Groups) != 0 {
			t.Fatalf("silver's scores %+v", none)
		}
		var events []models.Event
		if err := st.Core().DB(context.Background()).Where("type = ?", models.EventSurveyResponded).Find(&events).Error; err != nil || len(events) != 1 ||
			strings.Contains(events[0].Payload, "Great program") || !strings.Contains(events[0].Payload, `"class":"promoter"`) {
			t.Fatalf("survey.responded %+v, %v", events, err)
		}
	})
}

func TestSurveyLinksAreRateLimitedPerClientAddress(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		limits := DefaultRateLimits()
		limits.SurveyAnswer = models.Quota{Limit: 3, Window: time.Hour}
		s, _ := identityServerWith(t, st, Config{Version: "test", RateLimits: &limits})
		h := s.Handler()
		for i := range 3 {
			if res := do(t, h, http.MethodGet, "/api/survey-links/guess-"+strconv.Itoa(i), nil); res.Status != http.StatusNotFound {
				t.Fatalf("guess %d = %d", i, res.Status)
			}
		}
		res := do(t, h, http.MethodPost, "/api/survey-links/guess-4", jsonBody(t, map[string]any{"score": 5}))
		if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
			t.Fatalf("a fourth try = %d %v", res.Status, res.Header)
		}
	})
}
