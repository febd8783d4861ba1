package models

import (
	"net"
	"regexp"
	"slices"
	"strconv"
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

// MaxCORSOrigins bounds the extra origins a tenant lists for cross-origin calls.
const MaxCORSOrigins = 20

// CORSOrigin is an origin a tenant's operators allow to call the API from a browser, besides
// the tenant's verified custom domains (a site of the tenant's that does not serve its portal).
type CORSOrigin struct {
	TenantID  string `gorm:"primaryKey;size:36"`
	Origin    string `gorm:"primaryKey;size:300;index:cors_origins_origin"`
	CreatedAt time.Time
}

// TableName names CORSOrigin's table.
func (CORSOrigin) TableName() string { return "cors_origins" }

// loopbackHosts are the hosts whose origins may be plain http: a developer's machine, which
// browsers treat as a secure context.
var loopbackHosts = map[string]bool{"localhost": true, "127.0.0.1": true, "[::1]": true}

// NormalizeOrigin is the serialised form of a browser origin, "scheme://host[:port]" in lower
// case without a default port, the way browsers send it in the Origin header. ok is false for
// anything else: `null`, a path, a query, credentials, a wildcard, an IP address over https,
// and http on any host but localhost, 127.0.0.1 and [::1].
func NormalizeOrigin(s string) (string, bool) {
	if len(s) > 300 {
		return "", false
	}
	scheme, rest, found := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "://")
	if !found || (scheme != "https" && scheme != "http") || rest == "" || strings.ContainsAny(rest, "/?#@*\\ %") {
		return "", false
	}
	host, port := rest, ""
	if h, p, err := net.SplitHostPort(rest); err == nil {
		host, port = h, p
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return "", false
			}
			n = n*10 + int(c-'0')
			if n > 65535 {
				return "", false
			}
		}
		if p == "" || n == 0 || p[0] == '0' {
			return "", false
		}
	} else if strings.Contains(rest, ":") && !strings.HasPrefix(rest, "[") {
		return "", false
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	switch {
	case loopbackHosts[host]:
	case scheme == "http":
		return "", false
	default:
		h, ok := NormalizeHost(host)
		if !ok || h != host {
			return "", false
		}
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, true
	}
	return scheme + "://" + host, true
}

// CheckCORSOrigins validates and normalises a tenant's list of extra origins: at most
// MaxCORSOrigins, each an origin NormalizeOrigin accepts; duplicates are dropped.
func CheckCORSOrigins(origins []string) ([]string, error) {
	if len(origins) > MaxCORSOrigins {
		return nil, Invalid("TOO_MANY_ORIGINS", "at most 20 origins")
	}
	out := make([]string, 0, len(origins))
	var fields []FieldError
	for i, o := range origins {
		n, ok := NormalizeOrigin(o)
		if !ok {
			fields = append(fields, FieldError{Location: "body.origins[" + strconv.Itoa(i) + "]",
				Message: "an origin like https://www.example.com: scheme, host and port only, https (http only for localhost), no wildcard", Value: o})
			continue
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(fields) > 0 {
		return nil, Invalid("INVALID_ORIGIN", "origins are https://host[:port]", fields...)
	}
	slices.Sort(out)
	return out, nil
}
