package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// The API reference at /docs renders the live /openapi.json with Scalar's standalone bundle,
// which the console build carries as docs/scalar.js: partnerd serves it itself, so the reference
// works without internet access. A binary built without the console answers /docs with a page
// that says how to build it and links the OpenAPI document.

// docsBundlePath is where the console build holds the reference's renderer.
const docsBundlePath = "docs/scalar.js"

// docsCSP is the Content-Security-Policy of the reference: scripts from this origin only, and
// no request leaves it. Scalar injects its styles as <style> elements and style attributes
// without a nonce, hence 'unsafe-inline' for styles, on this page only; it draws one data: image.
// It also probes whether eval works (new Function), which this policy refuses: it then does
// without.
var docsCSP = strings.Join([]string{
	"default-src 'none'",
	"script-src 'self'",
	"style-src 'self' 'unsafe-inline'",
	"img-src 'self' data:",
	"connect-src 'self'",
	"base-uri 'none'",
	"form-action 'none'",
	"frame-ancestors 'none'",
}, "; ")

// docsConfiguration is Scalar's configuration: the document, system fonts instead of Scalar's
// font CDN, no telemetry, no AI agent, no developer tools.
const docsConfiguration = `{"url":"/openapi.json","withDefaultFonts":false,"telemetry":false,` +
	`"agent":{"disabled":true},"showDeveloperTools":"never","documentDownloadType":"json"}`

// docsPage is the reference's page; %s is the bundle's address.
const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>partnerd API reference</title></head>
<body>
<noscript>The API reference needs JavaScript. The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<script id="api-reference" type="application/json" data-url="/openapi.json" data-configuration="%s"></script>
<script src="%s"></script>
</body></html>
`

// docsMissing is /docs of a binary built without the console.
const docsMissing = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>partnerd API reference</title></head>
<body><h1>partnerd API reference</h1>
<p>This binary was built without the web console, which carries the API reference's renderer.
Build it with <code>make web</code> (Node 20.19 or later), then build and start partnerd again
(<code>make run</code> does both).</p>
<p>The OpenAPI document is at <a href="/openapi.json">/openapi.json</a> (and
<a href="/openapi.yaml">/openapi.yaml</a>); the classic Swagger UI at <a href="/swagger/">/swagger/</a>.</p>
</body></html>
`

// docsBundle is the reference's renderer read from the console build, with its digest and a
// gzipped copy; it is read again when the file changes (a console served from disk).
type docsBundle struct {
	mu    sync.Mutex
	stamp string // size and modification time of the file the rest was made from
	hash  string
	raw   []byte
	gz    []byte
}

// load returns the bundle of console, or false when console holds none.
func (b *docsBundle) load(console fs.FS) (hash string, raw, gz []byte, ok bool) {
	if console == nil {
		return "", nil, nil, false
	}
	info, err := fs.Stat(console, docsBundlePath)
	if err != nil || info.IsDir() {
		return "", nil, nil, false
	}
	stamp := fmt.Sprint(info.Size(), info.ModTime().UnixNano())
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.raw != nil && b.stamp == stamp {
		return b.hash, b.raw, b.gz, true
	}
	body, err := fs.ReadFile(console, docsBundlePath)
	if err != nil {
		return "", nil, nil, false
	}
	sum := sha256.Sum256(body)
	var packed bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&packed, gzip.DefaultCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	b.stamp, b.hash, b.raw, b.gz = stamp, hex.EncodeToString(sum[:8]), body, packed.Bytes()
	return b.hash, b.raw, b.gz, true
}

// mountDocs serves the API reference at /docs and its renderer at /docs/scalar.js.
func (s *Server) mountDocs() {
	s.engine.GET("/docs", s.docsPage)
	s.engine.GET("/"+docsBundlePath, s.docsAsset)
}

func (s *Server) docsPage(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	hash, _, _, ok := s.docs.load(s.cfg.Console)
	if !ok {
		h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(docsMissing))
		return
	}
	h.Set("Content-Security-Policy", docsCSP)
	page := fmt.Sprintf(docsPage, html.EscapeString(docsConfiguration), "/"+docsBundlePath+"?v="+hash)
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(page))
}

// docsAsset answers the renderer: cached for good under the digest the page names, revalidated
// under any other address, gzipped for a browser that takes it.
func (s *Server) docsAsset(c *gin.Context) {
	hash, raw, gz, ok := s.docs.load(s.cfg.Console)
	if !ok {
		s.noRoute(c)
		return
	}
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Vary", "Accept-Encoding")
	if c.Query("v") == hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	body := raw
	if acceptsGzip(c.GetHeader("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	c.Data(http.StatusOK, "text/javascript; charset=utf-8", body)
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
