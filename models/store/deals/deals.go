// Package deals keeps pipelines and deals: registration, conflict review, stage moves with
// customer attribution on a win, protection windows and each deal's timeline.
package deals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/customers"
)

// Store keeps pipelines and deals: registration with conflict checks, review, stage moves, protection windows and the timeline.
type Store struct {
	core *store.Store
}

// New is the deals store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the deal store as one principal sees it: partners see only their own organisation's deals.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the deals store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// EventPatterns are the events the deals module reacts to in every tenant: an approved deal.
func (s *Store) EventPatterns(context.Context, models.Scope) ([]string, error) {
	return []string{models.EventDealApproved}, nil
}

// RouteEvent starts the protection window of an approved deal.
func (s *Store) RouteEvent(_ context.Context, e *models.Event, r *models.EventRoutes) error {
	if e.Type == models.EventDealApproved && e.SubjectID != nil {
		r.ProtectDeal = *e.SubjectID
	}
	return nil
}

// SetUpTenant gives a new tenant its default pipeline, "Sales" with the default stages.
func SetUpTenant(tx *gorm.DB, tenantID string) error {
	_, err := createPipeline(tx, tenantID, "Sales", true, models.DefaultStages())
	return err
}

// createPipeline adds a pipeline with its stages in order.
func createPipeline(tx *gorm.DB, tenantID, name string, isDefault bool, stages []models.NewStage) (*models.Pipeline, error) {
	now := time.Now().UTC()
	p := &models.Pipeline{ID: models.NewID(), TenantID: tenantID, Name: name, IsDefault: isDefault, CreatedAt: now, UpdatedAt: now}
	if err := tx.Create(p).Error; err != nil {
		return nil, err
	}
	for i, s := range stages {
		st := models.Stage{ID: models.NewID(), TenantID: tenantID, PipelineID: p.ID, Name: strings.TrimSpace(s.Name), Position: i + 1,
			Outcome: s.Outcome, Probability: s.Probability}
		if err := tx.Create(&st).Error; err != nil {
			return nil, err
		}
		p.Stages = append(p.Stages, st)
	}
	return p, nil
}

// CreatePipeline adds a pipeline; with isDefault it becomes the one new deals use.
func (sc *Scoped) CreatePipeline(ctx context.Context, name string, isDefault bool, stages []models.NewStage) (*models.Pipeline, error) {
	if err := models.ValidateStages(stages); err != nil {
		return nil, err
	}
	var p *models.Pipeline
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if isDefault {
			if err := tx.Model(&models.Pipeline{}).Where(sc.Scope.Tenant()).Update("is_default", false).Error; err != nil {
				return err
			}
		}
		var err error
		if p, err = createPipeline(tx, sc.P.TenantID, strings.TrimSpace(name), isDefault, stages); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "pipeline.created", "pipeline", p.ID, "name", "stages", "isDefault")
	})
	return p, err
}

// withStages loads the stages of pipelines, in order.
func (sc *Scoped) withStages(ctx context.Context, ps []models.Pipeline) error {
	if len(ps) == 0 {
		return nil
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	var stages []models.Stage
	if err := sc.Rows(ctx, &models.Stage{}).Where("pipeline_id IN ?", ids).Order("position").Find(&stages).Error; err != nil {
		return err
	}
	byID := make(map[string]*models.Pipeline, len(ps))
	for i := range ps {
		byID[ps[i].ID] = &ps[i]
	}
	for _, s := range stages {
		if p, ok := byID[s.PipelineID]; ok {
			p.Stages = append(p.Stages, s)
		}
	}
	return nil
}

// ListPipelines lists the tenant's pipelines with their stages.
func (sc *Scoped) ListPipelines(ctx context.Context, pg models.Page) ([]models.Pipeline, string, error) {
	ps, next, err := store.Page(sc.Rows(ctx, &models.Pipeline{}), pg, func(p models.Pipeline) string { return p.ID })
	if err != nil {
		return nil, "", err
	}
	return ps, next, sc.withStages(ctx, ps)
}

// Pipeline finds one pipeline with its stages.
func (sc *Scoped) Pipeline(ctx context.Context, id string) (*models.Pipeline, error) {
	var p models.Pipeline
	err := sc.Rows(ctx, &models.Pipeline{}).Where("id = ?", id).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PIPELINE_NOT_FOUND", "pipeline")
	}
	if err != nil {
		return nil, err
	}
	ps := []models.Pipeline{p}
	if err := sc.withStages(ctx, ps); err != nil {
		return nil, err
	}
	return &ps[0], nil
}

