package store

import "gorm.io/gorm"

// migrate0041MetricRollupGrains empties every metric's rollup so that the next computes rebuild
// it with the rows this version reads: monthly sums beside the hourly and daily ones, rows and
// unique sets of all partners together (partner "*") beside the per-partner ones, and unique sets
// that may be bitmaps (ADR 10). A rollup is a cache of the events: nothing is lost. On Postgres
// the two tables leave room in their pages, so that a catch-up's increments of the same rows
// stay in the page (heap-only tuples) instead of adding index entries that computes wade through
// until the next vacuum.
func migrate0041MetricRollupGrains(tx *gorm.DB) error {
	if tx.Name() == "postgres" {
		for _, table := range []string{"metric_rollups", "metric_unique_sets"} {
			if err := tx.Exec("ALTER TABLE " + table + " SET (fillfactor = 70)").Error; err != nil {
				return err
			}
		}
	}
	for _, stmt := range []string{
		"DELETE FROM metric_rollups",
		"DELETE FROM metric_unique_sets",
		"DELETE FROM metric_unique_values",
		"UPDATE metrics SET rolled_up_to = '', numbered = 0",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
