package workflows_test

import (
	"encoding/json"
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

func TestAnMDFFundExpiresOnWorkflowTimeAndReleasesWhatIsUncommitted(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) { fundExpiresOnWorkflowTime(t, st) })
}

func fundExpiresOnWorkflowTime(t *testing.T, st *stores.Set) {
	e := storetest.NewPartners(t, st)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	start := time.Now().UTC()
	env.SetStartTime(start)
	f, err := e.Op.CreateMDFFund(e.Ctx, models.NewMDFFund{Name: "Q1", PartnerID: e.PartnerA, Currency: "EUR", Amount: 1_000_00,
		PeriodStart: "2026-01-01", PeriodEnd: "2026-03-31", ExpiresAt: start.Add(30 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	request := func(budget int64) *models.MDFRequest {
		r, err := e.A.SubmitMDFRequest(e.Ctx, models.NewMDFRequest{FundID: f.ID, Activity: "Trade show", PlannedStart: "2026-02-01", PlannedEnd: "2026-02-03", Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	approved := request(400_00)
	if _, err := e.Op.ApproveMDFRequest(e.Ctx, approved.ID, 250_00); err != nil {
		t.Fatal(err)
	}
	waiting := request(100_00)
	worker.Register(env, worker.Deps{System: &activities.System{}, MDF: &activities.MDF{Store: st}})
	var openAtDay29 bool
	env.RegisterDelayedCallback(func() {
		got, err := e.A.MDFFund(e.Ctx, f.ID)
		openAtDay29 = err == nil && got.Status == models.MDFFundOpen && got.Released == 0
	}, 29*24*time.Hour)
	env.ExecuteWorkflow(workflows.MDFFundExpiry, workflows.MDFFundExpiryInput{TenantID: e.TenantID, FundID: f.ID})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !openAtDay29 {
		t.Fatal("the fund was not open on day 29")
	}
	if env.Now().Before(f.ExpiresAt) {
		t.Fatalf("the timer ended at %v, before the expiry %v", env.Now(), f.ExpiresAt)
	}
	got, err := e.A.MDFFund(e.Ctx, f.ID)
	if err != nil || got.Status != models.MDFFundExpired || got.Released != 750_00 || got.Committed != 250_00 {
		t.Fatalf("after 30 days of workflow time: %+v, %v", got, err)
	}
	if r, err := e.A.MDFRequest(e.Ctx, waiting.ID); err != nil || r.Status != models.MDFRequestExpired {
		t.Fatalf("the waiting request: %+v, %v", r, err)
	}
	evs, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: models.EventMDFFundExpired}, models.Page{Limit: 10})
	if err != nil || len(evs) != 1 {
		t.Fatalf("mdf.fund_expired events: %d, %v", len(evs), err)
	}
	var payload models.MDFFundEventPayload
	if err := json.Unmarshal([]byte(evs[0].Payload), &payload); err != nil {
		t.Fatal(err)
	}
	if payload.Released != 750_00 || payload.FundID != f.ID || payload.Status != models.MDFFundExpired {
		t.Fatalf("payload %+v", payload)
	}
}
