package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func matrixQuiz() models.Quiz {
	return models.Quiz{Questions: []models.QuizQuestion{{Text: "Right?", Options: []models.QuizOption{{Text: "Yes", Correct: true}, {Text: "No"}}}}}
}

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		item, err := sc.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentLink, Title: "Course reading", URL: "https://example.com/read",
			Visibility: models.ContentVisibility{AllPartners: true}})
		if err != nil {
			t.Fatal(err)
		}
		course := func(partner string, items ...string) string {
			c, err := sc.CreateCourse(ctx, models.NewCourse{Title: "Matrix course", ItemIDs: items, Quiz: matrixQuiz(), PassMark: 100, MaxAttempts: 100,
				ValidityDays: 30, Visibility: models.ContentVisibility{PartnerIDs: []string{partner}}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sc.PublishCourse(ctx, c.ID); err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		f.ids["course"], f.ids["courseWithItem"], f.ids["course2"] = course(f.partner1), course(f.partner1, item.ID), course(f.partner2)
		f.ids["courseItem"] = item.ID
		f.fresh["draftCourse"] = func(string) string {
			c, err := sc.CreateCourse(ctx, models.NewCourse{Title: "Draft", Quiz: matrixQuiz(), PassMark: 50, ValidityDays: 30})
			if err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		f.ids["draftCourse"] = f.fresh["draftCourse"]("")
		// Every role's user is enrolled, so that each reads its own progress.
		for _, role := range authz.BuiltinRoles() {
			p := models.Principal{Kind: models.PrincipalOperator, TenantID: p1.ScopedCertifications.P.TenantID, UserID: f.roleUserIDs[role.Name]}
			if role.Audience == authz.ForPartners {
				p.Kind, p.PartnerID = models.PrincipalPartner, f.partner1
			}
			if _, err := f.st.For(&p).Enrol(ctx, f.ids["course"]); err != nil {
				t.Fatal(err)
			}
		}
		res, err := p1.SubmitQuizAttempt(ctx, f.ids["course"], []models.QuizAnswer{{QuestionID: "q1", OptionIDs: []string{"q1o1"}}})
		if err != nil || res.Certificate == nil {
			t.Fatalf("a pass for the matrix: %+v, %v", res, err)
		}
		f.ids["certificate"] = res.Certificate.ID
		res, err = p2.SubmitQuizAttempt(ctx, f.ids["course2"], []models.QuizAnswer{{QuestionID: "q1", OptionIDs: []string{"q1o1"}}})
		if err != nil || res.Certificate == nil {
			t.Fatalf("partner2's pass for the matrix: %+v, %v", res, err)
		}
		f.ids["certificate2"] = res.Certificate.ID
	})
	course := func(f *fixture, key, suffix string) string { return "/api/courses/" + f.ids[key] + suffix }
	// draft is a new draft course for each call, so that publishing and archiving always find one.
	draft := func(f *fixture, role string) string {
		id := f.ids["draftCourse"]
		if role != "foreign" && role != "" {
			id = f.fresh["draftCourse"](role)
		}
		return "/api/courses/" + id
	}
	cases := map[string]matrixCase{
		"list-courses": {call: get("/api/courses")},
		"create-course": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/courses", map[string]any{"title": "New", "passMark": 80, "validityDays": 365}}
		}},
		"get-course": {byID: true, call: func(f *fixture, _ string) request { return request{http.MethodGet, course(f, "course", ""), nil} },
			otherPartner: func(f *fixture) request { return request{http.MethodGet, course(f, "course2", ""), nil} }},
		"update-course": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPatch, course(f, "course", ""), map[string]any{"title": "Matrix course"}}
		}},
		"publish-course": {byID: true, call: func(f *fixture, role string) request {
			return request{http.MethodPost, draft(f, role) + "/publish", nil}
		}},
		"archive-course": {byID: true, call: func(f *fixture, role string) request {
			return request{http.MethodPost, draft(f, role) + "/archive", nil}
		}},
		"enrol-course": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, course(f, "course", "/enrolment"), nil}
		},
			otherPartner: func(f *fixture) request { return request{http.MethodPost, course(f, "course2", "/enrolment"), nil} }},
		"get-enrolment": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, course(f, "course", "/enrolment"), nil}
		},
			otherPartner: func(f *fixture) request { return request{http.MethodGet, course(f, "course2", "/enrolment"), nil} }},
		"complete-course-item": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodPost, course(f, "courseWithItem", "/items/"+f.ids["courseItem"]+"/completion"), nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodPost, course(f, "course2", "/items/"+f.ids["courseItem"]+"/completion"), nil}
			}},
		"submit-quiz-attempt": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodPost, course(f, "course", "/attempts"), map[string]any{"answers": []map[string]any{{"questionId": "q1", "optionIds": []string{"q1o2"}}}}}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodPost, course(f, "course2", "/attempts"), map[string]any{"answers": []map[string]any{{"questionId": "q1", "optionIds": []string{"q1o2"}}}}}
			}},
		// Partners list only their own organisation's attempts and certificates (TestCertificationsThroughHTTP).
		"list-quiz-attempts": {call: get("/api/quiz-attempts")},
		"list-certificates":  {call: get("/api/certificates")},
		"get-certificate": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/certificates/" + f.ids["certificate"], nil}
		},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/certificates/" + f.ids["certificate2"], nil}
			}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
