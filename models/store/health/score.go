package health

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/metrics"
)

// MaxPage bounds the partners one ScoreHealthPage call scores.
const MaxPage = 2000

// ScoreHealthPage scores, in one transaction, the next page of up to limit partners of the
// run's tenant after the partner id after (not offboarded, in id order) under the tenant's
// current model: a snapshot each, the current row, and partner.health_changed for each tier
// change. Partners the run scored before are skipped, so a retried page writes nothing twice.
func (s *Store) ScoreHealthPage(ctx context.Context, sys models.Scope, runID, after string, limit int) (models.HealthPage, error) {
	if limit <= 0 || limit > MaxPage {
		limit = 1000
	}
	sc := store.Of(sys)
	if err := s.catchUpMetrics(ctx, sys); err != nil {
		return models.HealthPage{}, err
	}
	var out models.HealthPage
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var run models.HealthRun
		if err := sc.Rows(tx.Model(&models.HealthRun{})).Where("id = ?", runID).Take(&run).Error; err != nil {
			return store.NotFoundAs(err, "HEALTH_RUN_NOT_FOUND", "health run")
		}
		m, err := loadModel(tx, sc)
		if err != nil {
			return err
		}
		var partners []models.Partner
		q := sc.Rows(tx.Model(&models.Partner{})).Select("id", "created_at").Where("status <> ?", models.PartnerOffboarded)
		if after != "" {
			q = q.Where("id > ?", after)
		}
		if err := q.Order("id").Limit(limit).Find(&partners).Error; err != nil {
			return err
		}
		if len(partners) == 0 {
			return nil
		}
		first, last := partners[0].ID, partners[len(partners)-1].ID
		out.Next = last
		inPage := func(q *gorm.DB, column string) *gorm.DB {
			return q.Where(column+" >= ? AND "+column+" <= ?", first, last)
		}
		var done []string
		if err := inPage(sc.Rows(tx.Model(&models.HealthSnapshot{})).Where("run_id = ?", runID), "partner_id").Pluck("partner_id", &done).Error; err != nil {
			return err
		}
		scored := make(map[string]bool, len(done))
		for _, id := range done {
			scored[id] = true
		}
		t := now()
		values, info, err := s.values(tx, sc, m, partners, inPage, t)
		if err != nil {
			return err
		}
		var current []models.PartnerHealth
		if err := inPage(sc.Rows(tx.Model(&models.PartnerHealth{})), "partner_id").Find(&current).Error; err != nil {
			return err
		}
		byPartner := make(map[string]*models.PartnerHealth, len(current))
		for i := range current {
			byPartner[current[i].PartnerID] = &current[i]
		}
		snaps := make([]models.HealthSnapshot, 0, len(partners))
		rows := make([]models.PartnerHealth, 0, len(partners))
		for _, p := range partners {
			if scored[p.ID] {
				continue
			}
			res := models.ScoreHealth(m, values[p.ID])
			for i, mi := range info {
				res.Components[i].HealthMetricInfo = mi
			}
			snaps = append(snaps, models.HealthSnapshot{RunID: runID, PartnerID: p.ID, TenantID: sys.TenantID(), ModelVersion: m.Version,
				Score: res.Score, Tier: res.Tier, Components: store.MustJSON(res.Components), ComputedAt: t})
			row := models.PartnerHealth{PartnerID: p.ID, TenantID: sys.TenantID(), Score: res.Score, Tier: res.Tier, ModelVersion: m.Version,
				RunID: runID, ComputedAt: t, TierSince: t}
			if cur := byPartner[p.ID]; cur != nil {
				row.PreviousTier, row.TierSince = cur.PreviousTier, cur.TierSince
				if cur.Tier != res.Tier {
					row.PreviousTier, row.TierSince = cur.Tier, t
					out.Changes++
					partner := p.ID
					if _, err := ev.Emit(ctx, tx, sys.TenantID(), models.NewEvent{Type: models.EventPartnerHealthChanged, PartnerID: &partner, SubjectID: &partner,
						Payload: store.MustJSON(models.HealthEventPayload{PartnerID: p.ID, FromTier: cur.Tier, ToTier: res.Tier, Score: res.Score,
							ModelVersion: m.Version, RunID: runID})}); err != nil {
						return err
					}
				}
			}
			rows = append(rows, row)
		}
		out.Scored = len(snaps)
		if len(snaps) == 0 {
			return nil
		}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(snaps, 200).Error; err != nil {
			return err
		}
		return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "partner_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"score", "tier", "previous_tier", "model_version", "run_id", "computed_at", "tier_since"})}).
			CreateInBatches(rows, 200).Error
	})
	return out, err
}

// catchUpMetrics brings the rollups of the model's metrics up to date before a page reads them
// in its transaction, as a compute does.
func (s *Store) catchUpMetrics(ctx context.Context, sys models.Scope) error {
	m, err := loadModel(s.core.DB(ctx), store.Of(sys))
	if err != nil {
		return err
	}
	for _, c := range m.Components {
		if c.Source == models.HealthMetric {
			if err := s.metrics.CatchUpMetric(ctx, sys, c.MetricID); err != nil {
				return fmt.Errorf("health metric %s: %w", c.MetricID, err)
			}
		}
	}
	return nil
}

