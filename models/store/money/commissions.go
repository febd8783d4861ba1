package money

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// CreateCommissionPlan adds an active plan at version 1.
func (sc *Scoped) CreateCommissionPlan(ctx context.Context, name, description string, def models.PlanDefinition) (*models.CommissionPlan, error) {
	def = def.WithDefaults()
	if err := models.ValidatePlan(name, def); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	p := &models.CommissionPlan{
		ID: models.NewID(), TenantID: sc.P.TenantID, Name: name, Description: description, Status: models.PlanActive,
		Trigger: def.Trigger, ClawbackTrigger: def.ClawbackTrigger, Version: 1, Definition: store.MustJSON(def),
		CreatedBy: sc.P.UserID, CreatedAt: now, UpdatedAt: now,
	}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(p).Error; err != nil {
			return err
		}
		if err := tx.Create(planVersion(p)).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "commission_plan.created", "commission_plan", p.ID, "name", "description", "definition")
	})
	if err != nil {
		return nil, err
	}
	sc.s.core.InvalidateSubscriptions(p.TenantID)
	return p, nil
}

func planVersion(p *models.CommissionPlan) *models.CommissionPlanVersion {
	return &models.CommissionPlanVersion{TenantID: p.TenantID, PlanID: p.ID, Version: p.Version, Name: p.Name,
		Definition: p.Definition, CreatedBy: p.CreatedBy, CreatedAt: p.UpdatedAt}
}

// UpdateCommissionPlan replaces a plan's name, description and definition, making a new
// version; accruals already booked keep the version that computed them.
func (sc *Scoped) UpdateCommissionPlan(ctx context.Context, id, name, description string, def models.PlanDefinition) (*models.CommissionPlan, error) {
	def = def.WithDefaults()
	if err := models.ValidatePlan(name, def); err != nil {
		return nil, err
	}
	var p models.CommissionPlan
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := store.LockRow(sc.s.core, tx, &p, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "COMMISSION_PLAN_NOT_FOUND", "commission plan")
		}
		if p.Status == models.PlanArchived {
			return models.Conflict("COMMISSION_PLAN_ARCHIVED", "an archived plan cannot change")
		}
		p.Name, p.Description, p.Trigger, p.ClawbackTrigger = name, description, def.Trigger, def.ClawbackTrigger
		p.Definition, p.Version, p.UpdatedAt = store.MustJSON(def), p.Version+1, time.Now().UTC()
		p.CreatedBy = sc.P.UserID
		if err := tx.Model(&p).Select("name", "description", "trigger_type", "clawback_trigger", "definition", "version", "updated_at").Updates(&p).Error; err != nil {
			return err
		}
		if err := tx.Create(planVersion(&p)).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "commission_plan.updated", "commission_plan", p.ID, "name", "description", "definition", "version")
	})
	if err != nil {
		return nil, err
	}
	sc.s.core.InvalidateSubscriptions(p.TenantID)
	return &p, nil
}

// ArchiveCommissionPlan stops a plan from accruing; its accruals stay.
func (sc *Scoped) ArchiveCommissionPlan(ctx context.Context, id string) (*models.CommissionPlan, error) {
	var p models.CommissionPlan
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := store.LockRow(sc.s.core, tx, &p, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "COMMISSION_PLAN_NOT_FOUND", "commission plan")
		}
		if p.Status == models.PlanArchived {
			return nil
		}
		p.Status, p.UpdatedAt = models.PlanArchived, time.Now().UTC()
		if err := tx.Model(&p).Select("status", "updated_at").Updates(&p).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "commission_plan.archived", "commission_plan", p.ID, "status")
	})
	if err != nil {
		return nil, err
	}
	sc.s.core.InvalidateSubscriptions(p.TenantID)
	return &p, nil
}

// ListCommissionPlans lists the tenant's plans (operators only).
func (sc *Scoped) ListCommissionPlans(ctx context.Context, status string, pg models.Page) ([]models.CommissionPlan, string, error) {
	q := sc.Rows(ctx, &models.CommissionPlan{})
	if status != "" {
		q = q.Where("status = ?", status)
	}
	return store.Page(q, pg, func(p models.CommissionPlan) string { return p.ID })
}

