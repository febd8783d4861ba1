package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0016PayoutDecisions records finance's decision on a manual payout on the payout row
// (so that the decision, not the order of signals and timers, settles it) and keeps the
// clawbacks that arrive before the accrual they reverse.
func migrate0016PayoutDecisions(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE payouts ADD COLUMN decision VARCHAR(16) NOT NULL DEFAULT ''",
		"ALTER TABLE payouts ADD COLUMN decision_reference VARCHAR(1000) NOT NULL DEFAULT ''",
		"ALTER TABLE payouts ADD COLUMN decision_by VARCHAR(64) NOT NULL DEFAULT ''",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	type commissionClawback struct {
		TenantID  string `gorm:"primaryKey;size:36"`
		PlanID    string `gorm:"primaryKey;size:36"`
		PartnerID string `gorm:"primaryKey;size:36"`
		Reference string `gorm:"primaryKey;size:200"`
		EventID   string `gorm:"size:36;not null"`
		CreatedAt time.Time
	}
	return tx.Migrator().CreateTable(&commissionClawback{})
}
