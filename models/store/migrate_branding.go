package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0031Branding adds portal brands: one row per tenant (partner_id empty) with its name,
// colours, support email, CSS variables, logo and favicon, and one per partner with a co-brand
// logo. Images are blob keys with their type, SHA-256 (looked up by the public image route) and
// size in pixels.
func migrate0031Branding(tx *gorm.DB) error {
	type branding struct {
		TenantID           string `gorm:"primaryKey;size:36"`
		PartnerID          string `gorm:"primaryKey;size:36"`
		Name               string `gorm:"size:100"`
		ThemePrimary       string `gorm:"size:7"`
		ThemeAccent        string `gorm:"size:7"`
		ThemeBackground    string `gorm:"size:7"`
		ThemeText          string `gorm:"size:7"`
		SupportEmail       string `gorm:"size:254"`
		CSSVariables       string `gorm:"type:text"`
		LogoKey            string `gorm:"size:200"`
		LogoContentType    string `gorm:"size:100"`
		LogoSHA256         string `gorm:"size:64;index:brandings_logo_sha256"`
		LogoWidth          int
		LogoHeight         int
		FaviconKey         string `gorm:"size:200"`
		FaviconContentType string `gorm:"size:100"`
		FaviconSHA256      string `gorm:"size:64;index:brandings_favicon_sha256"`
		FaviconWidth       int
		FaviconHeight      int
		UpdatedAt          time.Time
	}
	return tx.Table("brandings").Migrator().CreateTable(&branding{})
}
