package activities

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// EventStore is what the event activities need of storage.
type EventStore interface {
	EventByID(ctx context.Context, tenantID, id string) (*models.Event, error)
	WebhooksFor(ctx context.Context, tenantID, eventType string) ([]string, error)
	HasCommissionRoutes(ctx context.Context, tenantID, eventType string) (accrue, clawback bool, err error)
	PlaybooksFor(ctx context.Context, tenantID, eventType string) ([]models.PlaybookRef, error)
	RunsWaitingFor(ctx context.Context, tenantID, eventType string, partnerID *string) ([]string, error)
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

// EventRoutes are the subscribers of one event.
type EventRoutes struct {
	// Found is false when the event no longer exists (its tenant was removed).
	Found bool
	// Depth is the event's place in a causation chain.
	Depth int
	// Webhooks are the enabled webhook endpoints subscribed to the event's type.
	Webhooks []string
	// ProtectDeal is the deal whose protection timer the event starts (deal.approved).
	ProtectDeal string
	// Accrue and Clawback say whether commission plans accrue on the event or reverse
	// accruals because of it.
	Accrue   bool
	Clawback bool
	// PayWithdrawal is the withdrawal whose payout the event starts (withdrawal.approved).
	PayWithdrawal string
	// Playbooks says whether enabled playbooks trigger on the event (and its causation chain
	// is short enough); Waiting whether runs wait for it.
	Playbooks bool
	Waiting   bool
}

// Routes finds the subscribers of an event at the time of its fan-out.
func (a *Events) Routes(ctx context.Context, in RoutesInput) (EventRoutes, error) {
	e, err := a.Store.EventByID(ctx, in.TenantID, in.EventID)
	if models.ErrorKind(err) == models.KindNotFound {
		return EventRoutes{}, nil
	}
	if err != nil {
		return EventRoutes{}, err
	}
	hooks, err := a.Store.WebhooksFor(ctx, in.TenantID, e.Type)
	if err != nil {
		return EventRoutes{}, err
	}
	routes := EventRoutes{Found: true, Depth: e.Depth, Webhooks: hooks}
	if e.Type == models.EventDealApproved && e.SubjectID != nil {
		routes.ProtectDeal = *e.SubjectID
	}
	if e.Type == models.EventWithdrawalApproved && e.SubjectID != nil {
		routes.PayWithdrawal = *e.SubjectID
	}
	if e.PartnerID != nil {
		if routes.Accrue, routes.Clawback, err = a.Store.HasCommissionRoutes(ctx, in.TenantID, e.Type); err != nil {
			return EventRoutes{}, err
		}
	}
	if e.Depth < models.MaxPlaybookDepth {
		refs, err := a.Store.PlaybooksFor(ctx, in.TenantID, e.Type)
		if err != nil {
			return EventRoutes{}, err
		}
		routes.Playbooks = len(refs) > 0
	}
	waiting, err := a.Store.RunsWaitingFor(ctx, in.TenantID, e.Type, e.PartnerID)
	if err != nil {
		return EventRoutes{}, err
	}
	routes.Waiting = len(waiting) > 0
	return routes, nil
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
