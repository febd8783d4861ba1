package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0015PlaybookSettings adds the per-tenant signing secret of call_webhook actions.
func migrate0015PlaybookSettings(tx *gorm.DB) error {
	type playbookSettings struct {
		TenantID      string `gorm:"primaryKey;size:36"`
		WebhookSecret string `gorm:"type:text;not null"`
		UpdatedAt     time.Time
	}
	return tx.Table("playbook_settings").Migrator().CreateTable(&playbookSettings{})
}
