// Package playbooks keeps playbooks, their immutable versions, runs, steps, documents and
// effects: the playbook module's persistence and the actions runs take, on the core store.
package playbooks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/models/store/partners"
	"github.com/partnerd/partnerd/models/store/surveys"
)

// Store keeps the playbooks of every tenant, their versions, runs, steps and effects, and carries
// out the actions runs take.
type Store struct {
	core     *store.Store
	partners *partners.Store
	money    *money.Store
	surveys  *surveys.Store
}

// New is the playbooks store on core's database; the bonuses its runs award are booked in money,
// the surveys they send in surveys.
func New(core *store.Store, partners *partners.Store, money *money.Store, surveys *surveys.Store) *Store {
	return &Store{core: core, partners: partners, money: money, surveys: surveys}
}

// Scoped is the playbook store as one principal sees it: operators author playbooks; partners read
// the runs and documents of their own organisation.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the playbooks store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// Where playbook actions come from, on the tasks and ledger movements they make.
const (
	playbookTaskSource   = "playbook"
	playbookLedgerSource = "playbook"
)

// maxPlaybookVersions and maxRunSteps bound the lists that are not paginated.
const (
	maxPlaybookVersions = 1000
	maxRunSteps         = 2000
)

// activeRunStatuses are the statuses of runs that have not finished.
var activeRunStatuses = []string{models.RunQueued, models.RunRunning}

// withEmptyLists makes a graph's missing node and edge lists empty ones.
func withEmptyLists(g models.PlaybookGraph) models.PlaybookGraph {
	if g.Nodes == nil {
		g.Nodes = []models.PlaybookNode{}
	}
	if g.Edges == nil {
		g.Edges = []models.PlaybookEdge{}
	}
	return g
}

func checkConcurrencyLimit(n int) error {
	if n < 0 || n > models.MaxPlaybookConcurrencyLimit {
		return models.Invalid("INVALID_CONCURRENCY_LIMIT", "the concurrency limit is out of range",
			models.FieldError{Location: "body.concurrencyLimit", Message: "0 (the default) to 10000", Value: n})
	}
	return nil
}

// CreatePlaybook adds a draft playbook; operators only.
func (sc *Scoped) CreatePlaybook(ctx context.Context, p *models.Playbook) error {
	if err := checkConcurrencyLimit(p.ConcurrencyLimit); err != nil {
		return err
	}
	now := time.Now().UTC()
	p.ID, p.TenantID, p.Status, p.PublishedVersion = models.NewID(), sc.P.TenantID, models.PlaybookDraft, 0
	p.Graph, p.CreatedAt, p.UpdatedAt = withEmptyLists(p.Graph), now, now
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(p).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "playbook.created", "playbook", p.ID, "name", "description", "graph", "concurrencyLimit")
	})
}

// ListPlaybooks lists the tenant's playbooks, optionally of one status, oldest first;
// operators only.
func (sc *Scoped) ListPlaybooks(ctx context.Context, status string, pg models.Page) ([]models.Playbook, string, error) {
	q := sc.Rows(ctx, &models.Playbook{})
	if status != "" {
		q = q.Where("status = ?", status)
	}
	return store.Page(q, pg, func(p models.Playbook) string { return p.ID })
}

// Playbook finds one playbook; operators only.
func (sc *Scoped) Playbook(ctx context.Context, id string) (*models.Playbook, error) {
	var p models.Playbook
	err := sc.Rows(ctx, &models.Playbook{}).Where("id = ?", id).Take(&p).Error
	if err != nil {
		return nil, store.NotFoundAs(err, "PLAYBOOK_NOT_FOUND", "playbook")
	}
	return &p, nil
}

