// Package api is partnerd's HTTP interface: huma v2 operations mounted on gin, with one
// registration helper that every module uses and one middleware chain for request ids, access
// logs, errors, authentication and authorization.
package api

import (
	"context"
	"crypto/rand"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humagin"
	"github.com/gin-gonic/gin"
	"github.com/rs/cors"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// Security scheme names declared in the OpenAPI document.
const (
	SchemeBearer     = "bearerAuth"
	SchemeMachineKey = "machineKey"
)

// DefaultMaxBodyBytes caps request bodies of operations that set no limit of their own.
const DefaultMaxBodyBytes = 1 << 20

// Config is the HTTP layer's part of the configuration.
type Config struct {
	// Version is the build version shown in the OpenAPI document.
	Version string
	// OwnHosts are the installation's own host names, served as they are. With OwnHosts set and
	// Deps.Hosts, any other host serves the portal of the verified custom domain it is, or 421.
	OwnHosts []string
	// TrustedProxies are the addresses whose X-Forwarded-For (and, for host routing,
	// X-Forwarded-Host) is believed; none by default.
	TrustedProxies []string
	// CursorKey signs list cursors; random per process when empty.
	CursorKey []byte
	// SignupEnabled opens POST /api/signup to anyone.
	SignupEnabled bool
	// Console is the built web console, served at every path the API does not own; nil answers
	// those paths with a page that says how to build it.
	Console fs.FS
	// RateLimits are the quotas of requests, sign-ins, sign-ups and applications (ADR 22);
	// nil means DefaultRateLimits.
	RateLimits *RateLimits
	// ContentMaxBytes is the largest file of the content library; models.ContentMaxBytes when 0.
	ContentMaxBytes int64
	// AgreementPDFMaxBytes is the largest PDF agreement version; models.MaxAgreementPDF when 0.
	AgreementPDFMaxBytes int64
}

// ReadinessCheck is one dependency that must answer before the service is ready.
type ReadinessCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Authenticator turns the credentials of a request into a principal. schemes lists the
// security schemes the operation accepts. It returns a models.Error of kind
// KindUnauthenticated for missing or bad credentials.
type Authenticator interface {
	Authenticate(ctx context.Context, authorization string, schemes []string) (*models.Principal, error)
}

// Authorizer decides whether a principal holds a permission in its tenant.
type Authorizer interface {
	Allowed(ctx context.Context, p *models.Principal, perm authz.Permission) (bool, error)
	Permissions(ctx context.Context, p *models.Principal) ([]authz.Permission, error)
	// Invalidate applies a change of a tenant's roles at once in this process.
	Invalidate(tenantID string)
}

// Deps are the collaborators of the HTTP layer.
type Deps struct {
	Logger *slog.Logger
	// Readiness lists what /readyz checks.
	Readiness []ReadinessCheck
	// Authenticator and Authorizer guard every non-public operation; without them such
	// operations answer 401. With Identity and Tokens set and no Authenticator, the server
	// authenticates access tokens and machine keys itself.
	Authenticator Authenticator
	Authorizer    Authorizer
	// Identity is the storage of sign-in, tokens and the caller's own profile.
	Identity IdentityStore
	// Modules are the stores of tenant-owned data, one per module.
	Modules Modules
	// Tokens issues and verifies access tokens.
	Tokens *authn.Tokens
	// Tenants creates tenants (sign-up).
	Tenants TenantCreator
	// Webhooks seals webhook secrets, checks endpoint URLs and starts deliveries.
	Webhooks WebhookDeps
	// Applications takes applications on the tenants' public recruitment pages.
	Applications ApplicationIntake
	// Domains starts custom domains' verification; without it adding or verifying a domain
	// answers 503.
	Domains DomainVerifier
	// Hosts resolves the hosts of verified custom domains (host routing); without it every
	// request is served as on the installation's own host.
	Hosts HostResolver
	// Origins answers the origins tenants list for cross-origin calls; without it only
	// verified custom domains are granted.
	Origins OriginResolver
	// Brands answers the public brand of a portal and its images.
	Brands PublicBrands
	// SurveyLinks answers survey links on the public answer page.
	SurveyLinks SurveyLinks
	// Idempotency keeps the Idempotency-Key of idempotent operations; without it they run
	// every request.
	Idempotency IdempotencyStore
	// Payouts hands finance's confirmation or failure of a manual payout to the payout waiting
	// for it; without it those operations answer 503.
	Payouts PayoutSignaler
	// Runs cancels playbook runs under way; without it cancelling a run answers 503.
	Runs RunCanceller
	// Health starts health scoring runs; without it scoring now answers 503.
	Health HealthRunner
	// Blobs keeps uploaded files (attachments, content, logos); without it uploads and
	// downloads answer 503.
	Blobs *blobstore.Store
	// Certificates signs agreement-acceptance certificates; without it they answer 503.
	Certificates *authn.Certificates
	// Rails are the payout rails: Stripe onboarding and Stripe's webhooks; without them those
	// operations answer 503.
	Rails RailDeps
	// Metrics records every request (telemetry.Metrics); nil records nothing.
	Metrics RequestMetrics
	// Tracing, when set, makes a span of every request (named after its operation) in the
	// trace its caller propagated, or a new one.
	Tracing *Tracing
	// RateLimiter keeps the quotas of RateLimits; without it nothing is limited.
	RateLimiter RateLimiter
}

// RequestMetrics records the requests the API answers.
type RequestMetrics interface {
	// RequestStarted counts a request in flight until RequestDone.
	RequestStarted()
	// RequestDone records an answered request: the id of the operation that served it ("" for
	// none), its status and how long it took.
	RequestDone(operation string, status int, elapsed time.Duration)
}

// Tracing is where the API's spans go and how trace context arrives with a request.
type Tracing struct {
	Provider   trace.TracerProvider
	Propagator propagation.TextMapPropagator
}

// Modules are the module stores as one principal sees them: each limits what it reads and writes
// to the principal's tenant and, for partner principals, to its partner organisation. Handlers
// reach tenant-owned data only through them, each module through its accessor (Server.deals, ...).
type Modules struct {
	APIKeys        func(*models.Principal) KeyStore
	Audit          func(*models.Principal) AuditStore
	People         func(*models.Principal) PeopleStore
	Partners       func(*models.Principal) PartnerStore
	Roles          func(*models.Principal) RoleStore
	Tenant         func(*models.Principal) TenantStore
	Events         func(*models.Principal) EventsStore
	Customers      func(*models.Principal) CustomerStore
	Webhooks       func(*models.Principal) WebhookStore
	Metrics        func(*models.Principal) MetricStore
	Dashboards     func(*models.Principal) DashboardStore
	Deals          func(*models.Principal) DealStore
	Tasks          func(*models.Principal) TaskStore
	Levels         func(*models.Principal) LevelStore
	Applications   func(*models.Principal) ApplicationStore
	Mail           func(*models.Principal) MailStore
	Commissions    func(*models.Principal) CommissionStore
	Ledger         func(*models.Principal) LedgerStore
	Withdrawals    func(*models.Principal) WithdrawalStore
	Playbooks      func(*models.Principal) PlaybookStore
	Content        func(*models.Principal) ContentStore
	Agreements     func(*models.Principal) AgreementStore
	Surveys        func(*models.Principal) SurveyStore
	Tax            func(*models.Principal) TaxStore
	Desk           func(*models.Principal) DeskStore
	Certifications func(*models.Principal) CertificationStore
	Branding       func(*models.Principal) BrandingStore
	Domains        func(*models.Principal) DomainStore
	Health         func(*models.Principal) HealthStore
	MDF            func(*models.Principal) MDFStore
}

// Server is the assembled HTTP interface.
type Server struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	engine  *gin.Engine
	api     huma.API
	cursors cursors
	// limits are the quotas the RateLimiter keeps (ratelimit.go).
	limits RateLimits
	// limiterWarned is when a failure of the limiter was last logged (Unix seconds).
	limiterWarned atomic.Int64
	// dummyHash is verified when no account matches, so that timing does not tell.
	dummyHash func() string
	// hosts routes requests on custom domains; nil without host routing.
	hosts *hostRouter
	// cors grants verified custom domains cross-origin calls (cors.go); nil without host routing.
	cors *cors.Cors
	// origins caches the origins tenants list for cross-origin calls (cors.go); nil without
	// host routing or Deps.Origins.
	origins *originCache
	// decisions keeps recent CORS decisions (cors.go); nil without host routing.
	decisions *corsDecisions
	// docs is the API reference's renderer from the console build.
	docs docsBundle
}

