package activities

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/partnerd/partnerd/models"
)

// DomainStore is what custom-domain verification needs of storage.
type DomainStore interface {
	DomainForCheck(ctx context.Context, sys models.Scope, id string) (models.Domain, bool, error)
	RecordDomainCheck(ctx context.Context, sys models.Scope, id string, check models.DomainCheck, at time.Time, final bool, grace time.Duration) (string, error)
}

// TXTResolver looks up the TXT records of a DNS name; a name that does not exist has none.
type TXTResolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// Domains are the activities of custom-domain verification.
type Domains struct {
	Store    DomainStore
	Resolver TXTResolver
	// Grace is how long a verified domain's record may be missing; models.DomainGrace when 0.
	Grace time.Duration
}

// DomainCheckInput names the domain to check, the workflow's time of the check and whether it
// is the last chance of a pending domain.
type DomainCheckInput struct {
	TenantID string
	DomainID string
	At       time.Time
	Final    bool
}

// CheckDomain looks for the domain's TXT record and records the outcome. It returns the
// domain's status afterwards, or "" when the domain no longer exists.
func (a *Domains) CheckDomain(ctx context.Context, in DomainCheckInput) (string, error) {
	sys := models.System(in.TenantID)
	d, ok, err := a.Store.DomainForCheck(ctx, sys, in.DomainID)
	if err != nil || !ok {
		return "", err
	}
	var check models.DomainCheck
	records, err := a.Resolver.LookupTXT(ctx, d.ChallengeName())
	if err != nil {
		check.Problem = "DNS lookup failed: " + err.Error()
	}
	check.Found = slices.Contains(records, d.Token)
	grace := a.Grace
	if grace <= 0 {
		grace = models.DomainGrace
	}
	return a.Store.RecordDomainCheck(ctx, sys, in.DomainID, check, in.At, in.Final, grace)
}

// DNSResolver asks one DNS server for TXT records (github.com/miekg/dns).
type DNSResolver struct {
	// Server is host:port of the resolver; the first nameserver of /etc/resolv.conf when empty.
	Server  string
	Timeout time.Duration
}

// LookupTXT answers the TXT strings at name, each record's strings joined; none for a name
// that does not exist.
func (r DNSResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	server := r.Server
	if server == "" {
		conf, err := dns.ClientConfigFromFile("/etc/resolv.conf")
		if err != nil || len(conf.Servers) == 0 {
			return nil, errors.New("no DNS resolver configured")
		}
		server = net.JoinHostPort(conf.Servers[0], conf.Port)
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeTXT)
	m.RecursionDesired = true
	c := &dns.Client{Timeout: timeout}
	in, _, err := c.ExchangeContext(ctx, m, server)
	if err != nil {
		return nil, err
	}
	switch in.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		return nil, nil
	default:
		return nil, errors.New("DNS answer " + dns.RcodeToString[in.Rcode])
	}
	var out []string
	for _, rr := range in.Answer {
		if t, ok := rr.(*dns.TXT); ok {
			out = append(out, strings.Join(t.Txt, ""))
		}
	}
	return out, nil
}
