// Package idempotency keeps the idempotency keys of writes that move money or act outside: a
// key is claimed once, its response replayed, and it expires (ADR 12).
package idempotency

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps the idempotency keys of every tenant's writes.
type Store struct {
	core *store.Store
}

// New is the idempotency-key store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// errIdempotencyClaimLost reports that a claim was taken over as abandoned, or expired and
// replaced, before its holder finished or released it.
var errIdempotencyClaimLost = models.Conflict("IDEMPOTENCY_CLAIM_LOST", "the idempotency key is no longer held by this request")

// ClaimIdempotencyKey claims key in the tenant for the request with fingerprint. When the key
// is free, expired or abandoned in flight, the caller wins: it gets its claim and true, and must
// finish or release it. Otherwise it gets the key as stored and false; comparing fingerprints
// and states is up to the caller. Claims are atomic: of concurrent claims of one key exactly
// one wins.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, sys models.Scope, key, fingerprint string, now time.Time) (*models.IdempotencyKey, bool, error) {
	if sys.TenantID() == "" || key == "" {
		return nil, false, models.Invalid("IDEMPOTENCY_KEY_INVALID", "an idempotency key needs a tenant and a key")
	}
	now = now.UTC().Truncate(time.Microsecond)
	claim := &models.IdempotencyKey{
		TenantID:    sys.TenantID(),
		Key:         key,
		Fingerprint: fingerprint,
		Status:      models.IdempotencyInFlight,
		CreatedAt:   now,
		ExpiresAt:   now.Add(models.IdempotencyKeyLifetime),
	}
	var (
		existing *models.IdempotencyKey
		won      bool
	)
	err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		existing, won = nil, false
		// A row that disappears between the insert and the read (released or swept by
		// another request) is simply claimed again; three rounds are plenty.
		for range 3 {
			claim.ClaimID = models.NewID()
			res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(claim)
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 1 {
				won = true
				return nil
			}
			var row models.IdempotencyKey
			err := idempotencyRow(tx, sys.TenantID(), key).Take(&row).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if !replaceable(&row, now) {
				existing = &row
				return nil
			}
			// Expired, or abandoned in flight: remove exactly the row that was read, so that
			// of two requests taking it over only one succeeds.
			del := idempotencyRow(tx, sys.TenantID(), key).Where("claim_id = ?", row.ClaimID).Delete(&models.IdempotencyKey{})
			if del.Error != nil {
				return del.Error
			}
		}
		return errors.New("store: idempotency key kept changing while being claimed")
	})
	if err != nil {
		return nil, false, err
	}
	if won {
		s.sweepIdempotencyKeys(ctx, sys.TenantID(), now)
		return claim, true, nil
	}
	return existing, false, nil
}

// replaceable reports whether a stored key may be claimed anew: it expired, or its request has
// been in flight for longer than any request runs.
func replaceable(row *models.IdempotencyKey, now time.Time) bool {
	if !now.Before(row.ExpiresAt) {
		return true
	}
	return row.Status == models.IdempotencyInFlight && !now.Before(row.CreatedAt.Add(models.IdempotencyClaimTimeout))
}

// FinishIdempotencyKey stores the response of the request holding claimID, for replays until
// the key expires.
func (s *Store) FinishIdempotencyKey(ctx context.Context, sys models.Scope, key, claimID string, resp models.IdempotentResponse) error {
	body := resp.Body
	if body == nil {
		body = []byte{}
	}
	res := idempotencyRow(s.core.DB(ctx), sys.TenantID(), key).
		Where("claim_id = ? AND status = ?", claimID, models.IdempotencyInFlight).
		Updates(map[string]any{
			"status":                string(models.IdempotencyDone),
			"response_status":       resp.Status,
			"response_content_type": resp.ContentType,
			"response_body":         body,
		})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errIdempotencyClaimLost
	}
	return nil
}

// ReleaseIdempotencyKey gives up the claim claimID without a response, so that the client may
// retry with the same key. A claim that is no longer held is left alone.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, sys models.Scope, key, claimID string) error {
	return idempotencyRow(s.core.DB(ctx), sys.TenantID(), key).
		Where("claim_id = ? AND status = ?", claimID, models.IdempotencyInFlight).
		Delete(&models.IdempotencyKey{}).Error
}

// DeleteExpiredIdempotencyKeys removes the keys of every tenant that expired before now and
// reports how many went.
func (s *Store) DeleteExpiredIdempotencyKeys(ctx context.Context, now time.Time) (int64, error) {
	res := s.core.DB(ctx).Where("expires_at <= ?", now.UTC()).Delete(&models.IdempotencyKey{})
	return res.RowsAffected, res.Error
}

// sweepIdempotencyKeys removes the tenant's expired keys, keeping the table at about one day of
// keys without a scheduled job. It is best effort: a failure only leaves rows for a later sweep.
func (s *Store) sweepIdempotencyKeys(ctx context.Context, tenantID string, now time.Time) {
	_ = s.core.DB(ctx).Where(store.System(tenantID).Tenant()).Where("expires_at <= ?", now).
		Delete(&models.IdempotencyKey{}).Error
}

func idempotencyRow(tx *gorm.DB, tenantID, key string) *gorm.DB {
	return tx.Model(&models.IdempotencyKey{}).Where(store.System(tenantID).Tenant()).Where(`"key" = ?`, key)
}
