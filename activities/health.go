package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/partnerd/partnerd/models"
)

// HealthStore is what health scoring needs of storage.
type HealthStore interface {
	ScoreHealthPage(ctx context.Context, sys models.Scope, runID, after string, limit int) (models.HealthPage, error)
	FinishHealthRun(ctx context.Context, sys models.Scope, runID string, partners, changes int) error
	DueHealthRuns(ctx context.Context, at time.Time) ([]models.HealthRun, error)
	PruneHealthSnapshots(ctx context.Context, sys models.Scope, before time.Time, limit int) (deleted int, more bool, err error)
}

// Health holds the activities of partner health scoring.
type Health struct {
	Store HealthStore
}

// HealthPageInput names the next page of a run: the partners after After, at most Limit.
type HealthPageInput struct {
	TenantID string
	RunID    string
	After    string
	Limit    int
}

// ScoreHealthPage scores one page of a run's partners in one transaction; a page scored
// before is skipped, so a retry writes nothing twice.
func (a *Health) ScoreHealthPage(ctx context.Context, in HealthPageInput) (models.HealthPage, error) {
	activity.RecordHeartbeat(ctx, in.After)
	return a.Store.ScoreHealthPage(ctx, models.System(in.TenantID), in.RunID, in.After, in.Limit)
}

// HealthRunTotals are what a finished run scored.
type HealthRunTotals struct {
	TenantID string
	RunID    string
	Partners int
	Changes  int
}

// FinishHealthRun records that a run scored every partner.
func (a *Health) FinishHealthRun(ctx context.Context, in HealthRunTotals) error {
	return a.Store.FinishHealthRun(ctx, models.System(in.TenantID), in.RunID, in.Partners, in.Changes)
}

// HealthRunRef names a run to start.
type HealthRunRef struct {
	TenantID string
	RunID    string
}

// DueHealthRuns opens the scheduled runs due at `at` (tenants whose daily hour it is) and
// names them.
func (a *Health) DueHealthRuns(ctx context.Context, at time.Time) ([]HealthRunRef, error) {
	runs, err := a.Store.DueHealthRuns(ctx, at)
	out := make([]HealthRunRef, 0, len(runs))
	for _, r := range runs {
		out = append(out, HealthRunRef{TenantID: r.TenantID, RunID: r.ID})
	}
	return out, err
}

// HealthPruneInput names the tenant whose old snapshots to prune; Before is the cut-off
// (HealthSnapshotRetentionDays before the activity runs when zero), Batch and MaxBatches bound
// the work (5 000 and 40 when zero).
type HealthPruneInput struct {
	TenantID   string
	Before     time.Time
	Batch      int
	MaxBatches int
}

// PruneHealthSnapshots deletes, in batches, the tenant's snapshots older than the retention
// (each partner's latest stays), at most MaxBatches batches: what is left waits for the next
// run. It answers how many it deleted.
func (a *Health) PruneHealthSnapshots(ctx context.Context, in HealthPruneInput) (int, error) {
	if in.Before.IsZero() {
		in.Before = time.Now().UTC().AddDate(0, 0, -models.HealthSnapshotRetentionDays)
	}
	if in.Batch <= 0 {
		in.Batch = 5000
	}
	if in.MaxBatches <= 0 {
		in.MaxBatches = 40
	}
	total := 0
	for range in.MaxBatches {
		activity.RecordHeartbeat(ctx, total)
		n, more, err := a.Store.PruneHealthSnapshots(ctx, models.System(in.TenantID), in.Before, in.Batch)
		total += n
		if err != nil || !more {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
	return total, nil
}
