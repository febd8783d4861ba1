package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0019Content adds the content library: folders, items (files or links) with their
// versions, tags and visibility grants.
func migrate0019Content(tx *gorm.DB) error {
	type contentFolder struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;uniqueIndex:content_folders_tenant_name,priority:1"`
		Name      string `gorm:"size:200;not null;uniqueIndex:content_folders_tenant_name,priority:2"`
		CreatedAt time.Time
		UpdatedAt time.Time
	}
	type contentItem struct {
		ID               string  `gorm:"primaryKey;size:36"`
		TenantID         string  `gorm:"size:36;not null;index:content_items_tenant,priority:1"`
		FolderID         *string `gorm:"size:36"`
		Kind             string  `gorm:"size:8;not null"`
		Title            string  `gorm:"size:200;not null"`
		Description      string  `gorm:"size:5000"`
		Language         string  `gorm:"size:35"`
		URL              string  `gorm:"column:url;size:2048"`
		AllPartners      bool    `gorm:"not null;default:false"`
		Status           string  `gorm:"size:16;not null;index:content_items_tenant,priority:2"`
		CurrentVersionID *string `gorm:"size:36"`
		VersionNumber    int     `gorm:"not null;default:0"`
		FileName         string  `gorm:"size:255"`
		ContentType      string  `gorm:"size:255"`
		Size             int64   `gorm:"not null;default:0"`
		SHA256           string  `gorm:"column:sha256;size:64"`
		ExpiresAt        *time.Time
		CreatedBy        string `gorm:"size:36"`
		CreatedAt        time.Time
		UpdatedAt        time.Time
	}
	type contentVersion struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null"`
		ItemID      string `gorm:"size:36;not null;uniqueIndex:content_versions_item_number,priority:1"`
		Number      int    `gorm:"not null;uniqueIndex:content_versions_item_number,priority:2"`
		BlobKey     string `gorm:"size:100;not null"`
		FileName    string `gorm:"size:255;not null"`
		ContentType string `gorm:"size:255;not null"`
		Size        int64  `gorm:"not null"`
		SHA256      string `gorm:"column:sha256;size:64;not null"`
		CreatedBy   string `gorm:"size:36"`
		CreatedAt   time.Time
	}
	type contentTag struct {
		TenantID string `gorm:"size:36;not null;index:content_tags_tenant_tag,priority:1"`
		ItemID   string `gorm:"primaryKey;size:36"`
		Tag      string `gorm:"primaryKey;size:50;index:content_tags_tenant_tag,priority:2"`
	}
	type contentGrant struct {
		TenantID string `gorm:"size:36;not null"`
		ItemID   string `gorm:"primaryKey;size:36"`
		Kind     string `gorm:"primaryKey;size:8"`
		Value    string `gorm:"primaryKey;size:64"`
	}
	if err := tx.Table("content_folders").Migrator().CreateTable(&contentFolder{}); err != nil {
		return err
	}
	if err := tx.Table("content_items").Migrator().CreateTable(&contentItem{}); err != nil {
		return err
	}
	if err := tx.Table("content_versions").Migrator().CreateTable(&contentVersion{}); err != nil {
		return err
	}
	if err := tx.Table("content_tags").Migrator().CreateTable(&contentTag{}); err != nil {
		return err
	}
	if err := tx.Table("content_grants").Migrator().CreateTable(&contentGrant{}); err != nil {
		return err
	}
	// Grants are found by what they grant: a level's or a partner's items.
	return tx.Exec("CREATE INDEX content_grants_value ON content_grants (kind, value, item_id)").Error
}
