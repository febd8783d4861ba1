package store

import (
	"context"
	"fmt"
	"time"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

// migrationLockKey serialises migrations of concurrent processes on Postgres.
const migrationLockKey = 7_236_617_003 // "partnerd" on a phone keypad, shortened

// migrations is the ordered, append-only list of schema versions. Each migration declares the
// table shapes of its own time, so later changes to models never rewrite history.
func migrations() []*gormigrate.Migration {
	return []*gormigrate.Migration{
		{ID: "0001_tenants_users", Migrate: migrate0001TenantsUsers},
		{ID: "0002_identity", Migrate: migrate0002Identity},
		{ID: "0003_user_tokens", Migrate: migrate0003UserTokens},
		{ID: "0004_events_customers", Migrate: migrate0004Events},
		{ID: "0005_webhooks", Migrate: migrate0005Webhooks},
		{ID: "0006_metrics_dashboards", Migrate: migrate0006Metrics},
		{ID: "0007_deals", Migrate: migrate0007Deals},
		{ID: "0008_tasks", Migrate: migrate0008Tasks},
		{ID: "0009_levels", Migrate: migrate0009Levels},
		{ID: "0010_applications", Migrate: migrate0010Applications},
		{ID: "0011_money", Migrate: migrate0011Money},
		{ID: "0012_idempotency_keys", Migrate: migrate0012IdempotencyKeys},
		{ID: "0013_mail_messages", Migrate: migrate0013MailMessages},
		{ID: "0014_playbooks", Migrate: migrate0014Playbooks},
		{ID: "0015_playbook_settings", Migrate: migrate0015PlaybookSettings},
		{ID: "0016_payout_decisions", Migrate: migrate0016PayoutDecisions},
		{ID: "0017_event_indexes", Migrate: migrate0017EventIndexes},
		{ID: "0018_service_desk", Migrate: migrate0018ServiceDesk},
		{ID: "0019_content", Migrate: migrate0019Content},
		{ID: "0022_rate_limits", Migrate: migrate0022RateLimits},
		{ID: "0023_metric_units", Migrate: migrate0023MetricUnits},
		{ID: "0024_sla_policies", Migrate: migrate0024SLAPolicies},
		{ID: "0025_agreements", Migrate: migrate0025Agreements},
		{ID: "0026_surveys", Migrate: migrate0026Surveys},
		{ID: "0027_text_search", Migrate: migrate0027TextSearch},
		{ID: "0028_content_grant_lookup", Migrate: migrate0028ContentGrantLookup},
		{ID: "0032_agreement_pdf", Migrate: migrate0032AgreementPDF},
		{ID: "0035_tax_records", Migrate: migrate0035TaxRecords},
		{ID: "0030_certifications", Migrate: migrate0030Certifications},
		{ID: "0031_branding", Migrate: migrate0031Branding},
		{ID: "0034_custom_domains", Migrate: migrate0034CustomDomains},
		{ID: "0029_health_scores", Migrate: migrate0029HealthScores},
		{ID: "0037_health_metric_source", Migrate: migrate0037HealthMetricSource},
		{ID: "0038_mdf", Migrate: migrate0038MDF},
		{ID: "0039_cors_origins", Migrate: migrate0039CORSOrigins},
		{ID: "0036_payout_rails", Migrate: migrate0036PayoutRails},
		{ID: "0041_metric_rollup_grains", Migrate: migrate0041MetricRollupGrains},
		{ID: "0042_metric_fund", Migrate: migrate0042MetricFund},
	}
}

// Migrate brings the schema to the latest version, recording each applied version in the
// database. It is safe to run from several processes at once.
func (s *Store) Migrate(ctx context.Context) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.dialect == Postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockKey).Error; err != nil {
				return fmt.Errorf("store: migration lock: %w", err)
			}
		}
		m := gormigrate.New(tx, &gormigrate.Options{
			TableName:                 "schema_migrations",
			IDColumnName:              "id",
			IDColumnSize:              255,
			ValidateUnknownMigrations: true,
		}, migrations())
		if err := m.Migrate(); err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		return nil
	})
}

// AppliedMigrations lists the ids of the migrations recorded in the database, oldest first.
func (s *Store) AppliedMigrations(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Table("schema_migrations").Order("id").Pluck("id", &ids).Error
	return ids, err
}

