package activities

import (
	"context"

	"github.com/partnerd/partnerd/models"
)

// DeskStore is what the service desk's activities need of storage.
type DeskStore interface {
	StartTicketSLA(ctx context.Context, sys models.Scope, ticketID, priority string) (models.TicketSLAStart, error)
	RecordTicketSLA(ctx context.Context, sys models.Scope, ticketID string, state models.TicketSLA, alerts []models.SLAAlert) error
}

// Desk holds the activities of the service desk's SLA clocks.
type Desk struct {
	Store DeskStore
}

// TicketSLARef names a ticket and, on a priority change, the priority whose policy applies.
type TicketSLARef struct {
	TenantID string
	TicketID string
	Priority string
}

// StartTicketSLA reads what a ticket's SLA clock starts from: the policy of its priority, the
// tenant's business hours and the ticket's state.
func (a *Desk) StartTicketSLA(ctx context.Context, in TicketSLARef) (models.TicketSLAStart, error) {
	return a.Store.StartTicketSLA(ctx, models.System(in.TenantID), in.TicketID, in.Priority)
}

// TicketSLARecord is a clock's state and the alerts it fires, for the ticket's row.
type TicketSLARecord struct {
	TenantID string
	TicketID string
	State    models.TicketSLA
	Alerts   []models.SLAAlert
}

// RecordTicketSLA writes the clock's state on the ticket and sends its warnings and breaches
// as ticket.sla_warning and ticket.sla_breached events.
func (a *Desk) RecordTicketSLA(ctx context.Context, in TicketSLARecord) error {
	return a.Store.RecordTicketSLA(ctx, models.System(in.TenantID), in.TicketID, in.State, in.Alerts)
}
