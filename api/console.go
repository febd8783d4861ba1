package api

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
)

// The web console is served at every path the API and its references do not own: its files by
// name, every other page by index.html (the console routes in the browser).

// apiPrefixes are the paths that never fall back to the console.
var apiPrefixes = []string{"/api/", "/openapi", "/schemas/", "/docs", "/swagger", "/healthz", "/readyz"}

// consoleNonce is the placeholder index.html carries where each answer puts its style nonce.
var consoleNonce = []byte("__CSP_NONCE__")

// consolePortal is the placeholder index.html carries where an answer on a verified custom
// domain puts "1": the app then shows the portal in the tenant's brand (GET /api/branding).
var consolePortal = []byte("__PARTNERD_PORTAL__")

// consoleCSP is the Content-Security-Policy of the console: scripts and styles from this origin
// only, plus the style elements that carry the answer's nonce.
func consoleCSP(nonce string) string {
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self'",
		"style-src 'self' 'nonce-" + nonce + "'",
		"img-src 'self' data:",
		"font-src 'self'",
		"connect-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// consoleMissing is the page of a binary built without the console.
const consoleMissing = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>partnerd</title></head>
<body><h1>partnerd</h1>
<p>This binary was built without the web console. Build it with <code>make web</code> (Node 20.19 or
later), then build and start partnerd again (<code>make run</code> does both).</p>
<p>The API is at <a href="/api">/api</a>, its reference at <a href="/docs">/docs</a> and
<a href="/swagger/">/swagger/</a>.</p></body></html>
`

// isAPIPath reports whether p belongs to the API or its references.
func isAPIPath(p string) bool {
	for _, prefix := range apiPrefixes {
		if p == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// console answers c from the web console when it asks for a page or file of it; it reports
// whether it answered.
func (s *Server) console(c *gin.Context) bool {
	r := c.Request
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || isAPIPath(r.URL.Path) {
		return false
	}
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if s.cfg.Console == nil {
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(consoleMissing))
		return true
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name != "" && name != "index.html" {
		if body, err := fs.ReadFile(s.cfg.Console, name); err == nil {
			if strings.HasPrefix(name, "assets/") {
				h.Set("Cache-Control", "public, max-age=31536000, immutable")
			} else {
				h.Set("Cache-Control", "no-cache")
			}
			kind := mime.TypeByExtension(path.Ext(name))
			if kind == "" {
				kind = "application/octet-stream"
			}
			c.Data(http.StatusOK, kind, body)
			return true
		}
		if strings.HasPrefix(name, "assets/") || path.Ext(name) != "" {
			return false // a missing file is a 404, not the console's page
		}
	}
	index, err := fs.ReadFile(s.cfg.Console, "index.html")
	if err != nil {
		return false
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	nonce := base64.StdEncoding.EncodeToString(raw[:])
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", consoleCSP(nonce))
	portal := []byte{}
	if _, ok := portalFrom(r.Context()); ok {
		portal = []byte("1")
	}
	c.Data(http.StatusOK, "text/html; charset=utf-8", bytes.ReplaceAll(bytes.ReplaceAll(index, consoleNonce, []byte(nonce)), consolePortal, portal))
	return true
}
