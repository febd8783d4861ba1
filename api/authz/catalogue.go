// Package authz holds the permission catalogue and the built-in roles, and decides with Casbin
// (RBAC with domains, one domain per tenant) whether a principal holds a permission.
package authz

import (
	"slices"
	"strings"
)

// Permission is a `resource:action` pair that guards an operation and a button in the UI.
type Permission string

// Resource is the part before the colon.
func (p Permission) Resource() string { r, _, _ := strings.Cut(string(p), ":"); return r }

// Action is the part after the colon.
func (p Permission) Action() string { _, a, _ := strings.Cut(string(p), ":"); return a }

// Entry describes one permission of the catalogue.
type Entry struct {
	Permission  Permission `json:"permission"`
	Description string     `json:"description"`
}

// The permissions of the catalogue. Every module adds its own here.
const (
	ProfileRead      Permission = "profile:read"
	ProfileWrite     Permission = "profile:write"
	TenantRead       Permission = "tenant:read"
	TenantWrite      Permission = "tenant:write"
	UsersRead        Permission = "users:read"
	UsersWrite       Permission = "users:write"
	RolesRead        Permission = "roles:read"
	RolesWrite       Permission = "roles:write"
	PartnersRead     Permission = "partners:read"
	PartnersWrite    Permission = "partners:write"
	PartnerUsersRead Permission = "partner_users:read"
	// PartnerUsersWrite lets a caller invite, change and deactivate partner users.
	PartnerUsersWrite Permission = "partner_users:write"
	APIKeysRead       Permission = "apikeys:read"
	APIKeysWrite      Permission = "apikeys:write"
	AuditRead         Permission = "audit:read"
	CustomersRead     Permission = "customers:read"
	CustomersWrite    Permission = "customers:write"
	EventsRead        Permission = "events:read"
	// EventsWrite lets a machine key ingest customer events.
	EventsWrite     Permission = "events:write"
	MetricsRead     Permission = "metrics:read"
	MetricsWrite    Permission = "metrics:write"
	DashboardsRead  Permission = "dashboards:read"
	DashboardsWrite Permission = "dashboards:write"
	WebhooksRead    Permission = "webhooks:read"
	WebhooksWrite   Permission = "webhooks:write"
	PipelinesRead   Permission = "pipelines:read"
	PipelinesWrite  Permission = "pipelines:write"
	DealsRead       Permission = "deals:read"
	DealsWrite      Permission = "deals:write"
	// DealsApprove decides on registrations: approve, reject, resolve conflicts, assign
	// owners, extend protection.
	DealsApprove Permission = "deals:approve"
	TasksRead    Permission = "tasks:read"
	TasksWrite   Permission = "tasks:write"
	// ApplicationsRead and ApplicationsWrite cover recruitment: the form and the review of
	// applications.
	ApplicationsRead  Permission = "applications:read"
	ApplicationsWrite Permission = "applications:write"
	// CommissionsRead and CommissionsWrite cover commission plans, their versions, previews
	// and accruals.
	CommissionsRead  Permission = "commissions:read"
	CommissionsWrite Permission = "commissions:write"
	// LedgerRead shows balances, ledger entries and statements (partners: their own);
	// LedgerWrite books manual adjustments.
	LedgerRead  Permission = "ledger:read"
	LedgerWrite Permission = "ledger:write"
	// WithdrawalsRead and WithdrawalsWrite cover payout methods and withdrawal requests
	// (partners: their own); WithdrawalsApprove decides on them and confirms manual payouts.
	WithdrawalsRead    Permission = "withdrawals:read"
	WithdrawalsWrite   Permission = "withdrawals:write"
	WithdrawalsApprove Permission = "withdrawals:approve"
	// MailRead reads the outbox of messages the service sent or would send.
	MailRead Permission = "mail:read"
	// PlaybooksRead and PlaybooksWrite cover playbooks, their versions and runs.
	PlaybooksRead  Permission = "playbooks:read"
	PlaybooksWrite Permission = "playbooks:write"
	// ContentRead lists, searches and downloads the content library (partners: what is visible
	// to them); ContentWrite manages it.
	ContentRead  Permission = "content:read"
	ContentWrite Permission = "content:write"
	// AgreementsRead shows legal agreements, their versions and acceptances (partners: the
	// agreements required of them and their own acceptances); AgreementsManage writes,
	// publishes and requires versions and grants grace periods; AgreementsAccept accepts a
	// version (partners for themselves, operators recording an acceptance for a partner).
	AgreementsRead   Permission = "agreements:read"
	AgreementsManage Permission = "agreements:manage"
	AgreementsAccept Permission = "agreements:accept"
	// TicketsRead and TicketsWrite cover the service desk's tickets and their threads
	// (partners: their own, never internal notes); TicketsManage covers what only the desk
	// does: categories, assignment and triage, internal notes.
	TicketsRead   Permission = "tickets:read"
	TicketsWrite  Permission = "tickets:write"
	TicketsManage Permission = "tickets:manage"
	// SurveysRead shows survey invitations, their answers and the CSAT and NPS scores
	// (partners: their own organisation's); SurveysSend sends surveys to partners' users.
	SurveysRead Permission = "surveys:read"
	SurveysSend Permission = "surveys:send"
	// TaxRead shows tax records with their tax ids masked (partners: their own); TaxWrite
	// submits tax details and signed forms (partners: their own); TaxReview approves and
	// rejects them, sets the tenant's rule on withdrawals and exports yearly payout totals.
	TaxRead   Permission = "tax:read"
	TaxWrite  Permission = "tax:write"
	TaxReview Permission = "tax:review"
	// MDFRead shows market development funds, requests and claims (partners: their own and
	// their level's funds, their own requests and claims); MDFWrite submits requests and claims
	// with proof (partners: their own); MDFManage allocates funds and decides on requests
	// (operators). Claims are decided by finance with WithdrawalsApprove.
	MDFRead   Permission = "mdf:read"
	MDFWrite  Permission = "mdf:write"
	MDFManage Permission = "mdf:manage"
	// CertificationsRead shows courses (partners: the published ones visible to them, without
	// the quiz's answers), quiz attempts and certificates (partners: their own organisation's);
	// CertificationsManage writes, publishes and archives courses; CertificationsLearn enrols
	// in a course, completes its items and takes its quiz (a user for itself).
	CertificationsRead   Permission = "certifications:read"
	CertificationsManage Permission = "certifications:manage"
	CertificationsLearn  Permission = "certifications:learn"
	// BrandingRead shows the tenant's portal brand and partners' co-brands (operators);
	// BrandingWrite changes them and uploads logos and favicons.
	BrandingRead  Permission = "branding:read"
	BrandingWrite Permission = "branding:write"
	// DomainsRead shows the tenant's custom domains and their verification (operators);
	// DomainsWrite adds, verifies and removes them.
	DomainsRead  Permission = "domains:read"
	DomainsWrite Permission = "domains:write"
	// HealthRead shows partners' health scores, their history and explanation, the health model
	// and its runs; HealthManage changes the model and starts a scoring run. Operators only.
	HealthRead   Permission = "health:read"
	HealthManage Permission = "health:manage"
)