// CommissionPlan finds one plan (operators only).
func (sc *Scoped) CommissionPlan(ctx context.Context, id string) (*models.CommissionPlan, error) {
	var p models.CommissionPlan
	err := sc.Rows(ctx, &models.CommissionPlan{}).Where("id = ?", id).Take(&p).Error
	return &p, store.NotFoundAs(err, "COMMISSION_PLAN_NOT_FOUND", "commission plan")
}

// CommissionPlanVersions lists every version of a plan, oldest first.
func (sc *Scoped) CommissionPlanVersions(ctx context.Context, id string) ([]models.CommissionPlanVersion, error) {
	if _, err := sc.CommissionPlan(ctx, id); err != nil {
		return nil, err
	}
	var vs []models.CommissionPlanVersion
	err := sc.Rows(ctx, &models.CommissionPlanVersion{}).Where("plan_id = ?", id).Order("version").Limit(1000).Find(&vs).Error
	return vs, err
}

// PreviewCommissions shows which active plans match a sample event and what they would
// accrue, without booking anything. Tier volumes and recurrence windows come from the
// partner's real accruals.
func (sc *Scoped) PreviewCommissions(ctx context.Context, e models.Event) ([]models.PlanPreview, error) {
	var plans []models.CommissionPlan
	if err := sc.Rows(ctx, &models.CommissionPlan{}).Where("status = ? AND trigger_type = ?", models.PlanActive, e.Type).
		Order("id").Limit(200).Find(&plans).Error; err != nil {
		return nil, err
	}
	var partner *models.Partner
	if e.PartnerID != nil {
		p, err := sc.s.partners.PartnerOf(ctx, models.System(sc.P.TenantID), *e.PartnerID)
		if err != nil {
			return nil, models.Invalid("PARTNER_NOT_FOUND", "no such partner", models.FieldError{Location: "body.partnerId", Message: "no such partner", Value: *e.PartnerID})
		}
		partner = p
	}
	out := make([]models.PlanPreview, 0, len(plans))
	db := sc.s.core.DB(ctx)
	for _, p := range plans {
		def, err := planDefinition(&p)
		if err != nil {
			return nil, err
		}
		subject, err := accrualSubject(db, &e, partner, &p, def)
		if err != nil {
			return nil, err
		}
		out = append(out, models.PlanPreview{Plan: p, Quote: def.Quote(subject)})
	}
	return out, nil
}

func planDefinition(p *models.CommissionPlan) (models.PlanDefinition, error) {
	var def models.PlanDefinition
	if err := json.Unmarshal([]byte(p.Definition), &def); err != nil {
		return def, err
	}
	return def.WithDefaults(), nil
}

// accrualSubject gathers what a plan looks at for an event: the partner, its volume under the
// plan in the tier period, and the customer's first accrual under the plan.
func accrualSubject(tx *gorm.DB, e *models.Event, partner *models.Partner, p *models.CommissionPlan, def models.PlanDefinition) (models.AccrualSubject, error) {
	s := models.AccrualSubject{EventType: e.Type, Payload: e.Payload, OccurredAt: e.OccurredAt}
	if partner == nil {
		return s, nil
	}
	s.PartnerID, s.PartnerType, s.Level = partner.ID, partner.Type, partner.Level
	if e.CustomerID != nil {
		s.CustomerID = *e.CustomerID
	}
	_, _, currency, _ := def.SourceFacts(e.Payload)
	if def.Calculation.Kind == models.CalcTiered {
		start := models.PeriodStart(def.Calculation.TierPeriod, e.OccurredAt)
		var volume struct{ Total int64 }
		if err := tx.Model(&models.Accrual{}).Select("COALESCE(SUM(source_amount), 0) AS total").
			Where(store.System(p.TenantID).Tenant()).Where("plan_id = ? AND partner_id = ? AND currency = ? AND status <> ? AND source_occurred_at >= ? AND source_occurred_at < ? AND source_event_id <> ?", p.ID, partner.ID, currency, models.AccrualReversed, start, e.OccurredAt, e.ID).
			Scan(&volume).Error; err != nil {
			return s, err
		}
		s.PeriodVolume = volume.Total
	}
	if def.RecurrenceMonths > 0 && s.CustomerID != "" {
		var first models.Accrual
		err := tx.Where(store.System(p.TenantID).Tenant()).Where("plan_id = ? AND customer_id = ? AND source_event_id <> ?", p.ID, s.CustomerID, e.ID).
			Order("source_occurred_at").Take(&first).Error
		switch {
		case err == nil:
			t := first.SourceOccurredAt
			s.FirstAccrualAt = &t
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return s, err
		}
	}
	return s, nil
}

