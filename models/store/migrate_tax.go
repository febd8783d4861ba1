package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0035TaxRecords adds partners' tax records (one per partner; the tax id sealed, the
// signed form in the blob store) and the tenant setting that blocks or warns on withdrawals of
// partners without an approved one.
func migrate0035TaxRecords(tx *gorm.DB) error {
	type taxRecord struct {
		ID              string `gorm:"primaryKey;size:36"`
		TenantID        string `gorm:"size:36;not null;uniqueIndex:tax_records_tenant_partner,priority:1;index:tax_records_tenant_status,priority:1"`
		PartnerID       string `gorm:"size:36;not null;uniqueIndex:tax_records_tenant_partner,priority:2"`
		LegalName       string `gorm:"size:200;not null"`
		Country         string `gorm:"size:2;not null"`
		FormKind        string `gorm:"size:16;not null"`
		TaxID           string `gorm:"column:tax_id;type:text;not null"`
		TaxIDMasked     string `gorm:"column:tax_id_masked;size:40;not null"`
		Status          string `gorm:"size:16;not null;index:tax_records_tenant_status,priority:2"`
		Reason          string `gorm:"size:1000;not null;default:''"`
		FormBlobKey     string `gorm:"size:200;not null;default:''"`
		FormFileName    string `gorm:"size:200;not null;default:''"`
		FormContentType string `gorm:"size:100;not null;default:''"`
		FormSize        int64  `gorm:"not null;default:0"`
		FormSHA256      string `gorm:"column:form_sha256;size:64;not null;default:''"`
		FormUploadedAt  *time.Time
		SubmittedBy     string `gorm:"size:64;not null"`
		SubmittedAt     time.Time
		ReviewedBy      string `gorm:"size:64;not null;default:''"`
		ReviewedAt      *time.Time
		CreatedAt       time.Time
		UpdatedAt       time.Time
	}
	type taxSettings struct {
		TenantID    string `gorm:"primaryKey;size:36"`
		Requirement string `gorm:"size:8;not null"`
		UpdatedAt   time.Time
	}
	if err := tx.Table("tax_records").Migrator().CreateTable(&taxRecord{}); err != nil {
		return err
	}
	return tx.Table("tax_settings").Migrator().CreateTable(&taxSettings{})
}
