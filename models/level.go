package models

import (
	"encoding/json"
	"time"
)

// Level is a partner tier of a tenant: a rank, what it brings, and what it takes.
type Level struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	// Name is what partners carry in their level field; unique per tenant.
	Name string `gorm:"size:64;not null"`
	// Rank orders levels: higher is better.
	Rank     int    `gorm:"not null"`
	Benefits string `gorm:"type:text"`
	// Requirements is LevelRequirements as JSON; "{}" for none.
	Requirements string `gorm:"type:text;not null"`
	// IsDefault marks the level new partners start at.
	IsDefault bool `gorm:"not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// LevelRequirements are what a partner must reach, within the last PeriodDays, to hold a
// level. Zero values ask nothing.
type LevelRequirements struct {
	MinWonDeals int `json:"minWonDeals,omitempty"`
	// MinWonAmountMinor is the won deal volume in minor units of Currency.
	MinWonAmountMinor int64  `json:"minWonAmountMinor,omitempty"`
	Currency          string `json:"currency,omitempty"`
	// PeriodDays is the look-back window; 365 when zero.
	PeriodDays int `json:"periodDays,omitempty"`
	// MinCertifiedUsers is how many of the partner's active users must hold a certificate in
	// force now (of CertificationCourseID when set, of any course otherwise); not bound to
	// PeriodDays.
	MinCertifiedUsers     int    `json:"minCertifiedUsers,omitempty"`
	CertificationCourseID string `json:"certificationCourseId,omitempty"`
}

// Reqs decodes the level's requirements.
func (l *Level) Reqs() LevelRequirements {
	var r LevelRequirements
	_ = json.Unmarshal([]byte(l.Requirements), &r)
	if r.PeriodDays <= 0 {
		r.PeriodDays = 365
	}
	return r
}

// PartnerPerformance is what level requirements are measured against.
type PartnerPerformance struct {
	WonDeals int
	// WonAmountMinor is the won volume per currency.
	WonAmountMinor map[string]int64
	// CertifiedUsers counts the active users holding a certificate in force, per course id
	// ("" for any course).
	CertifiedUsers map[string]int
}

// Meets reports whether performance satisfies r.
func (r LevelRequirements) Meets(p PartnerPerformance) bool {
	return p.WonDeals >= r.MinWonDeals && (r.MinWonAmountMinor == 0 || p.WonAmountMinor[r.Currency] >= r.MinWonAmountMinor) &&
		(r.MinCertifiedUsers == 0 || p.CertifiedUsers[r.CertificationCourseID] >= r.MinCertifiedUsers)
}

// Level change modes of a tenant's level review.
const (
	LevelChangesPropose = "propose"
	LevelChangesApply   = "apply"
)

// LevelEvaluation is the level a partner qualifies for, with the numbers behind it.
type LevelEvaluation struct {
	PartnerID    string
	CurrentLevel string
	// TargetLevel is the highest-ranked level whose requirements the partner meets.
	TargetLevel string
	Performance PartnerPerformance
}

// LevelProposal is a promotion or demotion the review suggested and an operator decides on.
type LevelProposal struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	PartnerID string `gorm:"size:36;not null"`
	FromLevel string `gorm:"size:64"`
	ToLevel   string `gorm:"size:64;not null"`
	// Status is pending, applied or dismissed.
	Status    string `gorm:"size:16;not null"`
	Reason    string `gorm:"size:1000"`
	CreatedAt time.Time
	DecidedAt *time.Time
	DecidedBy *string `gorm:"size:36"`
}

// Level proposal statuses.
const (
	ProposalPending   = "pending"
	ProposalApplied   = "applied"
	ProposalDismissed = "dismissed"
)

// LevelChanges are the level fields an update sets; nil leaves a field alone.
type LevelChanges struct {
	Name, Benefits *string
	Rank           *int
	IsDefault      *bool
	Requirements   *LevelRequirements
}
