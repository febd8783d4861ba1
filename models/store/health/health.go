// Package health keeps partner health: each tenant's health model, the scoring runs, every
// partner's snapshot per run (the history) and its current score and tier. Scoring computes
// each source for a page of partners in one grouped query, not one query per partner.
package health

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/metrics"
)

// Store keeps partner health.
type Store struct {
	core    *store.Store
	metrics *metrics.Store
}

// New is the health store on core's database; metric components are computed by ms.
func New(core *store.Store, ms *metrics.Store) *Store { return &Store{core: core, metrics: ms} }

// Scoped is partner health as one principal sees it.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the health store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// modelRow is a tenant's health model as stored: the components and tiers as JSON.
type modelRow struct {
	TenantID   string `gorm:"primaryKey"`
	Version    int
	Definition string
	Hour       int
	UpdatedBy  string
	UpdatedAt  time.Time
}

func (modelRow) TableName() string { return "health_models" }

type definition struct {
	Components []models.HealthComponent `json:"components"`
	Tiers      []models.HealthTier      `json:"tiers"`
}

func (r *modelRow) model() (*models.HealthModel, error) {
	var d definition
	if err := json.Unmarshal([]byte(r.Definition), &d); err != nil {
		return nil, err
	}
	return &models.HealthModel{TenantID: r.TenantID, Version: r.Version, Components: d.Components, Tiers: d.Tiers, Hour: r.Hour,
		UpdatedBy: r.UpdatedBy, UpdatedAt: r.UpdatedAt}, nil
}

// loadModel reads the scope's tenant's model; none is not found.
func loadModel(db *gorm.DB, sc store.Scope) (*models.HealthModel, error) {
	var r modelRow
	if err := sc.Rows(db.Model(&modelRow{})).Take(&r).Error; err != nil {
		return nil, store.NotFoundAs(err, "HEALTH_MODEL_NOT_FOUND", "health model")
	}
	return r.model()
}

// HealthModel is the tenant's health model.
func (sc *Scoped) HealthModel(ctx context.Context) (*models.HealthModel, error) {
	return loadModel(sc.s.core.DB(ctx), sc.Scope)
}

// PutHealthModel validates m and makes it the tenant's health model, one version after the
// previous; audited.
func (sc *Scoped) PutHealthModel(ctx context.Context, m models.HealthModel) (*models.HealthModel, error) {
	tenantID := sc.Scope.TenantID()
	var out *models.HealthModel
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		known, err := knownMetrics(tx, sc.Scope, m.Components)
		if err != nil {
			return err
		}
		if err := models.CheckHealthModel(&m, known); err != nil {
			return err
		}
		var cur modelRow
		version := 1
		err = sc.Scope.Rows(tx.Model(&modelRow{})).Clauses(clause.Locking{Strength: "UPDATE"}).Take(&cur).Error
		switch {
		case err == nil:
			version = cur.Version + 1
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return err
		}
		row := modelRow{TenantID: tenantID, Version: version, Definition: store.MustJSON(definition{Components: m.Components, Tiers: m.Tiers}),
			Hour: m.Hour, UpdatedBy: sc.P.ActorID(), UpdatedAt: now()}
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "tenant_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"version", "definition", "hour", "updated_by", "updated_at"})}).Create(&row).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, tenantID, "health_model.updated", "health_model", tenantID, "components", "tiers", "hour"); err != nil {
			return err
		}
		out, err = row.model()
		return err
	})
	return out, err
}

// knownMetrics is the set of the tenant's metrics among those the components name.
func knownMetrics(tx *gorm.DB, sc store.Scope, components []models.HealthComponent) (map[string]bool, error) {
	var ids []string
	for _, c := range components {
		if c.Source == models.HealthMetric && c.MetricID != "" && len(c.MetricID) <= 36 {
			ids = append(ids, c.MetricID)
		}
	}
	known := map[string]bool{}
	if len(ids) == 0 {
		return known, nil
	}
	var found []string
	if err := sc.Rows(tx.Model(&models.Metric{})).Where("id IN ?", ids).Pluck("id", &found).Error; err != nil {
		return nil, err
	}
	for _, id := range found {
		known[id] = true
	}
	return known, nil
}

// runningFor is how long a run counts as under way; a run older than that (its workflow
// gone) no longer blocks a new one.
const runningFor = time.Hour

// RequestHealthRun opens a manual scoring run of the tenant's partners under the current
// model, for the caller to start; one under way already is a conflict. Audited.
func (sc *Scoped) RequestHealthRun(ctx context.Context) (*models.HealthRun, error) {
	var run *models.HealthRun
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		var err error
		run, err = sc.s.openRun(tx, sc.Scope, models.HealthTriggerManual, sc.P.ActorID())
		if err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.Scope.TenantID(), "health_run.requested", "health_run", run.ID)
	})
	return run, err
}

