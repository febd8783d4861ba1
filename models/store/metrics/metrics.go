// Package metrics keeps operator-defined metrics, their rollups and the dashboards that show them:
// the metrics module's persistence and computation on the core store.
package metrics

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/money"
)

// Store keeps the metrics and dashboards of every tenant and computes metrics over the events.
type Store struct {
	core *store.Store
}

// New is the metrics store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the metric and dashboard store as one principal sees it: partners read the
// definitions and compute over their own events.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the metrics store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// RollupLag is how old an event must be before it enters a metric's rollup. Event ids are taken
// before their transaction commits, so a younger event with a smaller id may still appear; the
// rollup stops short of such events and computes answer them from the raw events instead.
const RollupLag = 30 * time.Second

// rollupBatch is how many events one catch-up transaction folds into a rollup.
const rollupBatch = 20000

// computeCatchUpBatches bounds the catch-up a compute does before answering; a longer backlog
// (a new metric over a long history) is answered from the raw events and folded in by the
// computes that follow.
const computeCatchUpBatches = 5

// catchUpEvery is how far a rollup may lag the settled point before a compute catches it up:
// computes in between read those few seconds of events raw and write nothing.
const catchUpEvery = 10 * time.Second

// Rollup grains, in seconds.
const (
	grainHour = 3600
	grainDay  = 86400
	// grainMonth labels calendar months (UTC).
	grainMonth = 31 * 86400
)

// allPartners is the partner of the rollup rows and unique sets that hold every event of a
// bucket (every partner and unattributed events), which an operator's compute over the whole
// tenant reads instead of adding up one row per partner. Partner ids are UUIDs: it names none.
const allPartners = "*"

// metricRollup is one hour, day or calendar month of one metric for one partner ("" for
// unattributed events, allPartners for all of them).
type metricRollup struct {
	TenantID    string `gorm:"primaryKey"`
	MetricID    string `gorm:"primaryKey"`
	Grain       int64  `gorm:"primaryKey;autoIncrement:false"`
	BucketStart int64  `gorm:"primaryKey;autoIncrement:false"`
	PartnerID   string `gorm:"primaryKey"`
	Events      int64
	Total       int64
	Skipped     int64
}

func (metricRollup) TableName() string { return "metric_rollups" }

// metricUniqueValue numbers one distinct value of a unique metric.
type metricUniqueValue struct {
	TenantID string `gorm:"primaryKey"`
	MetricID string `gorm:"primaryKey"`
	Value    string `gorm:"primaryKey"`
	Ordinal  int64
}

func (metricUniqueValue) TableName() string { return "metric_unique_values" }

// metricUniqueSet is the set of value ordinals a unique metric saw in one day or one month for
// one partner.
type metricUniqueSet struct {
	TenantID    string `gorm:"primaryKey"`
	MetricID    string `gorm:"primaryKey"`
	Grain       int64  `gorm:"primaryKey;autoIncrement:false"`
	BucketStart int64  `gorm:"primaryKey;autoIncrement:false"`
	PartnerID   string `gorm:"primaryKey"`
	Members     []byte
}

func (metricUniqueSet) TableName() string { return "metric_unique_sets" }

// metricRows starts a query on the tenant's metrics. Partners read the definitions too: they
// compute metrics over their own events.
func (sc *Scoped) metricRows(ctx context.Context) *gorm.DB {
	return sc.Rows(ctx, &models.Metric{})
}

func filtersJSON(f []models.MetricFilter) string {
	if f == nil {
		f = []models.MetricFilter{}
	}
	b, _ := json.Marshal(f)
	return string(b)
}

func metricNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// checkFund checks the fund of an mdf_roi metric: one of the tenant's funds, in the metric's
// currency, which the fund gives when the metric names none.
func (sc *Scoped) checkFund(ctx context.Context, m *models.Metric) error {
	if m.Kind != models.MetricMDFROI || m.FundID == "" {
		return nil
	}
	f, err := money.MDFFundOf(sc.s.core.DB(ctx), sc.Scope, m.FundID)
	if de, ok := models.AsError(err); ok && de.Code == "MDF_FUND_NOT_FOUND" {
		return models.Invalid("INVALID_METRIC", "the metric is not valid", models.FieldError{Location: "body.fundId", Message: "no such MDF fund", Value: m.FundID})
	}
	if err != nil {
		return err
	}
	if m.Currency == "" {
		m.Currency = f.Currency
	}
	if m.Currency != f.Currency {
		return models.Invalid("INVALID_METRIC", "the metric is not valid", models.FieldError{Location: "body.currency",
			Message: "the fund is in " + f.Currency + ": an ROI divides amounts of one currency", Value: m.Currency})
	}
	return nil
}

// CreateMetric adds a metric to the principal's tenant.
func (sc *Scoped) CreateMetric(ctx context.Context, m *models.Metric, filters []models.MetricFilter) error {
	models.NormalizeMetric(m)
	if err := sc.checkFund(ctx, m); err != nil {
		return err
	}
	if err := models.ValidateMetric(m, filters, "body."); err != nil {
		return err
	}
	m.ID = models.NewID()
	m.TenantID = sc.P.TenantID
	m.Filters = filtersJSON(filters)
	m.RolledUpTo, m.Numbered = "", 0
	m.CreatedAt = metricNow()
	m.UpdatedAt = m.CreatedAt
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, m.TenantID, "metric.created", "metric", m.ID, "name", "kind", "eventType", "field", "filters", "unit", "currency", "fundId")
	})
}

