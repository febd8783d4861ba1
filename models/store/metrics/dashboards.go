package metrics

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// defaultEventListLimit is how many events an event-list widget without a limit shows.
const defaultEventListLimit = 10

// visibleDashboards lists, oldest first, the dashboards a partner principal may see: those
// assigned to its level or, when its level has none, the default dashboard. Operators see all.
func (sc *Scoped) visibleDashboards(ctx context.Context) ([]models.Dashboard, error) {
	var all []models.Dashboard
	if err := sc.Rows(ctx, &models.Dashboard{}).Order("id").Find(&all).Error; err != nil {
		return nil, err
	}
	if sc.P.PartnerID == "" {
		return all, nil
	}
	level, err := sc.partnerLevel(ctx)
	if err != nil {
		return nil, err
	}
	var mine, fallback []models.Dashboard
	for _, d := range all {
		if level != "" && slices.Contains(d.LevelList(), level) {
			mine = append(mine, d)
		}
		if d.IsDefault {
			fallback = append(fallback, d)
		}
	}
	if len(mine) > 0 {
		return mine, nil
	}
	return fallback, nil
}

// partnerLevel is the current level of the principal's partner organisation.
func (sc *Scoped) partnerLevel(ctx context.Context) (string, error) {
	var levels []string
	err := sc.Rows(ctx, &models.Partner{}).Where("id = ?", sc.P.PartnerID).Pluck("level", &levels).Error
	if err != nil || len(levels) == 0 {
		return "", err
	}
	return levels[0], nil
}

// checkWidgets validates a dashboard's name and widgets, including that their metrics exist in
// the tenant.
func (sc *Scoped) checkWidgets(ctx context.Context, tx *gorm.DB, d *models.Dashboard) error {
	var problems []models.FieldError
	if d.Name == "" {
		problems = append(problems, models.FieldError{Location: "body.name", Message: "is required"})
	}
	more, err := sc.widgetProblems(tx, d.WidgetList(), "body.widgets", true)
	if err != nil {
		return err
	}
	problems = append(problems, more...)
	if len(problems) > 0 {
		return models.Invalid("INVALID_DASHBOARD", "the dashboard is not valid", problems...)
	}
	return nil
}

// widgetProblems lists the problems of widgets located under prefix (indexed when list is
// set), including metrics that do not exist in the tenant.
func (sc *Scoped) widgetProblems(tx *gorm.DB, widgets []models.Widget, prefix string, list bool) ([]models.FieldError, error) {
	var problems []models.FieldError
	if list {
		problems = models.ValidateWidgets(widgets, prefix)
	} else {
		for _, p := range models.ValidateWidgets(widgets, prefix) {
			p.Location = prefix + "." + strings.TrimPrefix(p.Location, prefix+"[0].")
			problems = append(problems, p)
		}
	}
	var ids []string
	for _, w := range widgets {
		if w.MetricID != "" {
			ids = append(ids, w.MetricID)
		}
	}
	if len(ids) > 0 {
		var metrics []models.Metric
		if err := tx.Select("id", "kind").Where(sc.Scope.Tenant()).Where("id IN ?", slices.Compact(slices.Sorted(slices.Values(ids)))).Find(&metrics).Error; err != nil {
			return nil, err
		}
		kinds := map[string]string{}
		for _, m := range metrics {
			kinds[m.ID] = m.Kind
		}
		for i, w := range widgets {
			if w.MetricID == "" {
				continue
			}
			loc := prefix + "[" + strconv.Itoa(i) + "]."
			if !list {
				loc = prefix + "."
			}
			kind, ok := kinds[w.MetricID]
			switch {
			case !ok:
				problems = append(problems, models.FieldError{Location: loc + "metricId", Message: "no such metric", Value: w.MetricID})
			case kind == models.MetricUnique && w.Interval == models.IntervalHour:
				problems = append(problems, models.FieldError{Location: loc + "interval", Message: "unique metrics are kept per day; use day, week or month", Value: w.Interval})
			}
		}
	}
	return problems, nil
}

