package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

type reviewRecorder struct {
	mu  sync.Mutex
	ats []time.Time
}

func (r *reviewRecorder) ReviewAllLevels(_ context.Context, now time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ats = append(r.ats, now)
	return 0, nil
}

func TestLevelReviewRunsDailyOnWorkflowTime(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	start := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	env.SetStartTime(start)
	rec := &reviewRecorder{}
	worker.Register(env, worker.Deps{System: &activities.System{}, Levels: &activities.Levels{Store: rec}})
	env.RegisterDelayedCallback(env.CancelWorkflow, 72*time.Hour+time.Minute)
	env.ExecuteWorkflow(workflows.LevelReview, workflows.LevelReviewInput{})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.ats) != 4 {
		t.Fatalf("%d reviews in three days, want 4 (now and daily): %v", len(rec.ats), rec.ats)
	}
	for i, at := range rec.ats {
		if want := start.Add(time.Duration(i) * 24 * time.Hour); !at.Equal(want) {
			t.Fatalf("review %d at %v, want %v (the workflow's clock)", i, at, want)
		}
	}
}