// changePlaybook locks a playbook of the principal's tenant for the rest of a transaction and
// applies fn to it; fn returns the changed fields, which are saved and audited as action.
func (sc *Scoped) changePlaybook(ctx context.Context, id, action string, fn func(tx *gorm.DB, p *models.Playbook) ([]string, error)) (*models.Playbook, error) {
	var p models.Playbook
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := store.LockRow(sc.s.core, tx, &p, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "PLAYBOOK_NOT_FOUND", "playbook")
		}
		changed, err := fn(tx, &p)
		if err != nil || len(changed) == 0 {
			return err
		}
		p.UpdatedAt = time.Now().UTC()
		if err := tx.Model(&p).Select("name", "description", "status", "graph", "published_version", "concurrency_limit", "updated_at").
			Updates(&p).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, action, "playbook", p.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func playbookArchived() error {
	return models.Conflict("PLAYBOOK_ARCHIVED", "an archived playbook cannot change")
}

// UpdatePlaybook changes a playbook's name, description, draft graph or concurrency limit.
// Published versions stay as they are; an archived playbook cannot change.
func (sc *Scoped) UpdatePlaybook(ctx context.Context, id string, ch models.PlaybookChanges) (*models.Playbook, error) {
	if ch.ConcurrencyLimit != nil {
		if err := checkConcurrencyLimit(*ch.ConcurrencyLimit); err != nil {
			return nil, err
		}
	}
	return sc.changePlaybook(ctx, id, "playbook.updated", func(_ *gorm.DB, p *models.Playbook) ([]string, error) {
		if p.Status == models.PlaybookArchived {
			return nil, playbookArchived()
		}
		var changed []string
		models.SetChanged(&changed, "name", ch.Name, &p.Name)
		models.SetChanged(&changed, "description", ch.Description, &p.Description)
		if ch.Graph != nil {
			p.Graph, changed = withEmptyLists(*ch.Graph), append(changed, "graph")
		}
		models.SetChanged(&changed, "concurrencyLimit", ch.ConcurrencyLimit, &p.ConcurrencyLimit)
		return changed, nil
	})
}

// PublishPlaybook makes the playbook's draft graph its next immutable version, the one new runs
// start on. The graph must have passed validation; an archived playbook cannot publish.
func (sc *Scoped) PublishPlaybook(ctx context.Context, id string) (*models.PlaybookVersion, error) {
	var v *models.PlaybookVersion
	p, err := sc.changePlaybook(ctx, id, "playbook.published", func(tx *gorm.DB, p *models.Playbook) ([]string, error) {
		if p.Status == models.PlaybookArchived {
			return nil, playbookArchived()
		}
		v = &models.PlaybookVersion{TenantID: p.TenantID, PlaybookID: p.ID, Version: p.PublishedVersion + 1,
			Graph: withEmptyLists(p.Graph), PublishedAt: time.Now().UTC(), PublishedBy: sc.P.UserID}
		if err := tx.Create(v).Error; err != nil {
			return nil, err
		}
		p.PublishedVersion = v.Version
		return []string{"publishedVersion"}, nil
	})
	if err != nil {
		return nil, err
	}
	sc.s.core.InvalidateSubscriptions(p.TenantID)
	return v, nil
}

// PlaybookVersions lists the published versions of a playbook, oldest first.
func (sc *Scoped) PlaybookVersions(ctx context.Context, id string) ([]models.PlaybookVersion, error) {
	if _, err := sc.Playbook(ctx, id); err != nil {
		return nil, err
	}
	var vs []models.PlaybookVersion
	err := sc.Rows(ctx, &models.PlaybookVersion{}).Where("playbook_id = ?", id).Order("version").Limit(maxPlaybookVersions).Find(&vs).Error
	return vs, err
}

