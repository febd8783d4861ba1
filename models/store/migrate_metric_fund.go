package store

import "gorm.io/gorm"

// migrate0042MetricFund lets an mdf_roi metric (ADR 10, ADR 33) name the MDF fund it is the
// return of, and indexes claims by when their final approval spent them, the period such a
// metric reads.
func migrate0042MetricFund(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE metrics ADD COLUMN fund_id VARCHAR(36) NOT NULL DEFAULT ''",
		"CREATE INDEX mdf_claims_tenant_reviewed ON mdf_claims (tenant_id, reviewed_at)",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