// ListMetrics lists the tenant's metrics, oldest first.
func (sc *Scoped) ListMetrics(ctx context.Context, pg models.Page) ([]models.Metric, string, error) {
	return store.Page(sc.metricRows(ctx), pg, func(m models.Metric) string { return m.ID })
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
	m, err := sc.Metric(ctx, id)
	if err != nil {
		return nil, err
	}
	var changed []string
	models.SetChanged(&changed, "name", ch.Name, &m.Name)
	models.SetChanged(&changed, "kind", ch.Kind, &m.Kind)
	models.SetChanged(&changed, "eventType", ch.EventType, &m.EventType)
	models.SetChanged(&changed, "field", ch.Field, &m.Field)
	models.SetChanged(&changed, "unit", ch.Unit, &m.Unit)
	models.SetChanged(&changed, "currency", ch.Currency, &m.Currency)
	models.SetChanged(&changed, "fundId", ch.FundID, &m.FundID)
	filters := m.FilterList()
	if ch.Filters != nil {
		if f := filtersJSON(*ch.Filters); f != m.Filters {
			m.Filters, filters = f, *ch.Filters
			changed = append(changed, "filters")
		}
	}
	if models.ScoreMetric(m.Kind) || m.Kind == models.MetricMDFROI {
		// A csat or nps metric always reads survey.responded's score, an mdf_roi metric approved
		// claims in basis points; an ROI's fund gives its currency when it has none.
		before := *m
		models.NormalizeMetric(m)
		if err := sc.checkFund(ctx, m); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name    string
			was, is string
		}{{"eventType", before.EventType, m.EventType}, {"field", before.Field, m.Field}, {"unit", before.Unit, m.Unit}, {"currency", before.Currency, m.Currency}} {
			if f.was != f.is && !slices.Contains(changed, f.name) {
				changed = append(changed, f.name)
			}
		}
	}
	if len(changed) == 0 {
		return m, nil
	}
	if err := models.ValidateMetric(m, filters, "body."); err != nil {
		return nil, err
	}
	// Name, unit and currency say how the numbers read, not which numbers: the rollup stays.
	reset := slices.ContainsFunc(changed, func(f string) bool { return f != "name" && f != "unit" && f != "currency" })
	m.UpdatedAt = metricNow()
	updates := map[string]any{"name": m.Name, "kind": m.Kind, "event_type": m.EventType, "field": m.Field, "filters": m.Filters,
		"unit": m.Unit, "currency": m.Currency, "fund_id": m.FundID, "updated_at": m.UpdatedAt}
	if reset {
		m.RolledUpTo, m.Numbered = "", 0
		updates["rolled_up_to"], updates["numbered"] = "", 0
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		res := tx.Model(&models.Metric{}).Where(store.System(m.TenantID).Tenant()).Where("id = ?", m.ID).Updates(updates)
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
		return store.WriteAudit(ctx, tx, m.TenantID, "metric.updated", "metric", m.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func dropRollup(tx *gorm.DB, tenantID, metricID string) error {
	for _, table := range []any{&metricRollup{}, &metricUniqueValue{}, &metricUniqueSet{}} {
		if err := tx.Where(store.System(tenantID).Tenant()).Where("metric_id = ?", metricID).Delete(table).Error; err != nil {
			return err
		}
	}
	return nil
}

// DeleteMetric removes a metric and its rollup. A metric that a dashboard shows or the health
// model scores cannot be deleted.
func (sc *Scoped) DeleteMetric(ctx context.Context, id string) error {
	m, err := sc.Metric(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		var used int64
		if err := tx.Model(&models.Dashboard{}).Where(store.System(m.TenantID).Tenant()).Where("widgets LIKE ?", `%"`+m.ID+`"%`).Count(&used).Error; err != nil {
			return err
		}
		if used > 0 {
			return models.Conflict("METRIC_IN_USE", "a dashboard shows this metric; remove it from the dashboard first")
		}
		if err := tx.Table("health_models").Where(store.System(m.TenantID).Tenant()).Where("definition LIKE ?", `%"metricId":"`+m.ID+`"%`).Count(&used).Error; err != nil {
			return err
		}
		if used > 0 {
			return models.Conflict("METRIC_IN_USE", "the health model scores this metric; remove its component from the model first")
		}
		if err := tx.Where(store.System(m.TenantID).Tenant()).Where("id = ?", m.ID).Delete(&models.Metric{}).Error; err != nil {
			return err
		}
		if err := dropRollup(tx, m.TenantID, m.ID); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, m.TenantID, "metric.deleted", "metric", m.ID)
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
func (s *Store) RollUpMetric(ctx context.Context, sys models.Scope, metricID string, settledBefore time.Time) error {
	_, err := s.rollUp(ctx, sys.TenantID(), metricID, settledBefore, 0)
	return err
}

// rollUp is RollUpMetric stopping after maxBatches transactions (0: none); it reports whether
// the rollup reached settledBefore.
func (s *Store) rollUp(ctx context.Context, tenantID, metricID string, settledBefore time.Time, maxBatches int) (bool, error) {
	if now := time.Now(); settledBefore.After(now) {
		settledBefore = now
	}
	bound := idBound(settledBefore)
	for n := 0; maxBatches == 0 || n < maxBatches; n++ {
		done := false
		err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
			var m models.Metric
			err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where(store.System(tenantID).Tenant()).Where("id = ?", metricID).Take(&m).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return models.NotFound("METRIC_NOT_FOUND", "metric")
			}
			if err != nil {
				return err
			}
			if m.RolledUpTo >= bound || !models.EventMetric(m.Kind) {
				done = true
				return nil
			}
			var evs []models.Event
			q := matchType(tx.Model(&models.Event{}).Select("id", "type", "customer_id", "partner_id", "payload", "occurred_at").
				Where(store.System(tenantID).Tenant()), m.EventType).
				Where("id > ? AND id < ?", m.RolledUpTo, bound)
			if err := q.Order("id").Limit(rollupBatch).Find(&evs).Error; err != nil {
				return err
			}
			if err := foldEvents(tx, s.core.Dialect(), &m, evs); err != nil {
				return err
			}
			mark := bound
			if len(evs) == rollupBatch {
				mark = evs[len(evs)-1].ID
			} else {
				done = true
			}
			return tx.Model(&models.Metric{}).Where(store.System(tenantID).Tenant()).Where("id = ?", metricID).
				Updates(map[string]any{"rolled_up_to": mark, "numbered": m.Numbered}).Error
		})
		if err != nil || done {
			return done, err
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
	return false, nil
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
	grain, bucket int64
	partner       string
}

type setKey struct {
	grain, bucket int64
	partner       string
}

var errOverflow = models.Errorf(models.KindConflict, "METRIC_OVERFLOW", "the sum no longer fits in a 64-bit integer")

func addChecked(a, b int64) (int64, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, errOverflow
	}
	return a + b, nil
}

// checkedIncrement adds the new row's column to the stored one, or yields NULL (refused by the
// column's NOT NULL) when the sum would leave the 64-bit range: SQLite would silently turn it
// into a float.
func checkedIncrement(col string) clause.Expr {
	old, add := "metric_rollups."+col, "excluded."+col
	return gorm.Expr("CASE WHEN (" + add + " > 0 AND " + old + " > 9223372036854775807 - " + add + ") OR (" +
		add + " < 0 AND " + old + " < (-9223372036854775807 - 1) - " + add + ") THEN NULL ELSE " + old + " + " + add + " END")
}

// isNullViolation reports whether err is a NOT NULL constraint failure (a checked increment
// that overflowed).
func isNullViolation(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "23502") || strings.Contains(msg, "not null constraint")
}