func (sc *Scoped) dealRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Deal{}, "partner_id")
}

// lockDeal reads a deal the principal may see, locked for the rest of tx on Postgres (SQLite
// transactions are immediate, so they are serialised anyway).
func (sc *Scoped) lockDeal(tx *gorm.DB, id string) (*models.Deal, error) {
	q := tx.Model(&models.Deal{}).Where(sc.Scope.Tenant()).Where("id = ?", id)
	if sc.P.PartnerID != "" {
		q = q.Where("partner_id = ?", sc.P.PartnerID)
	}
	if sc.s.core.Dialect() == store.Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var d models.Deal
	if err := q.Take(&d).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("DEAL_NOT_FOUND", "deal")
	} else if err != nil {
		return nil, err
	}
	return &d, nil
}

func stageOf(tx *gorm.DB, tenantID, id string) (*models.Stage, error) {
	var s models.Stage
	err := tx.Where(store.System(tenantID).Tenant()).Where("id = ?", id).Take(&s).Error
	return &s, err
}

// emitDeal writes a deal.* event about d.
func emitDeal(ctx context.Context, tx *gorm.DB, ev *store.Outbox, d *models.Deal, typ, previousStage string) error {
	st, err := stageOf(tx, d.TenantID, d.StageID)
	if err != nil {
		return err
	}
	p := models.DealEventPayload{DealID: d.ID, PartnerID: d.PartnerID, Status: d.Status, PipelineID: d.PipelineID, StageID: d.StageID,
		StageName: st.Name, PreviousStageID: previousStage, CustomerCompany: d.CustomerCompany, CustomerDomain: d.CustomerDomain,
		CustomerID: store.Deref(d.CustomerID), AmountMinor: d.AmountMinor, Currency: d.Currency, ProtectedUntil: d.ProtectedUntil,
		ConflictReview: d.ConflictStatus == models.ConflictReview}
	switch typ {
	case models.EventDealRejected, models.EventDealLost:
		p.Reason = d.Reason
	case models.EventDealExtensionRequested:
		p.Reason = d.ExtensionReason
	}
	b, _ := json.Marshal(p)
	id := d.ID
	partner := d.PartnerID
	_, err = ev.Emit(ctx, tx, d.TenantID, models.NewEvent{Type: typ, CustomerID: d.CustomerID, PartnerID: &partner, SubjectID: &id, Payload: string(b)})
	return err
}

