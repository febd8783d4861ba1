package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0024SLAPolicies adds the desk's SLA policies per priority, the tenant's business hours,
// and the SLA state each ticket's clock records on its row.
func migrate0024SLAPolicies(tx *gorm.DB) error {
	type ticketSLAPolicy struct {
		ID                   string `gorm:"primaryKey;size:36"`
		TenantID             string `gorm:"size:36;not null;uniqueIndex:ticket_sla_policies_tenant_priority,priority:1"`
		Priority             string `gorm:"size:8;not null;uniqueIndex:ticket_sla_policies_tenant_priority,priority:2"`
		FirstResponseMinutes int    `gorm:"not null"`
		ResolutionMinutes    int    `gorm:"not null"`
		WarnPercent          int    `gorm:"not null"`
		WarnBeforeMinutes    int    `gorm:"not null"`
		CreatedAt            time.Time
		UpdatedAt            time.Time
	}
	type ticketBusinessHours struct {
		TenantID  string `gorm:"primaryKey;size:36"`
		TimeZone  string `gorm:"size:64;not null"`
		Windows   string `gorm:"type:text;not null"`
		UpdatedAt time.Time
	}
	type ticket struct {
		FirstResponseDueAt      *time.Time
		ResolutionDueAt         *time.Time
		SLAPausedAt             *time.Time `gorm:"column:sla_paused_at"`
		FirstResponseWarnedAt   *time.Time
		FirstResponseBreachedAt *time.Time
		ResolutionWarnedAt      *time.Time
		ResolutionBreachedAt    *time.Time
	}
	m := tx.Migrator()
	if err := m.CreateTable(&ticketSLAPolicy{}); err != nil {
		return err
	}
	if err := tx.Table("ticket_business_hours").Migrator().CreateTable(&ticketBusinessHours{}); err != nil {
		return err
	}
	for _, col := range []string{"FirstResponseDueAt", "ResolutionDueAt", "SLAPausedAt", "FirstResponseWarnedAt", "FirstResponseBreachedAt",
		"ResolutionWarnedAt", "ResolutionBreachedAt"} {
		if err := m.AddColumn(&ticket{}, col); err != nil {
			return err
		}
	}
	return nil
}