// catalogue lists every permission with what it allows, in display order.
var catalogue = []Entry{
	{ProfileRead, "See one's own profile, organisation and permissions."},
	{ProfileWrite, "Change one's own profile and password."},
	{TenantRead, "See the tenant's profile and settings."},
	{TenantWrite, "Change the tenant's profile and settings."},
	{UsersRead, "List and see operator users and invitations."},
	{UsersWrite, "Invite, change and deactivate operator users."},
	{RolesRead, "List roles and their permissions."},
	{RolesWrite, "Create, change and delete custom roles and assign roles."},
	{PartnersRead, "List and see partner organisations."},
	{PartnersWrite, "Create, change and deactivate partner organisations."},
	{PartnerUsersRead, "List and see partner users."},
	{PartnerUsersWrite, "Invite, change and deactivate partner users."},
	{APIKeysRead, "List and see machine keys (never their secrets)."},
	{APIKeysWrite, "Create and revoke machine keys."},
	{AuditRead, "Read the audit log."},
	{CustomersRead, "List and see customers (partners: their own)."},
	{CustomersWrite, "Create, change and delete customers (partners: their own; only operators change attribution)."},
	{EventsRead, "List and see events and the event type catalogue (partners: their own customers' events)."},
	{EventsWrite, "Ingest customer events (machine keys only)."},
	{MetricsRead, "List metrics and compute them (partners: over their own customers' events)."},
	{MetricsWrite, "Create, change and delete metrics."},
	{DashboardsRead, "See and render dashboards (partners: their level's, with their own data)."},
	{DashboardsWrite, "Create, change and delete dashboards and assign them to levels."},
	{WebhooksRead, "List webhook endpoints, their deliveries and attempts."},
	{WebhooksWrite, "Create, change, delete, rotate, test and replay webhook endpoints."},
	{PipelinesRead, "List and see deal pipelines and their stages."},
	{PipelinesWrite, "Create deal pipelines."},
	{DealsRead, "List and see deals and their timelines (partners: their own)."},
	{DealsWrite, "Register deals, change them, move them through the pipeline, add notes and ask for extensions (partners: their own)."},
	{DealsApprove, "Approve or reject registrations, review conflicts, assign owners and extend protection (operators)."},
	{TasksRead, "List and see tasks and onboarding progress (partners: their own)."},
	{TasksWrite, "Create, change, complete, reopen and delete tasks (partners: their own)."},
	{ApplicationsRead, "See the recruitment form and the applications to the program."},
	{ApplicationsWrite, "Change the recruitment form; approve and reject applications."},
	{CommissionsRead, "List commission plans, their versions and accruals; preview a plan."},
	{CommissionsWrite, "Create, change and archive commission plans."},
	{LedgerRead, "See balances, ledger entries and statements (partners: their own)."},
	{LedgerWrite, "Book manual ledger adjustments with a reason."},
	{WithdrawalsRead, "List withdrawals, payouts and payout methods (partners: their own)."},
	{WithdrawalsWrite, "Add payout methods, request and cancel withdrawals (partners: their own)."},
	{WithdrawalsApprove, "Approve or reject withdrawals and confirm manual payouts (finance)."},
	{MailRead, "Read the outbox of email messages the service sent."},
	{PlaybooksRead, "List playbooks, their versions and runs; validate and simulate."},
	{PlaybooksWrite, "Create, change, publish, enable, disable and archive playbooks; cancel runs."},
	{ContentRead, "Browse, search and download the content library (partners: the items visible to them)."},
	{ContentWrite, "Add, change and archive content items and folders, upload new versions and set who sees them."},
	{AgreementsRead, "See legal agreements, their published versions and the record of acceptances, export it and get acceptance certificates (partners: the agreements required of them and their own acceptances)."},
	{AgreementsManage, "Write and publish agreement versions, say which version partners must accept and from when, and grant grace periods (operators)."},
	{AgreementsAccept, "Accept an agreement version (partners for themselves; operators record an acceptance given outside the portal for a partner)."},
	{TicketsRead, "List and see service desk tickets, their threads and the ticket categories (partners: their own tickets, without internal notes)."},
	{TicketsWrite, "Open tickets, reply on them and resolve, reopen or close them (partners: their own)."},
	{SurveysRead, "See CSAT and NPS survey invitations, their answers and the scores per partner or level (partners: their own organisation's)."},
	{SurveysSend, "Send CSAT and NPS surveys by email to the users of partners or levels (operators)."},
	{TaxRead, "See tax records, their signed forms and their review, tax ids masked (partners: their own)."},
	{TaxWrite, "Submit tax details and upload the signed tax form (partners: their own)."},
	{TaxReview, "Approve or reject tax records, set whether withdrawals need an approved one and export yearly payout totals (finance)."},
	{MDFRead, "See market development funds with their ROI, fund requests and claims (partners: their own and their level's funds, their own requests and claims)."},
	{MDFWrite, "Request part of a market development fund, change a request sent back, claim what an activity cost and upload its proof (partners: their own)."},
	{MDFManage, "Allocate market development funds to partners or levels and approve (fully or a lesser amount), reject or send back fund requests (operators)."},
	{CertificationsRead, "See certification courses, quiz attempts and certificates (partners: the published courses visible to them, never the quiz's answers, and their own organisation's attempts and certificates)."},
	{CertificationsManage, "Write, publish and archive certification courses: their content items, quiz, pass mark, attempts limit, validity and who sees them (operators)."},
	{CertificationsLearn, "Enrol in a course, mark its items completed and take its quiz, for oneself; a partner user's pass earns a certificate (operators' attempts are graded only)."},
	{BrandingRead, "See the tenant's portal brand (name, colours, support email, CSS variables, logo, favicon) and partners' co-brand logos (operators)."},
	{BrandingWrite, "Change the tenant's portal brand, upload its logo and favicon and partners' co-brand logos (operators)."},
	{DomainsRead, "See the tenant's custom domains, the DNS TXT record each needs and its verification status (operators)."},
	{DomainsWrite, "Add custom domains for the tenant's portal or a partner's co-branded portal, start their verification again and remove them (operators)."},
	{HealthRead, "See partners' health scores and tiers, their history and how each was computed, the health model and its runs (operators)."},
	{HealthManage, "Change the health model (components, weights, thresholds, tiers, the daily hour) and score partners now (operators)."},
	{TicketsManage, "Triage tickets (priority, category, tags, assignee, every status), write internal notes and keep the ticket categories (operators)."},
}

// Catalogue returns a copy of every permission with its description.
func Catalogue() []Entry { return slices.Clone(catalogue) }

// Known reports whether p is in the catalogue.
func Known(p Permission) bool {
	return slices.ContainsFunc(catalogue, func(e Entry) bool { return e.Permission == p })
}

// All lists every permission of the catalogue.
func All() []Permission {
	out := make([]Permission, len(catalogue))
	for i, e := range catalogue {
		out[i] = e.Permission
	}
	return out
}
