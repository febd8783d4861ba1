package activities

import (
	"context"
	"time"
)

// LevelStore is what the level review needs of storage.
type LevelStore interface {
	ReviewAllLevels(ctx context.Context, now time.Time) (int, error)
}

// Levels holds the activities of partner levels.
type Levels struct {
	Store LevelStore
}

// ReviewLevels evaluates every partner of every tenant against the level requirements as of
// at, and reports how many level changes it applied or proposed.
func (a *Levels) ReviewLevels(ctx context.Context, at time.Time) (int, error) {
	return a.Store.ReviewAllLevels(ctx, at)
}
