package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0025Agreements adds legal agreements: their versions (a published one never changes),
// the levels a requirement applies to, the append-only acceptances and the grace periods.
func migrate0025Agreements(tx *gorm.DB) error {
	type agreement struct {
		ID                 string  `gorm:"primaryKey;size:36"`
		TenantID           string  `gorm:"size:36;not null;index:agreements_tenant"`
		Kind               string  `gorm:"size:32;not null"`
		Title              string  `gorm:"size:200;not null"`
		Description        string  `gorm:"size:2000"`
		RequiredVersionID  *string `gorm:"size:36"`
		RequireAllPartners bool    `gorm:"not null;default:false"`
		RequiredFrom       *time.Time
		LatestVersion      int    `gorm:"not null;default:0"`
		CreatedBy          string `gorm:"size:36"`
		CreatedAt          time.Time
		UpdatedAt          time.Time
	}
	type agreementLevel struct {
		TenantID    string `gorm:"size:36;not null"`
		AgreementID string `gorm:"primaryKey;size:36"`
		Level       string `gorm:"primaryKey;size:64"`
	}
	type agreementVersion struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null"`
		AgreementID string `gorm:"size:36;not null;uniqueIndex:agreement_versions_number,priority:1"`
		Number      int    `gorm:"not null;uniqueIndex:agreement_versions_number,priority:2"`
		Status      string `gorm:"size:16;not null"`
		ContentType string `gorm:"size:100;not null"`
		Body        string `gorm:"type:text;not null"`
		Size        int64  `gorm:"not null"`
		SHA256      string `gorm:"column:sha256;size:64;not null"`
		Summary     string `gorm:"size:2000"`
		CreatedBy   string `gorm:"size:36"`
		CreatedAt   time.Time
		PublishedBy string `gorm:"size:36"`
		PublishedAt *time.Time
	}
	type agreementAcceptance struct {
		ID            string `gorm:"primaryKey;size:36"`
		TenantID      string `gorm:"size:36;not null;index:agreement_acceptances_tenant_partner,priority:1"`
		AgreementID   string `gorm:"size:36;not null"`
		VersionID     string `gorm:"size:36;not null;uniqueIndex:agreement_acceptances_version_partner,priority:1"`
		VersionNumber int    `gorm:"not null"`
		SHA256        string `gorm:"column:sha256;size:64;not null"`
		PartnerID     string `gorm:"size:36;not null;uniqueIndex:agreement_acceptances_version_partner,priority:2;index:agreement_acceptances_tenant_partner,priority:2"`
		UserID        string `gorm:"size:36;not null"`
		OnBehalf      bool   `gorm:"not null;default:false"`
		ClientAddress string `gorm:"size:64"`
		UserAgent     string `gorm:"size:500"`
		AcceptedAt    time.Time
	}
	type agreementGrace struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index:agreement_graces_partner,priority:1"`
		PartnerID string `gorm:"size:36;not null;index:agreement_graces_partner,priority:2"`
		Until     time.Time
		Reason    string `gorm:"size:500;not null"`
		GrantedBy string `gorm:"size:36"`
		CreatedAt time.Time
	}
	for table, model := range map[string]any{"agreements": &agreement{}, "agreement_levels": &agreementLevel{},
		"agreement_versions": &agreementVersion{}, "agreement_acceptances": &agreementAcceptance{}, "agreement_graces": &agreementGrace{}} {
		if err := tx.Table(table).Migrator().CreateTable(model); err != nil {
			return err
		}
	}
	if err := appendOnly(tx, "agreement_acceptances", "agreement_graces"); err != nil {
		return err
	}
	return publishedNeverChanges(tx)
}

// publishedNeverChanges makes UPDATE and DELETE of a published agreement version fail in the
// database; drafts may still be published.
func publishedNeverChanges(tx *gorm.DB) error {
	var stmts []string
	if tx.Name() == "postgres" {
		stmts = []string{`CREATE OR REPLACE FUNCTION partnerd_published_agreement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.status = 'published' THEN
		RAISE EXCEPTION 'a published agreement version never changes: % on % is not allowed', TG_OP, TG_TABLE_NAME USING ERRCODE = 'P0001';
	END IF;
	IF TG_OP = 'DELETE' THEN
		RETURN OLD;
	END IF;
	RETURN NEW;
END $$`,
			"CREATE TRIGGER agreement_versions_published BEFORE UPDATE OR DELETE ON agreement_versions FOR EACH ROW EXECUTE FUNCTION partnerd_published_agreement()",
			"CREATE TRIGGER agreement_versions_no_truncate BEFORE TRUNCATE ON agreement_versions FOR EACH STATEMENT EXECUTE FUNCTION partnerd_append_only()",
		}
	} else {
		stmts = []string{
			"CREATE TRIGGER agreement_versions_published_no_update BEFORE UPDATE ON agreement_versions WHEN OLD.status = 'published' BEGIN SELECT RAISE(ABORT, 'a published agreement version never changes: UPDATE on agreement_versions is not allowed'); END",
			"CREATE TRIGGER agreement_versions_published_no_delete BEFORE DELETE ON agreement_versions WHEN OLD.status = 'published' BEGIN SELECT RAISE(ABORT, 'a published agreement version never changes: DELETE on agreement_versions is not allowed'); END",
		}
	}
	for _, s := range stmts {
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	return nil
}
