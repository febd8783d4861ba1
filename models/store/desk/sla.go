package desk

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
)

// ListSLAPolicies lists the tenant's SLA policies, oldest first.
func (sc *Scoped) ListSLAPolicies(ctx context.Context, pg models.Page) ([]models.TicketSLAPolicy, string, error) {
	return store.Page(sc.Rows(ctx, &models.TicketSLAPolicy{}), pg, func(p models.TicketSLAPolicy) string { return p.ID })
}

// SLAPolicy finds the policy of a priority.
func (sc *Scoped) SLAPolicy(ctx context.Context, priority string) (*models.TicketSLAPolicy, error) {
	var p models.TicketSLAPolicy
	err := sc.Rows(ctx, &models.TicketSLAPolicy{}).Where("priority = ?", priority).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("SLA_POLICY_NOT_FOUND", "SLA policy")
	}
	return &p, err
}

// PutSLAPolicy sets the policy of in.Priority, creating it if the priority has none (created).
// It applies to the clocks of tickets opened, or moved to the priority, from now on.
func (sc *Scoped) PutSLAPolicy(ctx context.Context, in models.TicketSLAPolicy) (out *models.TicketSLAPolicy, created bool, err error) {
	if err := in.Check(); err != nil {
		return nil, false, err
	}
	now := time.Now().UTC()
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var p models.TicketSLAPolicy
		q := tx.Where(sc.Scope.Tenant()).Where("priority = ?", in.Priority)
		if sc.s.core.Dialect() == store.Postgres {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		switch err := q.Take(&p).Error; {
		case errors.Is(err, gorm.ErrRecordNotFound):
			created = true
			p = in
			p.ID, p.TenantID, p.CreatedAt, p.UpdatedAt = models.NewID(), sc.P.TenantID, now, now
			if err := tx.Create(&p).Error; err != nil {
				return store.Translate(err, "SLA_POLICY_EXISTS", "the priority got a policy meanwhile; try again")
			}
			out = &p
			return store.WriteAudit(ctx, tx, p.TenantID, "ticket_sla_policy.created", "ticket_sla_policy", p.ID,
				"priority", "firstResponseMinutes", "resolutionMinutes", "warnPercent", "warnBeforeMinutes")
		case err != nil:
			return err
		}
		var changed []string
		models.SetChanged(&changed, "firstResponseMinutes", &in.FirstResponseMinutes, &p.FirstResponseMinutes)
		models.SetChanged(&changed, "resolutionMinutes", &in.ResolutionMinutes, &p.ResolutionMinutes)
		models.SetChanged(&changed, "warnPercent", &in.WarnPercent, &p.WarnPercent)
		models.SetChanged(&changed, "warnBeforeMinutes", &in.WarnBeforeMinutes, &p.WarnBeforeMinutes)
		out = &p
		if len(changed) == 0 {
			return nil
		}
		p.UpdatedAt = now
		if err := tx.Save(&p).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "ticket_sla_policy.updated", "ticket_sla_policy", p.ID, changed...)
	})
	if err != nil {
		return nil, false, err
	}
	sc.s.core.InvalidateSubscriptions(sc.P.TenantID)
	return out, created, nil
}

// DeleteSLAPolicy removes the policy of a priority: tickets opened at it from now on have no
// SLA clock; running clocks keep the targets they started with.
func (sc *Scoped) DeleteSLAPolicy(ctx context.Context, priority string) error {
	p, err := sc.SLAPolicy(ctx, priority)
	if err != nil {
		return err
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where(sc.Scope.Tenant()).Delete(&models.TicketSLAPolicy{}, "id = ?", p.ID).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "ticket_sla_policy.deleted", "ticket_sla_policy", p.ID, "priority")
	})
	if err == nil {
		sc.s.core.InvalidateSubscriptions(sc.P.TenantID)
	}
	return err
}

// businessHours reads a tenant's business hours; around the clock in UTC when it set none.
func businessHours(q *gorm.DB) (models.BusinessHours, error) {
	var row models.TicketBusinessHours
	switch err := q.Take(&row).Error; {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return models.AroundTheClock, nil
	case err != nil:
		return models.BusinessHours{}, err
	}
	return row.Hours(), nil
}

