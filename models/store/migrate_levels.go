package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0009Levels adds partner levels, the level proposals of the review, and the tenant's
// level change mode.
func migrate0009Levels(tx *gorm.DB) error {
	type tenant struct {
		ID           string `gorm:"primaryKey;size:36"`
		LevelChanges string `gorm:"size:16;not null;default:propose"`
	}
	type level struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null;uniqueIndex:levels_tenant_name,priority:1"`
		Name         string `gorm:"size:64;not null;uniqueIndex:levels_tenant_name,priority:2"`
		Rank         int    `gorm:"not null"`
		Benefits     string `gorm:"type:text"`
		Requirements string `gorm:"type:text;not null"`
		IsDefault    bool   `gorm:"not null"`
		CreatedAt    time.Time
		UpdatedAt    time.Time
	}
	type levelProposal struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index:level_proposals_tenant_status,priority:1"`
		PartnerID string `gorm:"size:36;not null"`
		FromLevel string `gorm:"size:64"`
		ToLevel   string `gorm:"size:64;not null"`
		Status    string `gorm:"size:16;not null;index:level_proposals_tenant_status,priority:2"`
		Reason    string `gorm:"size:1000"`
		CreatedAt time.Time
		DecidedAt *time.Time
		DecidedBy *string `gorm:"size:36"`
	}
	m := tx.Migrator()
	if err := m.AddColumn(&tenant{}, "LevelChanges"); err != nil {
		return err
	}
	return m.CreateTable(&level{}, &levelProposal{})
}