// FinishHealthRun records that a run scored every partner: how many and how many changed tier.
func (s *Store) FinishHealthRun(ctx context.Context, sys models.Scope, runID string, partners, changes int) error {
	t := now()
	return store.Of(sys).Rows(s.core.DB(ctx).Model(&models.HealthRun{})).Where("id = ? AND status = ?", runID, models.HealthRunRunning).
		Updates(map[string]any{"status": models.HealthRunDone, "partners": partners, "changes": changes, "finished_at": t}).Error
}

// ScoreHealthRun scores every page of a run and finishes it, in this process: for tests and
// benchmarks; the service runs the same pages as activities of the health workflow.
func (s *Store) ScoreHealthRun(ctx context.Context, sys models.Scope, runID string, pageSize int) (partners, changes int, err error) {
	after := ""
	for {
		pg, err := s.ScoreHealthPage(ctx, sys, runID, after, pageSize)
		if err != nil {
			return partners, changes, err
		}
		if pg.Next == "" {
			break
		}
		partners += pg.Scored
		changes += pg.Changes
		after = pg.Next
	}
	return partners, changes, s.FinishHealthRun(ctx, sys, runID, partners, changes)
}

// DueHealthRuns opens a scheduled run for every tenant whose model's hour is at's UTC hour
// and that had no scheduled run in the last 20 hours (nor one under way), and lists them.
func (s *Store) DueHealthRuns(ctx context.Context, at time.Time) ([]models.HealthRun, error) {
	var tenants []string
	if err := s.core.DB(ctx).Model(&modelRow{}).Where("hour = ?", at.UTC().Hour()).Order("tenant_id").Pluck("tenant_id", &tenants).Error; err != nil {
		return nil, err
	}
	var out []models.HealthRun
	for _, id := range tenants {
		sc := store.System(id)
		err := s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
			var n int64
			if err := sc.Rows(tx.Model(&models.HealthRun{})).Where("run_trigger = ? AND started_at > ?", models.HealthTriggerSchedule, at.Add(-20*time.Hour)).
				Count(&n).Error; err != nil || n > 0 {
				return err
			}
			run, err := s.openRun(tx, sc, models.HealthTriggerSchedule, "")
			if err != nil {
				return err
			}
			out = append(out, *run)
			return nil
		})
		var me *models.Error
		if err != nil && (!errors.As(err, &me) || me.Code != "HEALTH_RUN_IN_PROGRESS") {
			return out, fmt.Errorf("health runs of tenant %s: %w", id, err)
		}
	}
	return out, nil
}

// grouped is one partner's aggregate of one source query.
type grouped struct {
	PartnerID string
	N         int64
	A         int64
	B         int64
}

