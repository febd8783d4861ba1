package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
)

// RollupLag is how old an event must be before it enters a metric's rollup. Event ids are taken
// before their transaction commits, so a younger event with a smaller id may still appear; the
// rollup stops short of such events and computes answer them from the raw events instead.
const RollupLag = 30 * time.Second

// rollupBatch is how many events one catch-up transaction folds into a rollup.
const rollupBatch = 5000

// metricRollup is one hour of one metric for one partner ("" for unattributed events).
type metricRollup struct {
	TenantID    string `gorm:"primaryKey"`
	MetricID    string `gorm:"primaryKey"`
	BucketStart int64  `gorm:"primaryKey;autoIncrement:false"`
	PartnerID   string `gorm:"primaryKey"`
	Events      int64
	Total       int64
	Skipped     int64
}

func (metricRollup) TableName() string { return "metric_rollups" }

// metricUnique is one distinct value of a unique metric on one day for one partner.
type metricUnique struct {
	TenantID    string `gorm:"primaryKey"`
	MetricID    string `gorm:"primaryKey"`
	BucketStart int64  `gorm:"primaryKey;autoIncrement:false"`
	PartnerID   string `gorm:"primaryKey"`
	Value       string `gorm:"primaryKey"`
}

func (metricUnique) TableName() string { return "metric_uniques" }

// metricRows starts a query on the tenant's metrics. Partners read the definitions too: they
// compute metrics over their own events.
func (sc *Scoped) metricRows(ctx context.Context) *gorm.DB {
	return sc.tenantRows(ctx, &models.Metric{})
}

func (sc *Scoped) operatorsOnly(what string) error {
	if sc.p.TenantID == "" {
		return models.NotFound("TENANT_NOT_FOUND", "tenant")
	}
	if sc.p.PartnerID != "" {
		return models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "%s are managed by operators", what)
	}
	return nil
}

func filtersJSON(f []models.MetricFilter) string {
	if f == nil {
		f = []models.MetricFilter{}
	}
	b, _ := json.Marshal(f)
	return string(b)
}

func metricNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// CreateMetric adds a metric to the principal's tenant.
func (sc *Scoped) CreateMetric(ctx context.Context, m *models.Metric, filters []models.MetricFilter) error {
	if err := sc.operatorsOnly("metrics"); err != nil {
		return err
	}
	if err := models.ValidateMetric(m, filters, "body."); err != nil {
		return err
	}
	m.ID = models.NewID()
	m.TenantID = sc.p.TenantID
	m.Filters = filtersJSON(filters)
	m.RolledUpTo = ""
	m.CreatedAt = metricNow()
	m.UpdatedAt = m.CreatedAt
	return sc.s.transact(ctx, func(tx *gorm.DB, _ *eventWriter) error {
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		return writeAudit(ctx, tx, m.TenantID, "metric.created", "metric", m.ID, "name", "kind", "eventType", "field", "filters")
	})
}

// ListMetrics lists the tenant's metrics, oldest first.
func (sc *Scoped) ListMetrics(ctx context.Context, pg models.Page) ([]models.Metric, string, error) {
	return page(sc.metricRows(ctx), pg, func(m models.Metric) string { return m.ID })
}

// Metric finds one metric of the tenant.
func (sc *Scoped) Metric(ctx context.Context, id string) (*models.Metric, error) {
	var m models.Metric
	err := sc.metricRows(ctx).Where("id = ?", id).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("METRIC_NOT_FOUND", "metric")
	}
	return &m, err
}