// PreviewWidget computes one widget that no dashboard holds yet, exactly as a render would for
// the principal: over its own data only for a partner.
func (sc *Scoped) PreviewWidget(ctx context.Context, w models.Widget, now time.Time) (*models.WidgetResult, error) {
	problems, err := sc.widgetProblems(sc.s.core.DB(ctx), []models.Widget{w}, "body.widget", false)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, models.Invalid("INVALID_WIDGET", "the widget is not valid", problems...)
	}
	r, err := sc.renderWidget(ctx, w, now)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// clearOtherDefaults keeps at most one default dashboard per tenant.
func clearOtherDefaults(ctx context.Context, tx *gorm.DB, d *models.Dashboard) error {
	if !d.IsDefault {
		return nil
	}
	var ids []string
	if err := tx.Model(&models.Dashboard{}).Where(store.System(d.TenantID).Tenant()).Where("id <> ? AND is_default = ?", d.ID, true).Pluck("id", &ids).Error; err != nil {
		return err
	}
	for _, id := range ids {
		if err := tx.Model(&models.Dashboard{}).Where(store.System(d.TenantID).Tenant()).Where("id = ?", id).
			Updates(map[string]any{"is_default": false, "updated_at": d.UpdatedAt}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, d.TenantID, "dashboard.updated", "dashboard", id, "isDefault"); err != nil {
			return err
		}
	}
	return nil
}

// CreateDashboard adds a dashboard; d's levels and widgets are set with SetLevels and
// SetWidgets.
func (sc *Scoped) CreateDashboard(ctx context.Context, d *models.Dashboard) error {
	d.ID = models.NewID()
	d.TenantID = sc.P.TenantID
	if d.Levels == "" {
		d.SetLevels(nil)
	}
	if d.Widgets == "" {
		d.SetWidgets(nil)
	}
	d.CreatedAt = metricNow()
	d.UpdatedAt = d.CreatedAt
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := sc.checkWidgets(ctx, tx, d); err != nil {
			return err
		}
		if err := clearOtherDefaults(ctx, tx, d); err != nil {
			return err
		}
		if err := tx.Create(d).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, d.TenantID, "dashboard.created", "dashboard", d.ID, "name", "levels", "isDefault", "widgets")
	})
}

// ListDashboards lists the dashboards the principal may see, oldest first.
func (sc *Scoped) ListDashboards(ctx context.Context, pg models.Page) ([]models.Dashboard, string, error) {
	if sc.P.PartnerID == "" {
		return store.Page(sc.Rows(ctx, &models.Dashboard{}), pg, func(d models.Dashboard) string { return d.ID })
	}
	all, err := sc.visibleDashboards(ctx)
	if err != nil {
		return nil, "", err
	}
	limit := pg.Limit
	if limit <= 0 {
		limit = 20
	}
	all = slices.DeleteFunc(all, func(d models.Dashboard) bool { return d.ID <= pg.After })
	if len(all) > limit {
		return all[:limit], all[limit-1].ID, nil
	}
	return all, "", nil
}

// Dashboard finds one dashboard the principal may see.
func (sc *Scoped) Dashboard(ctx context.Context, id string) (*models.Dashboard, error) {
	if sc.P.PartnerID != "" {
		all, err := sc.visibleDashboards(ctx)
		if err != nil {
			return nil, err
		}
		for i := range all {
			if all[i].ID == id {
				return &all[i], nil
			}
		}
		return nil, models.NotFound("DASHBOARD_NOT_FOUND", "dashboard")
	}
	var d models.Dashboard
	err := sc.Rows(ctx, &models.Dashboard{}).Where("id = ?", id).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("DASHBOARD_NOT_FOUND", "dashboard")
	}
	return &d, err
}

