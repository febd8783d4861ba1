package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0014Playbooks adds playbooks with their published versions, runs and steps, the
// documents playbooks create, the once-only record of their actions, and custom fields of
// partners.
func migrate0014Playbooks(tx *gorm.DB) error {
	type partner struct {
		ID           string `gorm:"primaryKey;size:36"`
		CustomFields string `gorm:"type:text;not null;default:'{}'"`
	}
	type playbook struct {
		ID               string `gorm:"primaryKey;size:36"`
		TenantID         string `gorm:"size:36;not null;index:playbooks_tenant_status,priority:1"`
		Name             string `gorm:"size:200;not null"`
		Description      string `gorm:"type:text"`
		Status           string `gorm:"size:16;not null;index:playbooks_tenant_status,priority:2"`
		Graph            string `gorm:"type:text;not null"`
		PublishedVersion int    `gorm:"not null;default:0"`
		ConcurrencyLimit int    `gorm:"not null;default:0"`
		CreatedAt        time.Time
		UpdatedAt        time.Time
	}
	type playbookVersion struct {
		TenantID    string    `gorm:"size:36;not null;index"`
		PlaybookID  string    `gorm:"primaryKey;size:36"`
		Version     int       `gorm:"primaryKey"`
		Graph       string    `gorm:"type:text;not null"`
		PublishedAt time.Time `gorm:"not null"`
		PublishedBy string    `gorm:"size:36;not null"`
	}
	type playbookRun struct {
		ID              string  `gorm:"primaryKey;size:36;index:playbook_runs_tenant_id,priority:2"`
		TenantID        string  `gorm:"size:36;not null;uniqueIndex:playbook_runs_event,priority:1;index:playbook_runs_playbook_status,priority:1;index:playbook_runs_tenant_id,priority:1;index:playbook_runs_tenant_status,priority:1"`
		PlaybookID      string  `gorm:"size:36;not null;uniqueIndex:playbook_runs_event,priority:2;index:playbook_runs_playbook_status,priority:2"`
		Version         int     `gorm:"not null"`
		EventID         string  `gorm:"size:36;not null;uniqueIndex:playbook_runs_event,priority:3"`
		PartnerID       *string `gorm:"size:36"`
		Status          string  `gorm:"size:16;not null;index:playbook_runs_playbook_status,priority:3;index:playbook_runs_tenant_status,priority:2"`
		Error           string  `gorm:"size:2000"`
		Depth           int     `gorm:"not null"`
		CancelRequested bool    `gorm:"not null;default:false"`
		StartedAt       time.Time
		EndedAt         *time.Time
	}
	type playbookStep struct {
		ID        string `gorm:"primaryKey;size:36;index:playbook_steps_run,priority:3"`
		TenantID  string `gorm:"size:36;not null;index:playbook_steps_run,priority:1;index:playbook_steps_waiting,priority:1"`
		RunID     string `gorm:"size:36;not null;index:playbook_steps_run,priority:2"`
		NodeID    string `gorm:"size:64;not null"`
		Kind      string `gorm:"size:32;not null;index:playbook_steps_waiting,priority:3"`
		Status    string `gorm:"size:16;not null;index:playbook_steps_waiting,priority:2"`
		Output    string `gorm:"type:text"`
		Error     string `gorm:"size:2000"`
		StartedAt time.Time
		EndedAt   *time.Time
	}
	type document struct {
		ID        string  `gorm:"primaryKey;size:36;index:documents_partner,priority:3;index:documents_tenant_id,priority:2"`
		TenantID  string  `gorm:"size:36;not null;index:documents_partner,priority:1;index:documents_tenant_id,priority:1"`
		PartnerID *string `gorm:"size:36;index:documents_partner,priority:2"`
		Title     string  `gorm:"size:1000;not null"`
		Body      string  `gorm:"type:text;not null"`
		Template  string  `gorm:"size:64"`
		RunID     *string `gorm:"size:36"`
		CreatedAt time.Time
	}
	type playbookEffect struct {
		TenantID  string `gorm:"primaryKey;size:36"`
		Key       string `gorm:"primaryKey;size:200"`
		Output    string `gorm:"type:text;not null"`
		CreatedAt time.Time
	}
	m := tx.Migrator()
	if err := m.AddColumn(&partner{}, "CustomFields"); err != nil {
		return err
	}
	return m.CreateTable(&playbook{}, &playbookVersion{}, &playbookRun{}, &playbookStep{}, &document{}, &playbookEffect{})
}
