package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0004Events adds the event bus (events and their outbox), customers, and the tenant's
// ingest setting.
func migrate0004Events(tx *gorm.DB) error {
	type tenant struct {
		ID                     string `gorm:"primaryKey;size:36"`
		IngestCreatesCustomers bool   `gorm:"not null;default:true"`
	}
	type event struct {
		ID          string    `gorm:"primaryKey;size:36"`
		TenantID    string    `gorm:"size:36;not null;index:events_tenant_type_time,priority:1;index:events_tenant_customer,priority:1;index:events_tenant_partner,priority:1;uniqueIndex:events_tenant_external,priority:1"`
		Type        string    `gorm:"size:128;not null;index:events_tenant_type_time,priority:2"`
		Source      string    `gorm:"size:16;not null"`
		CustomerID  *string   `gorm:"size:36;index:events_tenant_customer,priority:2"`
		PartnerID   *string   `gorm:"size:36;index:events_tenant_partner,priority:2"`
		ActorKind   string    `gorm:"size:32;not null"`
		ActorID     string    `gorm:"size:36"`
		CausationID *string   `gorm:"size:36"`
		Depth       int       `gorm:"not null;default:0"`
		ExternalID  *string   `gorm:"size:200;uniqueIndex:events_tenant_external,priority:2"`
		Payload     string    `gorm:"type:text;not null"`
		OccurredAt  time.Time `gorm:"not null;index:events_tenant_type_time,priority:3"`
		ReceivedAt  time.Time `gorm:"not null"`
	}
	type customer struct {
		ID         string  `gorm:"primaryKey;size:36"`
		TenantID   string  `gorm:"size:36;not null;uniqueIndex:customers_tenant_email,priority:1;uniqueIndex:customers_tenant_external,priority:1"`
		Email      *string `gorm:"size:320;uniqueIndex:customers_tenant_email,priority:2"`
		ExternalID *string `gorm:"size:200;uniqueIndex:customers_tenant_external,priority:2"`
		Name       string  `gorm:"size:200"`
		PartnerID  *string `gorm:"size:36;index"`
		CreatedAt  time.Time
		UpdatedAt  time.Time
	}
	m := tx.Migrator()
	if err := m.AddColumn(&tenant{}, "IngestCreatesCustomers"); err != nil {
		return err
	}
	if err := m.CreateTable(&event{}, &customer{}); err != nil {
		return err
	}
	if err := m.CreateTable(&eventOutbox0004{}); err != nil {
		return err
	}
	// Keyset pages of one tenant walk (tenant_id, id).
	return tx.Exec("CREATE INDEX events_tenant_id_id ON events (tenant_id, id)").Error
}

// eventOutbox0004 is the outbox table as migration 0004 created it.
type eventOutbox0004 struct {
	EventID   string    `gorm:"primaryKey;size:36"`
	TenantID  string    `gorm:"size:36;not null"`
	Type      string    `gorm:"size:128;not null"`
	CreatedAt time.Time `gorm:"not null;index:event_outbox_created"`
}

func (eventOutbox0004) TableName() string { return "event_outbox" }
