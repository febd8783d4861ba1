package money

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// ProviderStatusBatched marks a rail payout that waits for its provider's daily batch.
const ProviderStatusBatched = "batched"

// RailCredentials are a tenant's sealed credentials of one rail and its account at the rail
// (PayPal's client id, Wise's profile id).
func (s *Store) RailCredentials(ctx context.Context, sys models.Scope, provider string) (models.Sealed, string, error) {
	st, err := payoutSettingsIn(s.core.DB(ctx), sys.TenantID())
	if err != nil {
		return "", "", err
	}
	switch provider {
	case models.ProviderStripe:
		return st.StripeSecretKey, "", nil
	case models.ProviderPayPal:
		return st.PayPalSecret, st.PayPalClientID, nil
	case models.ProviderWise:
		return st.WiseToken, st.WiseProfileID, nil
	}
	return "", "", nil
}

// StripeWebhookSecret is a tenant's sealed secret of Stripe's webhook endpoint ("" when the
// tenant set none).
func (s *Store) StripeWebhookSecret(ctx context.Context, sys models.Scope) (models.Sealed, error) {
	st, err := payoutSettingsIn(s.core.DB(ctx), sys.TenantID())
	return st.StripeWebhookSecret, err
}

// RecordPayoutSubmission keeps a rail's reference and status of a payout it accepted and has
// not settled yet, so that a later run asks about it instead of paying again.
func (s *Store) RecordPayoutSubmission(ctx context.Context, sys models.Scope, payoutID, reference, status string) error {
	return s.core.DB(ctx).Model(&models.Payout{}).Where(store.Of(sys).Tenant()).Where("id = ? AND status = ?", payoutID, models.PayoutPending).
		Updates(map[string]any{"reference": models.Clip(reference, 200), "provider_status": models.Clip(status, 40), "updated_at": time.Now().UTC()}).Error
}

// SettleRailPayout settles a payout by its rail's webhook: only a payout of that rail still
// pending, with the same id, amount and currency, is settled (paid or failed with the
// rail's reason); matched is false for anything else, which is left alone.
func (s *Store) SettleRailPayout(ctx context.Context, sys models.Scope, r models.RailSettlement) (matched bool, w *models.Withdrawal, err error) {
	var p models.Payout
	err = s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("id = ? AND withdrawal_id = ?", r.PayoutID, r.WithdrawalID).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	if p.Provider != r.Provider || p.Amount != r.Amount || p.Currency != r.Currency || p.Status != models.PayoutPending {
		return false, nil, nil
	}
	if r.Paid {
		w, err = s.CompletePayout(ctx, sys, r.WithdrawalID, r.Reference)
	} else {
		w, err = s.FailPayout(ctx, sys, r.WithdrawalID, r.Reason)
	}
	return err == nil, w, err
}

// DuePayoutBatches lists the tenants' rails with payouts waiting for their daily batch.
func (s *Store) DuePayoutBatches(ctx context.Context) ([]models.PayoutBatchDue, error) {
	var out []models.PayoutBatchDue
	err := s.core.DB(ctx).Model(&models.Payout{}).Distinct("tenant_id", "provider").
		Where("status = ? AND provider_status = ? AND batch_id IS NULL", models.PayoutPending, ProviderStatusBatched).
		Order("tenant_id").Order("provider").Scan(&out).Error
	return out, err
}

// OpenPayoutBatch opens the tenant's batch of a rail for a day and gathers into it the payouts
// that wait for it. A batch opened before is returned with its payouts still pending; payouts
// approved after it opened wait for the next day's.
func (s *Store) OpenPayoutBatch(ctx context.Context, sys models.Scope, provider, day string) (models.PayoutBatch, []string, error) {
	var b models.PayoutBatch
	var withdrawals []string
	err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Where(store.Of(sys).Tenant()).Where("provider = ? AND day = ?", provider, day).Take(&b).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			now := time.Now().UTC()
			b = models.PayoutBatch{ID: models.NewID(), TenantID: sys.TenantID(), Provider: provider, Day: day, Status: models.BatchOpen, CreatedAt: now, UpdatedAt: now}
			if err := tx.Create(&b).Error; err != nil {
				return err
			}
			res := tx.Model(&models.Payout{}).Where(store.Of(sys).Tenant()).
				Where("provider = ? AND status = ? AND provider_status = ? AND batch_id IS NULL", provider, models.PayoutPending, ProviderStatusBatched).
				Updates(map[string]any{"batch_id": b.ID, "provider_status": "", "updated_at": now})
			if res.Error != nil {
				return res.Error
			}
			b.Payouts = int(res.RowsAffected)
			if err := tx.Model(&b).Update("payouts", b.Payouts).Error; err != nil {
				return err
			}
			if err := store.WriteAudit(ctx, tx, sys.TenantID(), "payout_batch.opened", "payout_batch", b.ID, "provider", "day", "payouts"); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		return tx.Model(&models.Payout{}).Where(store.Of(sys).Tenant()).Where("batch_id = ? AND status = ?", b.ID, models.PayoutPending).
			Order("created_at").Order("id").Pluck("withdrawal_id", &withdrawals).Error
	})
	return b, withdrawals, err
}

// SetBatchReference keeps the rail's id of a batch (PayPal's payout_batch_id).
func (s *Store) SetBatchReference(ctx context.Context, sys models.Scope, batchID, reference string) error {
	return s.core.DB(ctx).Model(&models.PayoutBatch{}).Where(store.Of(sys).Tenant()).Where("id = ?", batchID).
		Updates(map[string]any{"reference": models.Clip(reference, 200), "updated_at": time.Now().UTC()}).Error
}

// CloseBatch marks a batch settled once none of its payouts is pending.
func (s *Store) CloseBatch(ctx context.Context, sys models.Scope, batchID string) error {
	var pending int64
	db := s.core.DB(ctx)
	if err := db.Model(&models.Payout{}).Where(store.Of(sys).Tenant()).Where("batch_id = ? AND status = ?", batchID, models.PayoutPending).Count(&pending).Error; err != nil || pending > 0 {
		return err
	}
	return db.Model(&models.PayoutBatch{}).Where(store.Of(sys).Tenant()).Where("id = ?", batchID).
		Updates(map[string]any{"status": models.BatchSettled, "updated_at": time.Now().UTC()}).Error
}

// ListPayoutBatches lists the tenant's payout batches, oldest first (operators only).
func (sc *Scoped) ListPayoutBatches(ctx context.Context, pg models.Page) ([]models.PayoutBatch, string, error) {
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.PayoutBatch{}))
	return store.Page(q, pg, func(b models.PayoutBatch) string { return b.ID })
}
