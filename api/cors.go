package api

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/rs/cors"

	"github.com/partnerd/partnerd/models"
)

// corsMaxAge is how long, in seconds, a browser keeps a preflight's answer.
const corsMaxAge = 600

// newCORS is the cross-origin policy: an origin is granted when it is https on a verified
// custom domain (of the same tenant as the host the request came in on, when that is one
// too). The single requesting origin is echoed with credentials, never `*`; `null` and every
// other origin get no CORS headers.
func (s *Server) newCORS() *cors.Cors {
	return cors.New(cors.Options{
		AllowOriginVaryRequestFunc: func(r *http.Request, origin string) (bool, []string) {
			return s.corsOriginAllowed(r, origin), nil
		},
		AllowedMethods:   []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
		AllowedHeaders:   []string{"Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "X-Request-Id"},
		ExposedHeaders:   []string{"ETag", "Location", "Retry-After", "X-Request-Id"},
		AllowCredentials: true,
		MaxAge:           corsMaxAge,
	})
}

// originHost is the host of an https origin with the default port, or false for any other
// origin (http, another port, a path, `null`).
func originHost(origin string) (string, bool) {
	if origin == "" || origin == "null" || len(origin) > 300 {
		return "", false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "https" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	if p := u.Port(); p != "" && p != "443" {
		return "", false
	}
	host, ok := models.NormalizeHost(u.Hostname())
	if !ok || strings.Contains(host, "*") {
		return "", false
	}
	return host, true
}

// corsOriginAllowed reports whether origin may call the API from a browser with credentials: a
// verified custom domain's https origin, or an origin a tenant lists; on a request that came in
// on a custom domain, only that tenant's. Decisions are kept ten seconds (corsDecisions).
func (s *Server) corsOriginAllowed(r *http.Request, origin string) bool {
	here, onPortal := portalFrom(r.Context())
	key := origin
	if onPortal {
		// A header value never holds a newline: no origin sent on an own host can pose as this key.
		key = here.TenantID + "\n" + origin
	}
	if allowed, ok := s.decisions.get(key); ok {
		return allowed
	}
	allowed, err := s.decideOrigin(r.Context(), here, onPortal, origin)
	if err == nil {
		s.decisions.put(key, allowed)
	}
	return allowed
}

// decideOrigin is the decision of corsOriginAllowed, from the host and origin caches.
func (s *Server) decideOrigin(ctx context.Context, here PortalSite, onPortal bool, origin string) (bool, error) {
	if host, ok := originHost(origin); ok {
		site, ok, err := s.hosts.resolve(ctx, host)
		if err != nil {
			return false, err
		}
		if ok && (!onPortal || here.TenantID == site.TenantID) {
			return true, nil
		}
	}
	if s.origins == nil {
		return false, nil
	}
	o, ok := models.NormalizeOrigin(origin)
	if !ok {
		return false, nil
	}
	tenantID := ""
	if onPortal {
		tenantID = here.TenantID
	}
	return s.origins.allows(ctx, tenantID, o)
}

// corsDecisions keeps the CORS decisions of recent origins (by origin as sent, and the tenant
// of the custom domain the request came in on) ten seconds, so that a request with an Origin
// header costs a map read; any change of hosts or origins in this process clears them.
type corsDecisions struct {
	mu    sync.RWMutex
	cache map[string]originEntry
	now   func() time.Time
}

func newCORSDecisions() *corsDecisions {
	return &corsDecisions{cache: map[string]originEntry{}, now: time.Now}
}

func (d *corsDecisions) get(key string) (allowed, ok bool) {
	if d == nil {
		return false, false
	}
	d.mu.RLock()
	e, hit := d.cache[key]
	d.mu.RUnlock()
	if !hit || d.now().UnixNano() >= e.expires {
		return false, false
	}
	return e.allowed, true
}

func (d *corsDecisions) put(key string, allowed bool) {
	if d == nil || len(key) > 400 {
		return
	}
	e := originEntry{allowed: allowed, expires: d.now().UnixNano() + int64(hostMissTTL)}
	d.mu.Lock()
	if len(d.cache) >= hostCacheMax {
		clear(d.cache)
	}
	d.cache[key] = e
	d.mu.Unlock()
}

// reset forgets every decision.
func (d *corsDecisions) reset() {
	if d == nil {
		return
	}
	d.mu.Lock()
	clear(d.cache)
	d.mu.Unlock()
}

// OriginResolver answers whether tenants list an origin among the ones allowed to call the API
// from a browser.
type OriginResolver interface {
	// AllowsOrigin reports whether tenantID lists origin; an empty tenantID asks whether any
	// tenant does.
	AllowsOrigin(ctx context.Context, tenantID, origin string) (bool, error)
}

// originEntry is one answer in the origin cache.
type originEntry struct {
	allowed bool
	expires int64 // Unix nanoseconds
}

// originCache keeps the answers of an OriginResolver as the host cache keeps hosts': a listed
// origin a minute, an unlisted one ten seconds, at most hostCacheMax answers.
type originCache struct {
	resolver OriginResolver
	mu       sync.RWMutex
	cache    map[string]originEntry
	now      func() time.Time
}

func newOriginCache(r OriginResolver) *originCache {
	return &originCache{resolver: r, cache: map[string]originEntry{}, now: time.Now}
}

// allows reports whether tenantID (any tenant, when empty) lists origin.
func (c *originCache) allows(ctx context.Context, tenantID, origin string) (bool, error) {
	key := tenantID + " " + origin
	now := c.now().UnixNano()
	c.mu.RLock()
	e, hit := c.cache[key]
	c.mu.RUnlock()
	if hit && now < e.expires {
		return e.allowed, nil
	}
	ok, err := c.resolver.AllowsOrigin(ctx, tenantID, origin)
	if err != nil {
		return false, err
	}
	e = originEntry{allowed: ok, expires: now + int64(hostMissTTL)}
	if ok {
		e.expires = now + int64(hostHitTTL)
	}
	c.mu.Lock()
	if len(c.cache) >= hostCacheMax {
		clear(c.cache)
	}
	c.cache[key] = e
	c.mu.Unlock()
	return ok, nil
}

// forget drops every answer about the origins (a tenant changed its list in this process).
func (c *originCache) forget(origins []string) {
	if len(origins) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.cache {
		_, o, _ := strings.Cut(key, " ")
		if slices.Contains(origins, o) {
			delete(c.cache, key)
		}
	}
}

// forgetOrigins drops the origins from this process's origin cache and its CORS decisions.
func (s *Server) forgetOrigins(origins []string) {
	if s.origins != nil {
		s.origins.forget(origins)
	}
	s.decisions.reset()
}

// handleCORS answers preflight requests and adds CORS headers to the actual ones.
func (s *Server) handleCORS(c *gin.Context) {
	r := c.Request
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		s.cors.HandlerFunc(c.Writer, r) // writes 204
		c.Abort()
		return
	}
	s.cors.HandlerFunc(c.Writer, r)
	c.Next()
}