// plansFor loads an event and the active plans whose column (trigger_type or clawback_trigger)
// names its type; none when the event is attributed to no partner. The returned context makes
// events written for it part of its causation chain.
func (s *Store) plansFor(ctx context.Context, tenantID, eventID, column string) (context.Context, *models.Event, []models.CommissionPlan, error) {
	e, err := s.core.EventByID(ctx, models.System(tenantID), eventID)
	if err != nil || e.PartnerID == nil {
		return ctx, e, nil, err
	}
	q := s.core.DB(ctx).Where(store.System(tenantID).Tenant()).Where(column+" = ?", e.Type)
	if column == "trigger_type" {
		q = q.Where("status = ?", models.PlanActive) // archived plans accrue no more, but their clawbacks still count
	}
	var plans []models.CommissionPlan
	if err := q.Order("id").Find(&plans).Error; err != nil {
		return ctx, e, nil, err
	}
	return models.WithCausation(ctx, models.Causation{EventID: e.ID, Depth: e.Depth}), e, plans, nil
}

// AccrueCommissions runs every active plan triggered by the event's type: each matching plan
// books one accrual, idempotent on (plan, event), and emits commission.accrued. Replays find
// the accruals booked before and book nothing.
func (s *Store) AccrueCommissions(ctx context.Context, sys models.Scope, eventID string) ([]models.AccrualResult, error) {
	ctx, e, plans, err := s.plansFor(ctx, sys.TenantID(), eventID, "trigger_type")
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	var out []models.AccrualResult
	for i := range plans {
		r, err := s.accrue(ctx, e, &plans[i])
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *Store) accrue(ctx context.Context, e *models.Event, plan *models.CommissionPlan) (models.AccrualResult, error) {
	res := models.AccrualResult{PlanID: plan.ID}
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		partner, err := s.LockPartner(tx, store.System(e.TenantID), *e.PartnerID)
		if models.ErrorKind(err) == models.KindNotFound {
			res.Reason = "the event's partner no longer exists"
			return nil
		} else if err != nil {
			return err
		}
		var prior models.Accrual
		err = tx.Where(store.System(e.TenantID).Tenant()).Where("plan_id = ? AND source_event_id = ?", plan.ID, e.ID).Take(&prior).Error
		if err == nil {
			res.AccrualID, res.Pending, res.AvailableAt = prior.ID, prior.Status == models.AccrualPending, prior.AvailableAt
			return nil
		} else if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		def, err := planDefinition(plan)
		if err != nil {
			return err
		}
		subject, err := accrualSubject(tx, e, partner, plan, def)
		if err != nil {
			return err
		}
		q := def.Quote(subject)
		if !q.Match {
			res.Reason = q.Reason
			return nil
		}
		if def.ClawbackTrigger != "" && q.Reference != "" {
			var early int64
			if err := tx.Model(&models.CommissionClawback{}).Where(store.System(e.TenantID).Tenant()).Where("plan_id = ? AND partner_id = ? AND reference = ?", plan.ID, partner.ID, q.Reference).Count(&early).Error; err != nil {
				return err
			}
			if early > 0 {
				res.Reason = "a " + def.ClawbackTrigger + " for " + q.Reference + " arrived before this event: nothing is owed"
				return nil
			}
		}
		now := time.Now().UTC()
		a := &models.Accrual{
			ID: models.NewID(), TenantID: e.TenantID, PartnerID: partner.ID, PlanID: plan.ID, PlanVersion: plan.Version,
			SourceEventID: e.ID, CustomerID: e.CustomerID, Reference: q.Reference, SourceAmount: q.SourceAmount,
			SourceOccurredAt: e.OccurredAt, RateBps: q.RateBps, Amount: q.Amount, Currency: q.Currency,
			Status: models.AccrualPending, AvailableAt: q.AvailableAt, CreatedAt: now,
		}
		to := models.AccountPending
		if !a.AvailableAt.After(now) {
			a.Status, a.ReleasedAt, to = models.AccrualAvailable, &now, models.AccountAvailable
		}
		mv, _, err := s.post(ctx, tx, e.TenantID, models.NewMovement{
			PartnerID: partner.ID, Currency: a.Currency, Kind: models.MoveAccrual, Key: "accrual:" + plan.ID + ":" + e.ID,
			SourceType: models.SourceEvent, SourceID: e.ID, Reason: plan.Name,
			Postings: models.Transfer(models.AccountEarned, to, a.Amount),
		})
		if err != nil {
			return err
		}
		a.MovementID = mv.ID
		if err := tx.Create(a).Error; err != nil {
			return err
		}
		res.AccrualID, res.Created, res.Pending, res.AvailableAt = a.ID, true, a.Status == models.AccrualPending, a.AvailableAt
		_, err = ev.Emit(ctx, tx, e.TenantID, accrualEvent(models.EventCommissionAccrued, a, ""))
		return err
	})
	return res, err
}