// RegisterDeal records a partner's deal registration in the default pipeline's first stage
// and looks for conflicts with other partners' work. Partner principals register for their
// own organisation; operators name the partner.
func (sc *Scoped) RegisterDeal(ctx context.Context, d *models.Deal) error {
	d.ID = models.NewID()
	d.TenantID = sc.P.TenantID
	if sc.P.PartnerID != "" && d.PartnerID == "" {
		d.PartnerID = sc.P.PartnerID // CheckPartner refuses another partner's id
	}
	d.Status = models.DealSubmitted
	d.CustomerDomain = models.NormalizeDomain(d.CustomerDomain)
	d.ContactEmail = store.NormalizeEmail(d.ContactEmail)
	d.CreatedBy = sc.P.UserID
	if d.CreatedBy == "" {
		d.CreatedBy = sc.P.KeyID
	}
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if d.PartnerID == "" {
			return models.Invalid("PARTNER_REQUIRED", "operators register a deal for a partner", models.FieldError{Location: "body.partnerId", Message: "required for operators"})
		}
		if err := sc.Scope.CheckPartner(tx, d.PartnerID, "body.partnerId"); err != nil {
			return err
		}
		var p models.Pipeline
		if err := tx.Where(store.System(d.TenantID).Tenant()).Where("is_default = ?", true).Take(&p).Error; err != nil {
			return fmt.Errorf("default pipeline: %w", err)
		}
		var first models.Stage
		if err := tx.Where(store.System(d.TenantID).Tenant()).Where("pipeline_id = ? AND outcome = ?", p.ID, models.OutcomeOpen).Order("position").Take(&first).Error; err != nil {
			return fmt.Errorf("first stage: %w", err)
		}
		d.PipelineID, d.StageID = p.ID, first.ID
		conflicts, err := findDealConflicts(tx, d)
		if err != nil {
			return err
		}
		d.ConflictStatus = models.ConflictNone
		if len(conflicts) > 0 {
			d.ConflictStatus = models.ConflictReview
		}
		if err := tx.Create(d).Error; err != nil {
			return err
		}
		for i := range conflicts {
			if err := tx.Create(&conflicts[i]).Error; err != nil {
				return err
			}
		}
		if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.registered", "deal", d.ID, "partnerId", "customerCompany", "amountMinor", "currency"); err != nil {
			return err
		}
		return emitDeal(ctx, tx, ev, d, models.EventDealRegistered, "")
	})
}

// findDealConflicts lists other partners' open or approved deals for the same customer domain
// or contact email, and customers of the domain or contact attributed to another partner.
func findDealConflicts(tx *gorm.DB, d *models.Deal) ([]models.DealConflict, error) {
	var out []models.DealConflict
	now := time.Now().UTC()
	names := map[string]string{}
	partnerName := func(id string) string {
		if n, ok := names[id]; ok {
			return n
		}
		var p models.Partner
		if tx.Where(store.System(d.TenantID).Tenant()).Where("id = ?", id).Take(&p).Error == nil {
			names[id] = p.Name
		}
		return names[id]
	}
	if d.CustomerDomain != "" || d.ContactEmail != "" {
		q := tx.Where(store.System(d.TenantID).Tenant()).Where("partner_id <> ? AND status IN ?", d.PartnerID, []string{models.DealSubmitted, models.DealApproved})
		switch {
		case d.CustomerDomain != "" && d.ContactEmail != "":
			q = q.Where("customer_domain = ? OR contact_email = ?", d.CustomerDomain, d.ContactEmail)
		case d.CustomerDomain != "":
			q = q.Where("customer_domain = ?", d.CustomerDomain)
		default:
			q = q.Where("contact_email = ?", d.ContactEmail)
		}
		var others []models.Deal
		if err := q.Order("id").Limit(20).Find(&others).Error; err != nil {
			return nil, err
		}
		for _, o := range others {
			kind, what := models.ConflictDomain, "the customer domain "+d.CustomerDomain
			if d.CustomerDomain == "" || o.CustomerDomain != d.CustomerDomain {
				kind, what = models.ConflictContactEmail, "the contact "+d.ContactEmail
			}
			oid, opid := o.ID, o.PartnerID
			out = append(out, models.DealConflict{ID: models.NewID(), TenantID: d.TenantID, DealID: d.ID, Kind: kind,
				OtherDealID: &oid, OtherPartnerID: &opid, CreatedAt: now,
				Explanation: fmt.Sprintf("Partner %q has a %s deal %s (%s, registered %s) for %s.",
					partnerName(o.PartnerID), o.Status, o.ID, o.CustomerCompany, o.CreatedAt.UTC().Format(time.DateOnly), what)})
		}
	}
	q := tx.Model(&models.Customer{}).Where(store.System(d.TenantID).Tenant()).Where("partner_id IS NOT NULL AND partner_id <> ?", d.PartnerID)
	switch {
	case d.CustomerDomain != "" && d.ContactEmail != "":
		q = q.Where(`email = ? OR email LIKE ? ESCAPE '\'`, d.ContactEmail, "%@"+store.EscapeLike(d.CustomerDomain))
	case d.CustomerDomain != "":
		q = q.Where(`email LIKE ? ESCAPE '\'`, "%@"+store.EscapeLike(d.CustomerDomain))
	case d.ContactEmail != "":
		q = q.Where("email = ?", d.ContactEmail)
	default:
		return out, nil
	}
	var customers []models.Customer
	if err := q.Order("id").Limit(20).Find(&customers).Error; err != nil {
		return nil, err
	}
	for _, c := range customers {
		cid, pid := c.ID, store.Deref(c.PartnerID)
		out = append(out, models.DealConflict{ID: models.NewID(), TenantID: d.TenantID, DealID: d.ID, Kind: models.ConflictCustomer,
			CustomerID: &cid, OtherPartnerID: &pid, CreatedAt: now,
			Explanation: fmt.Sprintf("The customer %s (%s) is attributed to partner %q.", c.ID, store.Deref(c.Email), partnerName(pid))})
	}
	return out, nil
}

