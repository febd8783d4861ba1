package models

import (
	"net"
	"regexp"
	"strings"
	"time"
)

// Custom domain statuses: pending until its TXT record is seen, then verified; failed when the
// record was not seen within the verification window; unverified when a verified domain's
// record stayed missing through the grace period.
const (
	DomainPending    = "pending"
	DomainVerified   = "verified"
	DomainFailed     = "failed"
	DomainUnverified = "unverified"
)

// Custom domain timings.
const (
	// DomainVerifyWindow is how long verification looks for the TXT record.
	DomainVerifyWindow = 72 * time.Hour
	// DomainRecheckEvery is how often a verified domain's record is checked again.
	DomainRecheckEvery = 24 * time.Hour
	// DomainGrace is how long a verified domain's record may be missing before the domain is
	// unverified.
	DomainGrace = 72 * time.Hour
	// DomainChallengePrefix is the label before the host of the TXT record to create.
	DomainChallengePrefix = "_partnerd-challenge."
	// MaxDomainsPerTenant bounds a tenant's custom domains.
	MaxDomainsPerTenant = 50
)

// Domain is a custom host for a tenant's portal, or for one partner's co-branded portal.
type Domain struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null;index:domains_tenant_host,unique,priority:1"`
	PartnerID string `gorm:"size:36;not null"`
	Host      string `gorm:"size:253;not null;index:domains_tenant_host,unique,priority:2"`
	// Token is the value the TXT record must hold; it is public by nature (it is in DNS).
	Token        string `gorm:"size:80;not null"`
	Status       string `gorm:"size:16;not null"`
	LastError    string `gorm:"size:300"`
	CheckedAt    *time.Time
	VerifiedAt   *time.Time
	MissingSince *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ChallengeName is the DNS name of the domain's TXT record.
func (d Domain) ChallengeName() string { return DomainChallengePrefix + d.Host }

// DomainEventPayload is the payload of the domain.* events.
type DomainEventPayload struct {
	DomainID  string `json:"domainId"`
	Host      string `json:"host"`
	PartnerID string `json:"partnerId,omitempty"`
	Status    string `json:"status"`
}

// DomainCheck is the outcome of one look for a domain's TXT record.
type DomainCheck struct {
	// Found says whether a TXT record at the challenge name holds the token.
	Found bool
	// Problem is what went wrong when the lookup itself failed (timeout, server failure).
	Problem string
}

// DomainSite is what a verified host serves: a tenant's portal, or one partner's.
type DomainSite struct {
	Host      string
	TenantID  string
	PartnerID string
}

var hostLabel = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// NormalizeHost lower-cases a host name and drops a trailing dot and port; ok is false for
// anything that is not a host name of at least two labels (IP addresses included).
func NormalizeHost(h string) (string, bool) {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(h, ".")
	if len(h) == 0 || len(h) > 253 || net.ParseIP(h) != nil {
		return "", false
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return "", false
	}
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return "", false
		}
	}
	return h, true
}

// CheckDomainHost validates a custom domain's host name.
func CheckDomainHost(h string) (string, error) {
	n, ok := NormalizeHost(h)
	if !ok || strings.HasSuffix(n, ".localhost") || strings.HasPrefix(n, "_") {
		return "", Invalid("INVALID_HOST", "a host name such as partners.example.com",
			FieldError{Location: "body.host", Message: "a host name of two or more labels", Value: h})
	}
	return n, nil
}