func accrualEvent(typ string, a *models.Accrual, reason string) models.NewEvent {
	partner, id := a.PartnerID, a.ID
	return models.NewEvent{Type: typ, PartnerID: &partner, CustomerID: a.CustomerID, SubjectID: &id, Payload: store.MustJSON(models.CommissionAccruedPayload{
		AccrualID: a.ID, PlanID: a.PlanID, PlanVersion: a.PlanVersion, PartnerID: a.PartnerID, SourceEventID: a.SourceEventID,
		SourceAmount: a.SourceAmount, RateBps: a.RateBps, Amount: a.Amount, Currency: a.Currency, Status: a.Status,
		AvailableAt: a.AvailableAt, Reason: reason,
	})}
}

// ReleaseAccrual moves a pending accrual whose holding period has ended at time at (the
// caller's clock: a workflow's) to available and emits commission.available. Released,
// reversed or missing accruals are left alone.
func (s *Store) ReleaseAccrual(ctx context.Context, sys models.Scope, accrualID string, at time.Time) (models.AccrualRelease, error) {
	var out models.AccrualRelease
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var a models.Accrual
		read := func() *gorm.DB { return tx.Where(store.Of(sys).Tenant()).Where("id = ?", accrualID) }
		err := lockedRead(s, tx, sys.TenantID(), read, &a, accrualPartner)
		if errors.Is(err, gorm.ErrRecordNotFound) {
			out.Done = true
			return nil
		} else if err != nil {
			return err
		}
		now := time.Now().UTC()
		if a.Status != models.AccrualPending {
			out.Done = true
			return nil
		}
		if a.AvailableAt.After(at) {
			out.WakeAt = a.AvailableAt
			return nil
		}
		if _, _, err := s.post(ctx, tx, sys.TenantID(), models.NewMovement{
			PartnerID: a.PartnerID, Currency: a.Currency, Kind: models.MoveRelease, Key: "release:" + a.ID,
			SourceType: models.SourceAccrual, SourceID: a.ID,
			Postings: models.Transfer(models.AccountPending, models.AccountAvailable, a.Amount),
		}); err != nil {
			return err
		}
		a.Status, a.ReleasedAt = models.AccrualAvailable, &now
		if err := tx.Model(&a).Select("status", "released_at").Updates(&a).Error; err != nil {
			return err
		}
		out.Done = true
		_, err = ev.Emit(ctx, tx, sys.TenantID(), accrualEvent(models.EventCommissionAvailable, &a, ""))
		return err
	})
	return out, err
}