// ListDeals lists the deals the principal may see, oldest first; the filters are for
// operators (a partner's filter on another partner finds nothing).
func (sc *Scoped) ListDeals(ctx context.Context, f models.DealFilter, pg models.Page) ([]models.Deal, string, error) {
	q := sc.dealRows(ctx)
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.Level != "" {
		q = q.Where("partner_id IN (?)", sc.s.core.DB(ctx).Model(&models.Partner{}).Select("id").Where(sc.Scope.Tenant()).Where("level = ?", f.Level))
	}
	for col, v := range map[string]string{"stage_id": f.StageID, "status": f.Status, "owner_user_id": f.OwnerUserID, "currency": f.Currency} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	if f.CreatedFrom != nil {
		q = q.Where("created_at >= ?", f.CreatedFrom.UTC())
	}
	if f.CreatedTo != nil {
		q = q.Where("created_at < ?", f.CreatedTo.UTC())
	}
	if f.MinAmount != nil {
		q = q.Where("amount_minor >= ?", *f.MinAmount)
	}
	if f.MaxAmount != nil {
		q = q.Where("amount_minor <= ?", *f.MaxAmount)
	}
	q = store.Containing(q, f.Q, "customer_company", "contact_name", "contact_email")
	return store.Page(q, pg, func(d models.Deal) string { return d.ID })
}

// Deal finds one deal the principal may see.
func (sc *Scoped) Deal(ctx context.Context, id string) (*models.Deal, error) {
	var d models.Deal
	err := sc.dealRows(ctx).Where("id = ?", id).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("DEAL_NOT_FOUND", "deal")
	}
	return &d, err
}

// changeDeal runs fn on a locked deal the principal may see and saves it.
func (sc *Scoped) changeDeal(ctx context.Context, id string, fn func(tx *gorm.DB, ev *store.Outbox, d *models.Deal) error) (*models.Deal, error) {
	var d *models.Deal
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var err error
		if d, err = sc.lockDeal(tx, id); err != nil {
			return err
		}
		if err := fn(tx, ev, d); err != nil {
			return err
		}
		d.UpdatedAt = time.Now().UTC()
		return tx.Save(d).Error
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func closedDeal(d *models.Deal) error {
	return models.Errorf(models.KindConflict, "DEAL_CLOSED", "the deal is %s and can no longer change", d.Status)
}

// UpdateDeal changes a deal's details while it is open.
func (sc *Scoped) UpdateDeal(ctx context.Context, id string, ch models.DealChanges) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, _ *store.Outbox, d *models.Deal) error {
		if models.DealClosed(d.Status) {
			return closedDeal(d)
		}
		var changed []string
		models.SetChanged(&changed, "customerCompany", ch.CustomerCompany, &d.CustomerCompany)
		models.SetChanged(&changed, "contactName", ch.ContactName, &d.ContactName)
		if ch.ContactEmail != nil {
			e := store.NormalizeEmail(*ch.ContactEmail)
			models.SetChanged(&changed, "contactEmail", &e, &d.ContactEmail)
		}
		models.SetChanged(&changed, "notes", ch.Notes, &d.Notes)
		models.SetChanged(&changed, "currency", ch.Currency, &d.Currency)
		if ch.ExpectedCloseDate != nil && *ch.ExpectedCloseDate != store.Deref(d.ExpectedCloseDate) {
			d.ExpectedCloseDate = store.NonEmpty(*ch.ExpectedCloseDate)
			changed = append(changed, "expectedCloseDate")
		}
		models.SetChanged(&changed, "amountMinor", ch.AmountMinor, &d.AmountMinor)
		if len(changed) == 0 {
			return nil
		}
		return store.WriteAudit(ctx, tx, d.TenantID, "deal.updated", "deal", d.ID, changed...)
	})
}

