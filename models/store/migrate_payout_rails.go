package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0036PayoutRails adds the payout rails: the tenant's sealed credentials of Stripe
// Connect, PayPal Payouts and Wise and its daily batching choice, the provider's status and
// batch of a payout, and the daily batches themselves.
func migrate0036PayoutRails(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE payout_settings ADD COLUMN stripe_secret_key TEXT NOT NULL DEFAULT ''",
		"ALTER TABLE payout_settings ADD COLUMN stripe_webhook_secret TEXT NOT NULL DEFAULT ''",
		"ALTER TABLE payout_settings ADD COLUMN paypal_client_id VARCHAR(200) NOT NULL DEFAULT ''",
		"ALTER TABLE payout_settings ADD COLUMN paypal_secret TEXT NOT NULL DEFAULT ''",
		"ALTER TABLE payout_settings ADD COLUMN wise_token TEXT NOT NULL DEFAULT ''",
		"ALTER TABLE payout_settings ADD COLUMN wise_profile_id VARCHAR(40) NOT NULL DEFAULT ''",
		"ALTER TABLE payout_settings ADD COLUMN batch_daily BOOLEAN NOT NULL DEFAULT FALSE",
		"ALTER TABLE payouts ADD COLUMN batch_id VARCHAR(36)",
		"ALTER TABLE payouts ADD COLUMN provider_status VARCHAR(40) NOT NULL DEFAULT ''",
		"CREATE INDEX payouts_tenant_provider_status ON payouts (tenant_id, provider, status)",
		"CREATE INDEX payouts_tenant_batch ON payouts (tenant_id, batch_id)",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	type payoutBatch struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;uniqueIndex:payout_batches_day,priority:1"`
		Provider  string `gorm:"size:16;not null;uniqueIndex:payout_batches_day,priority:2"`
		Day       string `gorm:"size:10;not null;uniqueIndex:payout_batches_day,priority:3"`
		Status    string `gorm:"size:16;not null"`
		Reference string `gorm:"size:200;not null;default:''"`
		Payouts   int    `gorm:"not null"`
		CreatedAt time.Time
		UpdatedAt time.Time
	}
	return tx.Table("payout_batches").Migrator().CreateTable(&payoutBatch{})
}
