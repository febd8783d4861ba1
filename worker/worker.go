// Package worker is the single list of workflows and activities partnerd runs, and the
// construction of the worker that polls for them.
package worker

import (
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/workflows"
)

// Deps are the activity structs with their dependencies filled in.
type Deps struct {
	System   *activities.System
	Events   *activities.Events
	Webhooks *activities.Webhooks
	Deals    *activities.Deals
	Levels   *activities.Levels
	// Certifications expires certificates.
	Certifications *activities.Certifications
	Mail           *activities.Mail
	Money          *activities.Money
	Playbooks      *activities.Playbooks
	Desk           *activities.Desk
	Domains        *activities.Domains
	Health         *activities.Health
	// MDF expires market development funds.
	MDF *activities.MDF
}

// Register adds every workflow and activity to r. Tests use it with the Temporal test
// environment, so that they run exactly what production runs.
func Register(r sdkworker.Registry, deps Deps) {
	r.RegisterWorkflow(workflows.Probe)
	r.RegisterWorkflow(workflows.EventFanout)
	r.RegisterWorkflow(workflows.OutboxRelay)
	r.RegisterWorkflow(workflows.WebhookDelivery)
	r.RegisterWorkflow(workflows.DealProtection)
	r.RegisterWorkflow(workflows.LevelReview)
	r.RegisterWorkflow(workflows.CommissionHold)
	r.RegisterWorkflow(workflows.Payout)
	r.RegisterWorkflow(workflows.PayoutBatch)
	r.RegisterWorkflow(workflows.PayoutBatchSchedule)
	r.RegisterWorkflow(workflows.PlaybookRun)
	r.RegisterWorkflow(workflows.TicketSLA)
	r.RegisterWorkflow(workflows.CertificateExpiry)
	r.RegisterWorkflow(workflows.MDFFundExpiry)
	r.RegisterWorkflow(workflows.DomainVerification)
	r.RegisterWorkflow(workflows.HealthRun)
	r.RegisterWorkflow(workflows.HealthSchedule)
	r.RegisterActivity(deps.System)
	if deps.Events != nil {
		r.RegisterActivity(deps.Events)
	}
	if deps.Domains != nil {
		r.RegisterActivity(deps.Domains)
	}
	if deps.Webhooks != nil {
		r.RegisterActivity(deps.Webhooks)
	}
	if deps.Deals != nil {
		r.RegisterActivity(deps.Deals)
	}
	if deps.Certifications != nil {
		r.RegisterActivity(deps.Certifications)
	}
	if deps.Levels != nil {
		r.RegisterActivity(deps.Levels)
	}
	if deps.Mail != nil {
		r.RegisterActivity(deps.Mail)
	}
	if deps.Money != nil {
		r.RegisterActivity(deps.Money)
	}
	if deps.Playbooks != nil {
		r.RegisterActivity(deps.Playbooks)
	}
	if deps.Desk != nil {
		r.RegisterActivity(deps.Desk)
	}
	if deps.Health != nil {
		r.RegisterActivity(deps.Health)
	}
	if deps.MDF != nil {
		r.RegisterActivity(deps.MDF)
	}
}

// New builds a worker on the partnerd task queue; Start or Run it.
func New(c client.Client, deps Deps) sdkworker.Worker {
	w := sdkworker.New(c, workflows.TaskQueue, sdkworker.Options{})
	Register(w, deps)
	return w
}
