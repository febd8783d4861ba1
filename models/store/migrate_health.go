package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0029HealthScores adds partner health: each tenant's health model, the scoring runs,
// one snapshot per partner and run (the history), and each partner's current score and tier.
func migrate0029HealthScores(tx *gorm.DB) error {
	type healthModel struct {
		TenantID   string `gorm:"primaryKey;size:36"`
		Version    int    `gorm:"not null"`
		Definition string `gorm:"type:text;not null"`
		Hour       int    `gorm:"not null"`
		UpdatedBy  string `gorm:"size:36"`
		UpdatedAt  time.Time
	}
	type healthRun struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null;index:health_runs_tenant_status,priority:1"`
		ModelVersion int    `gorm:"not null"`
		RunTrigger   string `gorm:"size:16;not null"`
		Status       string `gorm:"size:16;not null;index:health_runs_tenant_status,priority:2"`
		Partners     int    `gorm:"not null"`
		Changes      int    `gorm:"not null"`
		RequestedBy  string `gorm:"size:36"`
		StartedAt    time.Time
		FinishedAt   *time.Time
	}
	type healthSnapshot struct {
		RunID        string    `gorm:"primaryKey;size:36"`
		PartnerID    string    `gorm:"primaryKey;size:36;index:health_snapshots_partner,priority:2"`
		TenantID     string    `gorm:"size:36;not null;index:health_snapshots_partner,priority:1"`
		ModelVersion int       `gorm:"not null"`
		Score        float64   `gorm:"not null"`
		Tier         string    `gorm:"size:32;not null"`
		Components   string    `gorm:"type:text;not null"`
		ComputedAt   time.Time `gorm:"not null"`
	}
	type partnerHealth struct {
		PartnerID    string    `gorm:"primaryKey;size:36"`
		TenantID     string    `gorm:"size:36;not null;index:partner_health_tenant_tier,priority:1"`
		Score        float64   `gorm:"not null"`
		Tier         string    `gorm:"size:32;not null;index:partner_health_tenant_tier,priority:2"`
		PreviousTier string    `gorm:"size:32;not null"`
		ModelVersion int       `gorm:"not null"`
		RunID        string    `gorm:"size:36;not null"`
		ComputedAt   time.Time `gorm:"not null"`
		TierSince    time.Time `gorm:"not null"`
	}
	if err := tx.Table("health_models").Migrator().CreateTable(&healthModel{}); err != nil {
		return err
	}
	if err := tx.Table("health_runs").Migrator().CreateTable(&healthRun{}); err != nil {
		return err
	}
	if err := tx.Table("health_snapshots").Migrator().CreateTable(&healthSnapshot{}); err != nil {
		return err
	}
	return tx.Table("partner_health").Migrator().CreateTable(&partnerHealth{})
}
