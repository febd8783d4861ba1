package store

import "gorm.io/gorm"

// migrate0037HealthMetricSource indexes metric rollups and unique sets by partner within a
// metric and grain, so that a health run's page reads its own partners' rows of the window
// (a seek per partner) rather than every partner's rows of the window (ADR 27, the metric source).
func migrate0037HealthMetricSource(tx *gorm.DB) error {
	for _, stmt := range []string{
		"CREATE INDEX metric_rollups_partner ON metric_rollups (tenant_id, metric_id, grain, partner_id, bucket_start)",
		"CREATE INDEX metric_unique_sets_partner ON metric_unique_sets (tenant_id, metric_id, grain, partner_id, bucket_start)",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