// UpdateMetric changes a metric. A change of what it computes drops its rollup, which the next
// compute rebuilds from the events.
func (sc *Scoped) UpdateMetric(ctx context.Context, id string, ch models.MetricChanges) (*models.Metric, error) {
	if err := sc.operatorsOnly("metrics"); err != nil {
		return nil, err
	}
	m, err := sc.Metric(ctx, id)
	if err != nil {
		return nil, err
	}
	var changed []string
	set := func(field string, v *string, dst *string) {
		if v != nil && *v != *dst {
			*dst = *v
			changed = append(changed, field)
		}
	}
	set("name", ch.Name, &m.Name)
	set("kind", ch.Kind, &m.Kind)
	set("eventType", ch.EventType, &m.EventType)
	set("field", ch.Field, &m.Field)
	filters := m.FilterList()
	if ch.Filters != nil {
		if f := filtersJSON(*ch.Filters); f != m.Filters {
			m.Filters, filters = f, *ch.Filters
			changed = append(changed, "filters")
		}
	}
	if len(changed) == 0 {
		return m, nil
	}
	if err := models.ValidateMetric(m, filters, "body."); err != nil {
		return nil, err
	}
	reset := slices.ContainsFunc(changed, func(f string) bool { return f != "name" })
	m.UpdatedAt = metricNow()
	updates := map[string]any{"name": m.Name, "kind": m.Kind, "event_type": m.EventType, "field": m.Field, "filters": m.Filters, "updated_at": m.UpdatedAt}
	if reset {
		m.RolledUpTo = ""
		updates["rolled_up_to"] = ""
	}
	err = sc.s.transact(ctx, func(tx *gorm.DB, _ *eventWriter) error {
		res := tx.Model(&models.Metric{}).Where("tenant_id = ? AND id = ?", m.TenantID, m.ID).Updates(updates)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.NotFound("METRIC_NOT_FOUND", "metric")
		}
		if reset {
			if err := dropRollup(tx, m.TenantID, m.ID); err != nil {
				return err
			}
		}
		return writeAudit(ctx, tx, m.TenantID, "metric.updated", "metric", m.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func dropRollup(tx *gorm.DB, tenantID, metricID string) error {
	if err := tx.Where("tenant_id = ? AND metric_id = ?", tenantID, metricID).Delete(&metricRollup{}).Error; err != nil {
		return err
	}
	return tx.Where("tenant_id = ? AND metric_id = ?", tenantID, metricID).Delete(&metricUnique{}).Error
}

// DeleteMetric removes a metric and its rollup. A metric that a dashboard shows cannot be
// deleted.
func (sc *Scoped) DeleteMetric(ctx context.Context, id string) error {
	if err := sc.operatorsOnly("metrics"); err != nil {
		return err
	}
	m, err := sc.Metric(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.transact(ctx, func(tx *gorm.DB, _ *eventWriter) error {
		var used int64
		if err := tx.Model(&models.Dashboard{}).Where("tenant_id = ? AND widgets LIKE ?", m.TenantID, `%"`+m.ID+`"%`).Count(&used).Error; err != nil {
			return err
		}
		if used > 0 {
			return models.Conflict("METRIC_IN_USE", "a dashboard shows this metric; remove it from the dashboard first")
		}
		if err := tx.Where("tenant_id = ? AND id = ?", m.TenantID, m.ID).Delete(&models.Metric{}).Error; err != nil {
			return err
		}
		if err := dropRollup(tx, m.TenantID, m.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, m.TenantID, "metric.deleted", "metric", m.ID)
	})
}

// idBound is the smallest UUIDv7 text of the millisecond of t: every id taken at t or later
// sorts at or above it, every id taken before sorts below.
func idBound(t time.Time) string {
	ms := uint64(t.UnixMilli())
	return fmt.Sprintf("%08x-%04x-0000-0000-000000000000", ms>>16, ms&0xffff)
}

// RollUpMetric folds the metric's events received before settledBefore into its rollup, in
// transactions of a few thousand events that each advance the metric's watermark. Concurrent
// catch-ups of one metric take turns on the metric's row. Events received after settledBefore
// (never later than now) stay out, so that an event whose transaction commits late is not missed.
func (s *Store) RollUpMetric(ctx context.Context, tenantID, metricID string, settledBefore time.Time) error {
	if now := time.Now(); settledBefore.After(now) {
		settledBefore = now
	}
	bound := idBound(settledBefore)
	for {
		done := false
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			var m models.Metric
			err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("tenant_id = ? AND id = ?", tenantID, metricID).Take(&m).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return models.NotFound("METRIC_NOT_FOUND", "metric")
			}
			if err != nil {
				return err
			}
			if m.RolledUpTo >= bound {
				done = true
				return nil
			}
			var evs []models.Event
			q := matchType(tx.Model(&models.Event{}).Select("id", "type", "customer_id", "partner_id", "payload", "occurred_at").
				Where("tenant_id = ?", tenantID), m.EventType).
				Where("id > ? AND id < ?", m.RolledUpTo, bound)
			if err := q.Order("id").Limit(rollupBatch).Find(&evs).Error; err != nil {
				return err
			}
			if err := foldEvents(tx, &m, evs); err != nil {
				return err
			}
			mark := bound
			if len(evs) == rollupBatch {
				mark = evs[len(evs)-1].ID
			} else {
				done = true
			}
			return tx.Model(&models.Metric{}).Where("tenant_id = ? AND id = ?", tenantID, metricID).Update("rolled_up_to", mark).Error
		})
		if err != nil || done {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

func matchType(q *gorm.DB, pattern string) *gorm.DB {
	if models.ValidEventType(pattern) {
		return q.Where("type = ?", pattern)
	}
	if pattern == "*" {
		return q
	}
	return q.Where(`type LIKE ? ESCAPE '\'`, models.EventPatternLike(pattern))
}

type rollupKey struct {
	bucket  int64
	partner string
}

type uniqueKey struct {
	bucket  int64
	partner string
	value   string
}

var errOverflow = models.Errorf(models.KindConflict, "METRIC_OVERFLOW", "the sum no longer fits in a 64-bit integer")

func addChecked(a, b int64) (int64, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, errOverflow
	}
	return a + b, nil
}

// foldEvents adds events to the metric's rollup rows.
func foldEvents(tx *gorm.DB, m *models.Metric, evs []models.Event) error {
	if len(evs) == 0 {
		return nil
	}
	eval := m.Evaluator()
	agg := map[rollupKey]*metricRollup{}
	uniq := map[uniqueKey]struct{}{}
	for i := range evs {
		e := &evs[i]
		o := eval.Observe(e.Type, e.CustomerID, e.Payload)
		if !o.Match {
			continue
		}
		k := rollupKey{bucket: e.OccurredAt.UTC().Truncate(time.Hour).Unix(), partner: deref(e.PartnerID)}
		r := agg[k]
		if r == nil {
			r = &metricRollup{TenantID: m.TenantID, MetricID: m.ID, BucketStart: k.bucket, PartnerID: k.partner}
			agg[k] = r
		}
		r.Events++
		if !o.Usable {
			r.Skipped++
			continue
		}
		var err error
		if r.Total, err = addChecked(r.Total, o.Amount); err != nil {
			return err
		}
		if m.Kind == models.MetricUnique {
			day := models.IntervalStart(models.IntervalDay, e.OccurredAt).Unix()
			uniq[uniqueKey{bucket: day, partner: k.partner, value: o.Value}] = struct{}{}
		}
	}
	if len(agg) == 0 {
		return nil
	}
	buckets := make([]int64, 0, len(agg))
	for k := range agg {
		buckets = append(buckets, k.bucket)
	}
	slices.Sort(buckets)
	buckets = slices.Compact(buckets)
	for chunk := range slices.Chunk(buckets, 500) {
		var have []metricRollup
		if err := tx.Where("tenant_id = ? AND metric_id = ? AND bucket_start IN ?", m.TenantID, m.ID, chunk).Find(&have).Error; err != nil {
			return err
		}
		for _, h := range have {
			if r := agg[rollupKey{h.BucketStart, h.PartnerID}]; r != nil {
				var err error
				r.Events += h.Events
				r.Skipped += h.Skipped
				if r.Total, err = addChecked(r.Total, h.Total); err != nil {
					return err
				}
			}
		}
	}
	rows := make([]*metricRollup, 0, len(agg))
	for _, r := range agg {
		rows = append(rows, r)
	}
	upsert := clause.OnConflict{
		Columns:   []clause.Column{{Name: "tenant_id"}, {Name: "metric_id"}, {Name: "bucket_start"}, {Name: "partner_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"events", "total", "skipped"}),
	}
	if err := tx.Clauses(upsert).CreateInBatches(rows, 500).Error; err != nil {
		return err
	}
	if len(uniq) == 0 {
		return nil
	}
	urows := make([]metricUnique, 0, len(uniq))
	for k := range uniq {
		urows = append(urows, metricUnique{TenantID: m.TenantID, MetricID: m.ID, BucketStart: k.bucket, PartnerID: k.partner, Value: k.value})
	}
	return tx.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(urows, 500).Error
}

// ComputeMetric computes a metric over the events the principal may see. Partner principals
// always get their own organisation's events; naming another partner is forbidden. The range
// widens to whole hours (whole days for unique metrics), which the result reports.
func (sc *Scoped) ComputeMetric(ctx context.Context, id string, q models.MetricQuery) (*models.MetricResult, error) {
	m, err := sc.Metric(ctx, id)
	if err != nil {
		return nil, err
	}
	if sc.p.PartnerID != "" {
		if q.PartnerID != "" && q.PartnerID != sc.p.PartnerID {
			return nil, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only compute metrics over your own partner organisation")
		}
		q.PartnerID = sc.p.PartnerID
	}
	now := time.Now().UTC()
	if q.To.IsZero() {
		q.To = now
	}
	if q.From.IsZero() {
		q.From = q.To.AddDate(0, 0, -30)
	}
	grain := models.IntervalHour
	if m.Kind == models.MetricUnique {
		grain = models.IntervalDay
	}
	var problems []models.FieldError
	if !q.From.Before(q.To) {
		problems = append(problems, models.FieldError{Location: "query.from", Message: "must be before to"})
	}
	if !models.ValidInterval(q.Interval) {
		problems = append(problems, models.FieldError{Location: "query.interval", Message: "must be hour, day, week or month", Value: q.Interval})
	} else if q.Interval == models.IntervalHour && grain == models.IntervalDay {
		problems = append(problems, models.FieldError{Location: "query.interval", Message: "unique metrics are kept per day; use day, week or month", Value: q.Interval})
	}
	if len(problems) > 0 {
		return nil, models.Invalid("INVALID_METRIC_QUERY", "the computation is not valid", problems...)
	}
	res := &models.MetricResult{Kind: m.Kind, From: models.IntervalStart(grain, q.From), To: models.IntervalStart(grain, q.To)}
	if res.To.Before(q.To) {
		res.To = models.NextInterval(grain, res.To)
	}
	var starts []time.Time
	if q.Interval != "" {
		for t := models.IntervalStart(q.Interval, res.From); t.Before(res.To); t = models.NextInterval(q.Interval, t) {
			if len(starts) == models.MaxSeriesPoints {
				return nil, models.Invalid("TOO_MANY_POINTS", fmt.Sprintf("the series would have more than %d points; use a longer interval or a shorter range", models.MaxSeriesPoints),
					models.FieldError{Location: "query.interval", Message: "too fine for the range", Value: q.Interval})
			}
			starts = append(starts, t)
		}
	}
	var partners []string // nil: every partner and unattributed events
	if q.PartnerID != "" {
		partners = []string{q.PartnerID}
	}
	if q.PartnerLevel != "" {
		var ids []string
		if err := sc.s.db.WithContext(ctx).Model(&models.Partner{}).Where("tenant_id = ? AND level = ?", sc.p.TenantID, q.PartnerLevel).Pluck("id", &ids).Error; err != nil {
			return nil, err
		}
		if partners != nil {
			ids = slices.DeleteFunc(ids, func(id string) bool { return id != q.PartnerID })
		}
		partners = append([]string{}, ids...)
	}
	if err := sc.s.RollUpMetric(ctx, m.TenantID, m.ID, now.Add(-RollupLag)); err != nil {
		return nil, err
	}
	c := &computation{m: m, res: res, partners: partners, interval: q.Interval, starts: starts}
	if partners != nil && len(partners) == 0 {
		c.fill(nil, nil)
		return res, nil
	}
	var opts []*sql.TxOptions
	if sc.s.dialect == Postgres {
		opts = append(opts, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	}
	err = sc.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return c.run(tx)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// computation answers one compute from the rollup plus the events not rolled up yet, read in
// one snapshot so that a concurrent catch-up cannot count an event twice.
type computation struct {
	m        *models.Metric
	res      *models.MetricResult
	partners []string
	interval string
	starts   []time.Time
}

type bucketSums struct {
	BucketStart            int64
	Events, Total, Skipped int64
}

func (c *computation) scope(q *gorm.DB, column string) *gorm.DB {
	if c.partners != nil {
		q = q.Where(column+" IN ?", c.partners)
	}
	return q
}

func (c *computation) run(tx *gorm.DB) error {
	var marks []string
	if err := tx.Model(&models.Metric{}).Where("tenant_id = ? AND id = ?", c.m.TenantID, c.m.ID).Pluck("rolled_up_to", &marks).Error; err != nil {
		return err
	}
	if len(marks) == 0 {
		return models.NotFound("METRIC_NOT_FOUND", "metric")
	}
	mark := marks[0]
	from, to := c.res.From.Unix(), c.res.To.Unix()
	var sums []bucketSums
	q := tx.Model(&metricRollup{}).
		Select("bucket_start, CAST(SUM(events) AS BIGINT) AS events, CAST(SUM(total) AS BIGINT) AS total, CAST(SUM(skipped) AS BIGINT) AS skipped").
		Where("tenant_id = ? AND metric_id = ? AND bucket_start >= ? AND bucket_start < ?", c.m.TenantID, c.m.ID, from, to)
	if err := c.scope(q, "partner_id").Group("bucket_start").Find(&sums).Error; err != nil {
		return err
	}
	// Events not rolled up yet.
	var tail []models.Event
	tq := matchType(tx.Model(&models.Event{}).Select("id", "type", "customer_id", "partner_id", "payload", "occurred_at").
		Where("tenant_id = ?", c.m.TenantID), c.m.EventType).
		Where("id > ? AND occurred_at >= ? AND occurred_at < ?", mark, c.res.From, c.res.To)
	if err := c.scope(tq, "partner_id").Find(&tail).Error; err != nil {
		return err
	}
	eval := c.m.Evaluator()
	tailValues := map[int64]map[string]struct{}{} // day → values
	for i := range tail {
		e := &tail[i]
		o := eval.Observe(e.Type, e.CustomerID, e.Payload)
		if !o.Match {
			continue
		}
		b := bucketSums{BucketStart: e.OccurredAt.UTC().Truncate(time.Hour).Unix(), Events: 1}
		if !o.Usable {
			b.Skipped = 1
		} else {
			b.Total = o.Amount
			if c.m.Kind == models.MetricUnique {
				day := models.IntervalStart(models.IntervalDay, e.OccurredAt).Unix()
				if tailValues[day] == nil {
					tailValues[day] = map[string]struct{}{}
				}
				tailValues[day][o.Value] = struct{}{}
			}
		}
		sums = append(sums, b)
	}
	if c.m.Kind != models.MetricUnique {
		return c.fill(sums, nil)
	}
	// Distinct values: the rollup's per range, plus tail values the rollup does not hold.
	counter := func(from, to time.Time) (int64, error) {
		var n int64
		q := tx.Model(&metricUnique{}).Select("COUNT(DISTINCT value)").
			Where("tenant_id = ? AND metric_id = ? AND bucket_start >= ? AND bucket_start < ?", c.m.TenantID, c.m.ID, from.Unix(), to.Unix())
		if err := c.scope(q, "partner_id").Scan(&n).Error; err != nil {
			return 0, err
		}
		vals := map[string]struct{}{}
		for day, vs := range tailValues {
			if day >= from.Unix() && day < to.Unix() {
				for v := range vs {
					vals[v] = struct{}{}
				}
			}
		}
		if len(vals) == 0 {
			return n, nil
		}
		list := make([]string, 0, len(vals))
		for v := range vals {
			list = append(list, v)
		}
		for chunk := range slices.Chunk(list, 500) {
			var found []string
			q := tx.Model(&metricUnique{}).Distinct("value").
				Where("tenant_id = ? AND metric_id = ? AND bucket_start >= ? AND bucket_start < ? AND value IN ?", c.m.TenantID, c.m.ID, from.Unix(), to.Unix(), chunk)
			if err := c.scope(q, "partner_id").Pluck("value", &found).Error; err != nil {
				return 0, err
			}
			n += int64(len(chunk) - len(found))
		}
		return n, nil
	}
	return c.fill(sums, counter)
}

// fill sets the result's value and series from hourly sums and, for unique metrics, a
// distinct counter over a range.
func (c *computation) fill(sums []bucketSums, distinct func(from, to time.Time) (int64, error)) error {
	res := c.res
	res.Value, res.Skipped = 0, 0
	res.Series = nil
	if c.interval != "" {
		res.Series = make([]models.MetricPoint, len(c.starts))
		for i, s := range c.starts {
			res.Series[i].Start = s
		}
	}
	var err error
	for _, b := range sums {
		res.Skipped += b.Skipped
		v := b.Events
		if c.m.Kind == models.MetricSum {
			v = b.Total
		}
		if c.m.Kind != models.MetricUnique {
			if res.Value, err = addChecked(res.Value, v); err != nil {
				return err
			}
		}
		if c.interval != "" && c.m.Kind != models.MetricUnique {
			t := time.Unix(b.BucketStart, 0).UTC()
			i, _ := slices.BinarySearchFunc(c.starts, t, func(p, t time.Time) int { return p.Compare(t) })
			if i == len(c.starts) || c.starts[i].After(t) {
				i--
			}
			if i >= 0 {
				if res.Series[i].Value, err = addChecked(res.Series[i].Value, v); err != nil {
					return err
				}
			}
		}
	}
	if c.m.Kind != models.MetricUnique || distinct == nil {
		return nil
	}
	if res.Value, err = distinct(res.From, res.To); err != nil {
		return err
	}
	for i := range res.Series {
		from, to := res.Series[i].Start, models.NextInterval(c.interval, res.Series[i].Start)
		if from.Before(res.From) {
			from = res.From
		}
		if to.After(res.To) {
			to = res.To
		}
		if res.Series[i].Value, err = distinct(from, to); err != nil {
			return err
		}
	}
	return nil
}
