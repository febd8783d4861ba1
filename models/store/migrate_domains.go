package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0034CustomDomains adds custom domains: a host per row for a tenant's portal or one
// partner's, the token its DNS TXT record must hold and its verification status. A host is
// unique per tenant; several tenants may claim one, and the first verified serves it.
func migrate0034CustomDomains(tx *gorm.DB) error {
	type domain struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null;index:domains_tenant_host,unique,priority:1"`
		PartnerID    string `gorm:"size:36;not null"`
		Host         string `gorm:"size:253;not null;index:domains_tenant_host,unique,priority:2;index:domains_host_status,priority:1"`
		Token        string `gorm:"size:80;not null"`
		Status       string `gorm:"size:16;not null;index:domains_host_status,priority:2"`
		LastError    string `gorm:"size:300"`
		CheckedAt    *time.Time
		VerifiedAt   *time.Time
		MissingSince *time.Time
		CreatedAt    time.Time
		UpdatedAt    time.Time
	}
	return tx.Table("domains").Migrator().CreateTable(&domain{})
}
