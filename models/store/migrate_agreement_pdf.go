package store

import "gorm.io/gorm"

// migrate0032AgreementPDF lets an agreement version be a PDF in the blob store: its key and the
// uploaded file's name (both empty for Markdown versions). The triggers of 0025 keep published
// rows, these columns included, unchanged.
func migrate0032AgreementPDF(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE agreement_versions ADD COLUMN blob_key VARCHAR(200) NOT NULL DEFAULT ''",
		"ALTER TABLE agreement_versions ADD COLUMN file_name VARCHAR(255) NOT NULL DEFAULT ''",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
