// Package app assembles partnerd from its parts: the store set, the master keyring, the HTTP API
// with its authentication and authorisation, and the worker's activities. partnerd's commands
// and the bench server start from it; it reads no configuration of its own.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/api"
	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/rails"
	"github.com/partnerd/partnerd/web"
	"github.com/partnerd/partnerd/worker"
)

// Access tokens name partnerd as issuer and its API as audience.
const (
	tokenIssuer   = "partnerd"
	tokenAudience = "partnerd-api"
)

// Config is what the API and the worker take from the process's settings.
type Config struct {
	// Version is the build version, shown in the OpenAPI document and reported by workers.
	Version        string
	TrustedProxies []string
	Signup         bool
	// ConsoleDir serves the web console from this directory instead of the built-in one.
	ConsoleDir string
	// WebhookAllowedNetworks are private or loopback networks webhook deliveries, payouts to an
	// http provider and playbook calls may reach.
	WebhookAllowedNetworks []netip.Prefix
	// WebhookRetrySchedule is the wait before each delivery attempt; WebhookDisableAfter how
	// long an endpoint may fail before it is disabled.
	WebhookRetrySchedule []time.Duration
	WebhookDisableAfter  time.Duration
	// Blobs keeps uploaded files; without it uploads and downloads answer 503.
	Blobs *blobstore.Store
	// Telemetry receives the metrics and traces of the API and the worker.
	Telemetry Telemetry
	// RateLimits are the API's quotas (ADR 22); nil means api.DefaultRateLimits.
	RateLimits *api.RateLimits
	// PublicURL is the service's public base URL, under which emailed links point.
	PublicURL string
	// OwnHosts are the installation's own host names; with them set, any other host serves only
	// as a verified custom domain.
	OwnHosts []string
	// DNSResolver is host:port of the DNS server custom-domain verification asks; empty is the
	// system's first nameserver.
	DNSResolver string
	// StripeURL, PayPalURL and WiseURL are the payout rails' API addresses; empty StripeURL is
	// Stripe's, empty PayPalURL and WiseURL their live APIs.
	StripeURL, PayPalURL, WiseURL string
}

// Rails are the clients of the payout rails.
func (cfg Config) Rails() (*rails.Stripe, *rails.PayPal, *rails.Wise) {
	paypal, wise := cfg.PayPalURL, cfg.WiseURL
	if paypal == "" {
		paypal = rails.PayPalLive
	}
	if wise == "" {
		wise = rails.WiseLive
	}
	return &rails.Stripe{URL: cfg.StripeURL}, &rails.PayPal{URL: paypal}, &rails.Wise{URL: wise}
}

// DefaultRateLimits are the API's quotas when none are configured.
func DefaultRateLimits() api.RateLimits { return api.DefaultRateLimits() }

// OpenStore opens the store set on Postgres at databaseURL or, when it is empty, on the SQLite
// file sqlitePath, with the given database plugins (Telemetry.StorePlugins).
func OpenStore(ctx context.Context, databaseURL, sqlitePath string, log *slog.Logger, plugins ...gorm.Plugin) (*stores.Set, error) {
	return stores.Open(ctx, store.Config{URL: databaseURL, SQLitePath: sqlitePath, Logger: log, Plugins: plugins})
}

// Keyring is the master keyring: the current key under its version and the retired keys that
// still open sealed secrets and verify tokens.
func Keyring(current []byte, version int, retired map[int][]byte) (*models.Keyring, error) {
	keys := map[int][]byte{version: current}
	for v, k := range retired {
		keys[v] = k
	}
	return models.NewKeyring(keys, version)
}

