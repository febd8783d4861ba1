package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0008Tasks adds tasks and the onboarding checklist template.
func migrate0008Tasks(tx *gorm.DB) error {
	type task struct {
		ID             string  `gorm:"primaryKey;size:36"`
		TenantID       string  `gorm:"size:36;not null;index:tasks_tenant_partner,priority:1;index:tasks_tenant_assignee,priority:1;index:tasks_tenant_link,priority:1"`
		PartnerID      *string `gorm:"size:36;index:tasks_tenant_partner,priority:2"`
		AssigneeUserID *string `gorm:"size:36;index:tasks_tenant_assignee,priority:2"`
		Title          string  `gorm:"size:200;not null"`
		Description    string  `gorm:"type:text"`
		DueDate        *string `gorm:"size:10"`
		Status         string  `gorm:"size:8;not null"`
		LinkType       string  `gorm:"size:32;index:tasks_tenant_link,priority:2"`
		LinkID         string  `gorm:"size:36;index:tasks_tenant_link,priority:3"`
		Source         string  `gorm:"size:16;not null"`
		CreatedBy      string  `gorm:"size:36"`
		CreatedAt      time.Time
		UpdatedAt      time.Time
		CompletedAt    *time.Time
		CompletedBy    *string `gorm:"size:36"`
	}
	type onboardingItem struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null;index"`
		Position    int    `gorm:"not null"`
		Title       string `gorm:"size:200;not null"`
		Description string `gorm:"type:text"`
		DueInDays   int    `gorm:"not null"`
	}
	return tx.Migrator().CreateTable(&task{}, &onboardingItem{})
}
