package metrics_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// answer sends partnerID's user a survey of kind, answers it with score and moves the answer
// (and its survey.responded event) to at.
func answer(t *testing.T, s *stores.Set, e *storetest.Partners, partnerID, kind string, score int, at time.Time) {
	t.Helper()
	batch, _, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: kind, PartnerIDs: []string{partnerID}})
	if err != nil {
		t.Fatal(err)
	}
	var sv models.Survey
	if err := s.Core().DB(e.Ctx).Where("tenant_id = ? AND batch_id = ?", e.TenantID, batch).Take(&sv).Error; err != nil {
		t.Fatal(err)
	}
	token, err := s.IssueSurveyLink(e.Ctx, models.System(e.TenantID), sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerSurvey(e.Ctx, token, score, ""); err != nil {
		t.Fatal(err)
	}
	db := s.Core().DB(e.Ctx)
	if err := db.Model(&models.Survey{}).Where("tenant_id = ? AND id = ?", e.TenantID, sv.ID).Update("answered_at", at).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Model(&models.Event{}).Where("tenant_id = ? AND type = ? AND subject_id = ?", e.TenantID, models.EventSurveyResponded, sv.ID).
		Update("occurred_at", at).Error; err != nil {
		t.Fatal(err)
	}
}

func addActiveUser(t *testing.T, s *stores.Set, e *storetest.Partners, partnerID, email string) {
	t.Helper()
	u := &models.User{ID: models.NewID(), TenantID: e.TenantID, PartnerID: &partnerID, Email: email, Name: email, Status: models.UserStatusActive,
		CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := s.Core().DB(e.Ctx).Create(u).Error; err != nil {
		t.Fatal(err)
	}
}

// scoreOf is the score the surveys module reports for one group, nil without answers.
func scoreOf(t *testing.T, sc *stores.Scoped, kind, groupBy, group string, from, to time.Time) (*int, int) {
	t.Helper()
	list, err := sc.SurveyScores(t.Context(), models.SurveyScoreQuery{Kind: kind, GroupBy: groupBy, From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range list {
		if g.Group == group || group == "" {
			if group == "" && len(list) != 1 {
				t.Fatalf("expected one group, got %+v", list)
			}
			return g.Score, g.Responses
		}
	}
	return nil, 0
}

func TestCSATAndNPSMetricsEqualTheSurveyScoresPerPeriodAndScope(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		addActiveUser(t, s, e, e.PartnerA, "a1@alpha.example")
		addActiveUser(t, s, e, e.PartnerB, "b1@beta.example")
		day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -5)
		h := time.Hour
		// Day 0: A answers NPS 10, 9, 3 and CSAT 5, 2, 4; B answers NPS 0, 6 and CSAT 1.
		// Day 1: nothing. Day 2: A answers NPS 8 and CSAT 3; B answers NPS 10.
		for _, a := range []struct {
			partner, kind string
			score         int
			at            time.Time
		}{
			{e.PartnerA, models.SurveyNPS, 10, day.Add(9 * h)}, {e.PartnerA, models.SurveyNPS, 9, day.Add(10 * h)},
			{e.PartnerA, models.SurveyNPS, 3, day.Add(23*h + 59*time.Minute)}, {e.PartnerA, models.SurveyCSAT, 5, day.Add(h)},
			{e.PartnerA, models.SurveyCSAT, 2, day.Add(2 * h)}, {e.PartnerA, models.SurveyCSAT, 4, day.Add(3 * h)},
			{e.PartnerB, models.SurveyNPS, 0, day.Add(9 * h)}, {e.PartnerB, models.SurveyNPS, 6, day.Add(11 * h)},
			{e.PartnerB, models.SurveyCSAT, 1, day.Add(12 * h)},
			{e.PartnerA, models.SurveyNPS, 8, day.AddDate(0, 0, 2).Add(h)}, {e.PartnerA, models.SurveyCSAT, 3, day.AddDate(0, 0, 2).Add(h)},
			{e.PartnerB, models.SurveyNPS, 10, day.AddDate(0, 0, 2).Add(5 * h)},
		} {
			answer(t, s, e, a.partner, a.kind, a.score, a.at)
		}
		ctx := models.WithPrincipal(e.Ctx, &models.Principal{Kind: models.PrincipalOperator, TenantID: e.TenantID, UserID: e.OpUserID})
		csat := &models.Metric{Name: "CSAT", Kind: models.MetricCSAT}
		nps := &models.Metric{Name: "NPS", Kind: models.MetricNPS}
		for _, m := range []*models.Metric{csat, nps} {
			if err := e.Op.CreateMetric(ctx, m, nil); err != nil {
				t.Fatal(err)
			}
			if m.EventType != models.EventSurveyResponded || m.Field != "score" || m.Unit != models.UnitScore {
				t.Fatalf("a %s metric reads %s.%s in %s", m.Kind, m.EventType, m.Field, m.Unit)
			}
		}
		ranges := []struct{ from, to time.Time }{
			{day, day.AddDate(0, 0, 3)},                  // everything
			{day, day.AddDate(0, 0, 1)},                  // day 0
			{day.AddDate(0, 0, 1), day.AddDate(0, 0, 2)}, // day 1: no answers
			{day.Add(10 * h), day.AddDate(0, 0, 2).Add(2 * h)},
		}
		type scope struct {
			name           string
			sc             *stores.Scoped
			q              models.MetricQuery
			groupBy, group string
		}
		scopes := []scope{
			{"the tenant's partners (operator, level gold)", e.Op, models.MetricQuery{PartnerLevel: "gold"}, "level", "gold"},
			{"partner A (operator)", e.Op, models.MetricQuery{PartnerID: e.PartnerA}, "partner", e.PartnerA},
			{"partner B (operator)", e.Op, models.MetricQuery{PartnerID: e.PartnerB}, "partner", e.PartnerB},
			{"partner A (its own user)", e.A, models.MetricQuery{}, "partner", e.PartnerA},
			{"partner B (its own user)", e.B, models.MetricQuery{}, "partner", e.PartnerB},
		}
		check := func(t *testing.T, stage string) {
			for _, m := range []*models.Metric{csat, nps} {
				for _, r := range ranges {
					for _, sp := range scopes {
						q := sp.q
						q.From, q.To = r.from, r.to
						res, err := sp.sc.ComputeMetric(e.Ctx, m.ID, q)
						if err != nil {
							t.Fatal(err)
						}
						want, responses := scoreOf(t, sp.sc, m.Kind, sp.groupBy, sp.group, r.from, r.to)
						got := "none"
						if res.HasValue() {
							got = itoa(res.Value)
						}
						exp := "none"
						if want != nil {
							exp = itoa(int64(*want))
						}
						if got != exp || res.Responses != int64(responses) {
							t.Errorf("%s: %s of %s over [%s, %s): metric %s from %d answers, surveys %s from %d",
								stage, m.Kind, sp.name, r.from.Format(time.RFC3339), r.to.Format(time.RFC3339), got, res.Responses, exp, responses)
						}
					}
				}
			}
		}
		check(t, "from raw events")
		for _, m := range []*models.Metric{csat, nps} {
			if err := s.RollUpMetric(e.Ctx, models.System(e.TenantID), m.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		check(t, "from the rollup")

		// The daily series: each day scored over its own answers, a day without answers has none.
		res, err := e.Op.ComputeMetric(ctx, nps.ID, models.MetricQuery{From: day, To: day.AddDate(0, 0, 3), Interval: models.IntervalDay})
		if err != nil {
			t.Fatal(err)
		}
		// Day 0: promoters 10, 9; detractors 3, 0, 6 of 5: -20. Day 2: 8 passive, 10 promoter: 50.
		if len(res.Series) != 3 || res.Series[0].Value != -20 || res.Series[0].Responses != 5 ||
			res.Series[1].HasValue(models.MetricNPS) || res.Series[2].Value != 50 || res.Series[2].Responses != 2 {
			t.Fatalf("NPS per day: %+v", res.Series)
		}
		if res.Value != 0 || res.Responses != 7 { // (3 - 3) * 100 / 7
			t.Fatalf("NPS over three days: %d from %d", res.Value, res.Responses)
		}
		// Partner A never sees B's answers, and cannot ask for them.
		mine, err := e.A.ComputeMetric(e.Ctx, csat.ID, models.MetricQuery{From: day, To: day.AddDate(0, 0, 3)})
		if err != nil || mine.Responses != 4 || mine.Value != 50 {
			t.Fatalf("partner A's CSAT: %+v, %v", mine, err)
		}
		if _, err := e.A.ComputeMetric(e.Ctx, csat.ID, models.MetricQuery{PartnerID: e.PartnerB}); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("partner A asking for B's CSAT: %v", err)
		}
		// A period without answers has no score, not a score of 0.
		none, err := e.Op.ComputeMetric(ctx, csat.ID, models.MetricQuery{From: day.AddDate(0, 0, -3), To: day})
		if err != nil || none.HasValue() || none.Responses != 0 {
			t.Fatalf("CSAT without answers: %+v, %v", none, err)
		}
	})
}

func TestScoreMetricDefinitionsReadSurveyAnswersOnly(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := models.WithPrincipal(e.Ctx, &models.Principal{Kind: models.PrincipalOperator, TenantID: e.TenantID, UserID: e.OpUserID})
		count := &models.Metric{Name: "Answers", Kind: models.MetricCount, EventType: models.EventSurveyResponded}
		if err := e.Op.CreateMetric(ctx, count, nil); err != nil {
			t.Fatal(err)
		}
		// Becoming a csat metric fixes what it reads and its unit.
		kind := models.MetricCSAT
		m, err := e.Op.UpdateMetric(ctx, count.ID, models.MetricChanges{Kind: &kind})
		if err != nil || m.EventType != models.EventSurveyResponded || m.Field != "score" || m.Unit != models.UnitScore {
			t.Fatalf("count → csat: %+v, %v", m, err)
		}
		// Only csat and nps metrics are scores.
		unit := models.UnitScore
		sum := &models.Metric{Name: "Total", Kind: models.MetricSum, EventType: "deal.won", Field: "amount", Unit: unit}
		if err := e.Op.CreateMetric(ctx, sum, nil); storetest.Code(err) != "INVALID_METRIC" {
			t.Fatalf("a sum in unit score: %v", err)
		}
	})
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
