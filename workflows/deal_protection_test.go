package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// approvedDeal registers and approves a deal in a new tenant of st.
func approvedDeal(t *testing.T, st *stores.Set) (*stores.Scoped, *models.Deal) {
	t.Helper()
	ctx := context.Background()
	tenant := &models.Tenant{Slug: "protect", Name: "Protect"}
	owner := &models.User{Email: "owner@protect.test", Name: "Owner"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		t.Fatal(err)
	}
	op := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})
	p := &models.Partner{Name: "Alpha", Type: "reseller", Status: "active"}
	if err := op.CreatePartner(ctx, p); err != nil {
		t.Fatal(err)
	}
	d := &models.Deal{PartnerID: p.ID, CustomerCompany: "Initech", AmountMinor: 100, Currency: "USD"}
	if err := op.RegisterDeal(ctx, d); err != nil {
		t.Fatal(err)
	}
	d, err := op.ApproveDeal(ctx, d.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	return op, d
}

func eventTypes(t *testing.T, sc *stores.Scoped, pattern string) []string {
	t.Helper()
	evs, _, err := sc.ListEvents(context.Background(), models.EventFilter{Type: pattern}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestDealProtectionRemindsAndExpiresAfterNinetyDaysOfTime(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	op, d := approvedDeal(t, st)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, worker.Deps{System: &activities.System{}, Deals: &activities.Deals{Store: st}})
	var reminderAt time.Time
	env.RegisterDelayedCallback(func() {
		reminderAt = env.Now()
	}, time.Duration(float64(time.Until(*d.ProtectedUntil))-float64(models.DealProtectionReminder))+time.Hour)
	env.ExecuteWorkflow(workflows.DealProtection, workflows.DealProtectionInput{TenantID: d.TenantID, DealID: d.ID})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if reminderAt.IsZero() {
		t.Fatal("the workflow ended before the reminder was due")
	}
	got, err := op.Deal(context.Background(), d.ID)
	if err != nil || got.Status != models.DealExpired {
		t.Fatalf("after 90 days of workflow time: %+v, %v", got, err)
	}
	if types := eventTypes(t, op, "deal.*"); len(types) != 4 || types[2] != models.EventDealExpiring || types[3] != models.EventDealExpired {
		t.Fatalf("deal events = %v, want registered, approved, expiring, expired", types)
	}
	if env.Now().Before(*d.ProtectedUntil) {
		t.Fatalf("expired at %v, before the protection ended at %v", env.Now(), d.ProtectedUntil)
	}
}

func TestDealProtectionFollowsAnExtensionAndStopsWhenTheDealIsWon(t *testing.T) {
	st := storetest.Open(t, storetest.Engines(t)[0])
	op, d := approvedDeal(t, st)
	ctx := context.Background()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(time.Now())
	worker.Register(env, worker.Deps{System: &activities.System{}, Deals: &activities.Deals{Store: st}})
	untilEnd := time.Until(*d.ProtectedUntil)
	// Ten days before the end an operator extends by 30 days; 20 days later the deal is won.
	env.RegisterDelayedCallback(func() {
		if _, err := op.ExtendDeal(ctx, d.ID, 30); err != nil {
			t.Error(err)
		}
	}, untilEnd-10*24*time.Hour)
	env.RegisterDelayedCallback(func() {
		p, _, _ := op.ListPipelines(ctx, models.Page{})
		for _, s := range p[0].Stages {
			if s.Outcome == models.OutcomeWon {
				if _, err := op.MoveDeal(ctx, d.ID, models.DealMove{StageID: s.ID}); err != nil {
					t.Error(err)
				}
			}
		}
	}, untilEnd+10*24*time.Hour)
	env.ExecuteWorkflow(workflows.DealProtection, workflows.DealProtectionInput{TenantID: d.TenantID, DealID: d.ID})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	got, _ := op.Deal(ctx, d.ID)
	if got.Status != models.DealWon {
		t.Fatalf("status %s, want won: the old end expired an extended deal", got.Status)
	}
	types := eventTypes(t, op, "deal.*")
	for _, typ := range types {
		if typ == models.EventDealExpired {
			t.Fatalf("deal events %v include an expiry", types)
		}
	}
}

func TestAnApprovedDealsFanoutStartsItsProtectionTimerOnce(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	deal := "d1"
	st := &eventStore{events: map[string]*models.Event{"e1": {ID: "e1", TenantID: "t1", Type: models.EventDealApproved, SubjectID: &deal}}}
	worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st}, Deals: &activities.Deals{}})
	var started []string
	env.OnWorkflow(workflows.DealProtection, mock.Anything, mock.Anything).Return(func(_ workflow.Context, in workflows.DealProtectionInput) error {
		started = append(started, in.TenantID+"/"+in.DealID)
		return nil
	})
	env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: "t1", EventID: "e1", Type: models.EventDealApproved})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res workflows.EventFanoutResult
	_ = env.GetWorkflowResult(&res)
	if len(started) != 1 || started[0] != "t1/d1" || res.DealProtection != "d1" {
		t.Fatalf("started %v, result %+v", started, res)
	}
}
