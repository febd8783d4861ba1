package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0039CORSOrigins adds the origins a tenant's operators list for cross-origin calls
// besides its verified custom domains: one row per tenant and origin, found by origin.
func migrate0039CORSOrigins(tx *gorm.DB) error {
	type corsOrigin struct {
		TenantID  string `gorm:"primaryKey;size:36"`
		Origin    string `gorm:"primaryKey;size:300;index:cors_origins_origin"`
		CreatedAt time.Time
	}
	return tx.Table("cors_origins").Migrator().CreateTable(&corsOrigin{})
}
