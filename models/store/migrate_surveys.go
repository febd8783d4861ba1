package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0026Surveys adds survey invitations: one per recipient, its link's token kept only as
// a SHA-256 hash, answered at most once; and the tenant setting that surveys a ticket's
// requester when the ticket is resolved.
func migrate0026Surveys(tx *gorm.DB) error {
	type survey struct {
		ID         string  `gorm:"primaryKey;size:36"`
		TenantID   string  `gorm:"size:36;not null;index:surveys_tenant_answered,priority:1;index:surveys_tenant_partner,priority:1;index:surveys_batch,priority:1"`
		PartnerID  string  `gorm:"size:36;not null;index:surveys_tenant_partner,priority:2"`
		Level      string  `gorm:"size:64"`
		UserID     string  `gorm:"size:36;not null"`
		Kind       string  `gorm:"size:8;not null;index:surveys_tenant_answered,priority:2"`
		Source     string  `gorm:"size:16;not null"`
		TicketID   *string `gorm:"size:36"`
		BatchID    string  `gorm:"size:36;not null;index:surveys_batch,priority:2"`
		TokenHash  *string `gorm:"size:64;uniqueIndex:surveys_token_hash"`
		ExpiresAt  time.Time
		SentAt     *time.Time
		AnsweredAt *time.Time `gorm:"index:surveys_tenant_answered,priority:3"`
		Score      *int
		Comment    string `gorm:"size:2000"`
		CreatedBy  string `gorm:"size:36"`
		CreatedAt  time.Time
	}
	type tenant struct {
		SurveyOnResolve bool `gorm:"not null;default:false"`
	}
	if err := tx.Table("tenants").Migrator().AddColumn(&tenant{}, "SurveyOnResolve"); err != nil {
		return err
	}
	return tx.Table("surveys").Migrator().CreateTable(&survey{})
}
