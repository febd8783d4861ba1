package store

import (
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
)

// migrate0007Deals adds pipelines with their stages, deals, their conflicts and notes, the
// tenant's deal protection setting, the subject of events (the record a timeline shows them
// on), and a default pipeline for every existing tenant.
func migrate0007Deals(tx *gorm.DB) error {
	type tenant struct {
		ID                 string `gorm:"primaryKey;size:36"`
		DealProtectionDays int    `gorm:"not null;default:90"`
	}
	type event struct {
		ID        string  `gorm:"primaryKey;size:36"`
		SubjectID *string `gorm:"size:36"`
	}
	type pipeline struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index:pipelines_tenant,priority:1"`
		Name      string `gorm:"size:200;not null"`
		IsDefault bool   `gorm:"not null"`
		CreatedAt time.Time
		UpdatedAt time.Time
	}
	type stage struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null"`
		PipelineID  string `gorm:"size:36;not null;index:stages_pipeline,priority:1"`
		Name        string `gorm:"size:200;not null"`
		Position    int    `gorm:"not null;index:stages_pipeline,priority:2"`
		Outcome     string `gorm:"size:8;not null"`
		Probability int    `gorm:"not null"`
	}
	type deal struct {
		ID                   string  `gorm:"primaryKey;size:36"`
		TenantID             string  `gorm:"size:36;not null;index:deals_tenant_partner,priority:1;index:deals_tenant_domain,priority:1;index:deals_tenant_contact,priority:1"`
		PartnerID            string  `gorm:"size:36;not null;index:deals_tenant_partner,priority:2"`
		PipelineID           string  `gorm:"size:36;not null"`
		StageID              string  `gorm:"size:36;not null"`
		Status               string  `gorm:"size:16;not null"`
		CustomerCompany      string  `gorm:"size:200;not null"`
		CustomerDomain       string  `gorm:"size:253;index:deals_tenant_domain,priority:2"`
		ContactName          string  `gorm:"size:200"`
		ContactEmail         string  `gorm:"size:320;index:deals_tenant_contact,priority:2"`
		AmountMinor          int64   `gorm:"not null"`
		Currency             string  `gorm:"size:3;not null"`
		ExpectedCloseDate    *string `gorm:"size:10"`
		Notes                string  `gorm:"type:text"`
		OwnerUserID          *string `gorm:"size:36"`
		ConflictStatus       string  `gorm:"size:16;not null"`
		Reason               string  `gorm:"size:1000"`
		ProtectedUntil       *time.Time
		ReminderSentFor      *time.Time
		ExtensionRequestedAt *time.Time
		ExtensionReason      string  `gorm:"size:1000"`
		CustomerID           *string `gorm:"size:36"`
		CreatedBy            string  `gorm:"size:36"`
		CreatedAt            time.Time
		UpdatedAt            time.Time
		ClosedAt             *time.Time
	}
	type dealConflict struct {
		ID             string  `gorm:"primaryKey;size:36"`
		TenantID       string  `gorm:"size:36;not null"`
		DealID         string  `gorm:"size:36;not null;index"`
		Kind           string  `gorm:"size:32;not null"`
		OtherDealID    *string `gorm:"size:36"`
		OtherPartnerID *string `gorm:"size:36"`
		CustomerID     *string `gorm:"size:36"`
		Explanation    string  `gorm:"size:1000;not null"`
		CreatedAt      time.Time
	}
	type dealNote struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null"`
		DealID    string `gorm:"size:36;not null;index"`
		AuthorID  string `gorm:"size:36"`
		Body      string `gorm:"type:text;not null"`
		CreatedAt time.Time
	}
	m := tx.Migrator()
	if err := m.AddColumn(&tenant{}, "DealProtectionDays"); err != nil {
		return err
	}
	if err := m.AddColumn(&event{}, "SubjectID"); err != nil {
		return err
	}
	if err := tx.Exec("CREATE INDEX events_tenant_subject ON events (tenant_id, subject_id, id)").Error; err != nil {
		return err
	}
	if err := m.CreateTable(&pipeline{}, &stage{}, &deal{}, &dealConflict{}, &dealNote{}); err != nil {
		return err
	}
	var tenants []string
	if err := tx.Table("tenants").Pluck("id", &tenants).Error; err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, id := range tenants {
		p := pipeline{ID: models.NewID(), TenantID: id, Name: "Sales", IsDefault: true, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(&p).Error; err != nil {
			return err
		}
		for i, s := range models.DefaultStages() {
			if err := tx.Create(&stage{ID: models.NewID(), TenantID: id, PipelineID: p.ID, Name: s.Name, Position: i + 1,
				Outcome: s.Outcome, Probability: s.Probability}).Error; err != nil {
				return err
			}
		}
	}
	return nil
}
