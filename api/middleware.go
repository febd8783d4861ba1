package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// HeaderRequestID carries the request id in both directions.
const HeaderRequestID = "X-Request-Id"

// validRequestID accepts ids a caller or proxy may pass in; anything else is replaced.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

type requestInfoKey struct{}

// requestInfo is what the request context carries about the request for error responses and
// metrics.
type requestInfo struct {
	id   string
	path string
	// operation is the id of the API operation that serves the request, set when huma routes
	// it; "" for requests that reach none.
	operation string
}

// RequestID is the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info.id
	}
	return ""
}

func requestPath(ctx context.Context) string {
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return info.path
	}
	return ""
}

// requestID adopts a well-formed incoming X-Request-Id or makes one, and echoes it.
func (s *Server) requestID(c *gin.Context) {
	id := c.GetHeader(HeaderRequestID)
	if !validRequestID.MatchString(id) {
		id = models.NewID()
	}
	info := &requestInfo{id: id, path: c.Request.URL.Path}
	ctx := context.WithValue(c.Request.Context(), requestInfoKey{}, info)
	ctx = models.WithRequestMeta(ctx, models.RequestMeta{RequestID: id, ClientAddress: c.ClientIP()})
	c.Request = c.Request.WithContext(ctx)
	c.Header(HeaderRequestID, id)
	c.Next()
}

// observe records every request in the metrics: its operation, status class and duration.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	s.deps.Metrics.RequestStarted()
	c.Next()
	op := ""
	if info, ok := c.Request.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		op = info.operation
	}
	s.deps.Metrics.RequestDone(op, c.Writer.Status(), time.Since(start))
}

// operation notes the operation huma routed the request to, for the metrics, and names the
// request's span after it.
func (s *Server) operation(hctx huma.Context, next func(huma.Context)) {
	id := hctx.Operation().OperationID
	ctx := hctx.Context()
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		info.operation = id
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetName(id)
		span.SetAttributes(attribute.String("partnerd.operation", id))
		if secret := hctx.Param(secretPathParam); secret != "" {
			span.SetAttributes(attribute.String("url.path", loggedPath(hctx.URL().Path, secret)))
		}
	}
	next(hctx)
}

// accessLog writes one line per request. It never logs bodies, query strings or headers
// other than the user agent: they may carry credentials or personal data.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	status := c.Writer.Status()
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	route := c.FullPath()
	if route == "" {
		route = "(unmatched)"
	}
	s.log.LogAttrs(c.Request.Context(), level, "request",
		slog.String("method", c.Request.Method),
		slog.String("route", route),
		slog.String("path", loggedPath(c.Request.URL.Path, c.Param(secretPathParam))),
		slog.Int("status", status),
		slog.Int("bytes", max(c.Writer.Size(), 0)),
		slog.Duration("duration", time.Since(start)),
		slog.String("request_id", RequestID(c.Request.Context())),
		slog.String("client", c.ClientIP()),
		slog.String("user_agent", c.Request.UserAgent()),
	)
}

// secretPathParam is the path parameter that carries a credential (a survey link's token): it
// never reaches a log line or a trace, which show the route with the value left out.
const secretPathParam = "token"

// loggedPath is path as logs and traces show it: secret, a credential in it, replaced.
func loggedPath(path, secret string) string {
	if secret == "" {
		return path
	}
	return strings.Replace(path, secret, "[redacted]", 1)
}

// recoverPanics answers a panic with a bare 500 problem and logs the panic with the request id.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		rec := recover()
		if rec == nil {
			return
		}
		if rec == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as net/http does
			panic(rec)
		}
		ctx := c.Request.Context()
		s.log.ErrorContext(ctx, "panic serving request", "request_id", RequestID(ctx), "panic", fmt.Sprint(rec))
		if !c.Writer.Written() {
			s.writeProblem(c, newProblem(ctx, http.StatusInternalServerError, "internal error"))
		}
		c.Abort()
	}()
	c.Next()
}

func (s *Server) noRoute(c *gin.Context) {
	if s.console(c) {
		return
	}
	p := newProblem(c.Request.Context(), http.StatusNotFound, "no route for "+c.Request.Method+" "+c.Request.URL.Path)
	s.writeProblem(c, p)
}

func (s *Server) noMethod(c *gin.Context) {
	p := newProblem(c.Request.Context(), http.StatusMethodNotAllowed, "method "+c.Request.Method+" is not allowed on "+c.Request.URL.Path)
	s.writeProblem(c, p)
}

func (s *Server) writeProblem(c *gin.Context, p *Problem) {
	if p.Instance == "" {
		p.Instance = clipEcho(c.Request.URL.Path, maxDetailBytes)
	}
	c.Header("Content-Type", problemContentType)
	c.AbortWithStatusJSON(p.Status, p)
}

// guard authenticates and authorizes every operation from the access it declared at
// registration and the partner policy of authz: the single place where permissions are
// enforced.
func (s *Server) guard(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	access, ok := op.Metadata[metaAccess].(Access)
	if !ok {
		// Only register adds operations; one without access metadata is a programming error.
		s.deny(hctx, newProblem(hctx.Context(), http.StatusInternalServerError, "internal error"))
		return
	}
	if access.public {
		next(hctx)
		return
	}
	ctx := hctx.Context()
	if s.deps.Authenticator == nil || s.deps.Authorizer == nil {
		s.deny(hctx, unauthenticated(ctx, "authentication is required"))
		return
	}
	principal, err := s.deps.Authenticator.Authenticate(ctx, hctx.Header("Authorization"), schemesOf(op))
	if err != nil {
		s.deny(hctx, s.problem(ctx, err))
		return
	}
	if principal == nil {
		s.deny(hctx, unauthenticated(ctx, "authentication is required"))
		return
	}
	allowed, err := s.deps.Authorizer.Allowed(ctx, principal, access.permission)
	if err != nil {
		s.deny(hctx, s.problem(ctx, err))
		return
	}
	if !allowed {
		p := newProblem(ctx, http.StatusForbidden, "missing permission "+string(access.permission))
		p.Code = "PERMISSION_DENIED"
		p.Type = problemType(p.Code)
		s.deny(hctx, p)
		return
	}
	if what, only := authz.OperatorsOnly(op.OperationID); only && principal.PartnerID != "" {
		s.deny(hctx, s.problem(ctx, models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "%s are managed by operators", what)))
		return
	}
	next(huma.WithContext(hctx, models.WithPrincipal(ctx, principal)))
}

func unauthenticated(ctx context.Context, detail string) *Problem {
	p := newProblem(ctx, http.StatusUnauthorized, detail)
	return p
}

func (s *Server) deny(hctx huma.Context, p *Problem) {
	if p.Instance == "" {
		p.Instance = clipEcho(hctx.URL().Path, maxDetailBytes)
	}
	if p.Status == http.StatusUnauthorized {
		hctx.SetHeader("WWW-Authenticate", `Bearer realm="partnerd"`)
	}
	_ = huma.WriteErr(s.api, hctx, p.Status, p.Detail, p)
}
