package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0010Applications adds partner applications and the tenant's application form.
func migrate0010Applications(tx *gorm.DB) error {
	type tenant struct {
		ID              string `gorm:"primaryKey;size:36"`
		ApplicationForm string `gorm:"type:text"`
	}
	type application struct {
		ID            string  `gorm:"primaryKey;size:36"`
		TenantID      string  `gorm:"size:36;not null;index:applications_tenant_email,priority:1;index:applications_tenant_status,priority:1"`
		Organisation  string  `gorm:"size:200;not null"`
		ContactName   string  `gorm:"size:200;not null"`
		ContactEmail  string  `gorm:"size:320;not null;index:applications_tenant_email,priority:2"`
		PartnerType   string  `gorm:"size:32;not null"`
		Answers       string  `gorm:"type:text;not null"`
		Status        string  `gorm:"size:16;not null;index:applications_tenant_status,priority:2"`
		Reason        string  `gorm:"size:1000"`
		PartnerID     *string `gorm:"size:36"`
		AutoApproved  bool    `gorm:"not null"`
		ClientAddress string  `gorm:"size:64"`
		CreatedAt     time.Time
		DecidedAt     *time.Time
		DecidedBy     *string `gorm:"size:36"`
	}
	m := tx.Migrator()
	if err := m.AddColumn(&tenant{}, "ApplicationForm"); err != nil {
		return err
	}
	return m.CreateTable(&application{})
}
