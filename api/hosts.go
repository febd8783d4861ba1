package api

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/partnerd/partnerd/models"
)

// PortalSite is the portal a request's host serves: a tenant's, or one partner's co-branded
// portal of it.
type PortalSite struct {
	Host      string
	TenantID  string
	PartnerID string
}

type portalKey struct{}

// withPortal returns a context that carries the portal a request's host serves.
func withPortal(ctx context.Context, site PortalSite) context.Context {
	return context.WithValue(ctx, portalKey{}, site)
}

// portalFrom is the portal of the request's host, when it came in on a verified custom domain.
func portalFrom(ctx context.Context) (PortalSite, bool) {
	site, ok := ctx.Value(portalKey{}).(PortalSite)
	return site, ok
}

// HostResolver finds what a verified custom domain serves; a host no tenant has verified is a
// models.Error of kind KindNotFound.
type HostResolver interface {
	VerifiedHost(ctx context.Context, host string) (models.DomainSite, error)
}

// Lifetimes of the host cache: what a verified host serves is kept a minute, an unknown or
// unverified host ten seconds, so a change reaches every process within that time.
const (
	hostHitTTL   = time.Minute
	hostMissTTL  = 10 * time.Second
	hostCacheMax = 10_000
)

// hostEntry is one host's answer in the cache.
type hostEntry struct {
	site    PortalSite
	ok      bool
	expires int64 // Unix nanoseconds
}

// hostRouter resolves the Host of requests that are not for the installation's own hosts.
type hostRouter struct {
	resolver HostResolver
	own      map[string]bool
	proxies  []netip.Prefix
	mu       sync.RWMutex
	cache    map[string]hostEntry
	now      func() time.Time
}

func newHostRouter(resolver HostResolver, own []string, proxies []string) *hostRouter {
	r := &hostRouter{resolver: resolver, own: map[string]bool{}, cache: map[string]hostEntry{}, now: time.Now}
	for _, h := range own {
		if n, ok := models.NormalizeHost(h); ok {
			r.own[n] = true
		} else {
			r.own[strings.ToLower(h)] = true
		}
	}
	for _, p := range proxies {
		if pre, err := netip.ParsePrefix(p); err == nil {
			r.proxies = append(r.proxies, pre)
		} else if a, err := netip.ParseAddr(p); err == nil {
			r.proxies = append(r.proxies, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return r
}

// trusted reports whether the request's peer is a trusted proxy, whose X-Forwarded-Host is believed.
func (r *hostRouter) trusted(remoteAddr string) bool {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return false
	}
	for _, p := range r.proxies {
		if p.Contains(ap.Addr().Unmap()) {
			return true
		}
	}
	return false
}

// requestHost is the host a request names: X-Forwarded-Host from a trusted proxy, else Host.
func (r *hostRouter) requestHost(req *http.Request) string {
	if fwd := req.Header.Get("X-Forwarded-Host"); fwd != "" && r.trusted(req.RemoteAddr) {
		first, _, _ := strings.Cut(fwd, ",")
		return strings.TrimSpace(first)
	}
	return req.Host
}

// resolve answers what host serves: ok is false for a host no tenant has verified.
func (r *hostRouter) resolve(ctx context.Context, host string) (PortalSite, bool, error) {
	now := r.now().UnixNano()
	r.mu.RLock()
	e, hit := r.cache[host]
	r.mu.RUnlock()
	if hit && now < e.expires {
		return e.site, e.ok, nil
	}
	d, err := r.resolver.VerifiedHost(ctx, host)
	e = hostEntry{expires: now + int64(hostMissTTL)}
	if err == nil {
		e = hostEntry{site: PortalSite{Host: d.Host, TenantID: d.TenantID, PartnerID: d.PartnerID}, ok: true, expires: now + int64(hostHitTTL)}
	} else {
		var me *models.Error
		if !errors.As(err, &me) || me.Kind != models.KindNotFound {
			return PortalSite{}, false, err
		}
	}
	r.mu.Lock()
	if len(r.cache) >= hostCacheMax {
		clear(r.cache)
	}
	r.cache[host] = e
	r.mu.Unlock()
	return e.site, e.ok, nil
}

// forget drops host from the cache (its domain was removed in this process).
func (r *hostRouter) forget(host string) {
	r.mu.Lock()
	delete(r.cache, host)
	r.mu.Unlock()
}

// forgetHost drops host from this process's host cache and its CORS decisions.
func (s *Server) forgetHost(host string) {
	if s.hosts != nil {
		s.hosts.forget(host)
	}
	s.decisions.reset()
}

// routeHost serves requests on the installation's own hosts (and on addresses) as they are;
// on a verified custom domain it marks the request with the portal it serves; any other host is
// answered 421 Misdirected Request, never with another tenant's page.
func (s *Server) routeHost(c *gin.Context) {
	r := s.hosts
	host, ok := models.NormalizeHost(r.requestHost(c.Request))
	if !ok || r.own[host] {
		c.Next()
		return
	}
	site, ok, err := r.resolve(c.Request.Context(), host)
	if err != nil {
		s.log.ErrorContext(c.Request.Context(), "resolving a host failed", "request_id", RequestID(c.Request.Context()), "error", err.Error())
		c.AbortWithStatus(http.StatusServiceUnavailable)
		return
	}
	if !ok {
		c.Header("Content-Type", "text/plain; charset=utf-8")
		c.String(http.StatusMisdirectedRequest, "This host is not served here.\n")
		c.Abort()
		return
	}
	c.Request = c.Request.WithContext(withPortal(c.Request.Context(), site))
	c.Next()
}

// ErrNoCertificate refuses a TLS certificate for a host name that is not a verified custom
// domain.
var ErrNoCertificate = errors.New("not a verified custom domain")

// AllowCertificate is on-demand TLS's decision: nil only for a verified custom domain (by its
// exact, lower-case name), an error for the installation's own hosts, addresses, unknown,
// pending, failed or unverified hosts, and for every name when host routing is off. It asks the
// host cache, so a handshake costs no more than routing a request does.
func (s *Server) AllowCertificate(ctx context.Context, name string) error {
	if s.hosts == nil {
		return ErrNoCertificate
	}
	host, ok := models.NormalizeHost(name)
	if !ok || host != name || s.hosts.own[host] {
		return ErrNoCertificate
	}
	_, ok, err := s.hosts.resolve(ctx, host)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNoCertificate
	}
	return nil
}
