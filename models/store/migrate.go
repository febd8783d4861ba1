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