// protectionDays is the tenant's deal protection period.
func protectionDays(tx *gorm.DB, tenantID string) (int, error) {
	var t models.Tenant
	if err := tx.Select("deal_protection_days").Where("id = ?", tenantID).Take(&t).Error; err != nil {
		return 0, err
	}
	return max(t.DealProtectionDays, 1), nil
}

// ApproveDeal approves a registration, optionally assigning its owner, and protects it for the
// tenant's period. A registration whose conflicts await review cannot be approved.
func (sc *Scoped) ApproveDeal(ctx context.Context, id string, ownerUserID string) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, ev *store.Outbox, d *models.Deal) error {
		if err := models.CheckDealTransition(d.Status, models.DealApproved); err != nil {
			return err
		}
		if d.ConflictStatus == models.ConflictReview {
			return models.Errorf(models.KindConflict, "CONFLICT_REVIEW_PENDING", "resolve the registration's conflicts before approving it")
		}
		if ownerUserID != "" {
			if err := sc.checkOperatorUser(tx, ownerUserID); err != nil {
				return err
			}
			d.OwnerUserID = &ownerUserID
		}
		days, err := protectionDays(tx, d.TenantID)
		if err != nil {
			return err
		}
		until := time.Now().UTC().Add(time.Duration(days) * 24 * time.Hour).Truncate(time.Second)
		d.Status, d.ProtectedUntil = models.DealApproved, &until
		if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.approved", "deal", d.ID, "status", "protectedUntil", "ownerUserId"); err != nil {
			return err
		}
		return emitDeal(ctx, tx, ev, d, models.EventDealApproved, "")
	})
}

func (sc *Scoped) checkOperatorUser(tx *gorm.DB, userID string) error {
	var n int64
	if err := tx.Model(&models.User{}).Where(sc.Scope.Tenant()).Where("id = ? AND partner_id IS NULL", userID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("OWNER_NOT_FOUND", "the owner must be an operator user of the tenant",
			models.FieldError{Location: "body.ownerUserId", Message: "no such operator user", Value: userID})
	}
	return nil
}

// RejectDeal rejects a registration with a reason.
func (sc *Scoped) RejectDeal(ctx context.Context, id, reason string) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, ev *store.Outbox, d *models.Deal) error {
		if err := models.CheckDealTransition(d.Status, models.DealRejected); err != nil {
			return err
		}
		now := time.Now().UTC()
		d.Status, d.Reason, d.ClosedAt = models.DealRejected, reason, &now
		if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.rejected", "deal", d.ID, "status", "reason"); err != nil {
			return err
		}
		return emitDeal(ctx, tx, ev, d, models.EventDealRejected, "")
	})
}

// DealConflicts lists what a registration overlaps; operators only.
func (sc *Scoped) DealConflicts(ctx context.Context, id string) ([]models.DealConflict, error) {
	if _, err := sc.Deal(ctx, id); err != nil {
		return nil, err
	}
	var out []models.DealConflict
	err := sc.Rows(ctx, &models.DealConflict{}).Where("deal_id = ?", id).Order("id").Find(&out).Error
	return out, err
}

