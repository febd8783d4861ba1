package store

import "gorm.io/gorm"

// migrate0041MetricRollupGrains empties every metric's rollup so that the next computes rebuild
// it with the rows this version reads: monthly sums beside the hourly and daily ones, rows and
// unique sets of all partners together (partner "*") beside the per-partner ones, and unique sets
// that may be bitmaps (ADR 10). A rollup is a cache of the events: nothing is lost.
func migrate0041MetricRollupGrains(tx *gorm.DB) error {
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
