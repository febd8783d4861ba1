package store

import "gorm.io/gorm"

// migrate0022RateLimits adds the shared rate-limit quotas of Postgres (ADR 22): one row per
// quota and partition, holding its theoretical arrival time (GCRA) in microseconds. The table
// is UNLOGGED: its writes skip the WAL, so a request's count costs no disk flush, and a crash
// empties it, which only hands every caller a whole quota again. Its fill factor leaves room on
// each page for the updates of a row to stay on its page (HOT). SQLite, one process, keeps its
// quotas in memory and gets no table.
func migrate0022RateLimits(tx *gorm.DB) error {
	if tx.Name() != "postgres" {
		return nil
	}
	return tx.Exec(`CREATE UNLOGGED TABLE rate_limits (
		key text PRIMARY KEY,
		tat bigint NOT NULL,
		emission bigint NOT NULL,
		tolerance bigint NOT NULL
	) WITH (fillfactor = 50)`).Error
}