// SetPlaybookStatus moves a playbook in its lifecycle: enable (which needs a published
// version), disable or archive. Asking for the status it has changes nothing.
func (sc *Scoped) SetPlaybookStatus(ctx context.Context, id, status string) (*models.Playbook, error) {
	if !slices.Contains(models.PlaybookStatuses, status) {
		return nil, models.Invalid("INVALID_PLAYBOOK_STATUS", "no such playbook status",
			models.FieldError{Location: "body.status", Message: "enabled, disabled or archived", Value: status})
	}
	p, err := sc.changePlaybook(ctx, id, "playbook."+status, func(_ *gorm.DB, p *models.Playbook) ([]string, error) {
		if p.Status == status {
			return nil, nil
		}
		if err := models.CheckPlaybookTransition(p.Status, status); err != nil {
			return nil, err
		}
		if status == models.PlaybookEnabled && p.PublishedVersion == 0 {
			return nil, models.Conflict("PLAYBOOK_NOT_PUBLISHED", "publish the playbook before enabling it")
		}
		p.Status = status
		return []string{"status"}, nil
	})
	if err != nil {
		return nil, err
	}
	sc.s.core.InvalidateSubscriptions(p.TenantID)
	return p, nil
}

// ListPlaybookRuns lists the tenant's playbook runs, oldest first; operators only.
func (sc *Scoped) ListPlaybookRuns(ctx context.Context, f models.PlaybookRunFilter, pg models.Page) ([]models.PlaybookRun, string, error) {
	q := sc.Rows(ctx, &models.PlaybookRun{})
	if f.PlaybookID != "" {
		q = q.Where("playbook_id = ?", f.PlaybookID)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	return store.Page(q, pg, func(r models.PlaybookRun) string { return r.ID })
}

func (sc *Scoped) playbookRun(ctx context.Context, id string) (*models.PlaybookRun, error) {
	var r models.PlaybookRun
	if err := sc.Rows(ctx, &models.PlaybookRun{}).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, store.NotFoundAs(err, "RUN_NOT_FOUND", "playbook run")
	}
	return &r, nil
}

// PlaybookRun finds one run with its steps in the order they were recorded; operators only.
func (sc *Scoped) PlaybookRun(ctx context.Context, id string) (*models.PlaybookRun, []models.PlaybookStep, error) {
	r, err := sc.playbookRun(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	var steps []models.PlaybookStep
	err = sc.Rows(ctx, &models.PlaybookStep{}).Where("run_id = ?", id).Order("id").Limit(maxRunSteps).Find(&steps).Error
	if err != nil {
		return nil, nil, err
	}
	return r, steps, nil
}

// RequestPlaybookRunCancel asks for a queued or running run to be cancelled; the run stops at
// its next step. Asking again changes nothing.
func (sc *Scoped) RequestPlaybookRunCancel(ctx context.Context, id string) (*models.PlaybookRun, error) {
	r, err := sc.playbookRun(ctx, id)
	if err != nil {
		return nil, err
	}
	notActive := func(status string) error {
		return models.Errorf(models.KindConflict, "RUN_NOT_ACTIVE", "the run is %s; only queued or running runs can be cancelled", status)
	}
	if !slices.Contains(activeRunStatuses, r.Status) {
		return nil, notActive(r.Status)
	}
	if r.CancelRequested {
		return r, nil
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&models.PlaybookRun{}).Where(store.System(r.TenantID).Tenant()).Where("id = ? AND status IN ?", r.ID, activeRunStatuses).
			Update("cancel_requested", true)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notActive("finished")
		}
		return store.WriteAudit(ctx, tx, r.TenantID, "playbook_run.cancel_requested", "playbook_run", r.ID, "cancelRequested")
	})
	if err != nil {
		return nil, err
	}
	r.CancelRequested = true
	return r, nil
}

func (sc *Scoped) documentRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Document{}, "partner_id")
}

// ListDocuments lists the documents the principal may see, optionally of one partner, oldest
// first; partners see their own.
func (sc *Scoped) ListDocuments(ctx context.Context, partnerID string, pg models.Page) ([]models.Document, string, error) {
	q := sc.documentRows(ctx)
	if partnerID != "" {
		q = q.Where("partner_id = ?", partnerID)
	}
	return store.Page(q, pg, func(d models.Document) string { return d.ID })
}