// values computes every component's raw value for the page's partners: one grouped query per
// component over the partner ids of the page. info describes the metric of each metric
// component.
func (s *Store) values(tx *gorm.DB, sc store.Scope, m *models.HealthModel, partners []models.Partner, inPage func(*gorm.DB, string) *gorm.DB, t time.Time) (map[string]models.HealthValues, map[int]models.HealthMetricInfo, error) {
	out := make(map[string]models.HealthValues, len(partners))
	info := map[int]models.HealthMetricInfo{}
	set := func(partner string, i int, v int64) {
		if out[partner] == nil {
			out[partner] = models.HealthValues{}
		}
		out[partner][i] = v
	}
	run := func(q *gorm.DB, sel string) ([]grouped, error) {
		var g []grouped
		err := q.Select(sel).Group("partner_id").Find(&g).Error
		return g, err
	}
	var signIns map[string]time.Time
	for i, c := range m.Components {
		from := t.AddDate(0, 0, -c.WindowDays)
		var rows []grouped
		var err error
		switch c.Source {
		case models.HealthWonRevenue, models.HealthWonDeals:
			q := inPage(sc.Rows(tx.Model(&models.Deal{})), "partner_id").Where("status = ? AND closed_at >= ?", models.DealWon, from)
			if c.Source == models.HealthWonRevenue {
				q = q.Where("currency = ?", c.Currency)
			}
			rows, err = run(q, "partner_id, COUNT(*) AS n, COALESCE(SUM(amount_minor), 0) AS a")
			for _, r := range rows {
				if c.Source == models.HealthWonRevenue {
					set(r.PartnerID, i, r.A)
				} else {
					set(r.PartnerID, i, r.N)
				}
			}
			for _, p := range partners {
				if _, ok := out[p.ID][i]; !ok {
					set(p.ID, i, 0)
				}
			}
		case models.HealthNPS, models.HealthCSAT:
			q := inPage(sc.Rows(tx.Model(&models.Survey{})), "partner_id").Where("kind = ? AND answered_at IS NOT NULL AND answered_at >= ?", c.Source, from)
			good, bad := "score >= 9", "score <= 6"
			if c.Source == models.HealthCSAT {
				good, bad = "score >= 4", "1 = 0"
			}
			rows, err = run(q, "partner_id, COUNT(*) AS n, SUM(CASE WHEN "+good+" THEN 1 ELSE 0 END) AS a, SUM(CASE WHEN "+bad+" THEN 1 ELSE 0 END) AS b")
			for _, r := range rows {
				if r.N > 0 {
					set(r.PartnerID, i, (r.A-r.B)*100/r.N)
				}
			}
		case models.HealthOpenTickets:
			q := inPage(sc.Rows(tx.Model(&models.Ticket{})), "partner_id").Where("status NOT IN ?", []string{models.TicketResolved, models.TicketClosed})
			rows, err = run(q, "partner_id, COUNT(*) AS n")
			for _, p := range partners {
				set(p.ID, i, 0)
			}
			for _, r := range rows {
				set(r.PartnerID, i, r.N)
			}
		case models.HealthSLABreaches:
			q := inPage(sc.Rows(tx.Model(&models.Ticket{})), "partner_id").Where("(first_response_breached_at >= ? OR resolution_breached_at >= ?)", from, from)
			err = q.Select("partner_id, SUM(CASE WHEN first_response_breached_at >= ? THEN 1 ELSE 0 END) AS a, SUM(CASE WHEN resolution_breached_at >= ? THEN 1 ELSE 0 END) AS b", from, from).
				Group("partner_id").Find(&rows).Error
			for _, p := range partners {
				set(p.ID, i, 0)
			}
			for _, r := range rows {
				set(r.PartnerID, i, r.A+r.B)
			}
		case models.HealthOnboarding:
			q := inPage(sc.Rows(tx.Model(&models.Task{})), "partner_id").Where("source = ?", models.TaskOnboarding)
			rows, err = run(q, "partner_id, COUNT(*) AS n, SUM(CASE WHEN status = '"+models.TaskDone+"' THEN 1 ELSE 0 END) AS a")
			for _, r := range rows {
				if r.N > 0 {
					set(r.PartnerID, i, r.A*100/r.N)
				}
			}
		case models.HealthDaysSinceSignIn:
			if signIns == nil {
				if signIns, err = lastSignIns(tx, sc, inPage); err != nil {
					return nil, nil, err
				}
			}
			for _, p := range partners {
				last, ok := signIns[p.ID]
				if !ok {
					last = p.CreatedAt
				}
				days := int64(t.Sub(last) / (24 * time.Hour))
				set(p.ID, i, max(days, 0))
			}
		case models.HealthMetric:
			// The metric store's own computation, grouped by partner over the page's id range.
			var res *metrics.PartnerResults
			ids := make([]string, len(partners))
			for k, p := range partners {
				ids[k] = p.ID
			}
			res, err = s.metrics.ComputeForPartners(tx, sc.Scope, c.MetricID, from, t, ids)
			if err != nil {
				break
			}
			if res == nil {
				info[i] = models.HealthMetricInfo{MetricDeleted: true}
				break
			}
			info[i] = models.HealthMetricInfo{MetricName: res.Metric.Name, MetricKind: res.Metric.Kind, MetricUnit: res.Metric.Unit, MetricCurrency: res.Metric.Currency}
			for _, p := range partners {
				if v, ok := res.Value(p.ID); ok {
					set(p.ID, i, v)
				}
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("health source %s: %w", c.Source, err)
		}
	}
	return out, info, nil
}

// lastSignIns is when a user of each partner of the page last signed in or renewed a session:
// the newest refresh token of the partner's users.
func lastSignIns(tx *gorm.DB, sc store.Scope, inPage func(*gorm.DB, string) *gorm.DB) (map[string]time.Time, error) {
	q := tx.Table("refresh_tokens AS rt").Joins("JOIN users AS u ON u.id = rt.user_id").Where(sc.TenantOf("rt"))
	rows, err := inPage(q, "u.partner_id").Select("u.partner_id AS partner_id, MAX(rt.created_at) AS last").Group("u.partner_id").Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var partner string
		var last any
		if err := rows.Scan(&partner, &last); err != nil {
			return nil, store.WrapUnavailable(err)
		}
		if t, ok := asTime(last); ok {
			out[partner] = t
		}
	}
	if err := rows.Err(); err != nil {
		return nil, store.WrapUnavailable(err)
	}
	return out, nil
}

// sqliteTimes are the layouts a time comes back in from an aggregate on SQLite, where it is text.
var sqliteTimes = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

// asTime reads a time an aggregate returned: a time on Postgres, text on SQLite.
func asTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), true
	case []byte:
		return asTime(string(x))
	case string:
		x = strings.TrimSpace(x)
		for _, layout := range sqliteTimes {
			if t, err := time.Parse(layout, x); err == nil {
				return t.UTC(), true
			}
		}
	}
	return time.Time{}, false
}
