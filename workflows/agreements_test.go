package workflows_test

import (
	"context"
	"sync"
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// memMail is an in-memory outbox record.
type memMail struct {
	mu    sync.Mutex
	byKey map[string]*models.MailMessage
}

func (m *memMail) MailByIdempotencyKey(_ context.Context, _ models.Scope, key string) (*models.MailMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if msg, ok := m.byKey[key]; ok {
		return msg, nil
	}
	return nil, models.NotFound("MAIL_MESSAGE_NOT_FOUND", "mail message")
}

func (m *memMail) RecordMail(_ context.Context, msg *models.MailMessage) (*models.MailMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byKey[*msg.IdempotencyKey] = msg
	return msg, nil
}

// twoNotices asks two users of a partner to accept.
type twoNotices struct{}

func (twoNotices) AgreementNotices(context.Context, models.Scope, string) ([]models.AgreementNotice, error) {
	return []models.AgreementNotice{
		{UserID: "u1", To: "ada@beta.test", Subject: "Please accept: Terms (version 2)", Text: "Hello"},
		{UserID: "u2", To: "bob@beta.test", Subject: "Please accept: Terms (version 2)", Text: "Hello"},
	}, nil
}

func TestPublishingARequiredAgreementVersionEmailsItsPartnersOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload string
		want    int
	}{
		{"a required version", `{"agreementId":"a1","required":true}`, 2},
		{"a version nobody must accept", `{"agreementId":"a1"}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			st := &eventStore{events: map[string]*models.Event{"e1": {ID: "e1", TenantID: "t1", Type: models.EventAgreementPublished, Payload: tc.payload}}}
			box := &memMail{byKey: map[string]*models.MailMessage{}}
			worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st}, Webhooks: &activities.Webhooks{},
				Mail: &activities.Mail{Sender: &mail.Outbox{}, Store: box, Agreements: twoNotices{}}})
			env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: "t1", EventID: "e1", Type: models.EventAgreementPublished})
			var res workflows.EventFanoutResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.AgreementNotices != tc.want || len(box.byKey) != tc.want {
				t.Fatalf("notices %d, outbox %v", res.AgreementNotices, box.byKey)
			}
			if tc.want > 0 && box.byKey["agreement:e1:u2"].To != "bob@beta.test" {
				t.Fatalf("outbox %v", box.byKey)
			}
		})
	}
}

func TestTheFanOutEmailsThePartnersOfARequiredVersionThroughTheOutbox(t *testing.T) {
	e := newPayoutEnv(t, "agreement-notices")
	if err := e.op.CreateUser(e.ctx, &models.User{Email: "ada@alpha.test", Name: "Ada", PartnerID: &e.partnerID, Status: models.UserStatusActive},
		[]string{"partner_user"}); err != nil {
		t.Fatal(err)
	}
	a, err := e.op.CreateAgreement(e.ctx, models.NewAgreement{Kind: models.AgreementNDA, Title: "NDA"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := e.op.CreateAgreementVersion(e.ctx, a.ID, "Keep it secret.", "")
	if _, _, err := e.op.PublishAgreementVersion(e.ctx, a.ID, v.ID, &models.AgreementRequirement{AllPartners: true}); err != nil {
		t.Fatal(err)
	}
	evs, _, err := e.op.ListEvents(e.ctx, models.EventFilter{Type: models.EventAgreementPublished}, models.Page{})
	if err != nil || len(evs) != 1 {
		t.Fatalf("agreement.published events %+v, %v", evs, err)
	}
	for range 2 { // a second fan-out of the same event sends nothing new
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		deps := e.playbookDeps()
		deps.Events = &activities.Events{Store: e.st}
		deps.Mail.Agreements = e.st
		worker.Register(env, deps)
		env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: e.tenantID, EventID: evs[0].ID, Type: evs[0].Type})
		var res workflows.EventFanoutResult
		if err := env.GetWorkflowResult(&res); err != nil || res.AgreementNotices != 1 {
			t.Fatalf("fan-out %+v, %v", res, err)
		}
	}
	mails, _, _ := e.op.ListMail(e.ctx, models.MailFilter{}, models.Page{Limit: 10})
	if len(mails) != 1 || mails[0].To != "ada@alpha.test" || mails[0].Purpose != models.MailPurposeAgreement || mails[0].Subject != "Please accept: NDA (version 1)" {
		t.Fatalf("mail %+v", mails)
	}
}
