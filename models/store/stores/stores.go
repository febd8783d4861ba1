// Package stores builds the core store and every module store on one database, wired to each
// other: the one place that assembles persistence, for serve, worker, the benchmark server and
// tests.
package stores

import (
	"context"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/agreements"
	"github.com/partnerd/partnerd/models/store/branding"
	"github.com/partnerd/partnerd/models/store/certifications"
	"github.com/partnerd/partnerd/models/store/content"
	"github.com/partnerd/partnerd/models/store/customers"
	"github.com/partnerd/partnerd/models/store/deals"
	"github.com/partnerd/partnerd/models/store/desk"
	"github.com/partnerd/partnerd/models/store/domains"
	"github.com/partnerd/partnerd/models/store/health"
	"github.com/partnerd/partnerd/models/store/idempotency"
	"github.com/partnerd/partnerd/models/store/identity"
	"github.com/partnerd/partnerd/models/store/ingest"
	"github.com/partnerd/partnerd/models/store/mail"
	"github.com/partnerd/partnerd/models/store/metrics"
	"github.com/partnerd/partnerd/models/store/money"
	"github.com/partnerd/partnerd/models/store/onboarding"
	"github.com/partnerd/partnerd/models/store/partners"
	"github.com/partnerd/partnerd/models/store/playbooks"
	"github.com/partnerd/partnerd/models/store/surveys"
	"github.com/partnerd/partnerd/models/store/webhooks"
)

// The module stores under the names they are embedded with.
type (
	// Agreements keeps legal agreements, their versions and acceptances.
	Agreements = agreements.Store
	// ScopedAgreements is the agreements as one principal sees them.
	ScopedAgreements = agreements.Scoped
	// Certifications keeps courses, enrolments, quiz attempts and certificates.
	Certifications = certifications.Store
	// ScopedCertifications is certifications as one principal sees them.
	ScopedCertifications = certifications.Scoped
	// Branding keeps portal brands and partners' co-brand logos.
	Branding = branding.Store
	// ScopedBranding is the brands as one principal sees them.
	ScopedBranding = branding.Scoped
	// Domains keeps custom domains and their verification.
	Domains = domains.Store
	// ScopedDomains is the custom domains as one principal sees them.
	ScopedDomains = domains.Scoped
	// Content keeps the content library.
	Content = content.Store
	// ScopedContent is the content library as one principal sees it.
	ScopedContent = content.Scoped
	// Customers keeps customers and the event log, and takes in ingested events.
	Customers = customers.Store
	// ScopedCustomers is the customer and event store as one principal sees it.
	ScopedCustomers = customers.Scoped
	// Deals keeps pipelines and deals.
	Deals = deals.Store
	// ScopedDeals is the deal store as one principal sees it.
	ScopedDeals = deals.Scoped
	// Desk keeps the service desk: ticket categories, tickets and their threads.
	Desk = desk.Store
	// ScopedDesk is the desk as one principal sees it.
	ScopedDesk = desk.Scoped
	// Health keeps health models, scoring runs and partners' health scores.
	Health = health.Store
	// ScopedHealth is partner health as one principal sees it.
	ScopedHealth = health.Scoped
	// Identity keeps users, roles, machine keys, tokens and the audit log.
	Identity = identity.Store
	// ScopedIdentity is the identity store as one principal sees it.
	ScopedIdentity = identity.Scoped
	// Idempotency keeps the idempotency keys of writes.
	Idempotency = idempotency.Store
	// Mail keeps the record of every message sent.
	Mail = mail.Store
	// ScopedMail is the mail record as one principal sees it.
	ScopedMail = mail.Scoped
	// Metrics keeps metrics and dashboards and computes metrics.
	Metrics = metrics.Store
	// ScopedMetrics is the metric store as one principal sees it.
	ScopedMetrics = metrics.Scoped
	// Money keeps commission plans, the ledger, withdrawals and payouts.
	Money = money.Store
	// ScopedMoney is the money store as one principal sees it.
	ScopedMoney = money.Scoped
	// Onboarding keeps partner applications and tasks.
	Onboarding = onboarding.Store
	// ScopedOnboarding is the application and task store as one principal sees it.
	ScopedOnboarding = onboarding.Scoped
	// Partners keeps partner organisations and levels.
	Partners = partners.Store
	// ScopedPartners is the partner store as one principal sees it.
	ScopedPartners = partners.Scoped
	// Playbooks keeps playbooks, their versions, runs and effects.
	Playbooks = playbooks.Store
	// ScopedPlaybooks is the playbook store as one principal sees it.
	ScopedPlaybooks = playbooks.Scoped
	// Surveys keeps CSAT and NPS survey invitations and their answers.
	Surveys = surveys.Store
	// ScopedSurveys is the surveys as one principal sees them.
	ScopedSurveys = surveys.Scoped
	// Webhooks keeps webhook endpoints, deliveries and attempts.
	Webhooks = webhooks.Store
	// ScopedWebhooks is the webhook store as one principal sees it.
	ScopedWebhooks = webhooks.Scoped
)

