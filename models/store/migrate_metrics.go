package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0006Metrics adds metrics, their rollups, and dashboards with widgets.
func migrate0006Metrics(tx *gorm.DB) error {
	type metric struct {
		ID         string `gorm:"primaryKey;size:36;index:metrics_tenant_id,priority:2"`
		TenantID   string `gorm:"size:36;not null;index:metrics_tenant_id,priority:1"`
		Name       string `gorm:"size:200;not null"`
		Kind       string `gorm:"size:16;not null"`
		EventType  string `gorm:"size:128;not null"`
		Field      string `gorm:"size:200"`
		Filters    string `gorm:"type:text;not null"`
		RolledUpTo string `gorm:"size:36;not null;default:''"`
		Numbered   int64  `gorm:"not null;default:0"`
		CreatedAt  time.Time
		UpdatedAt  time.Time
	}
	// metricRollup holds, per metric, grain (3600: hours, 86400: days), bucket start (unix
	// seconds) and partner ("" for unattributed events), the matching events, the sum of their
	// field and the events skipped.
	type metricRollup struct {
		TenantID    string `gorm:"primaryKey;size:36"`
		MetricID    string `gorm:"primaryKey;size:36"`
		Grain       int64  `gorm:"primaryKey;autoIncrement:false"`
		BucketStart int64  `gorm:"primaryKey;autoIncrement:false"`
		PartnerID   string `gorm:"primaryKey;size:36"`
		Events      int64  `gorm:"not null"`
		Total       int64  `gorm:"not null"`
		Skipped     int64  `gorm:"not null"`
	}
	// metricUniqueValue numbers the distinct values of a unique metric, densely from 0; the
	// metric's numbered column counts them.
	type metricUniqueValue struct {
		TenantID string `gorm:"primaryKey;size:36"`
		MetricID string `gorm:"primaryKey;size:36"`
		Value    string `gorm:"primaryKey;size:210"`
		Ordinal  int64  `gorm:"not null"`
	}
	// metricUniqueSet holds the ordinals of the values a unique metric saw in one day (grain
	// 86400) or one calendar month (grain 2678400) starting at bucket start (unix seconds) for
	// one partner, sorted and delta-encoded as unsigned varints.
	type metricUniqueSet struct {
		TenantID    string `gorm:"primaryKey;size:36"`
		MetricID    string `gorm:"primaryKey;size:36"`
		Grain       int64  `gorm:"primaryKey;autoIncrement:false"`
		BucketStart int64  `gorm:"primaryKey;autoIncrement:false"`
		PartnerID   string `gorm:"primaryKey;size:36"`
		Members     []byte `gorm:"not null"`
	}
	type dashboard struct {
		ID        string `gorm:"primaryKey;size:36;index:dashboards_tenant_id,priority:2"`
		TenantID  string `gorm:"size:36;not null;index:dashboards_tenant_id,priority:1"`
		Name      string `gorm:"size:200;not null"`
		Levels    string `gorm:"type:text;not null"`
		IsDefault bool   `gorm:"not null"`
		Widgets   string `gorm:"type:text;not null"`
		CreatedAt time.Time
		UpdatedAt time.Time
	}
	m := tx.Migrator()
	if err := m.CreateTable(&metric{}, &metricRollup{}, &metricUniqueValue{}, &metricUniqueSet{}, &dashboard{}); err != nil {
		return err
	}
	// Catching a rollup up walks one type's events of a tenant in id order.
	return tx.Exec("CREATE INDEX events_tenant_type_id ON events (tenant_id, type, id)").Error
}
