package models

import (
	"slices"
	"time"
)

// Partner types.
const (
	PartnerReseller    = "reseller"
	PartnerFranchise   = "franchise"
	PartnerCampus      = "campus"
	PartnerBroker      = "broker"
	PartnerAgency      = "agency"
	PartnerDistributor = "distributor"
	PartnerOther       = "other"
)

// PartnerTypes lists the partner types in display order.
var PartnerTypes = []string{PartnerReseller, PartnerFranchise, PartnerCampus, PartnerBroker, PartnerAgency, PartnerDistributor, PartnerOther}

// Partner statuses.
const (
	PartnerOnboarding = "onboarding"
	PartnerActive     = "active"
	PartnerSuspended  = "suspended"
	PartnerOffboarded = "offboarded"
)

// partnerTransitions are the legal moves of a partner's lifecycle.
var partnerTransitions = map[string][]string{
	PartnerOnboarding: {PartnerActive, PartnerOffboarded},
	PartnerActive:     {PartnerSuspended, PartnerOffboarded},
	PartnerSuspended:  {PartnerActive, PartnerOffboarded},
}

// CheckPartnerTransition refuses a status change the partner lifecycle does not allow, with
// 409 ILLEGAL_PARTNER_TRANSITION: onboarding → active → suspended ⇄ active, and offboarded
// from any state, for good.
func CheckPartnerTransition(from, to string) *Error {
	if slices.Contains(partnerTransitions[from], to) {
		return nil
	}
	return Errorf(KindConflict, "ILLEGAL_PARTNER_TRANSITION", "a partner %s cannot become %s", from, to)
}

// Partner is a partner organisation of a tenant.
type Partner struct {
	ID        string    `json:"id" gorm:"primaryKey;size:36"`
	TenantID  string    `json:"-" gorm:"size:36;not null;index"`
	Name      string    `json:"name" gorm:"size:200;not null"`
	Type      string    `json:"type" gorm:"size:32;not null"`
	Level     string    `json:"level" gorm:"size:64"`
	Status    string    `json:"status" gorm:"size:32;not null"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// CustomFields is a JSON object of custom field values by name, "{}" for none.
	CustomFields string `json:"-" gorm:"type:text;not null;default:'{}'"`
}

// CustomRole is a role a tenant defined for itself.
type CustomRole struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null;uniqueIndex:custom_roles_tenant_name"`
	Name        string `gorm:"size:64;not null;uniqueIndex:custom_roles_tenant_name"`
	Description string `gorm:"size:500"`
	Audience    string `gorm:"size:16;not null"`
	Permissions string `gorm:"type:text;not null"` // JSON array of permission names
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// RoleAssignment gives a user a role (built-in or custom) in its tenant.
type RoleAssignment struct {
	TenantID  string `gorm:"primaryKey;size:36"`
	UserID    string `gorm:"primaryKey;size:36;index"`
	Role      string `gorm:"primaryKey;size:64"`
	CreatedAt time.Time
}

// APIKey is the stored record of a machine key; the key itself is never stored.
type APIKey struct {
	ID         string  `gorm:"primaryKey;size:36"`
	TenantID   string  `gorm:"size:36;not null;index"`
	Name       string  `gorm:"size:200;not null"`
	LookupID   string  `gorm:"size:16;not null;uniqueIndex"`
	Hash       string  `gorm:"size:64;not null"`
	Scopes     string  `gorm:"type:text;not null"` // JSON array of permission names
	PartnerID  *string `gorm:"size:36;index"`
	CreatedBy  string  `gorm:"size:36;not null"`
	CreatedAt  time.Time
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
}

// RefreshToken is one link of a rotating refresh-token family; only its hash is stored.
type RefreshToken struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null;index"`
	UserID    string `gorm:"size:36;not null;index"`
	FamilyID  string `gorm:"size:36;not null;index"`
	Hash      string `gorm:"size:64;not null;uniqueIndex"`
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
	RevokedAt *time.Time
}

// AuditEntry records one change to people, roles, keys or money.
type AuditEntry struct {
	ID            string    `json:"id" gorm:"primaryKey;size:36"`
	TenantID      string    `json:"-" gorm:"size:36;not null;index:audit_tenant_time,priority:1"`
	ActorKind     string    `json:"actorKind" gorm:"size:32;not null"`
	ActorID       string    `json:"actorId" gorm:"size:36"`
	Action        string    `json:"action" gorm:"size:64;not null"`
	TargetType    string    `json:"targetType" gorm:"size:64;not null"`
	TargetID      string    `json:"targetId" gorm:"size:36"`
	RequestID     string    `json:"requestId" gorm:"size:128"`
	ClientAddress string    `json:"clientAddress" gorm:"size:64"`
	ChangedFields string    `json:"-" gorm:"type:text"` // JSON array of field names
	CreatedAt     time.Time `json:"createdAt" gorm:"index:audit_tenant_time,priority:2"`
}

// AccessPolicy is what a tenant's tables say about access: its custom roles and who holds
// which role. Version changes whenever any of it changes.
type AccessPolicy struct {
	Version     int64
	CustomRoles []RoleDefinition
	// Assignments maps a user id to the role names it holds.
	Assignments map[string][]string
}

// RoleDefinition names a role and its permissions.
type RoleDefinition struct {
	Name        string
	Permissions []string
}

// Page asks for one page of a list: at most Limit rows after the row with id After.
type Page struct {
	Limit int
	After string
}

// AuditFilter narrows the audit log; zero fields do not filter.
type AuditFilter struct {
	Action     string
	ActorID    string
	TargetType string
	TargetID   string
	From, To   time.Time
}

// PartnerFilter narrows a list of partner organisations; empty fields do not filter. Q matches
// names containing it, case-insensitively.
type PartnerFilter struct {
	Q, Status, Level string
}

// PartnerChanges lists the fields of a partner an update may set; nil fields stay as they are.
type PartnerChanges struct {
	Name, Type, Level, Status *string
}

// Purposes of one-time user tokens.
const (
	TokenInvitation    = "invitation"
	TokenPasswordReset = "password_reset"
)

// UserToken is a one-time token that lets a user set a password (an invitation or a password
// reset); only its hash is stored.
type UserToken struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null;index"`
	UserID    string `gorm:"size:36;not null;index"`
	Purpose   string `gorm:"size:32;not null"`
	Hash      string `gorm:"size:64;not null;uniqueIndex"`
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}