// ResolveDealConflicts records an operator's decision on a registration's conflicts, as a note
// on its timeline.
func (sc *Scoped) ResolveDealConflicts(ctx context.Context, id, resolution string) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, _ *store.Outbox, d *models.Deal) error {
		if d.ConflictStatus != models.ConflictReview {
			return models.Errorf(models.KindConflict, "NO_CONFLICT_REVIEW", "the deal has no conflicts awaiting review")
		}
		d.ConflictStatus = models.ConflictResolved
		note := models.DealNote{ID: models.NewID(), TenantID: d.TenantID, DealID: d.ID, AuthorID: sc.P.UserID,
			Body: "Conflicts resolved: " + resolution, CreatedAt: time.Now().UTC()}
		if err := tx.Create(&note).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, d.TenantID, "deal.conflicts_resolved", "deal", d.ID, "conflictStatus")
	})
}

// AssignDealOwner makes an operator user responsible for a deal.
func (sc *Scoped) AssignDealOwner(ctx context.Context, id, userID string) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, _ *store.Outbox, d *models.Deal) error {
		if err := sc.checkOperatorUser(tx, userID); err != nil {
			return err
		}
		d.OwnerUserID = &userID
		return store.WriteAudit(ctx, tx, d.TenantID, "deal.owner_assigned", "deal", d.ID, "ownerUserId")
	})
}

// MoveDeal moves an approved deal to a stage of its pipeline: an open stage renews its
// protection, a won stage wins it (the customer is created or linked and attributed to the
// partner), a lost stage loses it (a reason is required).
func (sc *Scoped) MoveDeal(ctx context.Context, id string, m models.DealMove) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, ev *store.Outbox, d *models.Deal) error {
		if models.DealClosed(d.Status) {
			return closedDeal(d)
		}
		if d.Status != models.DealApproved {
			return models.Errorf(models.KindConflict, "DEAL_NOT_APPROVED", "a deal moves through the pipeline once it is approved")
		}
		var to models.Stage
		err := tx.Where(store.System(d.TenantID).Tenant()).Where("pipeline_id = ? AND id = ?", d.PipelineID, m.StageID).Take(&to).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return models.Invalid("STAGE_NOT_FOUND", "no such stage in the deal's pipeline", models.FieldError{Location: "body.stageId", Message: "not a stage of the deal's pipeline", Value: m.StageID})
		}
		if err != nil {
			return err
		}
		if to.ID == d.StageID {
			return models.Errorf(models.KindConflict, "SAME_STAGE", "the deal is in this stage already")
		}
		previous := d.StageID
		d.StageID = to.ID
		now := time.Now().UTC()
		switch to.Outcome {
		case models.OutcomeOpen:
			days, err := protectionDays(tx, d.TenantID)
			if err != nil {
				return err
			}
			until := now.Add(time.Duration(days) * 24 * time.Hour).Truncate(time.Second)
			if d.ProtectedUntil == nil || until.After(*d.ProtectedUntil) {
				d.ProtectedUntil = &until
			}
			if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.stage_changed", "deal", d.ID, "stageId", "protectedUntil"); err != nil {
				return err
			}
			return emitDeal(ctx, tx, ev, d, models.EventDealStageChanged, previous)
		case models.OutcomeWon:
			if err := models.CheckDealTransition(d.Status, models.DealWon); err != nil {
				return err
			}
			if err := sc.attributeWonCustomer(ctx, tx, ev, d); err != nil {
				return err
			}
			d.Status, d.ClosedAt = models.DealWon, &now
			if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.won", "deal", d.ID, "stageId", "status", "customerId"); err != nil {
				return err
			}
			return emitDeal(ctx, tx, ev, d, models.EventDealWon, previous)
		default:
			if err := models.CheckDealTransition(d.Status, models.DealLost); err != nil {
				return err
			}
			if strings.TrimSpace(m.Reason) == "" {
				return models.Invalid("REASON_REQUIRED", "say why the deal was lost", models.FieldError{Location: "body.reason", Message: "required for a lost stage"})
			}
			d.Status, d.Reason, d.ClosedAt = models.DealLost, m.Reason, &now
			if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.lost", "deal", d.ID, "stageId", "status", "reason"); err != nil {
				return err
			}
			return emitDeal(ctx, tx, ev, d, models.EventDealLost, previous)
		}
	})
}

