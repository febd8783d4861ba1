package activities

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// MDFStore is what the market development fund activities need of storage.
type MDFStore interface {
	AdvanceMDFFundExpiry(ctx context.Context, sys models.Scope, fundID string, at time.Time) (models.MDFFundExpiry, error)
}

// MDF holds the activities of market development funds.
type MDF struct {
	Store MDFStore
}

// MDFFundExpiryStep names the fund an expiry timer looks at, and the workflow's time.
type MDFFundExpiryStep struct {
	TenantID string
	FundID   string
	// At is the workflow's clock, so that a timer and its test agree on what is due.
	At time.Time
}

// AdvanceMDFFundExpiry expires a fund that is due and says when to look again.
func (a *MDF) AdvanceMDFFundExpiry(ctx context.Context, in MDFFundExpiryStep) (models.MDFFundExpiry, error) {
	return a.Store.AdvanceMDFFundExpiry(ctx, models.System(in.TenantID), in.FundID, in.At)
}