// Document finds one document the principal may see.
func (sc *Scoped) Document(ctx context.Context, id string) (*models.Document, error) {
	var d models.Document
	if err := sc.documentRows(ctx).Where("id = ?", id).Take(&d).Error; err != nil {
		return nil, store.NotFoundAs(err, "DOCUMENT_NOT_FOUND", "document")
	}
	return &d, nil
}

// enabledPlaybook is an enabled playbook with the graph of its published version.
type enabledPlaybook struct {
	ID               string
	PublishedVersion int
	ConcurrencyLimit int
	Graph            string
}

// enabledPlaybooks lists a tenant's enabled playbooks with their published graphs.
func (s *Store) enabledPlaybooks(ctx context.Context, tenantID string) ([]enabledPlaybook, error) {
	var rows []enabledPlaybook
	err := s.core.DB(ctx).Table("playbooks AS p").
		Select("p.id, p.published_version, p.concurrency_limit, v.graph").
		Joins("JOIN playbook_versions AS v ON v.playbook_id = p.id AND v.version = p.published_version").
		Where(store.System(tenantID).TenantOf("p")).Where("p.status = ? AND p.published_version > 0", models.PlaybookEnabled).
		Order("p.id").Scan(&rows).Error
	return rows, err
}

func decodeGraph(raw string) (models.PlaybookGraph, error) {
	var g models.PlaybookGraph
	err := json.Unmarshal([]byte(raw), &g)
	return g, err
}

// RouteEvent starts the playbooks e triggers, unless its causation chain is too long, and
// wakes the runs waiting for it.
func (s *Store) RouteEvent(ctx context.Context, e *models.Event, r *models.EventRoutes) error {
	if e.Depth < models.MaxPlaybookDepth {
		refs, err := s.PlaybooksFor(ctx, models.System(e.TenantID), e.Type)
		if err != nil {
			return err
		}
		r.Playbooks = len(refs) > 0
	}
	waiting, err := s.RunsWaitingFor(ctx, models.System(e.TenantID), e.Type, e.PartnerID)
	r.Waiting = len(waiting) > 0
	return err
}

// PlaybooksFor lists the tenant's enabled playbooks whose published trigger selects eventType,
// with the version a new run uses and the playbook's concurrency limit.
func (s *Store) PlaybooksFor(ctx context.Context, sys models.Scope, eventType string) ([]models.PlaybookRef, error) {
	rows, err := s.enabledPlaybooks(ctx, sys.TenantID())
	if err != nil {
		return nil, err
	}
	var out []models.PlaybookRef
	for _, r := range rows {
		g, err := decodeGraph(r.Graph)
		if err != nil {
			return nil, err
		}
		if g.Trigger.EventType == "" || !models.MatchEventType(g.Trigger.EventType, eventType) {
			continue
		}
		p := models.Playbook{ConcurrencyLimit: r.ConcurrencyLimit}
		out = append(out, models.PlaybookRef{PlaybookID: r.ID, Version: r.PublishedVersion, ConcurrencyLimit: p.EffectiveConcurrencyLimit(), Graph: g})
	}
	return out, nil
}