// UpdateDashboard changes a dashboard.
func (sc *Scoped) UpdateDashboard(ctx context.Context, id string, ch models.DashboardChanges) (*models.Dashboard, error) {
	d, err := sc.Dashboard(ctx, id)
	if err != nil {
		return nil, err
	}
	var changed []string
	models.SetChanged(&changed, "name", ch.Name, &d.Name)
	if ch.Levels != nil {
		before := d.Levels
		if d.SetLevels(*ch.Levels); d.Levels != before {
			changed = append(changed, "levels")
		}
	}
	models.SetChanged(&changed, "isDefault", ch.IsDefault, &d.IsDefault)
	if ch.Widgets != nil {
		before := d.Widgets
		if d.SetWidgets(*ch.Widgets); d.Widgets != before {
			changed = append(changed, "widgets")
		}
	}
	if len(changed) == 0 {
		return d, nil
	}
	d.UpdatedAt = metricNow()
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := sc.checkWidgets(ctx, tx, d); err != nil {
			return err
		}
		if err := clearOtherDefaults(ctx, tx, d); err != nil {
			return err
		}
		res := tx.Model(&models.Dashboard{}).Where(store.System(d.TenantID).Tenant()).Where("id = ?", d.ID).
			Updates(map[string]any{"name": d.Name, "levels": d.Levels, "is_default": d.IsDefault, "widgets": d.Widgets, "updated_at": d.UpdatedAt})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.NotFound("DASHBOARD_NOT_FOUND", "dashboard")
		}
		return store.WriteAudit(ctx, tx, d.TenantID, "dashboard.updated", "dashboard", d.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteDashboard removes a dashboard.
func (sc *Scoped) DeleteDashboard(ctx context.Context, id string) error {
	d, err := sc.Dashboard(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := tx.Where(store.System(d.TenantID).Tenant()).Where("id = ?", d.ID).Delete(&models.Dashboard{}).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, d.TenantID, "dashboard.deleted", "dashboard", d.ID)
	})
}

// RenderDashboard computes every widget of a dashboard the principal may see, over the
// principal's own data (a partner's own customers' events only), at now.
func (sc *Scoped) RenderDashboard(ctx context.Context, id string, now time.Time) (*models.RenderedDashboard, error) {
	d, err := sc.Dashboard(ctx, id)
	if err != nil {
		return nil, err
	}
	return sc.render(ctx, d, now)
}

// MyDashboard renders the dashboard of the principal: for a partner, its level's dashboard or
// else the default one; for operators, the default one.
func (sc *Scoped) MyDashboard(ctx context.Context, now time.Time) (*models.RenderedDashboard, error) {
	all, err := sc.visibleDashboards(ctx)
	if err != nil {
		return nil, err
	}
	if sc.P.PartnerID == "" {
		all = slices.DeleteFunc(all, func(d models.Dashboard) bool { return !d.IsDefault })
	}
	if len(all) == 0 {
		return nil, models.NotFound("DASHBOARD_NOT_FOUND", "dashboard")
	}
	return sc.render(ctx, &all[0], now)
}

func (sc *Scoped) render(ctx context.Context, d *models.Dashboard, now time.Time) (*models.RenderedDashboard, error) {
	out := &models.RenderedDashboard{Dashboard: *d}
	for _, w := range d.WidgetList() {
		r, err := sc.renderWidget(ctx, w, now)
		if err != nil {
			return nil, err
		}
		out.Widgets = append(out.Widgets, r)
	}
	return out, nil
}

// renderWidget computes one widget at now over the data the principal may see.
func (sc *Scoped) renderWidget(ctx context.Context, w models.Widget, now time.Time) (models.WidgetResult, error) {
	r := models.WidgetResult{Widget: w}
	switch w.Kind {
	case models.WidgetMetric, models.WidgetTimeSeries:
		from, to := models.RangeBounds(w.Range, now)
		res, err := sc.ComputeMetric(ctx, w.MetricID, models.MetricQuery{From: from, To: to, Interval: w.Interval})
		if err != nil {
			de, ok := models.AsError(err)
			if !ok || de.Kind == models.KindInternal || de.Code == models.CodeDatabaseUnavailable {
				return r, err // the dashboard fails, not the widget
			}
			r.Err = de
		}
		r.Metric = res
	case models.WidgetEventList:
		limit := w.Limit
		if limit <= 0 {
			limit = defaultEventListLimit
		}
		q := matchType(sc.PartnerRows(ctx, &models.Event{}, "partner_id"), w.EventType)
		if err := q.Order("id DESC").Limit(limit).Find(&r.Events).Error; err != nil {
			return r, err
		}
		if r.Events == nil {
			r.Events = []models.Event{}
		}
	}
	return r, nil
}