// NewAPI builds the HTTP API over the store set. With a Temporal client it also confirms manual
// payouts, cancels playbook runs, starts webhook deliveries and reports Temporal in /readyz;
// with none (tc nil) those operations answer 503 and /readyz checks the database only.
func NewAPI(cfg Config, st *stores.Set, keys *models.Keyring, tc client.Client, log *slog.Logger) *api.Server {
	cursorKey, _ := keys.DeriveKey(keys.Current(), "list cursors")
	deps := api.Deps{
		Logger:       log,
		Identity:     st,
		Modules:      modules(st),
		Tokens:       authn.NewTokens(keys, tokenIssuer, tokenAudience),
		Tenants:      st,
		Authorizer:   authz.NewAuthorizer(st),
		Applications: st,
		SurveyLinks:  st,
		Brands:       st,
		Hosts:        st,
		Origins:      st,
		Idempotency:  st,
		RateLimiter:  st,
		Webhooks:     api.WebhookDeps{Keyring: keys, AllowedNetworks: cfg.WebhookAllowedNetworks},
		Readiness:    []api.ReadinessCheck{{Name: "database", Check: st.Ping}},
		Blobs:        cfg.Blobs,
		Certificates: authn.NewCertificates(keys),
		Rails:        api.RailDeps{Store: st},
	}
	deps.Rails.Stripe, _, _ = cfg.Rails()
	if cfg.Blobs != nil {
		deps.Readiness = append(deps.Readiness, api.ReadinessCheck{Name: "blobs", Check: cfg.Blobs.Ping})
	}
	cfg.Telemetry.apiDeps(&deps)
	if tc != nil {
		deps.Payouts = &worker.PayoutSignals{Client: tc}
		deps.Runs = &worker.RunCancels{Client: tc}
		deps.Health = &worker.HealthRuns{Client: tc}
		deps.Webhooks.Starter = &worker.WebhookStarter{Client: tc}
		deps.Domains = &worker.DomainStarter{Client: tc}
		deps.Readiness = append(deps.Readiness, api.ReadinessCheck{Name: "temporal", Check: func(ctx context.Context) error {
			_, err := tc.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		}})
	}
	return api.New(api.Config{
		Version:        cfg.Version,
		TrustedProxies: cfg.TrustedProxies,
		OwnHosts:       cfg.OwnHosts,
		CursorKey:      cursorKey,
		SignupEnabled:  cfg.Signup,
		Console:        console(cfg.ConsoleDir),
		RateLimits:     cfg.RateLimits,
	}, deps)
}

// console is the web console the API serves: the directory dir when one is named, else the
// built-in one.
func console(dir string) fs.FS {
	if dir != "" {
		return os.DirFS(dir)
	}
	return web.Console()
}

// modules gives the API each module's store as one principal sees it: the module's own scoped
// store where the module has a package of its own, else the store set's.
func modules(st *stores.Set) api.Modules {
	return api.Modules{
		APIKeys:        func(p *models.Principal) api.KeyStore { return st.Identity.For(p) },
		Audit:          func(p *models.Principal) api.AuditStore { return st.Identity.For(p) },
		People:         func(p *models.Principal) api.PeopleStore { return st.Identity.For(p) },
		Partners:       func(p *models.Principal) api.PartnerStore { return st.Partners.For(p) },
		Roles:          func(p *models.Principal) api.RoleStore { return st.Identity.For(p) },
		Tenant:         func(p *models.Principal) api.TenantStore { return st.Store.For(p) },
		Events:         func(p *models.Principal) api.EventsStore { return st.Customers.For(p) },
		Customers:      func(p *models.Principal) api.CustomerStore { return st.Customers.For(p) },
		Webhooks:       func(p *models.Principal) api.WebhookStore { return st.Webhooks.For(p) },
		Metrics:        func(p *models.Principal) api.MetricStore { return st.Metrics.For(p) },
		Dashboards:     func(p *models.Principal) api.DashboardStore { return st.Metrics.For(p) },
		Deals:          func(p *models.Principal) api.DealStore { return st.Deals.For(p) },
		Tasks:          func(p *models.Principal) api.TaskStore { return st.Onboarding.For(p) },
		Desk:           func(p *models.Principal) api.DeskStore { return st.Desk.For(p) },
		Levels:         func(p *models.Principal) api.LevelStore { return st.Partners.For(p) },
		Applications:   func(p *models.Principal) api.ApplicationStore { return st.Onboarding.For(p) },
		Mail:           func(p *models.Principal) api.MailStore { return st.Mail.For(p) },
		Commissions:    func(p *models.Principal) api.CommissionStore { return st.Money.For(p) },
		Ledger:         func(p *models.Principal) api.LedgerStore { return st.Money.For(p) },
		Withdrawals:    func(p *models.Principal) api.WithdrawalStore { return st.Money.For(p) },
		Playbooks:      func(p *models.Principal) api.PlaybookStore { return st.Playbooks.For(p) },
		Content:        func(p *models.Principal) api.ContentStore { return st.Content.For(p) },
		Agreements:     func(p *models.Principal) api.AgreementStore { return st.Agreements.For(p) },
		Surveys:        func(p *models.Principal) api.SurveyStore { return st.Surveys.For(p) },
		Tax:            func(p *models.Principal) api.TaxStore { return st.Money.For(p) },
		MDF:            func(p *models.Principal) api.MDFStore { return st.Money.For(p) },
		Certifications: func(p *models.Principal) api.CertificationStore { return st.Certifications.For(p) },
		Branding:       func(p *models.Principal) api.BrandingStore { return st.Branding.For(p) },
		Domains:        func(p *models.Principal) api.DomainStore { return st.Domains.For(p) },
		Health:         func(p *models.Principal) api.HealthStore { return st.Health.For(p) },
	}
}