// attributeWonCustomer links the won deal's customer (by contact email) or creates it, and
// attributes it to the deal's partner. A customer attributed to another partner stops the win:
// an operator decides the attribution first.
func (sc *Scoped) attributeWonCustomer(ctx context.Context, tx *gorm.DB, ev *store.Outbox, d *models.Deal) error {
	var c models.Customer
	found := false
	if d.ContactEmail != "" {
		err := tx.Where(store.System(d.TenantID).Tenant()).Where("email = ?", d.ContactEmail).Take(&c).Error
		switch {
		case err == nil:
			found = true
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return err
		}
	}
	partner := d.PartnerID
	switch {
	case !found:
		c = models.Customer{ID: models.NewID(), TenantID: d.TenantID, Email: store.NonEmpty(d.ContactEmail), Name: d.CustomerCompany, PartnerID: &partner}
		if err := tx.Create(&c).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, d.TenantID, "customer.created", "customer", c.ID, "email", "name", "partnerId"); err != nil {
			return err
		}
		if _, err := ev.Emit(ctx, tx, d.TenantID, models.NewEvent{Type: models.EventCustomerCreated, CustomerID: &c.ID, PartnerID: &partner, Payload: customers.Payload(&c)}); err != nil {
			return err
		}
	case c.PartnerID == nil:
		c.PartnerID = &partner
		if err := tx.Model(&models.Customer{}).Where("id = ?", c.ID).Updates(map[string]any{"partner_id": partner, "updated_at": time.Now().UTC()}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, d.TenantID, "customer.attributed", "customer", c.ID, "partnerId"); err != nil {
			return err
		}
		if _, err := ev.Emit(ctx, tx, d.TenantID, models.NewEvent{Type: models.EventCustomerAttributed, CustomerID: &c.ID, PartnerID: &partner, Payload: customers.Payload(&c)}); err != nil {
			return err
		}
	case *c.PartnerID != partner:
		return models.Errorf(models.KindConflict, "CUSTOMER_ATTRIBUTED_ELSEWHERE", "the deal's customer is attributed to another partner; an operator must settle the attribution first")
	}
	d.CustomerID = &c.ID
	return nil
}

// RequestDealExtension records a request for a longer protection of an approved deal.
func (sc *Scoped) RequestDealExtension(ctx context.Context, id, reason string) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, ev *store.Outbox, d *models.Deal) error {
		if d.Status != models.DealApproved {
			return models.Errorf(models.KindConflict, "DEAL_NOT_APPROVED", "only approved deals are protected and can be extended")
		}
		now := time.Now().UTC()
		d.ExtensionRequestedAt, d.ExtensionReason = &now, reason
		if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.extension_requested", "deal", d.ID, "extensionReason"); err != nil {
			return err
		}
		return emitDeal(ctx, tx, ev, d, models.EventDealExtensionRequested, "")
	})
}

// ExtendDeal lengthens an approved deal's protection by days, counted from its current end
// (or from now, if that is later), and settles a pending extension request.
func (sc *Scoped) ExtendDeal(ctx context.Context, id string, days int) (*models.Deal, error) {
	return sc.changeDeal(ctx, id, func(tx *gorm.DB, ev *store.Outbox, d *models.Deal) error {
		if d.Status != models.DealApproved {
			return models.Errorf(models.KindConflict, "DEAL_NOT_APPROVED", "only approved deals are protected and can be extended")
		}
		from := time.Now().UTC()
		if d.ProtectedUntil != nil && d.ProtectedUntil.After(from) {
			from = *d.ProtectedUntil
		}
		until := from.Add(time.Duration(days) * 24 * time.Hour).Truncate(time.Second)
		d.ProtectedUntil, d.ExtensionRequestedAt, d.ExtensionReason = &until, nil, ""
		if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.extended", "deal", d.ID, "protectedUntil"); err != nil {
			return err
		}
		return emitDeal(ctx, tx, ev, d, models.EventDealExtended, "")
	})
}