func migrate0001TenantsUsers(tx *gorm.DB) error {
	type tenant struct {
		ID        string `gorm:"primaryKey;size:36"`
		Slug      string `gorm:"size:63;not null;uniqueIndex"`
		Name      string `gorm:"size:200;not null"`
		CreatedAt time.Time
		UpdatedAt time.Time
	}
	type user struct {
		ID            string  `gorm:"primaryKey;size:36"`
		TenantID      string  `gorm:"size:36;not null;uniqueIndex:users_tenant_email"`
		PartnerID     *string `gorm:"size:36;index"`
		Email         string  `gorm:"size:320;not null;uniqueIndex:users_tenant_email;index"`
		Name          string  `gorm:"size:200"`
		PasswordHash  string  `gorm:"size:200"`
		Role          string  `gorm:"size:64;not null"`
		Status        string  `gorm:"size:32;not null"`
		CreatedAt     time.Time
		UpdatedAt     time.Time
		DeactivatedAt *time.Time
		Tenant        tenant `gorm:"constraint:OnDelete:CASCADE"`
	}
	return tx.Migrator().CreateTable(&tenant{}, &user{})
}

func migrate0002Identity(tx *gorm.DB) error {
	type tenant struct {
		ID            string `gorm:"primaryKey;size:36"`
		PolicyVersion int64  `gorm:"not null;default:0"`
	}
	type partner struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index"`
		Name      string `gorm:"size:200;not null"`
		Type      string `gorm:"size:32;not null"`
		Level     string `gorm:"size:64"`
		Status    string `gorm:"size:32;not null"`
		CreatedAt time.Time
		UpdatedAt time.Time
	}
	type customRole struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null;uniqueIndex:custom_roles_tenant_name"`
		Name        string `gorm:"size:64;not null;uniqueIndex:custom_roles_tenant_name"`
		Description string `gorm:"size:500"`
		Audience    string `gorm:"size:16;not null"`
		Permissions string `gorm:"type:text;not null"`
		CreatedAt   time.Time
		UpdatedAt   time.Time
	}
	type roleAssignment struct {
		TenantID  string `gorm:"primaryKey;size:36"`
		UserID    string `gorm:"primaryKey;size:36;index"`
		Role      string `gorm:"primaryKey;size:64"`
		CreatedAt time.Time
	}
	type apiKey struct {
		ID         string  `gorm:"primaryKey;size:36"`
		TenantID   string  `gorm:"size:36;not null;index"`
		Name       string  `gorm:"size:200;not null"`
		LookupID   string  `gorm:"size:16;not null;uniqueIndex"`
		Hash       string  `gorm:"size:64;not null"`
		Scopes     string  `gorm:"type:text;not null"`
		PartnerID  *string `gorm:"size:36;index"`
		CreatedBy  string  `gorm:"size:36;not null"`
		CreatedAt  time.Time
		LastUsedAt *time.Time
		ExpiresAt  *time.Time
		RevokedAt  *time.Time
	}
	type refreshToken struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index"`
		UserID    string `gorm:"size:36;not null;index"`
		FamilyID  string `gorm:"size:36;not null;index"`
		Hash      string `gorm:"size:64;not null;uniqueIndex"`
		CreatedAt time.Time
		ExpiresAt time.Time
		UsedAt    *time.Time
		RevokedAt *time.Time
	}
	type auditEntry struct {
		ID            string    `gorm:"primaryKey;size:36"`
		TenantID      string    `gorm:"size:36;not null;index:audit_tenant_time,priority:1"`
		ActorKind     string    `gorm:"size:32;not null"`
		ActorID       string    `gorm:"size:36"`
		Action        string    `gorm:"size:64;not null"`
		TargetType    string    `gorm:"size:64;not null"`
		TargetID      string    `gorm:"size:36"`
		RequestID     string    `gorm:"size:128"`
		ClientAddress string    `gorm:"size:64"`
		ChangedFields string    `gorm:"type:text"`
		CreatedAt     time.Time `gorm:"index:audit_tenant_time,priority:2"`
	}
	m := tx.Migrator()
	if err := m.AddColumn(&tenant{}, "PolicyVersion"); err != nil {
		return err
	}
	if err := m.CreateTable(&partner{}, &customRole{}, &roleAssignment{}, &apiKey{}, &refreshToken{}, &auditEntry{}); err != nil {
		return err
	}
	// Roles move from a column of users to assignments, which can hold several per user.
	if err := tx.Exec(`INSERT INTO role_assignments (tenant_id, user_id, role, created_at)
		SELECT tenant_id, id, role, created_at FROM users`).Error; err != nil {
		return err
	}
	return tx.Exec("ALTER TABLE users DROP COLUMN role").Error
}

func migrate0003UserTokens(tx *gorm.DB) error {
	type userToken struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index"`
		UserID    string `gorm:"size:36;not null;index"`
		Purpose   string `gorm:"size:32;not null"`
		Hash      string `gorm:"size:64;not null;uniqueIndex"`
		CreatedAt time.Time
		ExpiresAt time.Time
		UsedAt    *time.Time
	}
	return tx.Migrator().CreateTable(&userToken{})
}
