package store

import "gorm.io/gorm"

// migrate0023MetricUnits gives metrics a unit (count or money) and, for money, an ISO 4217
// currency, so that dashboards format sums of amounts as money. Existing metrics are counts.
func migrate0023MetricUnits(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE metrics ADD COLUMN unit VARCHAR(16) NOT NULL DEFAULT 'count'",
		"ALTER TABLE metrics ADD COLUMN currency VARCHAR(3) NOT NULL DEFAULT ''",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
