package store

import (
	"strings"

	"gorm.io/gorm"
)

// migrate0027TextSearch lets a search for a few characters (tickets by subject, content items by
// title or description: LOWER(column) LIKE '%text%') find its rows through trigram indexes on
// Postgres instead of reading every row of the table. It needs the pg_trgm extension: the
// migration creates it when it is missing and the database lets it (a trusted extension since
// Postgres 13); without it the indexes are left out and searches read the rows as before. SQLite
// keeps reading the rows.
func migrate0027TextSearch(tx *gorm.DB) error {
	if tx.Name() != "postgres" {
		return nil
	}
	schema, err := trigramSchema(tx)
	if err != nil || schema == "" {
		return err
	}
	ops := `"` + strings.ReplaceAll(schema, `"`, `""`) + `".gin_trgm_ops`
	for _, stmt := range []string{
		"CREATE INDEX tickets_subject_trgm ON tickets USING gin (LOWER(subject) " + ops + ")",
		"CREATE INDEX content_items_title_trgm ON content_items USING gin (LOWER(title) " + ops + ")",
		"CREATE INDEX content_items_description_trgm ON content_items USING gin (LOWER(description) " + ops + ")",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}

// trigramSchema is the schema holding the pg_trgm extension, created in public when missing;
// "" when it cannot be created. The extension is kept out of the connection's own schema, which
// may be dropped on its own (as the tests' schemas are).
func trigramSchema(tx *gorm.DB) (string, error) {
	const find = "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'"
	var schema string
	if err := tx.Raw(find).Scan(&schema).Error; err != nil || schema != "" {
		return schema, err
	}
	if err := tx.SavePoint("pg_trgm").Error; err != nil {
		return "", err
	}
	if err := tx.Exec("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public").Error; err != nil {
		return "", tx.RollbackTo("pg_trgm").Error
	}
	return "public", nil
}
