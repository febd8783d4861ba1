package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0013MailMessages adds the outbox of outgoing email messages.
func migrate0013MailMessages(tx *gorm.DB) error {
	type mailMessage struct {
		ID             string  `gorm:"primaryKey;size:36"`
		TenantID       string  `gorm:"size:36;not null;uniqueIndex:mail_messages_idempotency,priority:1"`
		IdempotencyKey *string `gorm:"size:200;uniqueIndex:mail_messages_idempotency,priority:2"`
		To             string  `gorm:"column:to_address;size:320;not null"`
		ToName         string  `gorm:"column:to_name;size:200"`
		From           string  `gorm:"column:from_address;size:520;not null"`
		Subject        string  `gorm:"size:998;not null"`
		TextBody       string  `gorm:"type:text;not null"`
		HTMLBody       string  `gorm:"column:html_body;type:text"`
		Status         string  `gorm:"size:16;not null"`
		Transport      string  `gorm:"size:16;not null"`
		Error          string  `gorm:"size:1000"`
		Attempts       int     `gorm:"not null;default:1"`
		MessageID      string  `gorm:"size:255"`
		Purpose        string  `gorm:"size:64;not null"`
		Reference      string  `gorm:"size:200"`
		CreatedAt      time.Time
		SentAt         *time.Time
	}
	if err := tx.Migrator().CreateTable(&mailMessage{}); err != nil {
		return err
	}
	// The outbox lists of a tenant walk (tenant_id, id).
	return tx.Exec("CREATE INDEX mail_messages_tenant_id ON mail_messages (tenant_id, id)").Error
}
