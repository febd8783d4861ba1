package api

import (
	"net/http"
	"net/url"
	"strings"

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

// corsOriginAllowed reports whether origin may call the API from a browser with credentials.
func (s *Server) corsOriginAllowed(r *http.Request, origin string) bool {
	host, ok := originHost(origin)
	if !ok {
		return false
	}
	site, ok, err := s.hosts.resolve(r.Context(), host)
	if err != nil || !ok {
		return false
	}
	if here, onPortal := portalFrom(r.Context()); onPortal && here.TenantID != site.TenantID {
		return false
	}
	return true
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
