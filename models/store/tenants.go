package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
)

// Bootstrap creates tenant and its owner when the database holds no tenant yet, and reports
// whether it did. It is safe to call on every start and from several processes at once.
func (s *Store) Bootstrap(ctx context.Context, tenant models.Tenant, owner models.User) (bool, error) {
	created := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.dialect == Postgres {
			if err := tx.Exec("LOCK TABLE tenants IN EXCLUSIVE MODE").Error; err != nil {
				return err
			}
		}
		var n int64
		if err := tx.Model(&models.Tenant{}).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		created = true
		return s.createTenant(ctx, tx, &tenant, &owner)
	})
	if err != nil {
		return false, fmt.Errorf("store: bootstrap: %w", err)
	}
	return created, nil
}

// CreateTenant creates a tenant with its owner, who holds the owner role. A taken slug is a
// conflict.
func (s *Store) CreateTenant(ctx context.Context, tenant *models.Tenant, owner *models.User) error {
	return Translate(s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return s.createTenant(ctx, tx, tenant, owner)
	}), "TENANT_SLUG_TAKEN", "a tenant with this slug exists")
}

func (s *Store) createTenant(ctx context.Context, tx *gorm.DB, tenant *models.Tenant, owner *models.User) error {
	tenant.ID = models.NewID()
	tenant.IngestCreatesCustomers = true
	if tenant.LevelChanges == "" {
		tenant.LevelChanges = models.LevelChangesPropose
	}
	if tenant.DealProtectionDays <= 0 {
		tenant.DealProtectionDays = models.DefaultDealProtectionDays
	}
	if err := tx.Create(tenant).Error; err != nil {
		return err
	}
	for _, setup := range s.tenantSetups {
		if err := setup(tx, tenant.ID); err != nil {
			return err
		}
	}
	owner.ID = models.NewID()
	owner.TenantID = tenant.ID
	owner.PartnerID = nil
	owner.Email = NormalizeEmail(owner.Email)
	owner.Status = models.UserStatusActive
	if err := tx.Create(owner).Error; err != nil {
		return err
	}
	if err := tx.Create(&models.RoleAssignment{TenantID: tenant.ID, UserID: owner.ID, Role: models.RoleOwner}).Error; err != nil {
		return err
	}
	return WriteAudit(ctx, tx, tenant.ID, "tenant.created", "tenant", tenant.ID, "slug", "name")
}

// TenantSetup gives a new tenant the rows a module needs, in the transaction that creates it.
type TenantSetup func(tx *gorm.DB, tenantID string) error

// AddTenantSetup runs setup for every tenant created from now on.
func (s *Store) AddTenantSetup(setup TenantSetup) { s.tenantSetups = append(s.tenantSetups, setup) }

// TenantBySlug finds a tenant by its slug.
func (s *Store) TenantBySlug(ctx context.Context, slug string) (*models.Tenant, error) {
	var t models.Tenant
	err := s.db.WithContext(ctx).Where("slug = ?", slug).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TENANT_NOT_FOUND", "tenant")
	}
	return &t, err
}

// UserByEmail finds a user of a tenant by email, compared case-insensitively.
func (s *Store) UserByEmail(ctx context.Context, sys models.Scope, email string) (*models.User, error) {
	var u models.User
	err := s.db.WithContext(ctx).Where(Of(sys).Tenant()).Where("email = ?", NormalizeEmail(email)).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("USER_NOT_FOUND", "user")
	}
	return &u, err
}

// NormalizeEmail is the form an e-mail address is stored and compared in.
func NormalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// UpdateTenant changes the profile and settings of the principal's tenant.
func (sc *Scoped) UpdateTenant(ctx context.Context, c models.TenantChanges) (*models.Tenant, error) {
	t, err := sc.s.TenantByID(ctx, sc.p.TenantID)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{}
	var changed []string
	if c.Name != nil && *c.Name != t.Name {
		updates["name"], t.Name = *c.Name, *c.Name
		changed = append(changed, "name")
	}
	if c.IngestCreatesCustomers != nil && *c.IngestCreatesCustomers != t.IngestCreatesCustomers {
		updates["ingest_creates_customers"], t.IngestCreatesCustomers = *c.IngestCreatesCustomers, *c.IngestCreatesCustomers
		changed = append(changed, "ingestCreatesCustomers")
	}
	if c.DealProtectionDays != nil && *c.DealProtectionDays != t.DealProtectionDays {
		updates["deal_protection_days"], t.DealProtectionDays = *c.DealProtectionDays, *c.DealProtectionDays
		changed = append(changed, "dealProtectionDays")
	}
	if c.LevelChanges != nil && *c.LevelChanges != t.LevelChanges {
		updates["level_changes"], t.LevelChanges = *c.LevelChanges, *c.LevelChanges
		changed = append(changed, "levelChanges")
	}
	if c.SurveyOnResolve != nil && *c.SurveyOnResolve != t.SurveyOnResolve {
		updates["survey_on_resolve"], t.SurveyOnResolve = *c.SurveyOnResolve, *c.SurveyOnResolve
		changed = append(changed, "surveyOnResolve")
	}
	if len(changed) == 0 {
		return t, nil
	}
	err = sc.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.Tenant{}).Where("id = ?", t.ID).Updates(updates).Error; err != nil {
			return err
		}
		return WriteAudit(ctx, tx, t.ID, "tenant.updated", "tenant", t.ID, changed...)
	})
	return t, err
}

// TenantByID finds a tenant.
func (s *Store) TenantByID(ctx context.Context, id string) (*models.Tenant, error) {
	var t models.Tenant
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TENANT_NOT_FOUND", "tenant")
	}
	return &t, err
}

// BumpPolicy marks a tenant's access policy changed, in the transaction that changed it.
func BumpPolicy(tx *gorm.DB, tenantID string) error {
	return tx.Model(&models.Tenant{}).Where("id = ?", tenantID).
		UpdateColumn("policy_version", gorm.Expr("policy_version + 1")).Error
}