// Set is the core store with the module stores built on it; it answers every store method.
type Set struct {
	*store.Store
	*Agreements
	*Certifications
	*Branding
	*Content
	*Customers
	*Deals
	*Desk
	*Domains
	*Health
	*Identity
	*Idempotency
	*Mail
	*Metrics
	*Money
	*Onboarding
	*Partners
	*Playbooks
	*Surveys
	*Webhooks
	// IngestEngine writes the events integrations send.
	IngestEngine *ingest.Engine
}

// Open connects to the configured database and builds every module store on it.
func Open(ctx context.Context, cfg store.Config) (*Set, error) {
	core, err := store.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return New(core), nil
}

// New builds every module store on core and registers their subscribers with its event outbox.
func New(core *store.Store) *Set {
	engine := ingest.New(core)
	deal, partner, customer := deals.New(core), partners.New(core), customers.New(core, engine)
	pay := money.New(core, partner)
	survey := surveys.New(core)
	library := content.New(core)
	metric := metrics.New(core)
	core.AddTenantSetup(deals.SetUpTenant)
	set := &Set{
		Store:          core,
		IngestEngine:   engine,
		Agreements:     agreements.New(core),
		Certifications: certifications.New(core, library),
		Content:        library,
		Customers:      customer,
		Deals:          deal,
		Desk:           desk.New(core, survey),
		Identity:       identity.New(core),
		Idempotency:    idempotency.New(core),
		Mail:           mail.New(core),
		Metrics:        metric,
		Money:          pay,
		Onboarding:     onboarding.New(core, deal, customer, partner),
		Partners:       partner,
		Playbooks:      playbooks.New(core, partner, pay, survey),
		Surveys:        survey,
		Webhooks:       webhooks.New(core),
		Branding:       branding.New(core),
		Domains:        domains.New(core),
		Health:         health.New(core, metric),
	}
	core.AddListeners(set.Webhooks, set.Money, set.Playbooks, set.Deals, set.Desk, set.Agreements, set.Surveys, set.Certifications)
	return set
}

// Core is the core store.
func (s *Set) Core() *store.Store { return s.Store }

// Scoped is every store as one principal sees it.
type Scoped struct {
	*store.Scoped
	*ScopedAgreements
	*ScopedCertifications
	*ScopedBranding
	*ScopedContent
	*ScopedCustomers
	*ScopedDeals
	*ScopedDesk
	*ScopedDomains
	*ScopedHealth
	*ScopedIdentity
	*ScopedMail
	*ScopedMetrics
	*ScopedMoney
	*ScopedOnboarding
	*ScopedPartners
	*ScopedPlaybooks
	*ScopedSurveys
	*ScopedWebhooks
}

// For returns every store scoped to p.
func (s *Set) For(p *models.Principal) *Scoped {
	return &Scoped{
		Scoped:               s.Store.For(p),
		ScopedAgreements:     s.Agreements.For(p),
		ScopedCertifications: s.Certifications.For(p),
		ScopedContent:        s.Content.For(p),
		ScopedCustomers:      s.Customers.For(p),
		ScopedDeals:          s.Deals.For(p),
		ScopedDesk:           s.Desk.For(p),
		ScopedIdentity:       s.Identity.For(p),
		ScopedMail:           s.Mail.For(p),
		ScopedMetrics:        s.Metrics.For(p),
		ScopedMoney:          s.Money.For(p),
		ScopedOnboarding:     s.Onboarding.For(p),
		ScopedPartners:       s.Partners.For(p),
		ScopedPlaybooks:      s.Playbooks.For(p),
		ScopedSurveys:        s.Surveys.For(p),
		ScopedWebhooks:       s.Webhooks.For(p),
		ScopedBranding:       s.Branding.For(p),
		ScopedDomains:        s.Domains.For(p),
		ScopedHealth:         s.Health.For(p),
	}
}
