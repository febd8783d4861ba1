package store

import (
	"context"
	"sync"
	"time"

	"github.com/partnerd/partnerd/models"
)

// The event router: one table of listeners answers both whether anything listens to an event
// (the outbox check, when the event is written) and what listens to it (the fan-out's routes).

// subscriptionTTL bounds how long this process may miss a subscription another process added.
const subscriptionTTL = 2 * time.Second

// subscriptions caches, per tenant, the event-type patterns something subscribes to (webhooks,
// playbooks, commission plans), so that writing an event nobody listens to costs
// no outbox row and no workflow.
type subscriptions struct {
	mu       sync.Mutex
	byTenant map[string]subscriptionSet
}

type subscriptionSet struct {
	patterns []string
	loaded   time.Time
}

// InvalidateSubscriptions drops the cached subscriptions of a tenant after a change.
func (s *Store) InvalidateSubscriptions(tenantID string) {
	s.subs.mu.Lock()
	delete(s.subs.byTenant, tenantID)
	s.subs.mu.Unlock()
}

// Subscribed reports whether anything subscribes to eventType in the tenant.
func (s *Store) Subscribed(ctx context.Context, sys models.Scope, eventType string) (bool, error) {
	s.subs.mu.Lock()
	set, ok := s.subs.byTenant[sys.TenantID()]
	s.subs.mu.Unlock()
	if !ok || time.Since(set.loaded) > subscriptionTTL {
		patterns, err := s.subscriptionPatterns(ctx, sys.TenantID())
		if err != nil {
			return false, err
		}
		set = subscriptionSet{patterns: patterns, loaded: time.Now()}
		s.subs.mu.Lock()
		if s.subs.byTenant == nil {
			s.subs.byTenant = map[string]subscriptionSet{}
		}
		s.subs.byTenant[sys.TenantID()] = set
		s.subs.mu.Unlock()
	}
	return models.MatchAnyEventType(set.patterns, eventType), nil
}

// Listener is one kind of subscriber to events: webhook endpoints, commission plans, playbooks,
// or the service's own reactions (an approved deal starts its protection window, an approved
// withdrawal its payout). The router asks every listener both questions of the event bus.
type Listener interface {
	// EventPatterns lists the event-type patterns it listens to in a tenant: whether an event
	// is worth an outbox row and a fan-out at all.
	EventPatterns(ctx context.Context, sys models.Scope) ([]string, error)
	// RouteEvent records in r what it does with e when e fans out.
	RouteEvent(ctx context.Context, e *models.Event, r *models.EventRoutes) error
}

// AddListeners registers kinds of subscribers with the router. Call it before serving.
func (s *Store) AddListeners(ls ...Listener) { s.listeners = append(s.listeners, ls...) }

// subscriptionPatterns lists the patterns every kind of subscriber of a tenant listens to.
func (s *Store) subscriptionPatterns(ctx context.Context, tenantID string) ([]string, error) {
	var patterns []string
	for _, l := range s.listeners {
		more, err := l.EventPatterns(ctx, models.System(tenantID))
		if err != nil {
			return nil, err
		}
		patterns = append(patterns, more...)
	}
	return patterns, nil
}

// EventRoutes is what listens to the event eventID of a tenant, asked when it fans out; Found
// is false when the event no longer exists.
func (s *Store) EventRoutes(ctx context.Context, sys models.Scope, eventID string) (models.EventRoutes, error) {
	e, err := s.EventByID(ctx, sys, eventID)
	if models.ErrorKind(err) == models.KindNotFound {
		return models.EventRoutes{}, nil
	}
	if err != nil {
		return models.EventRoutes{}, err
	}
	r := models.EventRoutes{Found: true, Depth: e.Depth}
	for _, l := range s.listeners {
		if err := l.RouteEvent(ctx, e, &r); err != nil {
			return models.EventRoutes{}, err
		}
	}
	return r, nil
}