// foldEvents adds events to the metric's rollup: hourly, daily and monthly sums, and for
// unique metrics the daily and monthly sets of value ordinals, each per partner and for all
// partners.
func foldEvents(tx *gorm.DB, dialect store.Dialect, m *models.Metric, evs []models.Event) error {
	if len(evs) == 0 {
		return nil
	}
	eval := m.Evaluator()
	agg := map[rollupKey]*metricRollup{}
	add := func(grain, bucket int64, partner string, o models.Observation) error {
		k := rollupKey{grain, bucket, partner}
		r := agg[k]
		if r == nil {
			r = &metricRollup{TenantID: m.TenantID, MetricID: m.ID, Grain: grain, BucketStart: bucket, PartnerID: partner}
			agg[k] = r
		}
		r.Events++
		if !o.Usable {
			r.Skipped++
			return nil
		}
		var err error
		r.Total, err = addChecked(r.Total, o.Amount)
		return err
	}
	sets := map[setKey][]string{}
	for i := range evs {
		e := &evs[i]
		o := eval.Observe(e.Type, e.CustomerID, e.Payload)
		if !o.Match {
			continue
		}
		partner := ""
		if e.PartnerID != nil {
			partner = *e.PartnerID
		}
		hour := e.OccurredAt.UTC().Truncate(time.Hour).Unix()
		day := models.IntervalStart(models.IntervalDay, e.OccurredAt).Unix()
		month := models.IntervalStart(models.IntervalMonth, e.OccurredAt).Unix()
		for _, p := range [2]string{partner, allPartners} {
			for _, g := range [3][2]int64{{grainHour, hour}, {grainDay, day}, {grainMonth, month}} {
				if err := add(g[0], g[1], p, o); err != nil {
					return err
				}
			}
			if o.Usable && m.Kind == models.MetricUnique {
				for _, k := range [2]setKey{{grainDay, day, p}, {grainMonth, month, p}} {
					sets[k] = append(sets[k], o.Value)
				}
			}
		}
	}
	if len(agg) == 0 {
		return nil
	}
	rows := make([]*metricRollup, 0, len(agg))
	for _, r := range agg {
		rows = append(rows, r)
	}
	// Postgres refuses to update one row twice in one statement; keys are unique here.
	slices.SortFunc(rows, func(a, b *metricRollup) int {
		if c := cmpInt(a.Grain, b.Grain); c != 0 {
			return c
		}
		if c := cmpInt(a.BucketStart, b.BucketStart); c != 0 {
			return c
		}
		return strings.Compare(a.PartnerID, b.PartnerID)
	})
	upsert := clause.OnConflict{
		Columns: []clause.Column{{Name: "tenant_id"}, {Name: "metric_id"}, {Name: "grain"}, {Name: "bucket_start"}, {Name: "partner_id"}},
		DoUpdates: clause.Assignments(map[string]any{
			"events": checkedIncrement("events"), "total": checkedIncrement("total"), "skipped": checkedIncrement("skipped"),
		}),
	}
	if err := tx.Clauses(upsert).CreateInBatches(rows, 1000).Error; err != nil {
		if isNullViolation(err) {
			return errOverflow
		}
		return err
	}
	if len(sets) == 0 {
		return nil
	}
	return foldSets(tx, dialect, m, sets)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// foldSets numbers new values (counting them in m.Numbered) and merges the day and month sets
// of a batch into the stored ones.
func foldSets(tx *gorm.DB, dialect store.Dialect, m *models.Metric, sets map[setKey][]string) error {
	var values []string
	for _, vs := range sets {
		values = append(values, vs...)
	}
	slices.Sort(values)
	values = slices.Compact(values)
	ordinals, err := lookupOrdinals(tx, dialect, m, values)
	if err != nil {
		return err
	}
	next := m.Numbered
	var fresh []metricUniqueValue
	for _, v := range values {
		if _, ok := ordinals[v]; !ok {
			ordinals[v] = next
			fresh = append(fresh, metricUniqueValue{TenantID: m.TenantID, MetricID: m.ID, Value: v, Ordinal: next})
			next++
		}
	}
	if len(fresh) > 0 {
		if err := tx.CreateInBatches(fresh, 1000).Error; err != nil {
			return err
		}
	}
	m.Numbered = next
	buckets := map[int64][]int64{} // grain → bucket starts
	for k := range sets {
		buckets[k.grain] = append(buckets[k.grain], k.bucket)
	}
	stored := map[setKey][]byte{}
	for grain, starts := range buckets {
		slices.Sort(starts)
		for chunk := range slices.Chunk(slices.Compact(starts), 500) {
			var have []metricUniqueSet
			if err := tx.Where(store.System(m.TenantID).Tenant()).Where("metric_id = ? AND grain = ? AND bucket_start IN ?", m.ID, grain, chunk).Find(&have).Error; err != nil {
				return err
			}
			for _, h := range have {
				stored[setKey{h.Grain, h.BucketStart, h.PartnerID}] = h.Members
			}
		}
	}
	rows := make([]metricUniqueSet, 0, len(sets))
	for k, vs := range sets {
		members := decodeOrdinals(stored[k], nil)
		for _, v := range vs {
			members = append(members, ordinals[v])
		}
		rows = append(rows, metricUniqueSet{TenantID: m.TenantID, MetricID: m.ID, Grain: k.grain, BucketStart: k.bucket, PartnerID: k.partner, Members: encodeOrdinals(members)})
	}
	slices.SortFunc(rows, func(a, b metricUniqueSet) int {
		if c := cmpInt(a.Grain, b.Grain); c != 0 {
			return c
		}
		if c := cmpInt(a.BucketStart, b.BucketStart); c != 0 {
			return c
		}
		return strings.Compare(a.PartnerID, b.PartnerID)
	})
	upsert := clause.OnConflict{
		Columns:   []clause.Column{{Name: "tenant_id"}, {Name: "metric_id"}, {Name: "grain"}, {Name: "bucket_start"}, {Name: "partner_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"members"}),
	}
	return tx.Clauses(upsert).CreateInBatches(rows, 1000).Error
}

// lookupOrdinals finds the ordinals of the values the metric has numbered already.
func lookupOrdinals(tx *gorm.DB, dialect store.Dialect, m *models.Metric, values []string) (map[string]int64, error) {
	out := make(map[string]int64, len(values))
	if dialect == store.Postgres && len(values) > 0 {
		// One array parameter joined on the primary key: a long IN list is planned as a filter
		// over every value of the metric while the table has no statistics yet.
		tenant, tenantID := store.System(m.TenantID).PostgresTenantOf("u", 2)
		rows, err := tx.Statement.ConnPool.QueryContext(tx.Statement.Context,
			`SELECT u.value, u.ordinal FROM unnest($1::text[]) AS v(value)
			 JOIN metric_unique_values u ON `+tenant+` AND u.metric_id = $3 AND u.value = v.value`, values, tenantID, m.ID)
		if err != nil {
			return nil, store.WrapUnavailable(err)
		}
		defer func() { _ = rows.Close() }()
		for rows.Next() {
			var v string
			var o int64
			if err := rows.Scan(&v, &o); err != nil {
				return nil, store.WrapUnavailable(err)
			}
			out[v] = o
		}
		return out, store.WrapUnavailable(rows.Err())
	}
	for chunk := range slices.Chunk(values, 1000) {
		var found []metricUniqueValue
		if err := tx.Select("value", "ordinal").Where(store.System(m.TenantID).Tenant()).Where("metric_id = ? AND value IN ?", m.ID, chunk).Find(&found).Error; err != nil {
			return nil, err
		}
		for _, f := range found {
			out[f.Value] = f.Ordinal
		}
	}
	return out, nil
}

// maxOrdinal bounds the ordinals of a unique metric (and so the memory of a bitset); values
// numbered beyond it would not be counted.
const maxOrdinal = 1 << 31

// Encodings of a set of ordinals, told by its first byte.
const (
	// setVarints: the ordinals sorted, as unsigned varint deltas.
	setVarints byte = 0
	// setBitmap: the index of the first 64-bit word (a varint), then the words from there on,
	// little-endian; bit b of word w is ordinal 64w+b.
	setBitmap byte = 1
)

// encodeOrdinals writes ordinals without duplicates in whichever encoding is shorter: deltas
// for sparse sets (a partner's day), a bitmap for dense ones (a month of the whole tenant),
// which also unions in a few word operations.
func encodeOrdinals(ords []int64) []byte {
	ords = slices.DeleteFunc(ords, func(o int64) bool { return o < 0 || o >= maxOrdinal })
	slices.Sort(ords)
	ords = slices.Compact(ords)
	out := make([]byte, 1, 1+len(ords)*2)
	out[0] = setVarints
	if len(ords) == 0 {
		return out
	}
	prev := int64(0)
	for _, o := range ords {
		out = binary.AppendUvarint(out, uint64(o-prev)) //nolint:gosec // G115: 0 <= o-prev < maxOrdinal
		prev = o
	}
	lo, hi := uint64(ords[0]/64), uint64(ords[len(ords)-1]/64) //nolint:gosec // G115: 0 <= o < maxOrdinal
	head := binary.AppendUvarint([]byte{setBitmap}, lo)
	if len(head)+8*int(hi-lo+1) >= len(out) { //nolint:gosec // G115: hi-lo < maxOrdinal/64
		return out
	}
	words := make([]uint64, hi-lo+1)
	for _, o := range ords {
		words[uint64(o)/64-lo] |= 1 << (uint64(o) % 64) //nolint:gosec // G115: 0 <= o < maxOrdinal
	}
	for _, w := range words {
		head = binary.LittleEndian.AppendUint64(head, w)
	}
	return head
}

// eachOrdinal calls fn with every ordinal of an encoded set (sorted for varints, by word for
// bitmaps), stopping at the first malformed part.
func eachOrdinal(b []byte, fn func(uint64)) {
	if len(b) == 0 {
		return
	}
	switch b[0] {
	case setVarints:
		prev := uint64(0)
		for b = b[1:]; len(b) > 0; {
			d, n := binary.Uvarint(b)
			if n <= 0 || d >= maxOrdinal || prev+d >= maxOrdinal {
				return
			}
			prev += d
			fn(prev)
			b = b[n:]
		}
	case setBitmap:
		eachWord(b, func(w int, word uint64) {
			for word != 0 {
				fn(uint64(w)*64 + uint64(bits.TrailingZeros64(word))) //nolint:gosec // G115: w < maxOrdinal/64
				word &= word - 1
			}
		})
	}
}

// eachWord calls fn with the index and value of every word of an encoded bitmap.
func eachWord(b []byte, fn func(int, uint64)) {
	lo, n := binary.Uvarint(b[1:])
	if n <= 0 || lo >= maxOrdinal/64 {
		return
	}
	b = b[1+n:]
	for i := 0; len(b) >= 8 && int(lo)+i < maxOrdinal/64; i++ {
		fn(int(lo)+i, binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
}

// decodeOrdinals appends the ordinals of an encoded set to dst.
func decodeOrdinals(b []byte, dst []int64) []int64 {
	eachOrdinal(b, func(o uint64) { dst = append(dst, int64(o)) }) //nolint:gosec // G115: o < maxOrdinal
	return dst
}

// bitset is a set of ordinals.
type bitset []uint64

// addEncoded adds the ordinals of an encoded set; a bitmap is or-ed in word by word.
func (s *bitset) addEncoded(b []byte) {
	if len(b) > 0 && b[0] == setBitmap {
		eachWord(b, func(w int, word uint64) {
			if word == 0 {
				return
			}
			if w >= len(*s) {
				*s = append(*s, make([]uint64, w+1-len(*s))...)
			}
			(*s)[w] |= word
		})
		return
	}
	eachOrdinal(b, s.add)
}

func (s *bitset) add(o uint64) {
	w := int(o / 64) //nolint:gosec // G115: o < maxOrdinal
	if w >= len(*s) {
		*s = append(*s, make([]uint64, w+1-len(*s))...)
	}
	(*s)[w] |= 1 << (o % 64)
}

func (s bitset) count() int64 {
	var n int
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

// ComputeMetric computes a metric over the events the principal may see. Partner principals
// always get their own organisation's events; naming another partner is forbidden. The range
// widens to whole hours (whole days for unique metrics), which the result reports.
func (sc *Scoped) ComputeMetric(ctx context.Context, id string, q models.MetricQuery) (*models.MetricResult, error) {
	m, err := sc.Metric(ctx, id)
	if err != nil {
		return nil, err
	}
	if sc.P.PartnerID != "" {
		if q.PartnerID != "" && q.PartnerID != sc.P.PartnerID {
			return nil, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only compute metrics over your own partner organisation")
		}
		q.PartnerID = sc.P.PartnerID
	}
	now := time.Now().UTC()
	if q.To.IsZero() {
		q.To = now
	}
	if q.From.IsZero() {
		q.From = q.To.AddDate(0, 0, -30)
	}
	grain := grainOf(m.Kind)
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
	res := newResult(m, q.From, q.To)
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
		if err := sc.s.core.DB(ctx).Model(&models.Partner{}).Where(sc.Scope.Tenant()).Where("level = ?", q.PartnerLevel).Pluck("id", &ids).Error; err != nil {
			return nil, err
		}
		if partners != nil {
			ids = slices.DeleteFunc(ids, func(id string) bool { return id != q.PartnerID })
		}
		partners = append([]string{}, ids...)
	}
	c := &computation{dialect: sc.s.core.Dialect(), m: m, res: res, partners: partners, interval: q.Interval, starts: starts}
	if m.Kind == models.MetricMDFROI {
		spends, err := money.MDFSpends(sc.s.core.DB(ctx), sc.Scope, c.spendFilter())
		if err != nil {
			return nil, err
		}
		if err := c.fillROI(spends); err != nil {
			return nil, err
		}
		return res, nil
	}
	if partners != nil && len(partners) == 0 {
		if err := c.fill(nil, nil); err != nil {
			return nil, err
		}
		return res, nil
	}
	if err := sc.s.catchUp(ctx, m, now); err != nil {
		return nil, err
	}
	var opts []*sql.TxOptions
	if sc.s.core.Dialect() == store.Postgres {
		opts = append(opts, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		return c.run(tx)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// grainOf is the finest grain a metric of kind is kept at: days for unique metrics, hours
// for the others.
func grainOf(kind string) string {
	if kind == models.MetricUnique {
		return models.IntervalDay
	}
	return models.IntervalHour
}

// newResult is the empty result of m over [from, to) widened to whole hours (whole days for
// unique metrics).
func newResult(m *models.Metric, from, to time.Time) *models.MetricResult {
	grain := grainOf(m.Kind)
	res := &models.MetricResult{Kind: m.Kind, Name: m.Name, Unit: m.Unit, Currency: m.Currency, From: models.IntervalStart(grain, from), To: models.IntervalStart(grain, to)}
	if res.To.Before(to) {
		res.To = models.NextInterval(grain, res.To)
	}
	return res
}

// catchUp folds a few batches of m's settled events into its rollup when it lags more than
// catchUpEvery behind, so that computes read few raw events. A metric that reads no events
// (mdf_roi) has no rollup.
func (s *Store) catchUp(ctx context.Context, m *models.Metric, now time.Time) error {
	if !models.EventMetric(m.Kind) {
		return nil
	}
	if settled := now.Add(-RollupLag); m.RolledUpTo < idBound(settled.Add(-catchUpEvery)) {
		if _, err := s.rollUp(ctx, m.TenantID, m.ID, settled, computeCatchUpBatches); err != nil {
			return err
		}
	}
	return nil
}

// computation answers one compute from the rollup plus the events not rolled up yet, read in
// one snapshot so that a concurrent catch-up cannot count an event twice.
type computation struct {
	dialect  store.Dialect
	m        *models.Metric
	res      *models.MetricResult
	partners []string
	interval string
	starts   []time.Time
	// byPartner computes the value (no series) of each partner named apart, rather than one
	// value of them all.
	byPartner bool
}

type bucketSums struct {
	PartnerID              string
	BucketStart            int64
	Events, Total, Skipped int64
}

func (c *computation) scope(q *gorm.DB, column string) *gorm.DB {
	if c.partners != nil {
		q = q.Where(column+" IN ?", c.partners)
	}
	return q
}

// key is the part of the computation an event or rollup row of partner counts in: the partner
// when computing by partner, the one whole otherwise.
func (c *computation) key(partner string) string {
	if c.byPartner {
		return partner
	}
	return ""
}

// partial is what one part of a computation (one partner's, or the whole) reads: its hourly
// or daily sums, and for unique metrics its day sets and the values of its events not rolled
// up yet by day.
type partial struct {
	sums []bucketSums
	sets []metricUniqueSet
	tail map[int64][]string
}

// span is a part of the range read at one grain.
type span struct {
	grain    int64
	from, to int64
}

// level is one grain of the rollup and the calendar interval its buckets span.
type level struct {
	interval string
	grain    int64
}

var (
	monthLevel = level{models.IntervalMonth, grainMonth}
	dayLevel   = level{models.IntervalDay, grainDay}
	hourLevel  = level{models.IntervalHour, grainHour}
)

// spans covers [from, to) (whole hours) with monthly rows where whole months fit, daily rows
// where whole days fit and hourly rows at the edges: a year is about 12 + 60 + 48 rows at most.
// A daily or weekly series reads no monthly rows (a month straddles its points), an hourly
// series hourly rows only.
func (c *computation) spans() []span {
	switch c.interval {
	case models.IntervalHour:
		return cover(c.res.From, c.res.To, hourLevel)
	case models.IntervalDay, models.IntervalWeek:
		return cover(c.res.From, c.res.To, dayLevel, hourLevel)
	}
	return cover(c.res.From, c.res.To, monthLevel, dayLevel, hourLevel)
}

// setSpans covers [from, to) (whole days) with month sets where whole months fit and day sets
// at the edges; a daily or weekly series reads day sets only.
func (c *computation) setSpans() []span {
	if c.interval == models.IntervalDay || c.interval == models.IntervalWeek {
		return cover(c.res.From, c.res.To, dayLevel)
	}
	return cover(c.res.From, c.res.To, monthLevel, dayLevel)
}

// cover splits [from, to) into the whole buckets of the first level and covers the remainders
// at both edges with the next levels; the last level's buckets must align with from and to.
func cover(from, to time.Time, levels ...level) []span {
	var out []span
	todo := [][2]time.Time{{from, to}}
	for n, l := range levels {
		var rest [][2]time.Time
		for _, r := range todo {
			if !r[0].Before(r[1]) {
				continue
			}
			if n == len(levels)-1 {
				out = append(out, span{l.grain, r[0].Unix(), r[1].Unix()})
				continue
			}
			first := models.IntervalStart(l.interval, r[0])
			if first.Before(r[0]) {
				first = models.NextInterval(l.interval, first)
			}
			last := models.IntervalStart(l.interval, r[1])
			if !first.Before(last) {
				rest = append(rest, r)
				continue
			}
			out = append(out, span{l.grain, first.Unix(), last.Unix()})
			rest = append(rest, [2]time.Time{r[0], first}, [2]time.Time{last, r[1]})
		}
		todo = rest
	}
	return out
}

// rollupScope narrows rollup rows or unique sets to the computation's partners' own rows;
// without partners, to the rows of all partners together, or when computing by partner to
// every partner's own rows (never those of all partners, which would count twice).
func (c *computation) rollupScope(q *gorm.DB) *gorm.DB {
	switch {
	case c.partners != nil:
		return q.Where("partner_id IN ?", c.partners)
	case c.byPartner:
		return q.Where("partner_id <> ?", allPartners)
	}
	return q.Where("partner_id = ?", allPartners)
}

// spanUnion reads every span of a rollup table in one statement: one index range scan per span
// (UNION ALL of one SELECT per span), each made by sel.
func spanUnion(tx *gorm.DB, spans []span, sel func(sp span) *gorm.DB) *gorm.DB {
	query, args := unionOf(spans, sel)
	return tx.Raw(query, args...)
}

// unionOf is the UNION ALL of one SELECT per span made by sel, and its arguments.
func unionOf(spans []span, sel func(sp span) *gorm.DB) (string, []any) {
	parts := make([]string, len(spans))
	args := make([]any, len(spans))
	for i, sp := range spans {
		parts[i], args[i] = "?", sel(sp)
	}
	return strings.Join(parts, " UNION ALL "), args
}

func (c *computation) run(tx *gorm.DB) error {
	parts, err := c.gather(tx)
	if err != nil {
		return err
	}
	p := parts[""]
	if p == nil {
		p = &partial{}
	}
	return c.fill(p.sums, p.sets)
}

// gather reads the rollup and the events not rolled up yet, in parts by key.
func (c *computation) gather(tx *gorm.DB) (map[string]*partial, error) {
	var state []models.Metric
	if err := tx.Select("rolled_up_to", "numbered").Where(store.System(c.m.TenantID).Tenant()).Where("id = ?", c.m.ID).Find(&state).Error; err != nil {
		return nil, err
	}
	if len(state) == 0 {
		return nil, models.NotFound("METRIC_NOT_FOUND", "metric")
	}
	parts := map[string]*partial{}
	part := func(partner *string) *partial {
		k := ""
		if partner != nil {
			k = c.key(*partner)
		}
		p := parts[k]
		if p == nil {
			p = &partial{tail: map[int64][]string{}}
			parts[k] = p
		}
		return p
	}
	mark := state[0].RolledUpTo
	// Events not rolled up yet.
	var tail []models.Event
	tq := matchType(tx.Model(&models.Event{}).Select("id", "type", "customer_id", "partner_id", "payload", "occurred_at").
		Where(store.System(c.m.TenantID).Tenant()), c.m.EventType).
		Where("id > ? AND occurred_at >= ? AND occurred_at < ?", mark, c.res.From, c.res.To)
	if err := c.scope(tq, "partner_id").Find(&tail).Error; err != nil {
		return nil, err
	}
	eval := c.m.Evaluator()
	if err := c.rollupSums(tx, func(b bucketSums) { p := part(&b.PartnerID); p.sums = append(p.sums, b) }); err != nil {
		return nil, err
	}
	for i := range tail {
		e := &tail[i]
		o := eval.Observe(e.Type, e.CustomerID, e.Payload)
		if !o.Match {
			continue
		}
		p := part(e.PartnerID)
		b := bucketSums{BucketStart: e.OccurredAt.UTC().Truncate(time.Hour).Unix(), Events: 1}
		if !o.Usable {
			b.Skipped = 1
		} else {
			b.Total = o.Amount
			if c.m.Kind == models.MetricUnique {
				day := models.IntervalStart(models.IntervalDay, e.OccurredAt).Unix()
				p.tail[day] = append(p.tail[day], o.Value)
			}
		}
		p.sums = append(p.sums, b)
	}
	if c.m.Kind == models.MetricUnique {
		if err := c.uniqueSets(tx, state[0].Numbered, parts, part); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// rollupSums reads the rollup's sums over the range in one statement, one index range scan per
// span: per bucket for one compute (the rows of all partners together, or of the computation's
// partners), per partner when computing by partner (each partner's own rows, grouped by partner).
func (c *computation) rollupSums(tx *gorm.DB, add func(bucketSums)) error {
	spans := c.spans()
	if len(spans) == 0 {
		return nil
	}
	const sums = "CAST(SUM(events) AS BIGINT) AS events, CAST(SUM(total) AS BIGINT) AS total, CAST(SUM(skipped) AS BIGINT) AS skipped"
	rollup := func(sp span) *gorm.DB {
		return c.rollupScope(tx.Model(&metricRollup{}).Where(store.System(c.m.TenantID).Tenant()).
			Where("metric_id = ? AND grain = ? AND bucket_start >= ? AND bucket_start < ?", c.m.ID, sp.grain, sp.from, sp.to))
	}
	var q *gorm.DB
	if c.byPartner {
		union, args := unionOf(spans, func(sp span) *gorm.DB {
			return rollup(sp).Select("partner_id", "events", "total", "skipped")
		})
		q = tx.Raw("SELECT partner_id, "+sums+" FROM ("+union+") AS r GROUP BY partner_id", args...)
	} else {
		q = spanUnion(tx, spans, func(sp span) *gorm.DB {
			return rollup(sp).Select("bucket_start, " + sums).Group("bucket_start")
		})
	}
	var rows []bucketSums
	if err := q.Scan(&rows).Error; err != nil {
		if isOutOfRange(err) {
			return errOverflow
		}
		return err
	}
	for _, b := range rows {
		add(b)
	}
	return nil
}

// isOutOfRange reports whether err is a database's refusal of a sum beyond 64 bits.
func isOutOfRange(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "out of range") || strings.Contains(msg, "integer overflow")
}

// uniqueSets reads the day sets of the rollup in the range into their parts and adds those of
// the values of each part's events not rolled up yet; each part's sets end sorted by day.
func (c *computation) uniqueSets(tx *gorm.DB, next int64, parts map[string]*partial, part func(*string) *partial) error {
	// Tail values the rollup has numbered take their ordinal; the others get ordinals above
	// every numbered one, for this computation only.
	var values []string
	for _, p := range parts {
		for _, vs := range p.tail {
			values = append(values, vs...)
		}
	}
	slices.Sort(values)
	values = slices.Compact(values)
	ordinals, err := lookupOrdinals(tx, c.dialect, c.m, values)
	if err != nil {
		return err
	}
	for _, v := range values {
		if _, ok := ordinals[v]; !ok {
			ordinals[v] = next
			next++
		}
	}
	if spans := c.setSpans(); len(spans) > 0 {
		var rows []metricUniqueSet
		q := spanUnion(tx, spans, func(sp span) *gorm.DB {
			q := tx.Model(&metricUniqueSet{}).Select("partner_id", "bucket_start", "members").
				Where(store.System(c.m.TenantID).Tenant()).Where("metric_id = ? AND grain = ? AND bucket_start >= ? AND bucket_start < ?", c.m.ID, sp.grain, sp.from, sp.to)
			return c.rollupScope(q)
		})
		if err := q.Scan(&rows).Error; err != nil {
			return err
		}
		for _, r := range rows {
			p := part(&r.PartnerID)
			p.sets = append(p.sets, r)
		}
	}
	for _, p := range parts {
		for day, vs := range p.tail {
			ords := make([]int64, 0, len(vs))
			for _, v := range vs {
				ords = append(ords, ordinals[v])
			}
			p.sets = append(p.sets, metricUniqueSet{BucketStart: day, Members: encodeOrdinals(ords)})
		}
		slices.SortFunc(p.sets, func(a, b metricUniqueSet) int { return cmpInt(a.BucketStart, b.BucketStart) })
	}
	return nil
}

// point is the index of the series point holding bucket, -1 without a series.
func (c *computation) point(bucket int64) int {
	if c.interval == "" {
		return -1
	}
	t := time.Unix(bucket, 0).UTC()
	i, _ := slices.BinarySearchFunc(c.starts, t, func(p, t time.Time) int { return p.Compare(t) })
	if i == len(c.starts) || c.starts[i].After(t) {
		i--
	}
	return i
}

// fill sets the result's value and series from hourly or daily sums, or for unique metrics
// from day sets sorted by day.
func (c *computation) fill(sums []bucketSums, sets []metricUniqueSet) error {
	res := c.res
	res.Value, res.Skipped, res.Responses = 0, 0, 0
	res.Series = nil
	if c.interval != "" {
		res.Series = make([]models.MetricPoint, len(c.starts))
		for i, s := range c.starts {
			res.Series[i].Start = s
		}
	}
	point := c.point
	if c.m.Kind == models.MetricUnique {
		for _, b := range sums {
			res.Skipped += b.Skipped
		}
		var all, cur bitset
		at := -1
		flush := func() {
			if at >= 0 {
				res.Series[at].Value = cur.count()
				clear(cur)
			}
		}
		for _, s := range sets {
			all.addEncoded(s.Members)
			if i := point(s.BucketStart); i >= 0 {
				if i != at {
					flush()
					at = i
				}
				cur.addEncoded(s.Members)
			}
		}
		flush()
		res.Value = all.count()
		return nil
	}
	if models.ScoreMetric(c.m.Kind) {
		return c.fillScores(sums)
	}
	var err error
	for _, b := range sums {
		res.Skipped += b.Skipped
		v := b.Events
		if c.m.Kind == models.MetricSum {
			v = b.Total
		}
		if res.Value, err = addChecked(res.Value, v); err != nil {
			return err
		}
		if i := point(b.BucketStart); i >= 0 {
			if res.Series[i].Value, err = addChecked(res.Series[i].Value, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillScores sets a csat or nps result from hourly or daily sums: events with a usable score are
// answers, total is the number satisfied (CSAT) or promoters minus detractors (NPS). The value
// and each point are scored over their own answers only.
func (c *computation) fillScores(sums []bucketSums) error {
	res := c.res
	var total int64
	totals := make([]int64, len(res.Series))
	for _, b := range sums {
		res.Skipped += b.Skipped
		answers := b.Events - b.Skipped
		res.Responses += answers
		total += b.Total
		if i := c.point(b.BucketStart); i >= 0 {
			res.Series[i].Responses += answers
			totals[i] += b.Total
		}
	}
	res.Value = models.ScoreOf(total, res.Responses)
	for i := range res.Series {
		res.Series[i].Value = models.ScoreOf(totals[i], res.Series[i].Responses)
	}
	return nil
}

// spendFilter selects the approved MDF claims an mdf_roi computation divides: the metric's
// currency and fund, the computation's partners and range.
func (c *computation) spendFilter() models.MDFSpendFilter {
	return models.MDFSpendFilter{Currency: c.m.Currency, FundID: c.m.FundID, PartnerIDs: c.partners, From: c.res.From, To: c.res.To}
}

// fillROI sets an mdf_roi result from the approved claims of its range: the won revenue of the
// deals they influenced (each once) over their spend, in basis points, for the value and for
// each point over the claims approved in its interval. Without spend there is no ROI.
func (c *computation) fillROI(spends []models.MDFSpend) error {
	res := c.res
	res.Value, res.Skipped, res.Responses, res.Spend, res.Revenue = 0, 0, 0, 0, 0
	res.Series = nil
	points := make([]models.MDFReturn, len(c.starts))
	if c.interval != "" {
		res.Series = make([]models.MetricPoint, len(c.starts))
		for i, s := range c.starts {
			res.Series[i].Start = s
		}
	}
	var all models.MDFReturn
	for _, s := range spends {
		if !all.Add(s) {
			return errOverflow
		}
		if i := c.point(s.ApprovedAt.Unix()); i >= 0 && !points[i].Add(s) {
			return errOverflow
		}
	}
	ratio := func(r *models.MDFReturn) (int64, error) {
		if r.Spend == 0 {
			return 0, nil
		}
		v, ok := r.BasisPoints()
		if !ok {
			return 0, errOverflow
		}
		return v, nil
	}
	var err error
	res.Spend, res.Revenue = all.Spend, all.Revenue
	if res.Value, err = ratio(&all); err != nil {
		return err
	}
	for i := range res.Series {
		res.Series[i].Spend, res.Series[i].Revenue = points[i].Spend, points[i].Revenue
		if res.Series[i].Value, err = ratio(&points[i]); err != nil {
			return err
		}
	}
	return nil
}
