package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestCertificationsThroughHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		post := func(path string, body any, who []string) response {
			t.Helper()
			if body == nil {
				return do(t, e.h, http.MethodPost, path, nil, who...)
			}
			return do(t, e.h, http.MethodPost, path, jsonBody(t, body), who...)
		}
		item := decode[ContentItem](t, post("/api/content/items", map[string]any{"kind": "link", "title": "Gold handbook",
			"url": "https://example.com/handbook", "visibility": map[string]any{"levels": []string{"Gold"}}}, e.op))
		res := post("/api/courses", map[string]any{"title": "Gold certification", "itemIds": []string{item.ID}, "passMark": 100, "maxAttempts": 2,
			"validityDays": 365, "visibility": map[string]any{"levels": []string{"Gold"}},
			"questions": []map[string]any{
				{"text": "Who approves withdrawals?", "options": []map[string]any{{"text": "The partner"}, {"text": "Finance", "correct": true}}},
				{"text": "Which are levels?", "multiple": true, "options": []map[string]any{{"text": "Gold", "correct": true}, {"text": "Silver", "correct": true}, {"text": "Tin"}}},
			}}, e.op)
		if res.Status != http.StatusCreated {
			t.Fatalf("create = %d: %s", res.Status, res.Body)
		}
		course := decode[Course](t, res)
		if course.Questions[1].Options[1].ID != "q2o2" || course.Questions[1].Options[1].Correct == nil || !*course.Questions[1].Options[1].Correct {
			t.Fatalf("operators see ids and answers: %+v", course.Questions)
		}
		path := "/api/courses/" + course.ID
		if res := do(t, e.h, http.MethodGet, path, nil, e.gold...); res.Status != http.StatusNotFound {
			t.Fatalf("a partner reading a draft = %d", res.Status)
		}
		if res := post(path+"/publish", nil, e.op); res.Status != http.StatusOK {
			t.Fatalf("publish = %d: %s", res.Status, res.Body)
		}
		if res := do(t, e.h, http.MethodPatch, path, jsonBody(t, map[string]any{"passMark": 50}), e.op...); res.Status != http.StatusConflict ||
			res.problem(t).Code != "COURSE_PUBLISHED" {
			t.Fatalf("changing a published pass mark = %d: %s", res.Status, res.Body)
		}
		if res := do(t, e.h, http.MethodGet, path, nil, e.silver...); res.Status != http.StatusNotFound {
			t.Fatalf("Silver reading Gold's course = %d", res.Status)
		}
		res = do(t, e.h, http.MethodGet, path, nil, e.gold...)
		if res.Status != http.StatusOK || strings.Contains(string(res.Body), `"correct"`) {
			t.Fatalf("Gold's view = %d, must not say which options are right: %s", res.Status, res.Body)
		}

		answers := func(q1 string, q2 ...string) map[string]any {
			return map[string]any{"answers": []map[string]any{{"questionId": "q1", "optionIds": []string{q1}}, {"questionId": "q2", "optionIds": q2}}}
		}
		if res := post(path+"/attempts", answers("q1o2", "q2o1", "q2o2"), e.gold); res.Status != http.StatusConflict || res.problem(t).Code != "ITEMS_INCOMPLETE" {
			t.Fatalf("the quiz before the items = %d: %s", res.Status, res.Body)
		}
		if res := post(path+"/items/"+item.ID+"/completion", nil, e.gold); res.Status != http.StatusOK {
			t.Fatalf("complete = %d: %s", res.Status, res.Body)
		}
		if res := post(path+"/attempts", map[string]any{"answers": []map[string]any{{"questionId": "q7", "optionIds": []string{"q7o1"}}}}, e.gold); res.Status != http.StatusUnprocessableEntity ||
			res.problem(t).Code != "INVALID_ANSWERS" {
			t.Fatalf("an unknown question = %d: %s", res.Status, res.Body)
		}
		res = post(path+"/attempts", answers("q1o1", "q2o1"), e.gold)
		failed := decode[AttemptResultBody](t, res)
		if res.Status != http.StatusCreated || failed.Attempt.Passed || failed.Attempt.Score != 0 || failed.AttemptsLeft != 1 || failed.Certificate != nil {
			t.Fatalf("a failed attempt = %d: %s", res.Status, res.Body)
		}
		if body := string(res.Body); strings.Contains(body, "q1o2") || strings.Contains(body, "q2o2") {
			t.Fatalf("a failed attempt reveals the right options: %s", body)
		}
		res = post(path+"/attempts", answers("q1o2", "q2o2", "q2o1"), e.gold)
		passed := decode[AttemptResultBody](t, res)
		if res.Status != http.StatusCreated || !passed.Attempt.Passed || passed.Certificate == nil || passed.Certificate.Status != "active" {
			t.Fatalf("a pass = %d: %s", res.Status, res.Body)
		}

		mine := decode[ListBody[Certificate]](t, do(t, e.h, http.MethodGet, "/api/certificates?status=active", nil, e.gold...))
		if len(mine.Data) != 1 || mine.Data[0].ID != passed.Certificate.ID || mine.Data[0].PartnerID != e.goldID {
			t.Fatalf("Gold's certificates: %+v", mine)
		}
		if theirs := decode[ListBody[Certificate]](t, do(t, e.h, http.MethodGet, "/api/certificates", nil, e.silver...)); len(theirs.Data) != 0 {
			t.Fatalf("Silver sees %d certificates", len(theirs.Data))
		}
		if res := do(t, e.h, http.MethodGet, "/api/certificates/"+passed.Certificate.ID, nil, e.silver...); res.Status != http.StatusNotFound {
			t.Fatalf("Silver reading Gold's certificate = %d", res.Status)
		}
		if res := do(t, e.h, http.MethodGet, "/api/quiz-attempts?courseId="+course.ID, nil, e.silver...); len(decode[ListBody[QuizAttempt]](t, res).Data) != 0 {
			t.Fatalf("Silver sees Gold's attempts: %s", res.Body)
		}
		attempts := decode[ListBody[QuizAttempt]](t, do(t, e.h, http.MethodGet, "/api/quiz-attempts?courseId="+course.ID+"&limit=1", nil, e.op...))
		if len(attempts.Data) != 1 || attempts.NextCursor == "" {
			t.Fatalf("the operator's first page of attempts: %+v", attempts)
		}
		progress := decode[Enrolment](t, do(t, e.h, http.MethodGet, path+"/enrolment", nil, e.gold...))
		if progress.Attempts != 2 || progress.AttemptsUsed != 0 || len(progress.CompletedItemIDs) != 1 {
			t.Fatalf("Gold's progress after a pass: %+v", progress)
		}

		// The earned event names the certificate, never the answers.
		evs, _, err := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: e.tenantID}).ListEvents(t.Context(),
			models.EventFilter{Type: models.EventCertificationEarned}, models.Page{Limit: 10})
		if err != nil || len(evs) != 1 || evs[0].PartnerID == nil || *evs[0].PartnerID != e.goldID {
			t.Fatalf("certification.earned: %+v, %v", evs, err)
		}
		if p := evs[0].Payload; !strings.Contains(p, passed.Certificate.ID) || strings.Contains(p, "q1o") {
			t.Fatalf("the event's payload: %s", p)
		}
	})
}
