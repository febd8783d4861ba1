package activities

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// EventStore is what the event activities need of storage.
type EventStore interface {
	EventRoutes(ctx context.Context, sys models.Scope, eventID string) (models.EventRoutes, error)
	PendingOutbox(ctx context.Context, olderThan time.Time, limit int) ([]models.EventRef, error)
	MarkDispatched(ctx context.Context, eventIDs []string) error
}

// FanoutStarter starts the fan-out workflows of events and reports which ones run now
// (started, or found started before).
type FanoutStarter interface {
	StartFanouts(ctx context.Context, refs []models.EventRef) ([]string, error)
}

// Events holds the activities of the event bus.
type Events struct {
	Store   EventStore
	Starter FanoutStarter
}

// RoutesInput names the event whose subscribers are wanted.
type RoutesInput struct {
	TenantID string
	EventID  string
	Type     string
}

// Routes finds the subscribers of an event at the time of its fan-out.
func (a *Events) Routes(ctx context.Context, in RoutesInput) (models.EventRoutes, error) {
	return a.Store.EventRoutes(ctx, models.System(in.TenantID), in.EventID)
}

// RelayInput says which outbox rows a relay pass takes.
type RelayInput struct {
	// Age is how old a row must be: younger ones are still being dispatched after commit.
	Age   time.Duration
	Limit int
}

// RelayOutbox starts the fan-out of events left in the outbox (the process that wrote them
// stopped between commit and dispatch) and reports how many it handed over.
func (a *Events) RelayOutbox(ctx context.Context, in RelayInput) (int, error) {
	if in.Limit <= 0 {
		in.Limit = 500
	}
	refs, err := a.Store.PendingOutbox(ctx, time.Now().Add(-in.Age), in.Limit)
	if err != nil || len(refs) == 0 {
		return 0, err
	}
	started, err := a.Starter.StartFanouts(ctx, refs)
	if markErr := a.Store.MarkDispatched(ctx, started); markErr != nil && err == nil {
		err = markErr
	}
	return len(started), err
}