// AddDealNote adds a note to a deal's timeline.
func (sc *Scoped) AddDealNote(ctx context.Context, id, body string) (*models.DealNote, error) {
	d, err := sc.Deal(ctx, id)
	if err != nil {
		return nil, err
	}
	author := sc.P.UserID
	if author == "" {
		author = sc.P.KeyID
	}
	n := &models.DealNote{ID: models.NewID(), TenantID: d.TenantID, DealID: d.ID, AuthorID: author, Body: body, CreatedAt: time.Now().UTC()}
	return n, sc.s.core.DB(ctx).Create(n).Error
}

// DealTimeline lists a deal's events and notes in the order they happened.
func (sc *Scoped) DealTimeline(ctx context.Context, id string, pg models.Page) ([]models.DealTimelineItem, string, error) {
	if _, err := sc.Deal(ctx, id); err != nil {
		return nil, "", err
	}
	limit := pg.Limit
	if limit <= 0 {
		limit = 20
	}
	evq := sc.Rows(ctx, &models.Event{}).Where("subject_id = ?", id)
	nq := sc.Rows(ctx, &models.DealNote{}).Where("deal_id = ?", id)
	if pg.After != "" {
		evq, nq = evq.Where("id > ?", pg.After), nq.Where("id > ?", pg.After)
	}
	var evs []models.Event
	var notes []models.DealNote
	if err := evq.Order("id").Limit(limit + 1).Find(&evs).Error; err != nil {
		return nil, "", err
	}
	if err := nq.Order("id").Limit(limit + 1).Find(&notes).Error; err != nil {
		return nil, "", err
	}
	items := make([]models.DealTimelineItem, 0, len(evs)+len(notes))
	for i := range evs {
		items = append(items, models.DealTimelineItem{Event: &evs[i]})
	}
	for i := range notes {
		items = append(items, models.DealTimelineItem{Note: &notes[i]})
	}
	slices.SortFunc(items, func(a, b models.DealTimelineItem) int { return strings.Compare(a.ID(), b.ID()) })
	next := ""
	if len(items) > limit {
		items = items[:limit]
		next = items[limit-1].ID()
	}
	return items, next, nil
}

// AdvanceDealProtection is the protection timer's step for a deal at time at: it sends the
// expiry reminder when due (once per protection end), expires the deal when its protection
// ended, and says when to look again.
func (s *Store) AdvanceDealProtection(ctx context.Context, sys models.Scope, dealID string, at time.Time) (models.DealProtection, error) {
	var out models.DealProtection
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		q := tx.Where(store.Of(sys).Tenant()).Where("id = ?", dealID)
		if s.core.Dialect() == store.Postgres {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		var d models.Deal
		if err := q.Take(&d).Error; errors.Is(err, gorm.ErrRecordNotFound) {
			out.Done = true
			return nil
		} else if err != nil {
			return err
		}
		if d.Status != models.DealApproved || d.ProtectedUntil == nil {
			out.Done = true
			return nil
		}
		end := d.ProtectedUntil.UTC()
		at = at.UTC()
		if !at.Before(end) {
			d.Status, d.ClosedAt, d.UpdatedAt = models.DealExpired, &at, at
			if err := tx.Save(&d).Error; err != nil {
				return err
			}
			if err := store.WriteAudit(ctx, tx, d.TenantID, "deal.expired", "deal", d.ID, "status"); err != nil {
				return err
			}
			out.Done = true
			return emitDeal(ctx, tx, ev, &d, models.EventDealExpired, "")
		}
		remindAt := end.Add(-models.DealProtectionReminder)
		out.WakeAt = remindAt
		if at.Before(remindAt) {
			return nil
		}
		out.WakeAt = end
		if d.ReminderSentFor != nil && d.ReminderSentFor.UTC().Equal(end) {
			return nil
		}
		d.ReminderSentFor, d.UpdatedAt = &end, at
		if err := tx.Save(&d).Error; err != nil {
			return err
		}
		return emitDeal(ctx, tx, ev, &d, models.EventDealExpiring, "")
	})
	return out, err
}