// gin's debug mode only prints routes and warnings to stdout; partnerd logs through slog.
func init() { gin.SetMode(gin.ReleaseMode) }

// New assembles the router, the OpenAPI document and every module's operations.
func New(cfg Config, deps Deps) *Server {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	engine := gin.New()
	engine.HandleMethodNotAllowed = true
	engine.ContextWithFallback = true
	if err := engine.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		deps.Logger.Warn("ignoring invalid trusted proxies", "error", err)
		_ = engine.SetTrustedProxies(nil)
	}
	if deps.Authenticator == nil && deps.Identity != nil && deps.Tokens != nil {
		deps.Authenticator = newCredentialAuthenticator(deps.Tokens, deps.Identity)
	}
	if len(cfg.CursorKey) == 0 {
		cfg.CursorKey = make([]byte, 32)
		_, _ = rand.Read(cfg.CursorKey)
	}
	s := &Server{
		cfg: cfg, deps: deps, log: deps.Logger, engine: engine,
		cursors: cursors{key: cfg.CursorKey},
		limits:  DefaultRateLimits(),
		dummyHash: sync.OnceValue(func() string {
			h, _ := authn.HashPassword("partnerd timing equaliser")
			return h
		}),
	}
	if cfg.RateLimits != nil {
		s.limits = *cfg.RateLimits
	}
	if deps.Metrics == nil {
		engine.Use(s.requestID, s.accessLog, s.recoverPanics)
	} else {
		engine.Use(s.requestID, s.observe, s.accessLog, s.recoverPanics)
	}
	if deps.Hosts != nil && len(cfg.OwnHosts) > 0 {
		s.hosts = newHostRouter(deps.Hosts, cfg.OwnHosts, cfg.TrustedProxies)
		s.cors = s.newCORS()
		s.decisions = newCORSDecisions()
		if deps.Origins != nil {
			s.origins = newOriginCache(deps.Origins)
		}
		engine.Use(s.routeHost, s.handleCORS)
	}
	engine.NoRoute(s.noRoute)
	engine.NoMethod(s.noMethod)

	hc := huma.DefaultConfig("partnerd API", cfg.Version)
	hc.Info.Description = "The partnerd partner-program platform. Every error is RFC 9457 problem+json with a stable `code` and the `requestId`."
	hc.Info.License = &huma.License{Name: "Proprietary", Identifier: "LicenseRef-partnerd-proprietary"}
	// A relative server: the API is served where the document is (/openapi.json at the root).
	hc.Servers = []*huma.Server{{URL: "/", Description: "The partnerd installation serving this document"}}
	hc.OpenAPIPath = "/openapi"
	hc.DocsPath = "" // /docs is served from the console build: mountDocs
	hc.SchemasPath = "/schemas"
	hc.CreateHooks = nil // no $schema links injected into bodies
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		SchemeBearer: {
			Type:         "http",
			Scheme:       "bearer",
			BearerFormat: "JWT",
			Description:  "A user access token from POST /api/auth/login (15 minutes).",
		},
		SchemeMachineKey: { //nolint:gosec // G101: a scheme description, not a credential
			Type:         "http",
			Scheme:       "bearer",
			BearerFormat: "pd_live_…",
			Description:  "A machine key for integrations, limited to its scopes.",
		},
	}
	s.api = humagin.New(engine, hc)
	s.api.UseMiddleware(s.operation, s.guard, s.limitRequests, s.bounds, s.idempotency)
	s.mountSwaggerUI()
	s.mountDocs()

	registerSystemRoutes(s)
	registerAuthRoutes(s)
	registerAPIKeyRoutes(s)
	registerAuditRoutes(s)
	registerPeopleRoutes(s)
	registerSignupRoutes(s)
	registerRoleRoutes(s)
	registerTenantRoutes(s)
	registerEventRoutes(s)
	registerCustomerRoutes(s)
	registerWebhookRoutes(s)
	registerMetricRoutes(s)
	registerDealRoutes(s)
	registerTaskRoutes(s)
	registerLevelRoutes(s)
	registerApplicationRoutes(s)
	registerMailRoutes(s)
	registerCommissionRoutes(s)
	registerLedgerRoutes(s)
	registerWithdrawalRoutes(s)
	registerPayoutRailRoutes(s)
	registerPlaybookRoutes(s)
	registerContentRoutes(s)
	registerAgreementRoutes(s)
	registerSurveyRoutes(s)
	registerTaxRoutes(s)
	registerMDFRoutes(s)
	registerCertificationRoutes(s)
	registerHealthRoutes(s)
	registerDeskRoutes(s)
	registerSLARoutes(s)
	registerBrandingRoutes(s)
	registerDomainRoutes(s)
	return s
}

// Handler is the root HTTP handler.
func (s *Server) Handler() http.Handler {
	if t := s.deps.Tracing; t != nil {
		return otelhttp.NewHandler(s.engine, "http",
			otelhttp.WithTracerProvider(t.Provider),
			otelhttp.WithPropagators(t.Propagator),
			otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }),
			otelhttp.WithMeterProvider(noop.NewMeterProvider()),
		)
	}
	return s.engine
}

// MountMetrics serves the metrics at GET /metrics on the API listener too.
func (s *Server) MountMetrics(h http.Handler) {
	s.engine.GET("/metrics", gin.WrapH(h))
}

// OpenAPI is the live OpenAPI document.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }
