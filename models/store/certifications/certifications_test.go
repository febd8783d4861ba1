package certifications_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

// eventTypes are the types of the tenant's events matching pattern, oldest first.
func eventTypes(t *testing.T, e *storetest.Partners, pattern string) []string {
	t.Helper()
	evs, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: pattern}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// quiz has two single-choice questions: the right options are "q1o2" and "q2o1".
func quiz() models.Quiz {
	return models.Quiz{Questions: []models.QuizQuestion{
		{Text: "What does a deal registration protect?", Options: []models.QuizOption{{Text: "Nothing"}, {Text: "The partner's claim", Correct: true}}},
		{Text: "Who approves a withdrawal?", Options: []models.QuizOption{{Text: "Finance", Correct: true}, {Text: "The partner"}, {Text: "Nobody"}}},
	}}
}

var (
	right = []models.QuizAnswer{{QuestionID: "q1", OptionIDs: []string{"q1o2"}}, {QuestionID: "q2", OptionIDs: []string{"q2o1"}}}
	wrong = []models.QuizAnswer{{QuestionID: "q1", OptionIDs: []string{"q1o1"}}, {QuestionID: "q2", OptionIDs: []string{"q2o1"}}}
)

// link adds a link item to the content library, visible as vis says.
func link(t *testing.T, e *storetest.Partners, title string, vis models.ContentVisibility) string {
	t.Helper()
	it, err := e.Op.CreateContentItem(e.Ctx, models.NewContentItem{Kind: models.ContentLink, Title: title, URL: "https://example.com/" + title, Visibility: vis})
	if err != nil {
		t.Fatal(err)
	}
	return it.ID
}

// publishedCourse is a published course for partner A (and B when both) with one item every
// partner sees and one only partner B sees.
func publishedCourse(t *testing.T, e *storetest.Partners, maxAttempts int, both bool) (*models.Course, string, string) {
	t.Helper()
	shared := link(t, e, "handbook", models.ContentVisibility{AllPartners: true})
	onlyB := link(t, e, "beta-notes", models.ContentVisibility{PartnerIDs: []string{e.PartnerB}})
	vis := models.ContentVisibility{PartnerIDs: []string{e.PartnerA}}
	if both {
		vis.PartnerIDs = append(vis.PartnerIDs, e.PartnerB)
	}
	c, err := e.Op.CreateCourse(e.Ctx, models.NewCourse{Title: "Partner basics", ItemIDs: []string{shared, onlyB}, Quiz: quiz(),
		PassMark: 100, MaxAttempts: maxAttempts, ValidityDays: 365, Visibility: vis})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = e.Op.PublishCourse(e.Ctx, c.ID); err != nil || c.Status != models.CoursePublished {
		t.Fatalf("publish: %+v, %v", c, err)
	}
	return c, shared, onlyB
}

func TestPartnersSeeTheirCoursesWithoutTheAnswers(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		if _, err := e.Op.CreateCourse(e.Ctx, models.NewCourse{Title: "Bad", Quiz: models.Quiz{Questions: []models.QuizQuestion{
			{Text: "Two right?", Options: []models.QuizOption{{Text: "a", Correct: true}, {Text: "b", Correct: true}}}}},
			PassMark: 80, ValidityDays: 30}); code(err) != "INVALID_QUIZ" {
			t.Fatalf("a single-choice question with two right options: %v", err)
		}
		if _, err := e.A.CreateCourse(e.Ctx, models.NewCourse{Title: "Mine", PassMark: 80, ValidityDays: 30}); code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner creating a course: %v", err)
		}
		draft, err := e.Op.CreateCourse(e.Ctx, models.NewCourse{Title: "Empty", PassMark: 80, ValidityDays: 30, Visibility: models.ContentVisibility{AllPartners: true}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.PublishCourse(e.Ctx, draft.ID); code(err) != "QUIZ_REQUIRED" {
			t.Fatalf("publishing without questions: %v", err)
		}
		if _, err := e.A.Course(e.Ctx, draft.ID); code(err) != "COURSE_NOT_FOUND" {
			t.Fatalf("a partner reading a draft: %v", err)
		}
		c, shared, _ := publishedCourse(t, e, 3, false)

		got, err := e.A.Course(e.Ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.ItemIDs) != 1 || got.ItemIDs[0] != shared {
			t.Errorf("partner A sees items %v, want only the shared one", got.ItemIDs)
		}
		for _, q := range got.Quiz.Questions {
			for _, o := range q.Options {
				if o.Correct {
					t.Fatalf("a partner learned that %s is right", o.ID)
				}
			}
		}
		if len(got.PartnerIDs) != 0 {
			t.Error("a partner learned who else sees the course")
		}
		if _, err := e.B.Course(e.Ctx, c.ID); code(err) != "COURSE_NOT_FOUND" {
			t.Fatalf("partner B reading partner A's course: %v", err)
		}
		list, _, err := e.B.ListCourses(e.Ctx, models.CourseFilter{}, models.Page{})
		if err != nil || len(list) != 0 {
			t.Fatalf("partner B lists %d courses, %v", len(list), err)
		}
		opView, err := e.Op.Course(e.Ctx, c.ID)
		if err != nil || !opView.Quiz.Questions[0].Options[1].Correct || len(opView.ItemIDs) != 2 {
			t.Fatalf("operators see the answers and every item: %+v, %v", opView, err)
		}

		// A published course keeps its quiz; its title may change.
		q := quiz()
		if _, err := e.Op.UpdateCourse(e.Ctx, c.ID, models.CourseChanges{Quiz: &q}); code(err) != "COURSE_PUBLISHED" {
			t.Fatalf("changing a published quiz: %v", err)
		}
		title := "Partner basics 2026"
		if got, err := e.Op.UpdateCourse(e.Ctx, c.ID, models.CourseChanges{Title: &title}); err != nil || got.Title != title {
			t.Fatalf("renaming: %+v, %v", got, err)
		}
	})
}

