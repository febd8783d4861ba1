package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0005Webhooks adds webhook endpoints, their deliveries and delivery attempts.
func migrate0005Webhooks(tx *gorm.DB) error {
	type webhook struct {
		ID                      string `gorm:"primaryKey;size:36"`
		TenantID                string `gorm:"size:36;not null;index:webhooks_tenant_id,priority:1"`
		URL                     string `gorm:"size:2048;not null"`
		Description             string `gorm:"size:500"`
		EventTypes              string `gorm:"type:text;not null"`
		Enabled                 bool   `gorm:"not null"`
		Secret                  string `gorm:"type:text;not null"`
		SecretHint              string `gorm:"size:32"`
		PreviousSecret          string `gorm:"type:text"`
		PreviousSecretExpiresAt *time.Time
		FailingSince            *time.Time
		DisabledReason          string `gorm:"size:32"`
		DisabledAt              *time.Time
		CreatedAt               time.Time
		UpdatedAt               time.Time
	}
	type webhookDelivery struct {
		ID             string  `gorm:"primaryKey;size:36"`
		TenantID       string  `gorm:"size:36;not null"`
		WebhookID      string  `gorm:"size:36;not null;uniqueIndex:webhook_deliveries_event,priority:1"`
		EventID        *string `gorm:"size:36;uniqueIndex:webhook_deliveries_event,priority:2"`
		EventType      string  `gorm:"size:128;not null"`
		MessageID      string  `gorm:"size:64;not null"`
		Status         string  `gorm:"size:16;not null"`
		Test           bool    `gorm:"not null;default:false"`
		Body           *string `gorm:"type:text"`
		Attempts       int     `gorm:"not null;default:0"`
		LastStatusCode int     `gorm:"not null;default:0"`
		Replays        int     `gorm:"not null;default:0"`
		CreatedAt      time.Time
		UpdatedAt      time.Time
		CompletedAt    *time.Time
	}
	type webhookAttempt struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null"`
		WebhookID    string `gorm:"size:36;not null;index"`
		DeliveryID   string `gorm:"size:36;not null;index:webhook_attempts_delivery,priority:1"`
		Number       int    `gorm:"not null;index:webhook_attempts_delivery,priority:2"`
		StatusCode   int    `gorm:"not null;default:0"`
		LatencyMS    int64  `gorm:"column:latency_ms;not null;default:0"`
		ResponseBody string `gorm:"type:text"`
		Error        string `gorm:"size:1000"`
		AttemptedAt  time.Time
	}
	if err := tx.Migrator().CreateTable(&webhook{}, &webhookDelivery{}, &webhookAttempt{}); err != nil {
		return err
	}
	// Delivery lists of one endpoint walk (tenant_id, webhook_id, id).
	return tx.Exec("CREATE INDEX webhook_deliveries_page ON webhook_deliveries (tenant_id, webhook_id, id)").Error
}
