package workflows_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// crashingHealth is the real store, except that the first time it scores the page after
// crashAfter it commits and then fails, as a worker that dies before reporting would.
type crashingHealth struct {
	activities.HealthStore
	crashAfter string
	crashed    bool
}

func (c *crashingHealth) ScoreHealthPage(ctx context.Context, sys models.Scope, runID, after string, limit int) (models.HealthPage, error) {
	pg, err := c.HealthStore.ScoreHealthPage(ctx, sys, runID, after, limit)
	if err == nil && after == c.crashAfter && !c.crashed {
		c.crashed = true
		return models.HealthPage{}, errors.New("worker lost after commit")
	}
	return pg, err
}

func TestAHealthRunScoresEveryPageOnceEvenWhenAPageIsRetried(t *testing.T) {
	e := newPayoutEnv(t, "health-run")
	for _, name := range []string{"Beta", "Gamma", "Delta", "Epsilon", "Zeta"} {
		if err := e.op.CreatePartner(e.ctx, &models.Partner{Name: name, Type: "reseller", Status: "active"}); err != nil {
			t.Fatal(err)
		}
	}
	m := models.HealthModel{Components: []models.HealthComponent{{Source: models.HealthOpenTickets, Weight: 1, ZeroAt: 3, FullAt: 0}},
		Tiers: []models.HealthTier{{Name: "healthy", MinScore: 50}, {Name: "critical", MinScore: 0}}}
	if _, err := e.op.PutHealthModel(e.ctx, m); err != nil {
		t.Fatal(err)
	}
	// A run past the snapshot retention, whose snapshot this run prunes.
	old, err := e.op.RequestHealthRun(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.ScoreHealthPage(e.ctx, models.System(e.tenantID), old.ID, "", 1); err != nil {
		t.Fatal(err)
	}
	if err := e.st.Core().DB(e.ctx).Model(&models.HealthRun{}).Where("id = ?", old.ID).
		Updates(map[string]any{"status": models.HealthRunDone, "started_at": time.Now().AddDate(0, 0, -models.HealthSnapshotRetentionDays-1)}).Error; err != nil {
		t.Fatal(err)
	}
	run, err := e.op.RequestHealthRun(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	partners, _, err := e.op.ListPartners(e.ctx, models.PartnerFilter{}, models.Page{Limit: 10})
	if err != nil || len(partners) != 6 {
		t.Fatalf("partners %d, %v", len(partners), err)
	}
	store := &crashingHealth{HealthStore: e.st.Health, crashAfter: partners[1].ID}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	worker.Register(env, worker.Deps{System: &activities.System{}, Health: &activities.Health{Store: store}})
	env.ExecuteWorkflow(workflows.HealthRun, workflows.HealthRunInput{TenantID: e.tenantID, RunID: run.ID, PageSize: 2})
	var res workflows.HealthRunResult
	if err := env.GetWorkflowResult(&res); err != nil || !store.crashed {
		t.Fatalf("run %+v, %v (crashed %v)", res, err, store.crashed)
	}
	// The retried page found its partners scored: the totals count them once, by the first try.
	if res.Partners != 4 {
		t.Fatalf("scored %d after the lost page, want the 4 of the other pages", res.Partners)
	}
	if res.Pruned != 1 {
		t.Fatalf("pruned %d snapshots of the old run, want its one", res.Pruned)
	}
	var snaps int64
	if err := e.st.Core().DB(e.ctx).Model(&models.HealthSnapshot{}).Where("run_id = ?", run.ID).Count(&snaps).Error; err != nil || snaps != 6 {
		t.Fatalf("%d snapshots, %v", snaps, err)
	}
	runs, _, err := e.op.ListHealthRuns(e.ctx, models.Page{})
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID || runs[0].Status != models.HealthRunDone || runs[0].FinishedAt == nil {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	current, _, err := e.op.ListPartnerHealth(e.ctx, models.HealthFilter{Tier: "healthy"}, models.Page{Limit: 10})
	if err != nil || len(current) != 6 {
		t.Fatalf("current %d, %v", len(current), err)
	}
}

// scheduleRecorder answers when the schedule looks for due runs and which runs finished.
type scheduleRecorder struct {
	mu       sync.Mutex
	asked    []time.Time
	finished []string
}

func (r *scheduleRecorder) ScoreHealthPage(context.Context, models.Scope, string, string, int) (models.HealthPage, error) {
	return models.HealthPage{}, nil
}

func (r *scheduleRecorder) FinishHealthRun(_ context.Context, _ models.Scope, runID string, _, _ int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = append(r.finished, runID)
	return nil
}

func (r *scheduleRecorder) PruneHealthSnapshots(context.Context, models.Scope, time.Time, int) (int, bool, error) {
	return 0, false, nil
}

func (r *scheduleRecorder) DueHealthRuns(_ context.Context, at time.Time) ([]models.HealthRun, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, at)
	if at.Hour() == 3 {
		return []models.HealthRun{{ID: "run-" + at.Format("0102"), TenantID: "tenant"}}, nil
	}
	return nil, nil
}

func TestTheHealthScheduleLooksEveryHourAndStartsTheRunsDue(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	start := time.Date(2026, 11, 23, 2, 30, 0, 0, time.UTC)
	env.SetStartTime(start)
	rec := &scheduleRecorder{}
	worker.Register(env, worker.Deps{System: &activities.System{}, Health: &activities.Health{Store: rec}})
	env.RegisterDelayedCallback(env.CancelWorkflow, 24*time.Hour+time.Minute)
	env.ExecuteWorkflow(workflows.HealthSchedule, workflows.HealthScheduleInput{})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.asked) != 25 || !rec.asked[0].Equal(start) || !rec.asked[1].Equal(start.Add(30*time.Minute)) || !rec.asked[24].Equal(start.Add(23*time.Hour+30*time.Minute)) {
		t.Fatalf("asked %d times: %v", len(rec.asked), rec.asked)
	}
	if len(rec.finished) != 1 || rec.finished[0] != "run-1123" {
		t.Fatalf("finished runs %v, want the one due at 03:00", rec.finished)
	}
}