func TestAttemptsAreGradedLimitedAndAPassIssuesACertificate(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		c, shared, onlyB := publishedCourse(t, e, 2, false)

		if _, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, right); code(err) != "ITEMS_INCOMPLETE" {
			t.Fatalf("the quiz before the items: %v", err)
		}
		if _, err := e.A.CompleteCourseItem(e.Ctx, c.ID, onlyB); code(err) != "COURSE_ITEM_NOT_FOUND" {
			t.Fatalf("completing an item partner A cannot see: %v", err)
		}
		en, err := e.A.CompleteCourseItem(e.Ctx, c.ID, shared)
		if err != nil || len(en.Completed) != 1 {
			t.Fatalf("complete: %+v, %v", en, err)
		}
		if _, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, []models.QuizAnswer{{QuestionID: "q1", OptionIDs: []string{"q1o1", "q1o2"}}}); code(err) != "INVALID_ANSWERS" {
			t.Fatalf("two options for a single-choice question: %v", err)
		}
		res, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, wrong)
		if err != nil || res.Attempt.Passed || res.Attempt.Score != 50 || res.AttemptsLeft != 1 || res.Certificate != nil {
			t.Fatalf("a wrong answer: %+v, %v", res, err)
		}
		res, err = e.A.SubmitQuizAttempt(e.Ctx, c.ID, right)
		if err != nil || !res.Attempt.Passed || res.Attempt.Score != 100 || res.Certificate == nil || res.AttemptsLeft != 2 {
			t.Fatalf("the right answers: %+v, %v", res, err)
		}
		first := res.Certificate
		if d := first.ExpiresAt.Sub(first.IssuedAt); d != 365*24*time.Hour {
			t.Errorf("valid for %v, want 365 days", d)
		}
		if types := strings.Join(eventTypes(t, e, "certification.*"), ","); types != "certification.course_published,certification.earned" {
			t.Fatalf("events %s, want the course published and one certificate earned", types)
		}

		// The earned event starts the certificate's expiry timer.
		evs, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: models.EventCertificationEarned}, models.Page{Limit: 10})
		if err != nil || len(evs) != 1 {
			t.Fatalf("certification.earned: %v, %v", evs, err)
		}
		if routes, err := s.EventRoutes(e.Ctx, models.System(e.TenantID), evs[0].ID); err != nil || routes.ExpireCertificate != first.ID {
			t.Fatalf("routes of certification.earned: %+v, %v", routes, err)
		}

		// Two more failures use the attempts a pass gave back; a third is refused.
		for range 2 {
			if _, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, wrong); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, right); code(err) != "ATTEMPTS_EXHAUSTED" {
			t.Fatalf("past the limit: %v", err)
		}

		// Partner B sees neither A's attempts nor its certificates; the operator sees both.
		if got, _, err := e.B.ListCertificates(e.Ctx, models.CertificateFilter{}, models.Page{}); err != nil || len(got) != 0 {
			t.Fatalf("partner B sees %d certificates, %v", len(got), err)
		}
		if _, err := e.B.Certificate(e.Ctx, first.ID); code(err) != "CERTIFICATE_NOT_FOUND" {
			t.Fatalf("partner B reading A's certificate: %v", err)
		}
		if got, _, err := e.Op.ListQuizAttempts(e.Ctx, models.AttemptFilter{CourseID: c.ID}, models.Page{}); err != nil || len(got) != 4 {
			t.Fatalf("the operator sees %d attempts, %v", len(got), err)
		}
		if got, _, err := e.A.ListCertificates(e.Ctx, models.CertificateFilter{Status: models.CertificateActive}, models.Page{}); err != nil || len(got) != 1 {
			t.Fatalf("partner A's active certificates: %d, %v", len(got), err)
		}
	})
}