// reverseAccrual claws an accrual back in tx, which holds its partner's lock: the amount
// leaves pending if it is still held back, otherwise available, which may go negative when the
// money was already paid out; a negative available balance blocks withdrawals until recovered.
func (s *Store) reverseAccrual(ctx context.Context, tx *gorm.DB, ev *store.Outbox, a *models.Accrual, sourceType, sourceID, reason string) error {
	if a.Status == models.AccrualReversed {
		return nil
	}
	from := models.AccountAvailable
	if a.Status == models.AccrualPending {
		from = models.AccountPending
	}
	mid := a.MovementID
	if _, _, err := s.post(ctx, tx, a.TenantID, models.NewMovement{
		PartnerID: a.PartnerID, Currency: a.Currency, Kind: models.MoveClawback, Key: "clawback:" + a.ID,
		SourceType: sourceType, SourceID: sourceID, ReversesID: &mid, Reason: reason,
		Postings: models.Transfer(from, models.AccountEarned, a.Amount),
	}); err != nil {
		return err
	}
	now := time.Now().UTC()
	a.Status, a.ReversedAt, a.ReversalReason = models.AccrualReversed, &now, reason
	if err := tx.Model(a).Select("status", "reversed_at", "reversal_reason").Updates(a).Error; err != nil {
		return err
	}
	_, err := ev.Emit(ctx, tx, a.TenantID, accrualEvent(models.EventCommissionReversed, a, reason))
	return err
}

// ClawbackCommissions reverses the accruals an event undoes: for every active plan whose
// clawback trigger is the event's type, the accruals of the same partner whose reference
// equals the event's. It returns the ids of the accruals reversed now.
func (s *Store) ClawbackCommissions(ctx context.Context, sys models.Scope, eventID string) ([]string, error) {
	ctx, e, plans, err := s.plansFor(ctx, sys.TenantID(), eventID, "clawback_trigger")
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	var reversed []string
	for i := range plans {
		def, err := planDefinition(&plans[i])
		if err != nil {
			return reversed, err
		}
		_, _, _, reference := def.SourceFacts(e.Payload)
		if reference == "" {
			continue
		}
		err = s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
			if _, err := s.LockPartner(tx, store.Of(sys), *e.PartnerID); err != nil {
				return err
			}
			// Remembered for an accrual whose source event is processed later than this one.
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&models.CommissionClawback{TenantID: sys.TenantID(), PlanID: plans[i].ID,
				PartnerID: *e.PartnerID, Reference: reference, EventID: e.ID, CreatedAt: time.Now().UTC()}).Error; err != nil {
				return err
			}
			var accruals []models.Accrual
			if err := tx.Where(store.Of(sys).Tenant()).Where("plan_id = ? AND partner_id = ? AND reference = ? AND status <> ?", plans[i].ID, *e.PartnerID, reference, models.AccrualReversed).Order("id").Find(&accruals).Error; err != nil {
				return err
			}
			for j := range accruals {
				if err := s.reverseAccrual(ctx, tx, ev, &accruals[j], models.SourceEvent, e.ID, "clawed back by "+e.Type); err != nil {
					return err
				}
				reversed = append(reversed, accruals[j].ID)
			}
			return nil
		})
		if err != nil {
			return reversed, err
		}
	}
	return reversed, nil
}

// ReverseAccrual is finance's manual clawback of one accrual, with a reason; audited.
func (sc *Scoped) ReverseAccrual(ctx context.Context, id, reason string) (*models.Accrual, error) {
	var a models.Accrual
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		read := func() *gorm.DB { return tx.Where(sc.Scope.Tenant()).Where("id = ?", id) }
		if err := lockedRead(sc.s, tx, sc.P.TenantID, read, &a, accrualPartner); err != nil {
			return store.NotFoundAs(err, "ACCRUAL_NOT_FOUND", "accrual")
		}
		if a.Status == models.AccrualReversed {
			return models.Conflict("ACCRUAL_REVERSED", "the accrual was reversed before")
		}
		if err := sc.s.reverseAccrual(ctx, tx, ev, &a, models.SourceAccrual, a.ID, reason); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "accrual.reversed", "accrual", a.ID, "status", "reason")
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// ListAccruals lists the accruals the principal may see (partners: their own).
func (sc *Scoped) ListAccruals(ctx context.Context, f models.AccrualFilter, pg models.Page) ([]models.Accrual, string, error) {
	q := sc.PartnerRows(ctx, &models.Accrual{}, "partner_id")
	for col, v := range map[string]string{"partner_id": f.PartnerID, "plan_id": f.PlanID, "status": f.Status, "currency": f.Currency} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	return store.Page(q, pg, func(a models.Accrual) string { return a.ID })
}

