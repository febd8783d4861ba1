package models

import (
	"regexp"
	"time"
)

// Tenant is one operator company running one partner program; the isolation boundary.
type Tenant struct {
	ID            string `json:"id" gorm:"primaryKey;size:36"`
	Slug          string `json:"slug" gorm:"size:63;uniqueIndex"`
	Name          string `json:"name" gorm:"size:200"`
	PolicyVersion int64  `json:"-" gorm:"not null;default:0"`
	// IngestCreatesCustomers lets ingest create an unattributed customer for an unknown email.
	IngestCreatesCustomers bool `json:"ingestCreatesCustomers" gorm:"not null;default:true"`
	// DealProtectionDays is how long an approved deal is protected from expiry.
	DealProtectionDays int `json:"dealProtectionDays" gorm:"not null;default:90"`
	// LevelChanges says whether the level review proposes changes or applies them.
	LevelChanges string `json:"levelChanges" gorm:"size:16;not null;default:propose"`
	// SurveyOnResolve sends the requester of a ticket a CSAT survey when the ticket is resolved.
	SurveyOnResolve bool `json:"surveyOnResolve" gorm:"not null;default:false"`
	// ApplicationForm is the recruitment form as JSON (ApplicationForm).
	ApplicationForm string    `json:"-" gorm:"type:text"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
}

// User is a person who signs in: an operator of a tenant, or (with PartnerID set) a partner user.
type User struct {
	ID            string     `json:"id" gorm:"primaryKey;size:36"`
	TenantID      string     `json:"tenantId" gorm:"size:36;not null;uniqueIndex:users_tenant_email"`
	PartnerID     *string    `json:"partnerId,omitempty" gorm:"size:36;index"`
	Email         string     `json:"email" gorm:"size:320;not null;uniqueIndex:users_tenant_email"`
	Name          string     `json:"name" gorm:"size:200"`
	PasswordHash  string     `json:"-" gorm:"size:200"`
	Status        string     `json:"status" gorm:"size:32;not null"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	DeactivatedAt *time.Time `json:"deactivatedAt,omitempty"`
}

// RoleOwner is the built-in role of a tenant's founding user.
const RoleOwner = "owner"

// User statuses.
const (
	UserStatusInvited     = "invited"
	UserStatusActive      = "active"
	UserStatusDeactivated = "deactivated"
)

var slugPattern = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidSlug reports whether s can name a tenant in URLs: lower-case letters, digits and inner
// hyphens, 1 to 63 characters.
func ValidSlug(s string) bool { return slugPattern.MatchString(s) }

// TenantChanges are the tenant fields an update sets; nil fields stay.
type TenantChanges struct {
	Name                   *string
	IngestCreatesCustomers *bool
	DealProtectionDays     *int
	LevelChanges           *string
	SurveyOnResolve        *bool
}
