package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
)

// Dispatcher hands committed events that have subscribers to their fan-out. It runs after the
// commit of the transaction that wrote them; what it fails to hand over stays in the outbox for
// the relay.
type Dispatcher func(ctx context.Context, refs []models.EventRef)

// SetDispatcher installs the dispatcher called after every commit that wrote events with
// subscribers. Call it before serving.
func (s *Store) SetDispatcher(d Dispatcher) { s.dispatch = d }

// Outbox collects the events one transaction writes, to dispatch them after commit.
type Outbox struct {
	s    *Store
	refs []models.EventRef
}

// Transact runs fn in a transaction. Events written through the Outbox land in the same
// transaction and are dispatched after it commits.
func (s *Store) Transact(ctx context.Context, fn func(tx *gorm.DB, ev *Outbox) error) error {
	ev := &Outbox{s: s}
	if err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return fn(tx, ev) }); err != nil {
		return err
	}
	ev.Dispatch(ctx)
	return nil
}

// NewOutbox is an outbox for a writer that commits its events outside Transact; it calls
// Dispatch after its commit.
func (s *Store) NewOutbox() *Outbox { return &Outbox{s: s} }

// Dispatch hands the events recorded so far to the dispatcher; call it after they committed.
func (ev *Outbox) Dispatch(ctx context.Context) {
	if len(ev.refs) > 0 && ev.s.dispatch != nil {
		ev.s.dispatch(context.WithoutCancel(ctx), ev.refs)
	}
	ev.refs = nil
}

// EventOf builds an event of tenantID from source, caused by the caller in ctx.
func EventOf(ctx context.Context, tenantID, source string, ne models.NewEvent, now time.Time) *models.Event {
	e := &models.Event{
		ID: models.NewID(), TenantID: tenantID, Type: ne.Type, Source: source,
		CustomerID: ne.CustomerID, PartnerID: ne.PartnerID, Payload: ne.Payload,
		OccurredAt: ne.OccurredAt, ReceivedAt: now, ActorKind: "system",
		CausationID: ne.CausationID, Depth: ne.Depth, SubjectID: ne.SubjectID,
	}
	if e.Payload == "" {
		e.Payload = "{}"
	}
	if e.OccurredAt.IsZero() {
		e.OccurredAt = now
	}
	if p := models.PrincipalFrom(ctx); p != nil {
		e.ActorKind, e.ActorID = string(p.Kind), p.ActorID()
	}
	if c, ok := models.CausationFrom(ctx); ok && e.CausationID == nil {
		id := c.EventID
		e.CausationID, e.Depth = &id, c.Depth+1
	}
	return e
}

// Emit writes one internal event of tenantID in tx.
func (ev *Outbox) Emit(ctx context.Context, tx *gorm.DB, tenantID string, ne models.NewEvent) (*models.Event, error) {
	e := EventOf(ctx, tenantID, models.EventSourceInternal, ne, time.Now().UTC())
	if err := tx.Create(e).Error; err != nil {
		return nil, err
	}
	return e, ev.Add(ctx, tx, e)
}

// Add records events for dispatch, in tx, when something subscribes to their types.
func (ev *Outbox) Add(ctx context.Context, tx *gorm.DB, events ...*models.Event) error {
	rows, err := ev.Rows(ctx, events)
	if err != nil || len(rows) == 0 {
		return err
	}
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&rows).Error
}

// Rows are the outbox rows of those of events something subscribes to, which are dispatched
// after the commit; for writers that store the rows themselves.
func (ev *Outbox) Rows(ctx context.Context, events []*models.Event) ([]models.OutboxEntry, error) {
	var rows []models.OutboxEntry
	for _, e := range events {
		sub, err := ev.s.Subscribed(ctx, models.System(e.TenantID), e.Type)
		if err != nil {
			return nil, err
		}
		if sub {
			rows = append(rows, models.OutboxEntry{EventID: e.ID, TenantID: e.TenantID, Type: e.Type, CreatedAt: e.ReceivedAt})
			ev.refs = append(ev.refs, models.EventRef{TenantID: e.TenantID, EventID: e.ID, Type: e.Type})
		}
	}
	return rows, nil
}

// EmitEvent writes one internal event outside of any other change, for activities that report
// what they did (an endpoint disabled, a run finished).
func (s *Store) EmitEvent(ctx context.Context, sys models.Scope, ne models.NewEvent) (*models.Event, error) {
	var e *models.Event
	err := s.Transact(ctx, func(tx *gorm.DB, ev *Outbox) error {
		var err error
		e, err = ev.Emit(ctx, tx, sys.TenantID(), ne)
		return err
	})
	return e, err
}

// PendingOutbox lists events still waiting for their fan-out that were written before
// olderThan, oldest first.
func (s *Store) PendingOutbox(ctx context.Context, olderThan time.Time, limit int) ([]models.EventRef, error) {
	var rows []models.OutboxEntry
	err := s.db.WithContext(ctx).Where("created_at < ?", olderThan).Order("created_at").Limit(limit).Find(&rows).Error
	refs := make([]models.EventRef, len(rows))
	for i, r := range rows {
		refs[i] = models.EventRef{TenantID: r.TenantID, EventID: r.EventID, Type: r.Type}
	}
	return refs, err
}

// OldestOutbox reports when the oldest event still waiting for its fan-out was written, and
// false when none waits: the outbox lag of the operators' metrics.
func (s *Store) OldestOutbox(ctx context.Context) (time.Time, bool, error) {
	var rows []models.OutboxEntry
	if err := s.db.WithContext(ctx).Order("created_at").Limit(1).Find(&rows).Error; err != nil || len(rows) == 0 {
		return time.Time{}, false, err
	}
	return rows[0].CreatedAt, true, nil
}

// MarkDispatched removes events whose fan-out has started from the outbox.
func (s *Store) MarkDispatched(ctx context.Context, eventIDs []string) error {
	if len(eventIDs) == 0 {
		return nil
	}
	return s.db.WithContext(ctx).Where("event_id IN ?", eventIDs).Delete(&models.OutboxEntry{}).Error
}

// EventByID finds an event of a tenant, for workflows.
func (s *Store) EventByID(ctx context.Context, sys models.Scope, id string) (*models.Event, error) {
	var e models.Event
	err := s.db.WithContext(ctx).Where(Of(sys).Tenant()).Where("id = ?", id).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("EVENT_NOT_FOUND", "event")
	}
	return &e, err
}