// EventPatterns lists the event types playbooks of a tenant listen to: the triggers of
// enabled playbooks, and the events their published versions and the versions of unfinished
// runs wait for.
func (s *Store) EventPatterns(ctx context.Context, sys models.Scope) ([]string, error) {
	rows, err := s.enabledPlaybooks(ctx, sys.TenantID())
	if err != nil {
		return nil, err
	}
	type listener struct {
		graph    string
		triggers bool
	}
	listeners := make([]listener, 0, len(rows))
	type version struct {
		PlaybookID string
		Version    int
	}
	seen := map[version]bool{}
	for _, r := range rows {
		listeners = append(listeners, listener{graph: r.Graph, triggers: true})
		seen[version{r.ID, r.PublishedVersion}] = true
	}
	// The versions unfinished runs are pinned to, with their graphs, in one read.
	var active []struct {
		PlaybookID string
		Version    int
		Graph      string
	}
	if err := s.core.DB(ctx).Model(&models.PlaybookVersion{}).Select("playbook_id", "version", "graph").
		Where(store.Of(sys).Tenant()).Where(`EXISTS (SELECT 1 FROM playbook_runs r WHERE r.tenant_id = playbook_versions.tenant_id
			AND r.playbook_id = playbook_versions.playbook_id AND r.version = playbook_versions.version AND r.status IN ?)`, activeRunStatuses).Scan(&active).Error; err != nil {
		return nil, err
	}
	for _, a := range active {
		if !seen[version{a.PlaybookID, a.Version}] {
			listeners = append(listeners, listener{graph: a.Graph})
		}
	}
	var out []string
	for _, l := range listeners {
		g, err := decodeGraph(l.graph)
		if err != nil {
			return nil, err
		}
		if l.triggers && g.Trigger.EventType != "" {
			out = append(out, g.Trigger.EventType)
		}
		for _, n := range g.Nodes {
			if n.Kind == models.NodeWaitForEvent && n.WaitForEvent != nil && n.WaitForEvent.EventType != "" {
				out = append(out, n.WaitForEvent.EventType)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// PlaybookVersion finds one published version of a tenant's playbook.
func (s *Store) PlaybookVersion(ctx context.Context, sys models.Scope, playbookID string, version int) (*models.PlaybookVersion, error) {
	var v models.PlaybookVersion
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("playbook_id = ? AND version = ?", playbookID, version).Take(&v).Error
	if err != nil {
		return nil, store.NotFoundAs(err, "PLAYBOOK_VERSION_NOT_FOUND", "playbook version")
	}
	return &v, nil
}

// BeginPlaybookRun records the run of a playbook for an event, once, and admits it when fewer
// than limit runs of the playbook are running: the stored run is returned with admitted true
// when it is running. A run over the limit is kept queued; calling again for it admits it once
// a slot is free. A finished run, and a queued run whose cancellation was asked for (which
// ends cancelled here), come back with admitted false.
func (s *Store) BeginPlaybookRun(ctx context.Context, run *models.PlaybookRun, limit int) (*models.PlaybookRun, bool, error) {
	if limit <= 0 {
		limit = models.DefaultPlaybookConcurrencyLimit
	}
	var stored models.PlaybookRun
	admitted := false
	err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		// Admissions of one playbook queue behind the lock of its row.
		var p models.Playbook
		if err := store.LockRow(s.core, tx, &p, store.System(run.TenantID), run.PlaybookID); err != nil {
			return store.NotFoundAs(err, "PLAYBOOK_NOT_FOUND", "playbook")
		}
		now := time.Now().UTC()
		err := tx.Where(store.System(run.TenantID).Tenant()).Where("playbook_id = ? AND event_id = ?", run.PlaybookID, run.EventID).Take(&stored).Error
		found := err == nil
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if found && stored.CancelRequested && (stored.Status == models.RunRunning || stored.Status == models.RunQueued) {
			// Cancelled before its workflow asked to start (or while queued): it never runs.
			stored.Status, stored.EndedAt = models.RunCancelled, &now
			return tx.Model(&stored).Select("status", "ended_at").Updates(&stored).Error
		}
		if found && stored.Status == models.RunRunning {
			admitted = true
			return nil
		}
		if found && stored.Status != models.RunQueued {
			return nil
		}
		if found && stored.CancelRequested {
			stored.Status, stored.EndedAt = models.RunCancelled, &now
			return tx.Model(&stored).Select("status", "ended_at").Updates(&stored).Error
		}
		var running int64
		if err := tx.Model(&models.PlaybookRun{}).Where(store.System(run.TenantID).Tenant()).Where("playbook_id = ? AND status = ?", run.PlaybookID, models.RunRunning).
			Count(&running).Error; err != nil {
			return err
		}
		admitted = running < int64(limit)
		if !found {
			stored = *run
			if stored.ID == "" {
				stored.ID = models.NewID()
			}
			stored.Status, stored.StartedAt, stored.EndedAt, stored.CancelRequested = models.RunQueued, now, nil, false
			if admitted {
				stored.Status = models.RunRunning
			}
			return tx.Create(&stored).Error
		}
		if !admitted {
			return nil
		}
		stored.Status, stored.StartedAt = models.RunRunning, now
		return tx.Model(&stored).Select("status", "started_at").Updates(&stored).Error
	})
	if err != nil {
		return nil, false, err
	}
	return &stored, admitted, nil
}

// RecordPlaybookStep stores a step of a run: the first call adds it, later calls with the same
// id update its status, output, error and end.
func (s *Store) RecordPlaybookStep(ctx context.Context, step *models.PlaybookStep) error {
	step.Error = models.Clip(step.Error, 2000)
	if step.StartedAt.IsZero() {
		step.StartedAt = time.Now().UTC()
	}
	return s.core.DB(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{"status", "output", "error", "ended_at"}),
		Where:     clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "playbook_steps.tenant_id = excluded.tenant_id"}}},
	}).Create(step).Error
}

