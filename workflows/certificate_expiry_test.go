package workflows_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// earnedCertificate publishes a one-question course valid for 30 days and has partner A pass it.
func earnedCertificate(t *testing.T, st *stores.Set) (*storetest.Partners, *models.Course, *models.Certificate) {
	t.Helper()
	e := storetest.NewPartners(t, st)
	c, err := e.Op.CreateCourse(e.Ctx, models.NewCourse{Title: "Basics", PassMark: 100, ValidityDays: 30,
		Visibility: models.ContentVisibility{AllPartners: true},
		Quiz:       models.Quiz{Questions: []models.QuizQuestion{{Text: "Right?", Options: []models.QuizOption{{Text: "Yes", Correct: true}, {Text: "No"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Op.PublishCourse(e.Ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	return e, c, pass(t, e, c)
}

func pass(t *testing.T, e *storetest.Partners, c *models.Course) *models.Certificate {
	t.Helper()
	res, err := e.A.SubmitQuizAttempt(e.Ctx, c.ID, []models.QuizAnswer{{QuestionID: "q1", OptionIDs: []string{"q1o1"}}})
	if err != nil || res.Certificate == nil {
		t.Fatalf("pass: %+v, %v", res, err)
	}
	return res.Certificate
}

func certificationEvents(t *testing.T, e *storetest.Partners) []string {
	t.Helper()
	evs, _, err := e.Op.ListEvents(context.Background(), models.EventFilter{Type: "certification.*"}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func TestACertificateExpiresAfterItsValidityOfWorkflowTime(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	e, _, cert := earnedCertificate(t, st)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, worker.Deps{System: &activities.System{}, Certifications: &activities.Certifications{Store: st}})
	var activeAtDay29 bool
	env.RegisterDelayedCallback(func() {
		got, err := e.A.Certificate(e.Ctx, cert.ID)
		activeAtDay29 = err == nil && got.Status == models.CertificateActive
	}, 29*24*time.Hour)
	env.ExecuteWorkflow(workflows.CertificateExpiry, workflows.CertificateExpiryInput{TenantID: e.TenantID, CertificateID: cert.ID})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !activeAtDay29 {
		t.Fatal("the certificate was not in force on day 29")
	}
	if env.Now().Before(cert.ExpiresAt) {
		t.Fatalf("the timer ended at %v, before the expiry %v", env.Now(), cert.ExpiresAt)
	}
	got, err := e.A.Certificate(e.Ctx, cert.ID)
	if err != nil || got.Status != models.CertificateExpired {
		t.Fatalf("after 30 days of workflow time: %+v, %v", got, err)
	}
	if types := certificationEvents(t, e); len(types) != 3 || types[2] != models.EventCertificationExpired {
		t.Fatalf("events %v, want the course published, the certificate earned and expired", types)
	}
}

func TestARenewedCertificateDoesNotExpire(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	e, c, cert := earnedCertificate(t, st)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, worker.Deps{System: &activities.System{}, Certifications: &activities.Certifications{Store: st}})
	var renewed *models.Certificate
	env.RegisterDelayedCallback(func() { renewed = pass(t, e, c) }, 20*24*time.Hour)
	env.ExecuteWorkflow(workflows.CertificateExpiry, workflows.CertificateExpiryInput{TenantID: e.TenantID, CertificateID: cert.ID})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	old, err := e.A.Certificate(e.Ctx, cert.ID)
	if err != nil || old.Status != models.CertificateRenewed || renewed == nil {
		t.Fatalf("the first certificate after its renewal: %+v, %v", old, err)
	}
	for _, typ := range certificationEvents(t, e) {
		if typ == models.EventCertificationExpired {
			t.Fatal("a renewed certificate expired")
		}
	}
}
