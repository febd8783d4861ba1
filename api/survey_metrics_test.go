package api

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestCSATAndNPSMetricsEqualTheSurveyScoresAndPartnersSeeTheirOwn(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		h := e.h
		ctx := context.Background()
		// Each partner's user answers surveys sent one at a time.
		answer := func(partnerID, kind string, score int) {
			t.Helper()
			res := do(t, h, http.MethodPost, "/api/surveys", jsonBody(t, map[string]any{"kind": kind, "partnerIds": []string{partnerID}}), e.op...)
			batch := decode[struct{ BatchID string }](t, res).BatchID
			list := decode[ListBody[Survey]](t, do(t, h, http.MethodGet, "/api/surveys?answered=false&partnerId="+partnerID, nil, e.op...))
			for _, sv := range list.Data {
				if sv.BatchID != batch {
					continue
				}
				token, err := st.IssueSurveyLink(ctx, models.System(e.tenantID), sv.ID)
				if err != nil {
					t.Fatal(err)
				}
				if res := do(t, h, http.MethodPost, "/api/survey-links/"+token, jsonBody(t, map[string]any{"score": score})); res.Status != http.StatusNoContent {
					t.Fatalf("answer = %d %s", res.Status, res.Body)
				}
				return
			}
			t.Fatalf("no invitation in batch %s", batch)
		}
		for _, s := range []int{5, 4, 1} {
			answer(e.goldID, "csat", s)
		}
		answer(e.silverID, "csat", 2)
		for _, s := range []int{10, 9, 7, 3} {
			answer(e.goldID, "nps", s)
		}
		answer(e.silverID, "nps", 10)

		metric := func(kind string) Metric {
			res := do(t, h, http.MethodPost, "/api/metrics", jsonBody(t, map[string]any{"name": kind, "kind": kind}), e.op...)
			m := decode[Metric](t, res)
			if res.Status != http.StatusCreated || m.EventType != models.EventSurveyResponded || m.Field != "score" || m.Unit != "score" {
				t.Fatalf("create %s = %d %s", kind, res.Status, res.Body)
			}
			return m
		}
		csat, nps := metric("csat"), metric("nps")
		from := time.Now().UTC().Truncate(time.Hour).Add(-24 * time.Hour)
		to := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
		span := "from=" + url.QueryEscape(rfc(from)) + "&to=" + url.QueryEscape(rfc(to))
		type scores struct{ Groups []models.SurveyScore }
		for _, tc := range []struct {
			name, kind, metricID, scoreQuery, metricQuery, group string
			as                                                   []string
			want                                                 int64
		}{
			{"CSAT of Gold (operator)", "csat", csat.ID, "groupBy=partner", "partnerId=" + e.goldID, e.goldID, e.op, 66},
			{"CSAT of level Silver (operator)", "csat", csat.ID, "groupBy=level", "partnerLevel=Silver", "Silver", e.op, 0},
			{"CSAT of Gold (Gold's user)", "csat", csat.ID, "groupBy=partner", "", e.goldID, e.gold, 66},
			{"NPS of Gold (operator)", "nps", nps.ID, "groupBy=partner", "partnerId=" + e.goldID, e.goldID, e.op, 25},
			{"NPS of level Gold (operator)", "nps", nps.ID, "groupBy=level", "partnerLevel=Gold", "Gold", e.op, 25},
			{"NPS of Silver (Silver's user)", "nps", nps.ID, "groupBy=partner", "", e.silverID, e.silver, 100},
		} {
			got := decode[scores](t, do(t, h, http.MethodGet, "/api/survey-scores?kind="+tc.kind+"&"+tc.scoreQuery+"&"+span, nil, tc.as...))
			var want *models.SurveyScore
			for i := range got.Groups {
				if got.Groups[i].Group == tc.group {
					want = &got.Groups[i]
				}
			}
			res := do(t, h, http.MethodGet, "/api/metrics/"+tc.metricID+"/compute?"+tc.metricQuery+"&"+span, nil, tc.as...)
			v := decode[MetricValue](t, res)
			if res.Status != http.StatusOK || want == nil || want.Score == nil || v.Value == nil || *v.Value != int64(*want.Score) ||
				*v.Value != tc.want || v.Responses == nil || *v.Responses != int64(want.Responses) || v.Unit != "score" {
				t.Errorf("%s: metric %d %s, scores %+v", tc.name, res.Status, res.Body, want)
			}
		}

		// A period without answers has no score: null, not 0, in the value and in each point.
		empty := "from=" + url.QueryEscape(rfc(from.Add(-72*time.Hour))) + "&to=" + url.QueryEscape(rfc(from)) + "&interval=day"
		res := do(t, h, http.MethodGet, "/api/metrics/"+csat.ID+"/compute?"+empty, nil, e.op...)
		raw := decode[struct {
			Value     *int64
			Responses *int64
			Series    []struct {
				Value     *int64
				Responses *int64
			}
		}](t, res)
		if res.Status != http.StatusOK || raw.Value != nil || raw.Responses == nil || *raw.Responses != 0 || len(raw.Series) != 4 || raw.Series[0].Value != nil || raw.Series[3].Value != nil {
			t.Fatalf("CSAT without answers = %d %s", res.Status, res.Body)
		}
		// Counts keep a value of 0 in an empty period.
		count := decode[Metric](t, do(t, h, http.MethodPost, "/api/metrics", jsonBody(t, map[string]any{"name": "Answers", "kind": "count", "eventType": "survey.responded"}), e.op...))
		if v := decode[MetricValue](t, do(t, h, http.MethodGet, "/api/metrics/"+count.ID+"/compute?"+empty, nil, e.op...)); v.Value == nil || *v.Value != 0 || v.Responses != nil {
			t.Fatalf("a count without events %+v", v)
		}
		if res := do(t, h, http.MethodGet, "/api/metrics/"+nps.ID+"/compute?partnerId="+e.silverID, nil, e.gold...); res.Status != http.StatusForbidden {
			t.Fatalf("Gold asking for Silver's NPS = %d", res.Status)
		}

		// One dashboard for every level: each partner sees its own scores only.
		res = do(t, h, http.MethodPost, "/api/dashboards", jsonBody(t, map[string]any{"name": "Satisfaction", "isDefault": true, "widgets": []any{
			map[string]any{"kind": "metric", "metricId": csat.ID, "range": "last_7_days"},
			map[string]any{"kind": "time-series", "metricId": nps.ID, "range": "last_7_days", "interval": "day"},
		}}), e.op...)
		if res.Status != http.StatusCreated {
			t.Fatalf("dashboard = %d %s", res.Status, res.Body)
		}
		for _, tc := range []struct {
			name       string
			as         []string
			csat, nps  int64
			csatAnswer int64
		}{{"Gold", e.gold, 66, 25, 3}, {"Silver", e.silver, 0, 100, 1}, {"operators", e.op, 50, 40, 4}} {
			r := decode[RenderedDashboard](t, do(t, h, http.MethodGet, "/api/dashboards/mine", nil, tc.as...))
			if len(r.Widgets) != 2 || r.Widgets[0].Value == nil || r.Widgets[1].Value == nil {
				t.Fatalf("%s's dashboard %+v", tc.name, r)
			}
			c, n := r.Widgets[0].Value, r.Widgets[1].Value
			last := n.Series[len(n.Series)-1]
			if num(c.Value) != tc.csat || num(c.Responses) != tc.csatAnswer || num(n.Value) != tc.nps || num(last.Value) != tc.nps || n.Series[0].Value != nil {
				t.Errorf("%s sees CSAT %d from %d, NPS %d (today %d, first day %v)", tc.name, num(c.Value), num(c.Responses), num(n.Value), num(last.Value), n.Series[0].Value)
			}
		}
	})
}
