package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0038MDF adds market development funds (ADR 33): funds per partner or level with their
// running committed, spent and released amounts (the database refuses 0 ≤ spent ≤ committed ≤
// allocated being broken), partners' requests and claims, the deals claims influenced, proof
// files in the blob store, the tenant's four-eyes amount for claims, and what a withdrawal draws
// on (commission or mdf).
func migrate0038MDF(tx *gorm.DB) error {
	type mdfFund struct {
		ID          string  `gorm:"primaryKey;size:36"`
		TenantID    string  `gorm:"size:36;not null;index:mdf_funds_tenant_partner,priority:1;index:mdf_funds_tenant_level,priority:1"`
		Name        string  `gorm:"size:200;not null"`
		PartnerID   *string `gorm:"size:36;index:mdf_funds_tenant_partner,priority:2"`
		Level       string  `gorm:"size:64;not null;default:'';index:mdf_funds_tenant_level,priority:2"`
		Currency    string  `gorm:"size:3;not null"`
		Allocated   int64   `gorm:"not null;check:mdf_funds_allocated,allocated > 0"`
		Committed   int64   `gorm:"not null;check:mdf_funds_committed,committed >= 0 AND committed <= allocated"`
		Spent       int64   `gorm:"not null;check:mdf_funds_spent,spent >= 0 AND spent <= committed"`
		Released    int64   `gorm:"not null;check:mdf_funds_released,released >= 0 AND released + committed <= allocated"`
		PeriodStart string  `gorm:"size:10;not null"`
		PeriodEnd   string  `gorm:"size:10;not null"`
		ExpiresAt   time.Time
		Status      string `gorm:"size:16;not null"`
		CreatedBy   string `gorm:"size:64;not null"`
		CreatedAt   time.Time
		UpdatedAt   time.Time
		ExpiredAt   *time.Time
	}
	type mdfRequest struct {
		ID               string `gorm:"primaryKey;size:36"`
		TenantID         string `gorm:"size:36;not null;index:mdf_requests_tenant_fund,priority:1;index:mdf_requests_tenant_partner,priority:1"`
		FundID           string `gorm:"size:36;not null;index:mdf_requests_tenant_fund,priority:2"`
		PartnerID        string `gorm:"size:36;not null;index:mdf_requests_tenant_partner,priority:2"`
		Activity         string `gorm:"size:200;not null"`
		Description      string `gorm:"type:text;not null"`
		PlannedStart     string `gorm:"size:10;not null"`
		PlannedEnd       string `gorm:"size:10;not null"`
		Currency         string `gorm:"size:3;not null"`
		Budget           int64  `gorm:"not null;check:mdf_requests_budget,budget > 0"`
		Approved         int64  `gorm:"not null;check:mdf_requests_approved,approved >= 0 AND approved <= budget"`
		Spent            int64  `gorm:"not null;check:mdf_requests_spent,spent >= 0 AND spent <= approved"`
		ExpectedPipeline int64  `gorm:"not null"`
		Status           string `gorm:"size:24;not null"`
		Reason           string `gorm:"size:1000;not null;default:''"`
		SubmittedBy      string `gorm:"size:64;not null"`
		SubmittedAt      time.Time
		ReviewedBy       string `gorm:"size:64;not null;default:''"`
		ReviewedAt       *time.Time
		CreatedAt        time.Time
		UpdatedAt        time.Time
	}
	type mdfClaim struct {
		ID              string `gorm:"primaryKey;size:36"`
		TenantID        string `gorm:"size:36;not null;index:mdf_claims_tenant_request,priority:1;index:mdf_claims_tenant_fund,priority:1;index:mdf_claims_tenant_partner,priority:1"`
		RequestID       string `gorm:"size:36;not null;index:mdf_claims_tenant_request,priority:2"`
		FundID          string `gorm:"size:36;not null;index:mdf_claims_tenant_fund,priority:2"`
		PartnerID       string `gorm:"size:36;not null;index:mdf_claims_tenant_partner,priority:2"`
		Amount          int64  `gorm:"not null;check:mdf_claims_amount,amount > 0"`
		Currency        string `gorm:"size:3;not null"`
		Description     string `gorm:"type:text;not null"`
		Leads           int64  `gorm:"not null"`
		Links           string `gorm:"type:text;not null"`
		Status          string `gorm:"size:32;not null"`
		Reason          string `gorm:"size:1000;not null;default:''"`
		SubmittedBy     string `gorm:"size:64;not null"`
		FirstApprovedBy string `gorm:"size:64;not null;default:''"`
		ReviewedBy      string `gorm:"size:64;not null;default:''"`
		ReviewedAt      *time.Time
		MovementID      *string `gorm:"size:36"`
		CreatedAt       time.Time
		UpdatedAt       time.Time
	}
	type mdfClaimDeal struct {
		TenantID string `gorm:"primaryKey;size:36;index:mdf_claim_deals_tenant_fund,priority:1"`
		ClaimID  string `gorm:"primaryKey;size:36"`
		DealID   string `gorm:"primaryKey;size:36"`
		FundID   string `gorm:"size:36;not null;index:mdf_claim_deals_tenant_fund,priority:2"`
	}
	type mdfProof struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null;index:mdf_proofs_tenant_claim,priority:1"`
		ClaimID     string `gorm:"size:36;not null;index:mdf_proofs_tenant_claim,priority:2"`
		PartnerID   string `gorm:"size:36;not null"`
		BlobKey     string `gorm:"size:200;not null"`
		FileName    string `gorm:"size:200;not null"`
		ContentType string `gorm:"size:100;not null"`
		Size        int64  `gorm:"not null"`
		SHA256      string `gorm:"column:sha256;size:64;not null"`
		UploadedBy  string `gorm:"size:64;not null"`
		CreatedAt   time.Time
	}
	type mdfSettings struct {
		TenantID      string `gorm:"primaryKey;size:36"`
		FourEyesAbove *int64
		UpdatedAt     time.Time
	}
	for table, model := range map[string]any{"mdf_funds": &mdfFund{}, "mdf_requests": &mdfRequest{}, "mdf_claims": &mdfClaim{},
		"mdf_claim_deals": &mdfClaimDeal{}, "mdf_proofs": &mdfProof{}, "mdf_settings": &mdfSettings{}} {
		if err := tx.Table(table).Migrator().CreateTable(model); err != nil {
			return err
		}
	}
	return tx.Exec("ALTER TABLE withdrawals ADD COLUMN account VARCHAR(16) NOT NULL DEFAULT 'commission'").Error
}
