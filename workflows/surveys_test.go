package workflows_test

import (
	"strings"
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

func TestTheFanOutEmailsEachSurveyInvitationItsLinkOnce(t *testing.T) {
	e := newPayoutEnv(t, "survey-invitations")
	if err := e.op.CreateUser(e.ctx, &models.User{Email: "ada@alpha.test", Name: "Ada", PartnerID: &e.partnerID, Status: models.UserStatusActive},
		[]string{"partner_user"}); err != nil {
		t.Fatal(err)
	}
	if _, n, err := e.op.RequestSurveys(e.ctx, models.SurveyRequest{Kind: models.SurveyCSAT, PartnerIDs: []string{e.partnerID}}); err != nil || n != 1 {
		t.Fatalf("request %d, %v", n, err)
	}
	evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: models.EventSurveyRequested}, models.Page{})
	if err != nil || len(evs) != 1 {
		t.Fatalf("survey.requested events %+v, %v", evs, err)
	}
	for range 2 { // a second fan-out of the same event sends nothing new and keeps the link
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		deps := e.playbookDeps()
		deps.Events = &activities.Events{Store: e.st}
		deps.Mail.Surveys, deps.Mail.PublicURL = e.st, "https://partners.example.test/"
		worker.Register(env, deps)
		env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.tenantID, EventID: evs[0].ID, Type: evs[0].Type})
		var res workflows.EventFanoutResult
		if err := env.GetWorkflowResult(&res); err != nil || res.SurveyInvitations != 1 {
			t.Fatalf("fan-out %+v, %v", res, err)
		}
	}
	mails, _, _ := e.op.ListMail(e.ctx, models.MailFilter{}, models.Page{Limit: 10})
	if len(mails) != 1 || mails[0].To != "ada@alpha.test" || mails[0].Purpose != models.MailPurposeSurvey {
		t.Fatalf("mail %+v", mails)
	}
	m, err := e.op.MailMessage(e.ctx, mails[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "https://partners.example.test/survey#token="
	i := strings.Index(m.TextBody, prefix)
	if i < 0 {
		t.Fatalf("no link in %q", m.TextBody)
	}
	token := strings.Fields(m.TextBody[i+len(prefix):])[0]
	if _, err := e.st.PublicSurvey(e.ctx, token); err != nil {
		t.Fatalf("the emailed link: %v", err)
	}
	if err := e.st.AnswerSurvey(e.ctx, token, 5, ""); err != nil {
		t.Fatalf("answering through the emailed link: %v", err)
	}
}