// openRun creates a run of trigger under the tenant's current model.
func (s *Store) openRun(tx *gorm.DB, sc store.Scope, trigger, by string) (*models.HealthRun, error) {
	var cur modelRow
	if err := sc.Rows(tx.Model(&modelRow{})).Clauses(clause.Locking{Strength: "UPDATE"}).Take(&cur).Error; err != nil {
		return nil, store.NotFoundAs(err, "HEALTH_MODEL_NOT_FOUND", "health model")
	}
	t := now()
	var n int64
	if err := sc.Rows(tx.Model(&models.HealthRun{})).Where("status = ? AND started_at > ?", models.HealthRunRunning, t.Add(-runningFor)).Count(&n).Error; err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, models.Conflict("HEALTH_RUN_IN_PROGRESS", "a scoring run is under way; try again when it finished")
	}
	run := &models.HealthRun{ID: models.NewID(), TenantID: sc.TenantID(), ModelVersion: cur.Version, Trigger: trigger,
		Status: models.HealthRunRunning, RequestedBy: by, StartedAt: t}
	return run, tx.Create(run).Error
}

// ListHealthRuns lists the tenant's scoring runs, newest first.
func (sc *Scoped) ListHealthRuns(ctx context.Context, pg models.Page) ([]models.HealthRun, string, error) {
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.HealthRun{}))
	return store.PageNewest(q, "id", pg, func(r models.HealthRun) string { return r.ID })
}

// HealthRun is one scoring run of the tenant.
func (sc *Scoped) HealthRun(ctx context.Context, id string) (*models.HealthRun, error) {
	var r models.HealthRun
	if err := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.HealthRun{})).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, store.NotFoundAs(err, "HEALTH_RUN_NOT_FOUND", "health run")
	}
	return &r, nil
}

// ListPartnerHealth lists the partners' current scores in partner order, filtered by tier.
func (sc *Scoped) ListPartnerHealth(ctx context.Context, f models.HealthFilter, pg models.Page) ([]models.PartnerHealth, string, error) {
	q := sc.Scope.PartnerRows(sc.s.core.DB(ctx).Model(&models.PartnerHealth{}), "partner_id")
	if f.Tier != "" {
		q = q.Where("tier = ?", f.Tier)
	}
	limit := pg.Limit
	if limit <= 0 {
		limit = 20
	}
	if pg.After != "" {
		q = q.Where("partner_id > ?", pg.After)
	}
	var rows []models.PartnerHealth
	if err := q.Order("partner_id").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, "", err
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = rows[len(rows)-1].PartnerID
	}
	return rows, next, nil
}

// checkPartner finds a partner of the caller's scope; another's or none is not found.
func (sc *Scoped) checkPartner(db *gorm.DB, partnerID string) error {
	var n int64
	if err := sc.Scope.PartnerRows(db.Model(&models.Partner{}), "id").Where("id = ?", partnerID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.NotFound("PARTNER_NOT_FOUND", "partner")
	}
	return nil
}

// PartnerHealthHistory lists a partner's snapshots, newest first.
func (sc *Scoped) PartnerHealthHistory(ctx context.Context, partnerID string, pg models.Page) ([]models.HealthSnapshot, string, error) {
	db := sc.s.core.DB(ctx)
	if err := sc.checkPartner(db, partnerID); err != nil {
		return nil, "", err
	}
	q := sc.Scope.PartnerRows(db.Model(&models.HealthSnapshot{}), "partner_id").Where("partner_id = ?", partnerID)
	return store.PageNewest(q, "run_id", pg, func(s models.HealthSnapshot) string { return s.RunID })
}

// ExplainPartnerHealth is a partner's current health with each component of its latest
// snapshot: raw value, normalised score, weight and contribution.
func (sc *Scoped) ExplainPartnerHealth(ctx context.Context, partnerID string) (*models.PartnerHealth, []models.HealthComponentScore, error) {
	db := sc.s.core.DB(ctx)
	if err := sc.checkPartner(db, partnerID); err != nil {
		return nil, nil, err
	}
	var cur models.PartnerHealth
	if err := sc.Scope.PartnerRows(db.Model(&models.PartnerHealth{}), "partner_id").Where("partner_id = ?", partnerID).Take(&cur).Error; err != nil {
		return nil, nil, store.NotFoundAs(err, "HEALTH_NOT_SCORED", "health score")
	}
	var snap models.HealthSnapshot
	if err := sc.Scope.Rows(db.Model(&models.HealthSnapshot{})).Where("run_id = ? AND partner_id = ?", cur.RunID, partnerID).Take(&snap).Error; err != nil {
		return nil, nil, store.NotFoundAs(err, "HEALTH_NOT_SCORED", "health score")
	}
	var comps []models.HealthComponentScore
	if err := json.Unmarshal([]byte(snap.Components), &comps); err != nil {
		return nil, nil, err
	}
	return &cur, comps, nil
}