// BusinessHours is the tenant's business hours for SLA clocks.
func (sc *Scoped) BusinessHours(ctx context.Context) (models.BusinessHours, error) {
	return businessHours(sc.Rows(ctx, &models.TicketBusinessHours{}))
}

// PutBusinessHours sets the tenant's business hours: a weekly schedule in an IANA time zone,
// or around the clock with no windows. Clocks of tickets opened from now on count in them.
func (sc *Scoped) PutBusinessHours(ctx context.Context, h models.BusinessHours) (models.BusinessHours, error) {
	if h.Windows == nil {
		h.Windows = []models.BusinessWindow{}
	}
	if err := h.Check(); err != nil {
		return models.BusinessHours{}, err
	}
	b, _ := json.Marshal(h.Windows)
	row := models.TicketBusinessHours{TenantID: sc.P.TenantID, TimeZone: h.TimeZone, Windows: string(b), UpdatedAt: time.Now().UTC()}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "tenant_id"}}, UpdateAll: true}).Create(&row).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, row.TenantID, "ticket_business_hours.updated", "ticket_business_hours", row.TenantID, "timeZone", "windows")
	})
	return h, err
}

// slaEvents are the ticket events an SLA clock follows.
var slaEvents = []string{models.EventTicketOpened, models.EventTicketStatusChanged, models.EventTicketReplied, models.EventTicketUpdated}

// EventPatterns are the ticket events the desk's SLA clocks follow, in a tenant with an SLA
// policy or with a ticket whose clock still runs (it has due times and is not closed), so that
// deleting the last policy does not leave running clocks without their tickets' news.
func (s *Store) EventPatterns(ctx context.Context, sys models.Scope) ([]string, error) {
	var n int64
	if err := store.Of(sys).Rows(s.core.DB(ctx).Model(&models.TicketSLAPolicy{})).Count(&n).Error; err != nil {
		return nil, err
	}
	if n == 0 {
		// Whether one such ticket exists: the first row found answers, no count of them all.
		var running []string
		err := store.Of(sys).Rows(s.core.DB(ctx).Model(&models.Ticket{})).
			Where("closed_at IS NULL AND (first_response_due_at IS NOT NULL OR resolution_due_at IS NOT NULL OR sla_paused_at IS NOT NULL)").
			Limit(1).Pluck("id", &running).Error
		if err != nil {
			return nil, err
		}
		n = int64(len(running))
	}
	if n == 0 {
		return nil, nil
	}
	return slaEvents, nil
}

// RouteEvent starts a ticket's SLA clock when it is opened, and tells the clock about status
// changes, the desk's replies and priority changes.
func (s *Store) RouteEvent(_ context.Context, e *models.Event, r *models.EventRoutes) error {
	if !slices.Contains(slaEvents, e.Type) || e.SubjectID == nil {
		return nil
	}
	var p models.TicketEventPayload
	if err := json.Unmarshal([]byte(e.Payload), &p); err != nil {
		return nil //nolint:nilerr // not a ticket payload: nothing for the clock
	}
	sig := &models.TicketSLASignal{TicketID: *e.SubjectID, Status: p.Status, At: e.OccurredAt}
	switch e.Type {
	case models.EventTicketOpened:
		r.StartTicketSLA = sig
	case models.EventTicketReplied:
		sig.Responded = p.AuthorKind == models.TicketAuthorOperator
		r.TicketSLA = sig
	case models.EventTicketUpdated:
		if slices.Contains(p.Changed, "priority") {
			sig.Priority, r.TicketSLA = p.Priority, sig
		}
	default:
		r.TicketSLA = sig
	}
	return nil
}