func TestARenewalReplacesTheEarlierCertificate(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		c, shared, _ := publishedCourse(t, e, 3, false)
		if _, err := e.A.CompleteCourseItem(e.Ctx, c.ID, shared); err != nil {
			t.Fatal(err)
		}
		first, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, right)
		if err != nil {
			t.Fatal(err)
		}
		second, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, right)
		if err != nil || second.Certificate == nil {
			t.Fatalf("renewal: %+v, %v", second, err)
		}
		old, err := e.A.Certificate(e.Ctx, first.Certificate.ID)
		if err != nil || old.Status != models.CertificateRenewed || old.EndedAt == nil {
			t.Fatalf("the earlier certificate: %+v, %v", old, err)
		}
		// Its timer ends without an expiry event.
		next, err := s.AdvanceCertificateExpiry(e.Ctx, models.System(e.TenantID), old.ID, old.ExpiresAt.Add(time.Hour))
		if err != nil || !next.Done {
			t.Fatalf("timer of a renewed certificate: %+v, %v", next, err)
		}
	})
}

func TestConcurrentAttemptsNeverExceedTheLimit(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		c, shared, _ := publishedCourse(t, e, 3, false)
		if _, err := e.A.CompleteCourseItem(e.Ctx, c.ID, shared); err != nil {
			t.Fatal(err)
		}
		const n = 12
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = e.A.SubmitQuizAttempt(e.Ctx, c.ID, wrong)
			}()
		}
		wg.Wait()
		graded, refused := 0, 0
		for _, err := range errs {
			switch code(err) {
			case "":
				graded++
			case "ATTEMPTS_EXHAUSTED":
				refused++
			default:
				t.Errorf("a concurrent attempt: %v", err)
			}
		}
		attempts, _, err := e.Op.ListQuizAttempts(e.Ctx, models.AttemptFilter{CourseID: c.ID}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if graded != 3 || refused != n-3 || len(attempts) != 3 {
			t.Fatalf("graded %d, refused %d, stored %d; want 3, %d, 3", graded, refused, len(attempts), n-3)
		}
		numbers := map[int]bool{}
		for _, a := range attempts {
			numbers[a.Number] = true
		}
		if !numbers[1] || !numbers[2] || !numbers[3] {
			t.Errorf("attempt numbers %v, want 1, 2 and 3", numbers)
		}
	})
}

func TestACertificateExpiresOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		c, shared, _ := publishedCourse(t, e, 3, false)
		if _, err := e.A.CompleteCourseItem(e.Ctx, c.ID, shared); err != nil {
			t.Fatal(err)
		}
		res, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, right)
		if err != nil {
			t.Fatal(err)
		}
		cert := res.Certificate
		sys := models.System(e.TenantID)
		next, err := s.AdvanceCertificateExpiry(e.Ctx, sys, cert.ID, cert.IssuedAt.Add(time.Hour))
		if err != nil || next.Done || !next.WakeAt.Equal(cert.ExpiresAt) {
			t.Fatalf("before the expiry: %+v, %v", next, err)
		}
		for range 2 {
			if next, err = s.AdvanceCertificateExpiry(e.Ctx, sys, cert.ID, cert.ExpiresAt); err != nil || !next.Done {
				t.Fatalf("at the expiry: %+v, %v", next, err)
			}
		}
		if got := strings.Join(eventTypes(t, e, "certification.*"), ","); got != "certification.course_published,certification.earned,certification.expired" {
			t.Fatalf("events %v, want one certification.expired", got)
		}
		got, err := e.A.Certificate(e.Ctx, cert.ID)
		if err != nil || got.Status != models.CertificateExpired {
			t.Fatalf("after the expiry: %+v, %v", got, err)
		}
	})
}