// Accrual finds one accrual the principal may see.
func (sc *Scoped) Accrual(ctx context.Context, id string) (*models.Accrual, error) {
	var a models.Accrual
	err := sc.PartnerRows(ctx, &models.Accrual{}, "partner_id").Where("id = ?", id).Take(&a).Error
	return &a, store.NotFoundAs(err, "ACCRUAL_NOT_FOUND", "accrual")
}

// PendingAccruals lists accruals still in their holding period, for the release timers to
// pick up after a restore.
func (s *Store) PendingAccruals(ctx context.Context, sys models.Scope, limit int) ([]models.Accrual, error) {
	var out []models.Accrual
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("status = ?", models.AccrualPending).Order("available_at").Limit(limit).Find(&out).Error
	return out, err
}

// EventPatterns lists the event types a tenant's plans act on: active plans accrue on
// their trigger, and every plan, archived ones too, claws back on its clawback trigger.
func (s *Store) EventPatterns(ctx context.Context, sys models.Scope) ([]string, error) {
	var plans []models.CommissionPlan
	if err := s.core.DB(ctx).Select("trigger_type", "clawback_trigger", "status").
		Where(store.Of(sys).Tenant()).Where("(status = ? OR clawback_trigger <> '')", models.PlanActive).
		Find(&plans).Error; err != nil {
		return nil, err
	}
	// Every approved withdrawal is paid out; every allocated MDF fund has an expiry timer.
	out := []string{models.EventWithdrawalApproved, models.EventMDFFundAllocated}
	for _, p := range plans {
		if p.Status == models.PlanActive {
			out = append(out, p.Trigger)
		}
		if p.ClawbackTrigger != "" {
			out = append(out, p.ClawbackTrigger)
		}
	}
	return out, nil
}

// RouteEvent accrues commissions on e or claws them back because of it, when e is attributed to
// a partner, pays out an approved withdrawal and starts the expiry timer of an allocated MDF fund.
func (s *Store) RouteEvent(ctx context.Context, e *models.Event, r *models.EventRoutes) error {
	if e.Type == models.EventWithdrawalApproved && e.SubjectID != nil {
		r.PayWithdrawal = *e.SubjectID
	}
	if e.Type == models.EventMDFFundAllocated && e.SubjectID != nil {
		r.ExpireMDFFund = *e.SubjectID
	}
	if e.PartnerID == nil {
		return nil
	}
	var err error
	r.Accrue, r.Clawback, err = s.HasCommissionRoutes(ctx, models.System(e.TenantID), e.Type)
	return err
}

// HasCommissionRoutes reports whether a tenant's active plans accrue on an event type, and
// whether any of its plans (archived ones too: their accruals can still be refunded) claws back
// on it.
func (s *Store) HasCommissionRoutes(ctx context.Context, sys models.Scope, eventType string) (accrue, clawback bool, err error) {
	var plans []models.CommissionPlan
	err = s.core.DB(ctx).Select("trigger_type", "clawback_trigger", "status").
		Where(store.Of(sys).Tenant()).Where("((status = ? AND trigger_type = ?) OR clawback_trigger = ?)", models.PlanActive, eventType, eventType).
		Find(&plans).Error
	for _, p := range plans {
		accrue = accrue || (p.Status == models.PlanActive && p.Trigger == eventType)
		clawback = clawback || p.ClawbackTrigger == eventType
	}
	return accrue, clawback, err
}
