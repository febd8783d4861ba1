package authz

import "slices"

// The partner policy, beside the permission catalogue: what partners may never do. Partner
// roles never hold the permissions of operatorPermissions; the operations of operatorsOnly
// refuse partner principals (partner users and partner-bound machine keys) whatever their roles
// hold. Every other operation lets a partner act within its own organisation: the store's scope
// limits its reads to its organisation's rows, hides the records only operators read (audit,
// mail, custom roles, webhooks) and refuses it another organisation's id.

// operatorPermissions are the permissions a partner role can never hold.
var operatorPermissions = []Permission{TenantWrite, UsersRead, UsersWrite, RolesRead, RolesWrite,
	PartnersWrite, APIKeysRead, APIKeysWrite, AuditRead,
	CommissionsWrite, LedgerWrite, WithdrawalsApprove, MailRead, PlaybooksRead, PlaybooksWrite, ContentWrite, TicketsManage, AgreementsManage, SurveysSend, TaxReview, CertificationsManage,
	BrandingRead, BrandingWrite, DomainsRead, DomainsWrite, HealthRead, HealthManage}

// operatorsOnly maps each operation only a tenant's operators may call to what it manages (in
// the plural), which the refusal names.
var operatorsOnly = map[string]string{
	"add-ticket-note":                "internal notes",
	"adjust-balance":                 "ledger adjustments",
	"approve-application":            "applications",
	"send-surveys":                   "surveys",
	"create-course":                  "certification courses",
	"update-course":                  "certification courses",
	"publish-course":                 "certification courses",
	"archive-course":                 "certification courses",
	"get-branding":                   "the portal brand",
	"list-domains":                   "custom domains",
	"add-domain":                     "custom domains",
	"get-domain":                     "custom domains",
	"verify-domain":                  "custom domains",
	"remove-domain":                  "custom domains",
	"get-cors-origins":               "allowed origins",
	"set-cors-origins":               "allowed origins",
	"update-branding":                "the portal brand",
	"upload-brand-image":             "the portal brand",
	"delete-brand-image":             "the portal brand",
	"get-partner-branding":           "the portal brand",
	"upload-partner-logo":            "the portal brand",
	"delete-partner-logo":            "the portal brand",
	"get-health-model":               "partner health",
	"put-health-model":               "partner health",
	"start-health-run":               "partner health",
	"list-health-runs":               "partner health",
	"list-partner-health":            "partner health",
	"list-partner-health-history":    "partner health",
	"explain-partner-health":         "partner health",
	"approve-deal":                   "reviews and decisions on deals",
	"approve-withdrawal":             "withdrawal reviews",
	"approve-tax-record":             "tax record reviews",
	"reject-tax-record":              "tax record reviews",
	"get-tax-settings":               "tax settings",
	"update-tax-settings":            "tax settings",
	"export-payout-totals":           "payout reports",
	"archive-commission-plan":        "commission plans",
	"archive-content-item":           "the content library",
	"create-agreement":               "legal agreements",
	"create-agreement-version":       "legal agreements",
	"upload-agreement-pdf":           "legal agreements",
	"publish-agreement-version":      "legal agreements",
	"set-agreement-requirement":      "legal agreements",
	"grant-agreement-grace":          "agreement grace periods",
	"list-agreement-graces":          "agreement grace periods",
	"create-content-folder":          "the content library",
	"create-content-item":            "the content library",
	"update-content-item":            "the content library",
	"upload-content-file":            "the content library",
	"archive-playbook":               "playbooks",
	"assign-deal-owner":              "reviews and decisions on deals",
	"cancel-playbook-run":            "playbooks",
	"confirm-payout":                 "payout confirmations",
	"create-commission-plan":         "commission plans",
	"create-dashboard":               "dashboards",
	"create-level":                   "levels",
	"create-metric":                  "metrics",
	"create-pipeline":                "pipelines",
	"create-playbook":                "playbooks",
	"create-ticket-category":         "ticket categories",
	"create-webhook":                 "webhooks",
	"decide-level-proposal":          "level proposals",
	"delete-dashboard":               "dashboards",
	"delete-level":                   "levels",
	"delete-metric":                  "metrics",
	"delete-ticket-category":         "ticket categories",
	"disable-playbook":               "playbooks",
	"enable-playbook":                "playbooks",
	"extend-deal":                    "reviews and decisions on deals",
	"fail-payout":                    "payout confirmations",
	"get-application":                "applications",
	"get-commission-plan":            "commission plans",
	"get-payout-settings":            "payout settings",
	"get-playbook":                   "playbooks",
	"get-playbook-run":               "playbooks",
	"get-playbook-version":           "playbooks",
	"list-applications":              "applications",
	"list-commission-plan-versions":  "commission plans",
	"list-commission-plans":          "commission plans",
	"list-deal-conflicts":            "reviews and decisions on deals",
	"list-level-proposals":           "level proposals",
	"list-playbook-runs":             "playbooks",
	"list-playbook-versions":         "playbooks",
	"list-playbooks":                 "playbooks",
	"preview-commissions":            "commission previews",
	"preview-widget":                 "dashboards",
	"publish-playbook":               "playbooks",
	"reject-application":             "applications",
	"reject-deal":                    "reviews and decisions on deals",
	"reject-withdrawal":              "withdrawal reviews",
	"resolve-deal-conflicts":         "reviews and decisions on deals",
	"reverse-accrual":                "reversals",
	"review-levels":                  "level reviews",
	"rotate-playbook-webhook-secret": "playbooks",
	"set-application-form":           "application forms",
	"set-onboarding-template":        "onboarding checklists",
	"simulate-playbook":              "playbooks",
	"start-partner-onboarding":       "onboarding checklists",
	"update-commission-plan":         "commission plans",
	"update-dashboard":               "dashboards",
	"update-level":                   "levels",
	"update-metric":                  "metrics",
	"update-payout-settings":         "payout settings",
	"update-playbook":                "playbooks",
	"update-ticket":                  "ticket triage",
	"update-ticket-category":         "ticket categories",
}

// ForOperatorsOnly reports whether partner roles are refused permission p.
func ForOperatorsOnly(p Permission) bool { return slices.Contains(operatorPermissions, p) }

// OperatorsOnly reports whether only operators may call the operation operationID, and what it
// manages.
func OperatorsOnly(operationID string) (what string, ok bool) {
	what, ok = operatorsOnly[operationID]
	return what, ok
}