// FinishPlaybookRun ends a run with a final status and, for failures, why; a run that ended
// already keeps its end.
func (s *Store) FinishPlaybookRun(ctx context.Context, sys models.Scope, runID, status, errMsg string) error {
	if !slices.Contains([]string{models.RunCompleted, models.RunFailed, models.RunCancelled}, status) {
		return models.Invalid("INVALID_RUN_STATUS", "a run ends completed, failed or cancelled",
			models.FieldError{Location: "status", Message: "completed, failed or cancelled", Value: status})
	}
	db := s.core.DB(ctx)
	res := db.Model(&models.PlaybookRun{}).Where(store.Of(sys).Tenant()).Where("id = ? AND status IN ?", runID, activeRunStatuses).
		Updates(map[string]any{"status": status, "error": models.Clip(errMsg, 2000), "ended_at": time.Now().UTC()})
	if res.Error != nil || res.RowsAffected > 0 {
		return res.Error
	}
	var n int64
	if err := db.Model(&models.PlaybookRun{}).Where(store.Of(sys).Tenant()).Where("id = ?", runID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.NotFound("RUN_NOT_FOUND", "playbook run")
	}
	return nil
}

// claimEffect reserves key for an action in tx. When the action was done before it returns
// its recorded output and false; the caller then does nothing again.
func claimEffect(tx *gorm.DB, tenantID, key string) (string, bool, error) {
	if key == "" {
		return "", false, models.Invalid("INVALID_EFFECT_KEY", "an action needs a key", models.FieldError{Location: "key", Message: "run id and node id"})
	}
	e := models.PlaybookEffect{TenantID: tenantID, Key: key, Output: "{}", CreatedAt: time.Now().UTC()}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&e)
	if res.Error != nil {
		return "", false, res.Error
	}
	if res.RowsAffected > 0 {
		return "", true, nil
	}
	var prior models.PlaybookEffect
	if err := tx.Where(store.System(tenantID).Tenant()).Where("key = ?", key).Take(&prior).Error; err != nil {
		return "", false, err
	}
	return prior.Output, false, nil
}

// recordEffect stores the output of the action claimed under key.
func recordEffect(tx *gorm.DB, tenantID, key string, output any) error {
	return tx.Model(&models.PlaybookEffect{}).Where(store.System(tenantID).Tenant()).Where("key = ?", key).Update("output", store.MustJSON(output)).Error
}

// effectID is the output of actions that make one record.
type effectID struct {
	ID string `json:"id"`
}

func priorID(output string) (string, error) {
	var out effectID
	err := json.Unmarshal([]byte(output), &out)
	return out.ID, err
}

// onceID runs act, which makes one record and returns its id, at most once per key.
func (s *Store) onceID(ctx context.Context, tenantID, key string, act func(tx *gorm.DB, ev *store.Outbox) (string, error)) (string, error) {
	var id string
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		prior, first, err := claimEffect(tx, tenantID, key)
		if err != nil {
			return err
		}
		if !first {
			id, err = priorID(prior)
			return err
		}
		if id, err = act(tx, ev); err != nil {
			return err
		}
		return recordEffect(tx, tenantID, key, effectID{ID: id})
	})
	return id, err
}

