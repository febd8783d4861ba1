package activities

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// DealStore is what the deal activities need of storage.
type DealStore interface {
	AdvanceDealProtection(ctx context.Context, sys models.Scope, dealID string, at time.Time) (models.DealProtection, error)
}

// Deals holds the activities of deal registration.
type Deals struct {
	Store DealStore
}

// DealProtectionStep names the deal a protection timer looks at, and the workflow's time.
type DealProtectionStep struct {
	TenantID string
	DealID   string
	// At is the workflow's clock, so that a timer and its test agree on what is due.
	At time.Time
}

// AdvanceDealProtection sends a due expiry reminder or expires the deal, and says when to look
// again.
func (a *Deals) AdvanceDealProtection(ctx context.Context, in DealProtectionStep) (models.DealProtection, error) {
	return a.Store.AdvanceDealProtection(ctx, models.System(in.TenantID), in.DealID, in.At)
}
