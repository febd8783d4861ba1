package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// Expiry is what advancing a row's expiry found: Done when nothing is left to wait for,
// otherwise the moment the row falls due.
type Expiry struct {
	Done   bool
	WakeAt time.Time
}

// AdvanceExpiry expires the row of type T with id in scope sc when its expiry is at or before
// at, under the row's lock; expire writes what expiring it means. open says whether the row
// can still expire and when. A missing or closed row needs no timer; a row not yet due answers
// its expiry as the moment to look again.
func AdvanceExpiry[T any](ctx context.Context, s *Store, sc Scope, id string, at time.Time,
	open func(row *T) (bool, time.Time), expire func(tx *gorm.DB, ev *Outbox, row *T) error) (Expiry, error) {
	var next Expiry
	err := s.Transact(ctx, func(tx *gorm.DB, ev *Outbox) error {
		var row T
		if err := LockRow(s, tx, &row, sc, id); err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				next.Done = true
				return nil
			}
			return err
		}
		isOpen, expiresAt := open(&row)
		if !isOpen {
			next.Done = true
			return nil
		}
		if at.Before(expiresAt) {
			next.WakeAt = expiresAt
			return nil
		}
		if err := expire(tx, ev, &row); err != nil {
			return err
		}
		next.Done = true
		return nil
	})
	return next, err
}
