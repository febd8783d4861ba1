package authz

import (
	"slices"

	"github.com/partnerd/partnerd/models"
)

// Audience says which principals a role can be given to.
type Audience string

// The audiences of roles.
const (
	ForOperators Audience = "operator"
	ForPartners  Audience = "partner"
)

// Role is a named set of permissions, built in or defined by a tenant.
type Role struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Audience    Audience     `json:"audience"`
	Permissions []Permission `json:"permissions"`
	BuiltIn     bool         `json:"builtIn"`
}

// Names of the built-in roles.
const (
	RoleOwner          = models.RoleOwner
	RoleAdmin          = "admin"
	RolePartnerManager = "partner_manager"
	RoleFinance        = "finance"
	RoleSupport        = "support"
	RoleAnalyst        = "analyst"
	RolePartnerAdmin   = "partner_admin"
	RolePartnerUser    = "partner_user"
)

func except(all []Permission, drop ...Permission) []Permission {
	return slices.DeleteFunc(slices.Clone(all), func(p Permission) bool { return slices.Contains(drop, p) })
}

func readOnly(all []Permission) []Permission {
	return slices.DeleteFunc(slices.Clone(all), func(p Permission) bool { return p.Action() != "read" })
}

// builtinRoles are the roles every tenant has. Their permission sets are documented here and
// served by GET /api/roles.
func builtinRoles() []Role {
	all := All()
	return []Role{
		{Name: RoleOwner, Audience: ForOperators, BuiltIn: true, Permissions: all,
			Description: "Everything, including the tenant's own settings."},
		{Name: RoleAdmin, Audience: ForOperators, BuiltIn: true, Permissions: except(all, TenantWrite),
			Description: "Everything but the tenant's settings."},
		{Name: RolePartnerManager, Audience: ForOperators, BuiltIn: true, Permissions: []Permission{
			ProfileRead, ProfileWrite, TenantRead, UsersRead, RolesRead,
			PartnersRead, PartnersWrite, PartnerUsersRead, PartnerUsersWrite,
			CustomersRead, CustomersWrite, EventsRead, MetricsRead, DashboardsRead,
			PipelinesRead, PipelinesWrite, DealsRead, DealsWrite, DealsApprove, TasksRead, TasksWrite,
			ApplicationsRead, ApplicationsWrite, CommissionsRead, LedgerRead, WithdrawalsRead,
			PlaybooksRead, PlaybooksWrite, ContentRead, ContentWrite, AgreementsRead, AgreementsManage, AgreementsAccept,
			TicketsRead, TicketsWrite, TicketsManage, SurveysRead, SurveysSend, CertificationsRead, CertificationsManage, CertificationsLearn, HealthRead, HealthManage,
			MDFRead, MDFWrite, MDFManage,
		}, Description: "Runs the partner network: partner organisations, their people, customers and deals."},
		{Name: RoleFinance, Audience: ForOperators, BuiltIn: true, Permissions: []Permission{
			ProfileRead, ProfileWrite, TenantRead, PartnersRead, AuditRead,
			CustomersRead, EventsRead, MetricsRead, DashboardsRead, PipelinesRead, DealsRead,
			CommissionsRead, CommissionsWrite, LedgerRead, LedgerWrite, WithdrawalsRead, WithdrawalsApprove, AgreementsRead,
			TaxRead, TaxWrite, TaxReview, MDFRead,
		}, Description: "Commissions, balances and payouts; reads partners, deals and the audit log."},
		{Name: RoleSupport, Audience: ForOperators, BuiltIn: true, Permissions: []Permission{
			ProfileRead, ProfileWrite, TenantRead, UsersRead, PartnersRead, PartnerUsersRead,
			CustomersRead, EventsRead, WebhooksRead, PipelinesRead, DealsRead, TasksRead, TasksWrite, ContentRead, AgreementsRead,
			TicketsRead, TicketsWrite, TicketsManage, SurveysRead, SurveysSend, CertificationsRead, HealthRead,
		}, Description: "Helps partners: reads partners, their people, customers and deals, events and webhook deliveries."},
		{Name: RoleAnalyst, Audience: ForOperators, BuiltIn: true, Permissions: append(readOnly(except(all, AuditRead, APIKeysRead, MailRead, TaxRead)), ProfileWrite),
			Description: "Read-only access to the program's data."},
		{Name: RolePartnerAdmin, Audience: ForPartners, BuiltIn: true, Permissions: []Permission{
			ProfileRead, ProfileWrite, PartnersRead, PartnerUsersRead, PartnerUsersWrite,
			CustomersRead, CustomersWrite, EventsRead, MetricsRead, DashboardsRead,
			PipelinesRead, DealsRead, DealsWrite, TasksRead, TasksWrite,
			LedgerRead, WithdrawalsRead, WithdrawalsWrite, ContentRead, AgreementsRead, AgreementsAccept,
			TicketsRead, TicketsWrite, SurveysRead, TaxRead, TaxWrite, CertificationsRead, CertificationsLearn, MDFRead, MDFWrite,
		}, Description: "Manages its own partner organisation, its people, customers and deals."},
		{Name: RolePartnerUser, Audience: ForPartners, BuiltIn: true, Permissions: []Permission{
			ProfileRead, ProfileWrite, PartnersRead, PartnerUsersRead,
			CustomersRead, CustomersWrite, EventsRead, MetricsRead, DashboardsRead,
			PipelinesRead, DealsRead, DealsWrite, TasksRead, TasksWrite, LedgerRead, WithdrawalsRead, ContentRead, AgreementsRead, AgreementsAccept,
			TicketsRead, TicketsWrite, CertificationsRead, CertificationsLearn, MDFRead,
		}, Description: "A member of a partner organisation."},
	}
}

// BuiltinRoles returns the built-in roles.
func BuiltinRoles() []Role { return builtinRoles() }

// BuiltinRole returns the built-in role called name.
func BuiltinRole(name string) (Role, bool) {
	for _, r := range builtinRoles() {
		if r.Name == name {
			return r, true
		}
	}
	return Role{}, false
}
