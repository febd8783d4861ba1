package store

import "gorm.io/gorm"

// migrate0017EventIndexes makes storing an event cheaper: every index of the events table is
// written by every event, and ingest writes most of them.
//
//   - events_tenant_type_time goes: time ranges are read along (tenant_id, type, id), whose ids
//     follow the time of receipt, with occurred_at filtered on the rows.
//   - events_tenant_subject holds only events about a subject: ingested events have none.
//   - On Postgres the primary key becomes (tenant_id, id) and takes the place of
//     events_tenant_id_id; every read of an event names its tenant. (SQLite keeps its key, as
//     changing one means rebuilding the table.)
func migrate0017EventIndexes(tx *gorm.DB) error {
	stmts := []string{
		"DROP INDEX events_tenant_type_time",
		"DROP INDEX events_tenant_subject",
		"CREATE INDEX events_tenant_subject ON events (tenant_id, subject_id, id) WHERE subject_id IS NOT NULL",
	}
	if tx.Name() == "postgres" {
		stmts = append(stmts,
			"ALTER TABLE events DROP CONSTRAINT events_pkey",
			"ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (tenant_id, id)",
			"DROP INDEX events_tenant_id_id",
		)
	}
	for _, stmt := range stmts {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