// StartTicketSLA is what a ticket's SLA clock starts from, or takes on a priority change: the
// policy of priority (the ticket's own when empty), the tenant's business hours and the
// ticket's state now. Found is false when the ticket no longer exists.
func (s *Store) StartTicketSLA(ctx context.Context, sys models.Scope, ticketID, priority string) (models.TicketSLAStart, error) {
	db := s.core.DB(ctx)
	var t models.Ticket
	if err := store.Of(sys).Rows(db.Model(&models.Ticket{})).Where("id = ?", ticketID).Take(&t).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return models.TicketSLAStart{}, nil
	} else if err != nil {
		return models.TicketSLAStart{}, err
	}
	if priority == "" {
		priority = t.Priority
	}
	out := models.TicketSLAStart{Found: true, Priority: priority, Status: t.Status, OpenedAt: t.CreatedAt, StatusAt: t.UpdatedAt, FirstResponseAt: t.FirstResponseAt}
	var p models.TicketSLAPolicy
	switch err := store.Of(sys).Rows(db.Model(&models.TicketSLAPolicy{})).Where("priority = ?", priority).Take(&p).Error; {
	case err == nil:
		out.Policy = &p
	case !errors.Is(err, gorm.ErrRecordNotFound):
		return out, err
	}
	h, err := businessHours(store.Of(sys).Rows(db.Model(&models.TicketBusinessHours{})))
	out.Hours = h
	return out, err
}

// RecordTicketSLA writes a ticket's SLA state on its row and sends its alerts: each target is
// warned about and breached once (ticket.sla_warning, ticket.sla_breached, operators only), so
// that a retried record sends nothing twice.
func (s *Store) RecordTicketSLA(ctx context.Context, sys models.Scope, ticketID string, state models.TicketSLA, alerts []models.SLAAlert) error {
	return s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var t models.Ticket
		if err := store.LockRow(s.core, tx, &t, store.Of(sys), ticketID); errors.Is(err, gorm.ErrRecordNotFound) || models.ErrorKind(err) == models.KindNotFound {
			return nil
		} else if err != nil {
			return err
		}
		t.FirstResponseDueAt, t.ResolutionDueAt, t.SLAPausedAt = utc(state.FirstResponseDueAt), utc(state.ResolutionDueAt), utc(state.SLAPausedAt)
		var emit []models.SLAAlert
		for _, a := range alerts {
			if slaTargetMet(&t, a) {
				continue // the ticket met the target before the clock heard of it: no alert
			}
			at := a.At.UTC()
			var stamp **time.Time
			switch {
			case a.Target == models.SLAFirstResponse && a.Kind == models.SLAWarning:
				stamp = &t.FirstResponseWarnedAt
			case a.Target == models.SLAFirstResponse:
				stamp = &t.FirstResponseBreachedAt
			case a.Kind == models.SLAWarning:
				stamp = &t.ResolutionWarnedAt
			default:
				stamp = &t.ResolutionBreachedAt
			}
			if *stamp == nil {
				*stamp = &at
				emit = append(emit, a)
			}
		}
		if err := tx.Model(&t).Select("first_response_due_at", "resolution_due_at", "sla_paused_at", "first_response_warned_at",
			"first_response_breached_at", "resolution_warned_at", "resolution_breached_at").Updates(&t).Error; err != nil {
			return err
		}
		for _, a := range emit {
			typ := models.EventTicketSLAWarning
			if a.Kind == models.SLABreached {
				typ = models.EventTicketSLABreached
			}
			id := t.ID
			p := models.TicketSLAEventPayload{TicketID: t.ID, PartnerID: t.PartnerID, Subject: t.Subject, Priority: t.Priority, Status: t.Status,
				Target: a.Target, DueAt: a.DueAt.UTC()}
			if _, err := ev.Emit(ctx, tx, t.TenantID, models.NewEvent{Type: typ, SubjectID: &id, Payload: store.MustJSON(p), OccurredAt: a.At.UTC()}); err != nil {
				return err
			}
		}
		return nil
	})
}

// slaTargetMet reports whether the ticket's row shows a's target met by its due time: the
// desk's first public reply for first response, a resolved or closed ticket for resolution.
func slaTargetMet(t *models.Ticket, a models.SLAAlert) bool {
	by := func(at *time.Time) bool { return at != nil && !at.After(a.DueAt) }
	if a.Target == models.SLAFirstResponse {
		return by(t.FirstResponseAt)
	}
	switch t.Status {
	case models.TicketResolved:
		return by(t.ResolvedAt)
	case models.TicketClosed:
		return by(t.ResolvedAt) || by(t.ClosedAt)
	}
	return false
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
