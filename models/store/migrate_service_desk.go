package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0018ServiceDesk adds the service desk: ticket categories, tickets and their threads of
// messages (replies and internal notes) with their attachments.
func migrate0018ServiceDesk(tx *gorm.DB) error {
	type ticketCategory struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null;index:ticket_categories_tenant,priority:1"`
		Name        string `gorm:"size:100;not null"`
		Description string `gorm:"size:500"`
		CreatedAt   time.Time
		UpdatedAt   time.Time
	}
	type ticket struct {
		ID              string  `gorm:"primaryKey;size:36"`
		TenantID        string  `gorm:"size:36;not null;index:tickets_tenant_partner,priority:1;index:tickets_tenant_status,priority:1;index:tickets_tenant_assignee,priority:1"`
		PartnerID       string  `gorm:"size:36;not null;index:tickets_tenant_partner,priority:2"`
		CustomerID      *string `gorm:"size:36"`
		CategoryID      *string `gorm:"size:36"`
		Subject         string  `gorm:"size:200;not null"`
		Priority        string  `gorm:"size:8;not null"`
		Status          string  `gorm:"size:16;not null;index:tickets_tenant_status,priority:2"`
		RequesterID     string  `gorm:"size:36;not null"`
		AssigneeUserID  *string `gorm:"size:36;index:tickets_tenant_assignee,priority:2"`
		Tags            string  `gorm:"size:400;not null"`
		CreatedBy       string  `gorm:"size:36;not null"`
		CreatedAt       time.Time
		UpdatedAt       time.Time
		FirstResponseAt *time.Time
		ResolvedAt      *time.Time
		ClosedAt        *time.Time
	}
	type ticketMessage struct {
		ID         string `gorm:"primaryKey;size:36"`
		TenantID   string `gorm:"size:36;not null"`
		TicketID   string `gorm:"size:36;not null;index:ticket_messages_ticket,priority:1"`
		PartnerID  string `gorm:"size:36;not null"`
		AuthorID   string `gorm:"size:36;not null"`
		AuthorKind string `gorm:"size:8;not null"`
		Internal   bool   `gorm:"not null"`
		Body       string `gorm:"type:text;not null"`
		CreatedAt  time.Time
	}
	type ticketAttachment struct {
		ID          string  `gorm:"primaryKey;size:36"`
		TenantID    string  `gorm:"size:36;not null"`
		TicketID    string  `gorm:"size:36;not null;index:ticket_attachments_ticket,priority:1"`
		MessageID   *string `gorm:"size:36"`
		PartnerID   string  `gorm:"size:36;not null"`
		Internal    bool    `gorm:"not null"`
		Name        string  `gorm:"size:200;not null"`
		ContentType string  `gorm:"size:100;not null"`
		Size        int64   `gorm:"not null"`
		SHA256      string  `gorm:"column:sha256;size:64;not null"`
		BlobKey     string  `gorm:"size:64;not null"`
		UploadedBy  string  `gorm:"size:36;not null"`
		CreatedAt   time.Time
	}
	return tx.Migrator().CreateTable(&ticketCategory{}, &ticket{}, &ticketMessage{}, &ticketAttachment{})
}
