package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0012IdempotencyKeys adds the idempotency keys of writes that move money or cause
// external effects: one row per tenant and key, holding the claim and the stored response.
func migrate0012IdempotencyKeys(tx *gorm.DB) error {
	type idempotencyKey struct {
		TenantID            string    `gorm:"primaryKey;size:36;index:idempotency_keys_tenant_expiry,priority:1"`
		Key                 string    `gorm:"primaryKey;size:255"`
		Fingerprint         string    `gorm:"size:64;not null"`
		ClaimID             string    `gorm:"size:36;not null"`
		Status              string    `gorm:"size:16;not null"`
		ResponseStatus      int       `gorm:"not null;default:0"`
		ResponseContentType string    `gorm:"size:255;not null;default:''"`
		ResponseBody        []byte    `gorm:""`
		CreatedAt           time.Time `gorm:"not null"`
		ExpiresAt           time.Time `gorm:"not null;index:idempotency_keys_tenant_expiry,priority:2"`
	}
	return tx.Migrator().CreateTable(&idempotencyKey{})
}