// Dispatcher starts the fan-out of the events the store set writes. Install its Dispatch on the
// store set (SetDispatcher) so that events reach their fan-out right after commit; the outbox
// relay starts what it misses.
func Dispatcher(st *stores.Set, tc client.Client, log *slog.Logger) *worker.Dispatcher {
	return &worker.Dispatcher{Client: tc, Outbox: st, Log: log}
}

// WorkerDeps builds the worker's activities; d starts fan-outs found by the outbox relay.
// Email goes out through sender.
func WorkerDeps(cfg Config, keys *models.Keyring, st *stores.Set, d *worker.Dispatcher, sender activities.Sender) worker.Deps {
	hooks := &activities.Webhooks{
		Store:           st,
		Keyring:         keys,
		Schedule:        cfg.WebhookRetrySchedule,
		DisableAfter:    cfg.WebhookDisableAfter,
		AllowedNetworks: cfg.WebhookAllowedNetworks,
	}
	mail := &activities.Mail{Sender: sender, Store: st, Agreements: st, Surveys: st, PublicURL: cfg.PublicURL}
	var observer activities.Observer
	if cfg.Telemetry.Metrics != nil {
		observer = cfg.Telemetry.Metrics
		hooks.Observer = observer
	}
	stripeClient, paypalClient, wiseClient := cfg.Rails()
	return worker.Deps{
		System:         &activities.System{DB: st, Version: cfg.Version},
		Events:         &activities.Events{Store: st, Starter: d},
		Deals:          &activities.Deals{Store: st},
		Levels:         &activities.Levels{Store: st},
		Certifications: &activities.Certifications{Store: st},
		MDF:            &activities.MDF{Store: st},
		Mail:           mail,
		Webhooks:       hooks,
		// Payouts to an http provider and playbook webhook calls go through the webhooks'
		// address guard.
		Money: &activities.Money{Store: st, Keyring: keys, Observer: observer, Providers: map[string]activities.PayoutProvider{
			models.ProviderHTTP: &activities.HTTPProvider{HTTP: activities.GuardedClient(hooks)},
		}, Rails: map[string]activities.PayoutRail{
			models.ProviderStripe: &activities.StripeRail{Client: stripeClient},
			models.ProviderPayPal: &activities.PayPalRail{Client: paypalClient},
			models.ProviderWise:   &activities.WiseRail{Client: wiseClient},
		}},
		Playbooks: &activities.Playbooks{Store: st, Mail: mail, HTTP: activities.GuardedClient(hooks), Keyring: keys, Observer: observer},
		Desk:      &activities.Desk{Store: st.Desk},
		Domains:   &activities.Domains{Store: st, Resolver: activities.DNSResolver{Server: cfg.DNSResolver}},
		Health:    &activities.Health{Store: st.Health},
	}
}

// CreateTenant opens a tenant with its owner, who signs in with password.
func CreateTenant(ctx context.Context, st *stores.Set, tenant *models.Tenant, owner *models.User, password string) error {
	hash, err := authn.HashPassword(password)
	if err != nil {
		return err
	}
	owner.PasswordHash = hash
	return st.CreateTenant(ctx, tenant, owner)
}

// CreateMachineKey creates a machine key named name in the scope's tenant, holding the given
// permissions, and returns the key, which is shown this once.
func CreateMachineKey(ctx context.Context, sc *stores.Scoped, name string, permissions ...string) (string, error) {
	for _, p := range permissions {
		if !authz.Known(authz.Permission(p)) {
			return "", fmt.Errorf("machine key %s: unknown permission %q", name, p)
		}
	}
	k, err := authn.NewMachineKey()
	if err != nil {
		return "", err
	}
	scopes, _ := json.Marshal(permissions)
	if err := sc.CreateAPIKey(ctx, &models.APIKey{Name: name, LookupID: k.LookupID, Hash: k.Hash, Scopes: string(scopes)}); err != nil {
		return "", err
	}
	return k.Plaintext, nil
}