// checkTenantPartner verifies that partnerID, when set, names a partner of the tenant.
func checkTenantPartner(tx *gorm.DB, tenantID string, partnerID *string) error {
	if partnerID == nil {
		return nil
	}
	var n int64
	if err := tx.Model(&models.Partner{}).Where(store.System(tenantID).Tenant()).Where("id = ?", *partnerID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.NotFound("PARTNER_NOT_FOUND", "partner")
	}
	return nil
}

// PlaybookCreateTask creates a task for a playbook run, once per key, and returns its id.
func (s *Store) PlaybookCreateTask(ctx context.Context, sys models.Scope, key string, t *models.Task) (string, error) {
	return s.onceID(ctx, sys.TenantID(), key, func(tx *gorm.DB, _ *store.Outbox) (string, error) {
		if err := checkTenantPartner(tx, sys.TenantID(), t.PartnerID); err != nil {
			return "", err
		}
		if t.AssigneeUserID != nil {
			var n int64
			if err := tx.Model(&models.User{}).Where(store.Of(sys).Tenant()).Where("id = ?", *t.AssigneeUserID).Count(&n).Error; err != nil {
				return "", err
			}
			if n == 0 {
				return "", models.NotFound("ASSIGNEE_NOT_FOUND", "user")
			}
		}
		now := time.Now().UTC()
		t.ID, t.TenantID, t.Status, t.Source, t.CreatedBy = models.NewID(), sys.TenantID(), models.TaskOpen, playbookTaskSource, store.ActorOf(ctx)
		t.Title, t.CreatedAt, t.UpdatedAt, t.CompletedAt, t.CompletedBy = models.Clip(t.Title, 200), now, now, nil, nil
		if err := tx.Create(t).Error; err != nil {
			return "", err
		}
		return t.ID, store.WriteAudit(ctx, tx, sys.TenantID(), "task.created", "task", t.ID, "title", "partnerId", "assigneeUserId", "dueDate", "link")
	})
}

// PlaybookCreateDocument stores a document for a playbook run, once per key, and returns its id.
func (s *Store) PlaybookCreateDocument(ctx context.Context, sys models.Scope, key string, d *models.Document) (string, error) {
	return s.onceID(ctx, sys.TenantID(), key, func(tx *gorm.DB, _ *store.Outbox) (string, error) {
		if err := checkTenantPartner(tx, sys.TenantID(), d.PartnerID); err != nil {
			return "", err
		}
		d.ID, d.TenantID, d.CreatedAt, d.Title = models.NewID(), sys.TenantID(), time.Now().UTC(), models.Clip(d.Title, 1000)
		if err := tx.Create(d).Error; err != nil {
			return "", err
		}
		return d.ID, store.WriteAudit(ctx, tx, sys.TenantID(), "document.created", "document", d.ID, "title", "partnerId", "template")
	})
}

// PlaybookBonus credits a one-off bonus to a partner's available balance for a playbook run,
// once per key, and returns the ledger movement's id. It is audited and emits ledger.adjusted.
func (s *Store) PlaybookBonus(ctx context.Context, sys models.Scope, key, partnerID string, amount int64, currency, reason string) (string, error) {
	if amount <= 0 {
		return "", models.Invalid("INVALID_BONUS", "a bonus is a positive amount", models.FieldError{Location: "amount", Message: "more than zero minor units", Value: amount})
	}
	if !models.ValidCurrency(currency) {
		return "", models.Invalid("INVALID_BONUS", "a bonus needs its currency", models.FieldError{Location: "currency", Message: "an ISO 4217 code", Value: currency})
	}
	var id string
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if _, err := s.money.LockPartner(tx, store.Of(sys), partnerID); err != nil {
			return err
		}
		prior, first, err := claimEffect(tx, sys.TenantID(), key)
		if err != nil {
			return err
		}
		if !first {
			id, err = priorID(prior)
			return err
		}
		reason = models.Clip(reason, 1000)
		mv, _, err := s.money.BookAdjustment(ctx, tx, ev, store.Of(sys), partnerID, currency, amount, reason, "playbook:"+key, playbookLedgerSource, key)
		if err != nil {
			return err
		}
		id = mv.ID
		return recordEffect(tx, sys.TenantID(), key, effectID{ID: id})
	})
	return id, err
}

// PlaybookUpdatePartner changes a partner's level, status or a custom field for a playbook
// run, once per key. Level and status changes emit partner.level_changed and
// partner.status_changed; a status change must be one the partner lifecycle allows.
func (s *Store) PlaybookUpdatePartner(ctx context.Context, sys models.Scope, key, partnerID string, ch models.PlaybookUpdatePartner) error {
	return s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		p, err := s.money.LockPartner(tx, store.Of(sys), partnerID)
		if err != nil {
			return err
		}
		if _, first, err := claimEffect(tx, sys.TenantID(), key); err != nil || !first {
			return err
		}
		fromStatus, fromLevel := p.Status, p.Level
		updates := map[string]any{}
		var changed []string
		if ch.LevelID != "" {
			var l models.Level
			if err := tx.Where(store.Of(sys).Tenant()).Where("id = ?", ch.LevelID).Take(&l).Error; err != nil {
				return store.NotFoundAs(err, "LEVEL_NOT_FOUND", "level")
			}
			if l.Name != p.Level {
				p.Level, updates["level"], changed = l.Name, l.Name, append(changed, "level")
			}
		}
		if ch.Status != "" && ch.Status != p.Status {
			if err := models.CheckPartnerTransition(p.Status, ch.Status); err != nil {
				return err
			}
			p.Status, updates["status"], changed = ch.Status, ch.Status, append(changed, "status")
		}
		if ch.CustomField != "" {
			custom := p.Custom()
			if v, ok := custom[ch.CustomField]; !ok || v != ch.CustomValue {
				custom[ch.CustomField] = ch.CustomValue
				p.CustomFields = store.MustJSON(custom)
				updates["custom_fields"], changed = p.CustomFields, append(changed, "customFields."+ch.CustomField)
			}
		}
		if err := recordEffect(tx, sys.TenantID(), key, map[string]any{"changed": append([]string{}, changed...)}); err != nil {
			return err
		}
		if len(changed) == 0 {
			return nil
		}
		p.UpdatedAt = time.Now().UTC()
		updates["updated_at"] = p.UpdatedAt
		return partners.SavePartnerChange(ctx, tx, ev, p, updates, changed, fromStatus, fromLevel)
	})
}

// PlaybookSendSurvey sends every active user of the partner a survey of kind, once per key,
// and returns the invitations' batch id.
func (s *Store) PlaybookSendSurvey(ctx context.Context, sys models.Scope, key, partnerID, kind string) (string, error) {
	return s.onceID(ctx, sys.TenantID(), key, func(tx *gorm.DB, ev *store.Outbox) (string, error) {
		if err := checkTenantPartner(tx, sys.TenantID(), &partnerID); err != nil {
			return "", err
		}
		batch, _, err := s.surveys.Request(ctx, tx, ev, store.Of(sys), models.SurveyRequest{Kind: kind, PartnerIDs: []string{partnerID}},
			models.SurveySourcePlaybook, "")
		return batch, err
	})
}

// PlaybookEmitEvent writes an event for a playbook run, once per key, and returns its id; the
// event reaches its subscribers like any other.
func (s *Store) PlaybookEmitEvent(ctx context.Context, sys models.Scope, key string, ne models.NewEvent) (string, error) {
	return s.onceID(ctx, sys.TenantID(), key, func(tx *gorm.DB, ev *store.Outbox) (string, error) {
		e, err := ev.Emit(ctx, tx, sys.TenantID(), ne)
		if err != nil {
			return "", err
		}
		return e.ID, nil
	})
}
