package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/partnerd/partnerd/api"
	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/internal/app"
	"github.com/partnerd/partnerd/internal/autotls"
	pdmail "github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/rails"
	"github.com/partnerd/partnerd/telemetry"
)

// Environment names.
const (
	envDevelopment = "development"
	envProduction  = "production"
)

// config is every setting of the process, from flags and environment variables.
type config struct {
	Env         string
	HTTPAddr    string
	PublicURL   string
	DataDir     string
	DatabaseURL string
	// BlobURL is the bucket of uploaded files; empty is the directory blobs/ in DataDir.
	BlobURL           string
	TemporalAddress   string
	TemporalNamespace string
	TemporalPort      int
	SecretKey         []byte
	SecretKeyVersion  int
	RetiredKeys       map[int][]byte
	AllowEmbedded     bool
	LogLevel          slog.Level
	LogFormat         string
	BootstrapEmail    string
	BootstrapPassword string
	TrustedProxies    []string
	// OwnHosts are the installation's own host names; with them set, other hosts serve only
	// as verified custom domains.
	OwnHosts []string
	// DNSResolver is host:port of the DNS server custom-domain verification asks.
	DNSResolver string
	// TLS is on-demand TLS for verified custom domains; its Addr is "" when it is off.
	TLS autotls.Config
	// StripeURL, PayPalURL and WiseURL are the payout rails' API addresses.
	StripeURL, PayPalURL, WiseURL string
	ShutdownTimeout               time.Duration
	Signup                        bool
	// ConsoleDir serves the web console from this directory instead of the built-in one.
	ConsoleDir string
	// WebhookAllowedNetworks are private or loopback networks webhook deliveries may reach.
	WebhookAllowedNetworks []netip.Prefix
	// WebhookRetrySchedule is the wait before each delivery attempt; WebhookDisableAfter how
	// long an endpoint may fail before it is disabled.
	WebhookRetrySchedule []time.Duration
	WebhookDisableAfter  time.Duration
	// SMTP sends outgoing email; nil keeps messages in the outbox only, unsent.
	SMTP *pdmail.SMTP
	// MailFrom is the sender of outgoing email.
	MailFrom string
	// AdminAddr is where GET /metrics is served; "" serves none.
	AdminAddr string
	// MetricsOnAPI serves GET /metrics on the API listener too.
	MetricsOnAPI bool
	// TracesProtocol is the OTLP protocol spans are exported with (telemetry.ProtocolHTTP or
	// ProtocolGRPC); "" when tracing is off (no OTEL_EXPORTER_OTLP_ENDPOINT).
	TracesProtocol string
	// traceExporter, set by tests, receives every span (tracing on whatever the environment).
	traceExporter sdktrace.SpanExporter
	// RateLimits are the API's quotas (ADR 22).
	RateLimits api.RateLimits
}

// defaultWebhookSchedule is the Svix schedule of CONVENTIONS.md.
const defaultWebhookSchedule = "0s,5s,5m,30m,2h,5h,10h,10h"

// setting is one configurable value: its flag, its environment variable, its default and how
// it is read into the config.
type setting struct {
	flag, env, def, usage string
	// untrimmed keeps the spaces around the value, which are part of it.
	untrimmed bool
	// parse reads v into c and reports each problem with it.
	parse func(c *config, v string, p *problems)
}

// problems collects the bad values of settings, each reported with its variable.
type problems struct {
	errs []error
	// env is the variable of the setting being read.
	env string
}

// bad reports a problem with the setting being read.
func (p *problems) bad(format string, args ...any) { p.badAs(p.env, format, args...) }

// badAs reports a problem with the setting of variable env.
func (p *problems) badAs(env, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s: %s", env, fmt.Sprintf(format, args...)))
}

// settings are read in order: a setting may look at those above it.
var settings = []setting{
	{flag: "env", env: "PARTNERD_ENV", def: envDevelopment, usage: "development or production",
		parse: oneOf(func(c *config) *string { return &c.Env }, "%q is not development or production",
			map[string]string{envDevelopment: envDevelopment, envProduction: envProduction, "dev": envDevelopment, "prod": envProduction})},
	{flag: "http-addr", env: "PARTNERD_HTTP_ADDR", def: "127.0.0.1:8080", usage: "host:port the HTTP API listens on",
		parse: hostPort(func(c *config) *string { return &c.HTTPAddr }, true, true)},
	{flag: "public-url", env: "PARTNERD_PUBLIC_URL", usage: "external base URL printed and used in links (default http://<http-addr>)",
		parse: func(c *config, v string, p *problems) {
			c.PublicURL = strings.TrimRight(v, "/")
			if c.PublicURL == "" {
				return
			}
			if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				p.bad("%q is not an http(s) URL", c.PublicURL)
			}
		}},
	{flag: "data-dir", env: "PARTNERD_DATA_DIR", def: ".data", usage: "directory of the embedded database, the embedded Temporal server and the dev secret key",
		parse: func(c *config, v string, p *problems) {
			if required(func(c *config) *string { return &c.DataDir })(c, v, p); v == "" {
				return
			}
			if abs, err := filepath.Abs(v); err == nil {
				c.DataDir = abs
			}
		}},
	{flag: "blob-url", env: "PARTNERD_BLOB_URL", usage: "bucket of uploaded files: file:///dir, or s3://bucket?region=…&endpoint=… for S3 and S3-compatible stores; empty uses <data-dir>/blobs",
		parse: func(c *config, v string, p *problems) {
			c.BlobURL = v
			if v != "" && !strings.HasPrefix(v, "file://") && !strings.HasPrefix(v, "s3://") && !strings.HasPrefix(v, "mem://") {
				p.bad("%q is not a file://, s3:// or mem:// bucket URL", blobstore.Redact(v))
			}
		}},
	{flag: "database-url", env: "DATABASE_URL", usage: "postgres:// URL; empty uses the embedded SQLite database",
		parse: func(c *config, v string, p *problems) {
			if c.DatabaseURL = v; v == "" {
				return
			}
			if u, err := url.Parse(v); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
				p.bad("must be a postgres:// URL with a host (got %s)", redactedURL(v))
			}
		}},
	{flag: "temporal-address", env: "TEMPORAL_ADDRESS", usage: "host:port of a Temporal frontend; empty starts the embedded server",
		parse: hostPort(func(c *config) *string { return &c.TemporalAddress }, false, false)},
	{flag: "temporal-namespace", env: "TEMPORAL_NAMESPACE", def: "default", usage: "Temporal namespace",
		parse: required(func(c *config) *string { return &c.TemporalNamespace })},
	{flag: "temporal-port", env: "PARTNERD_TEMPORAL_PORT", def: "7233", usage: "frontend port of the embedded Temporal server",
		parse: func(c *config, v string, p *problems) {
			var err error
			if c.TemporalPort, err = strconv.Atoi(v); err != nil || c.TemporalPort < 1 || c.TemporalPort > 65535 {
				p.bad("%q is not a port number (1-65535)", v)
			}
		}},
	{flag: "secret-key", env: "PARTNERD_SECRET_KEY", usage: "[vN:]base64 of 32 random bytes (version N, default 1); generated into the data directory in development",
		parse: func(c *config, v string, p *problems) {
			c.SecretKeyVersion = 1
			if v == "" {
				return
			}
			version, key, err := decodeVersionedKey(v, 1)
			if err != nil {
				p.bad("%v", err)
			}
			c.SecretKey, c.SecretKeyVersion = key, version
		}},
	{flag: "retired-secret-keys", env: "PARTNERD_RETIRED_SECRET_KEYS", usage: "comma-separated vN:base64 keys that still open sealed secrets and verify tokens after a rotation",
		parse: list(func(c *config, raw string, p *problems) {
			if !strings.HasPrefix(raw, "v") {
				p.bad("each key needs its version, as vN:base64")
				return
			}
			v, key, err := decodeVersionedKey(raw, 0)
			switch {
			case err != nil:
				p.bad("%v", err)
			case v == c.SecretKeyVersion:
				p.bad("version %d is the current key's version", v)
			default:
				c.RetiredKeys[v] = key
			}
		})},
	{flag: "allow-embedded", env: "PARTNERD_ALLOW_EMBEDDED", def: "false", usage: "allow the embedded database, Temporal server and generated key in production",
		parse: boolean(func(c *config) *bool { return &c.AllowEmbedded })},
	{flag: "log-level", env: "PARTNERD_LOG_LEVEL", def: "info", usage: "debug, info, warn or error",
		parse: func(c *config, v string, p *problems) {
			if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
				p.bad("%q is not debug, info, warn or error", v)
			}
		}},
	{flag: "log-format", env: "PARTNERD_LOG_FORMAT", usage: "text or json (default: json in production, text otherwise)",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				v = "text"
				if c.Env == envProduction {
					v = "json"
				}
			}
			oneOf(func(c *config) *string { return &c.LogFormat }, "%q is not text or json", map[string]string{"text": "text", "json": "json"})(c, v, p)
		}},
	{flag: "bootstrap-email", env: "PARTNERD_BOOTSTRAP_EMAIL", def: "owner@demo.partnerd.test", usage: "email of the demo tenant's owner, created on an empty database",
		parse: func(c *config, v string, p *problems) {
			if a, err := mail.ParseAddress(v); err != nil || a.Address != v {
				p.bad("%q is not an email address", v)
			}
			c.BootstrapEmail = v
		}},
	{flag: "bootstrap-password", env: "PARTNERD_BOOTSTRAP_PASSWORD", usage: "password of that owner (default: generated and printed once)",
		untrimmed: true, parse: func(c *config, v string, p *problems) {
			if c.BootstrapPassword = v; v != "" && len([]rune(v)) < authn.MinPasswordLength {
				p.bad("must be at least %d characters", authn.MinPasswordLength)
			}
		}},
	{flag: "trusted-proxies", env: "PARTNERD_TRUSTED_PROXIES", usage: "comma-separated IPs or CIDRs whose X-Forwarded-For is believed",
		parse: list(func(c *config, proxy string, p *problems) {
			if _, err := netip.ParsePrefix(proxy); err != nil {
				if _, err := netip.ParseAddr(proxy); err != nil {
					p.bad("%q is not an IP address or CIDR", proxy)
				}
			}
			c.TrustedProxies = append(c.TrustedProxies, proxy)
		})},
	{flag: "own-hosts", env: "PARTNERD_OWN_HOSTS", usage: "comma-separated host names of the installation itself; when set, any other host serves only as a verified custom domain (else 421); empty turns host routing off",
		parse: list(func(c *config, host string, p *problems) {
			c.OwnHosts = append(c.OwnHosts, host)
		})},
	{flag: "dns-resolver", env: "PARTNERD_DNS_RESOLVER", usage: "host:port of the DNS server custom-domain verification asks for TXT records (default: the first nameserver of /etc/resolv.conf)",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				return
			}
			if _, _, err := net.SplitHostPort(v); err != nil {
				p.bad("%q is not host:port", v)
			}
			c.DNSResolver = v
		}},
	{flag: "tls-addr", env: "PARTNERD_TLS_ADDR", usage: "host:port of a TLS listener for verified custom domains, whose certificates are obtained on demand from an ACME CA (certmagic); needs PARTNERD_OWN_HOSTS; empty (the default) serves no TLS",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				return
			}
			if _, _, err := net.SplitHostPort(v); err != nil {
				p.bad("%q is not host:port", v)
			}
			if len(c.OwnHosts) == 0 {
				p.bad("on-demand TLS serves verified custom domains only: set PARTNERD_OWN_HOSTS (host routing) too")
			}
			c.TLS.Addr = v
		}},
	{flag: "acme-ca", env: "PARTNERD_ACME_CA", def: autotls.LetsEncrypt, usage: "ACME directory URL on-demand TLS obtains certificates from",
		parse: func(c *config, v string, p *problems) {
			if u, err := url.Parse(v); err != nil || u.Scheme != "https" || u.Host == "" {
				p.bad("%q is not an https URL", v)
			}
			c.TLS.CA = v
		}},
	{flag: "acme-email", env: "PARTNERD_ACME_EMAIL", usage: "contact email of the ACME account (optional)",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				return
			}
			if _, err := mail.ParseAddress(v); err != nil {
				p.bad("%q is not an email address", v)
			}
			c.TLS.Email = v
		}},
	{flag: "acme-storage", env: "PARTNERD_ACME_STORAGE", usage: "directory of the ACME account and the certificates (default <data-dir>/acme); share it between processes serving TLS",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				v = filepath.Join(c.DataDir, "acme")
			}
			c.TLS.StorageDir = v
		}},
	{flag: "acme-ca-roots", env: "PARTNERD_ACME_CA_ROOTS", usage: "PEM file of root certificates to trust for the ACME server itself (a private CA); empty trusts the system's",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				return
			}
			if _, err := os.Stat(v); err != nil {
				p.bad("cannot read %s", v)
			}
			c.TLS.CARoots = v
		}},
	{flag: "stripe-api-url", env: "PARTNERD_STRIPE_API_URL", usage: "the Stripe API address payouts and onboarding use (default: Stripe's; tests point it at stripe-mock)",
		parse: railURL(func(c *config) *string { return &c.StripeURL })},
	{flag: "paypal-api-url", env: "PARTNERD_PAYPAL_API_URL", def: rails.PayPalLive, usage: "the PayPal REST API address PayPal payouts use (the sandbox is " + rails.PayPalSandbox + ")",
		parse: railURL(func(c *config) *string { return &c.PayPalURL })},
	{flag: "wise-api-url", env: "PARTNERD_WISE_API_URL", def: rails.WiseLive, usage: "the Wise API address Wise payouts use (the sandbox is " + rails.WiseSandbox + ")",
		parse: railURL(func(c *config) *string { return &c.WiseURL })},
	{flag: "shutdown-timeout", env: "PARTNERD_SHUTDOWN_TIMEOUT", def: "20s", usage: "how long SIGTERM waits for requests and workflows to drain",
		parse: positiveDuration(func(c *config) *time.Duration { return &c.ShutdownTimeout }, "20s")},
	{flag: "signup", env: "PARTNERD_SIGNUP", def: "true", usage: "allow anyone to open a tenant with POST /api/signup",
		parse: boolean(func(c *config) *bool { return &c.Signup })},
	{flag: "console-dir", env: "PARTNERD_CONSOLE_DIR", usage: "serve the web console from this directory (a vite build's output) instead of the built-in one",
		parse: func(c *config, v string, p *problems) {
			if v == "" {
				return
			}
			if st, err := os.Stat(filepath.Join(v, "index.html")); err != nil || st.IsDir() {
				p.bad("%q holds no index.html", v)
				return
			}
			c.ConsoleDir = v
		}},
	{flag: "webhook-allowed-networks", env: "PARTNERD_WEBHOOK_ALLOWED_NETWORKS", usage: "comma-separated CIDRs of private or loopback networks webhook deliveries may reach (none by default)",
		parse: list(func(c *config, n string, p *problems) {
			prefix, err := netip.ParsePrefix(n)
			if err != nil {
				p.bad("%q is not a CIDR such as 127.0.0.0/8", n)
				return
			}
			c.WebhookAllowedNetworks = append(c.WebhookAllowedNetworks, prefix.Masked())
		})},
	{flag: "webhook-retry-schedule", env: "PARTNERD_WEBHOOK_RETRY_SCHEDULE", def: defaultWebhookSchedule, usage: "comma-separated waits before each webhook delivery attempt",
		parse: func(c *config, v string, p *problems) {
			for w := range strings.SplitSeq(v, ",") {
				d, err := time.ParseDuration(strings.TrimSpace(w))
				if err != nil || d < 0 {
					p.bad("%q is not a duration such as 5m", w)
					continue
				}
				c.WebhookRetrySchedule = append(c.WebhookRetrySchedule, d)
			}
			if len(c.WebhookRetrySchedule) > 20 {
				p.bad("at most 20 attempts")
			}
		}},
	{flag: "webhook-disable-after", env: "PARTNERD_WEBHOOK_DISABLE_AFTER", def: "120h", usage: "how long a webhook endpoint may keep failing before it is disabled",
		parse: positiveDuration(func(c *config) *time.Duration { return &c.WebhookDisableAfter }, "120h")},
	{flag: "mail-from", env: "PARTNERD_MAIL_FROM", usage: "sender of outgoing email, e.g. 'Acme Partners <partners@acme.com>' (default: from= of the SMTP URL)",
		parse: func(c *config, v string, p *problems) {
			if c.MailFrom = v; v == "" {
				return
			}
			if _, err := models.ParseMailAddress(v); err != nil {
				p.bad("%q %v", v, err)
			}
		}},
	{flag: "admin-addr", env: "PARTNERD_ADMIN_ADDR", def: "127.0.0.1:9090", usage: "host:port of the admin listener serving GET /metrics (keep it off the public network); off serves none",
		parse: func(c *config, v string, p *problems) {
			if v == "off" {
				return
			}
			hostPort(func(c *config) *string { return &c.AdminAddr }, true, true)(c, v, p)
		}},
	{flag: "metrics-on-api", env: "PARTNERD_METRICS_ON_API", def: "false", usage: "also serve GET /metrics on the API listener",
		parse: boolean(func(c *config) *bool { return &c.MetricsOnAPI })},
	{flag: "smtp-url", env: "PARTNERD_SMTP_URL", usage: "smtp://user:pass@host:587?tls=starttls|tls|none&from=addr; empty keeps email in the outbox, unsent",
		parse: parseSMTP},
	{flag: "rate-limit-machine-key", env: "PARTNERD_RATE_LIMIT_MACHINE_KEY", def: "6000/1m", usage: "requests per window of one machine key (N/window, or off)",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.MachineKey })},
	{flag: "rate-limit-tenant", env: "PARTNERD_RATE_LIMIT_TENANT", def: "30000/1m", usage: "authenticated requests per window of one tenant, its users and keys together (N/window, or off)",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.Tenant })},
	{flag: "rate-limit-login-account-client", env: "PARTNERD_RATE_LIMIT_LOGIN_ACCOUNT_CLIENT", def: "5/15m", usage: "failed sign-ins per window of one account from one client address",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.LoginAccountClient })},
	{flag: "rate-limit-login-client", env: "PARTNERD_RATE_LIMIT_LOGIN_CLIENT", def: "20/15m", usage: "failed sign-ins per window from one client address, any account",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.LoginClient })},
	{flag: "rate-limit-login-account", env: "PARTNERD_RATE_LIMIT_LOGIN_ACCOUNT", def: "100/15m", usage: "failed sign-ins per window of one account from every address",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.LoginAccount })},
	{flag: "rate-limit-signup", env: "PARTNERD_RATE_LIMIT_SIGNUP", def: "5/1h", usage: "sign-ups per window from one client address",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.Signup })},
	{flag: "rate-limit-application", env: "PARTNERD_RATE_LIMIT_APPLICATION", def: "10/1h", usage: "partner applications per window from one client address",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.Application })},
	{flag: "rate-limit-survey-answer", env: "PARTNERD_RATE_LIMIT_SURVEY_ANSWER", def: "60/1h", usage: "survey links read or answered per window from one client address",
		parse: quota(func(l *api.RateLimits) *models.Quota { return &l.SurveyAnswer })},
}

// production lists what production refuses to run on unless PARTNERD_ALLOW_EMBEDDED=true: each
// entry names the setting it reports and, given the command, whether it is missing.
var production = []struct {
	env, message string
	missing      func(c config, command string) bool
}{
	{"DATABASE_URL", "production needs Postgres; the embedded database is refused unless PARTNERD_ALLOW_EMBEDDED=true",
		func(c config, _ string) bool { return c.DatabaseURL == "" }},
	{"TEMPORAL_ADDRESS", "production needs a Temporal cluster; the embedded server is refused unless PARTNERD_ALLOW_EMBEDDED=true",
		func(c config, command string) bool { return c.TemporalAddress == "" && command == "serve" }},
	{"PARTNERD_SECRET_KEY", "production needs a secret key; a generated one is refused unless PARTNERD_ALLOW_EMBEDDED=true",
		func(c config, _ string) bool { return c.SecretKey == nil }},
}

// loadConfig reads flags (which win) and environment variables (then defaults), and checks
// every value, reporting each bad one with the variable that set it.
func loadConfig(name string, args []string, getenv func(string) string, usageOut io.Writer) (config, error) {
	fs := flag.NewFlagSet("partnerd "+name, flag.ContinueOnError)
	fs.SetOutput(usageOut)
	values := make([]*string, len(settings))
	for i, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		values[i] = fs.String(s.flag, def, s.usage+" ($"+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}

	var p problems
	c := config{RetiredKeys: map[int][]byte{}}
	for i, s := range settings {
		v := *values[i]
		if !s.untrimmed {
			v = strings.TrimSpace(v)
		}
		p.env = s.env
		s.parse(&c, v, &p)
	}
	c.TracesProtocol = tracesProtocol(getenv, &p)
	if c.Env == envProduction && !c.AllowEmbedded {
		for _, r := range production {
			if r.missing(c, name) {
				p.badAs(r.env, "%s", r.message)
			}
		}
	}
	if err := errors.Join(p.errs...); err != nil {
		return config{}, err
	}
	return c, nil
}

// tracesProtocol reads the standard OpenTelemetry variables: tracing is on when an OTLP endpoint
// is set (and the SDK is not disabled), with the protocol they name, HTTP/protobuf by default.
func tracesProtocol(getenv func(string) string, p *problems) string {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return ""
	}
	env, proto := "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
	if proto == "" {
		env, proto = "OTEL_EXPORTER_OTLP_PROTOCOL", strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	switch proto {
	case "", telemetry.ProtocolHTTP:
		return telemetry.ProtocolHTTP
	case telemetry.ProtocolGRPC:
		return telemetry.ProtocolGRPC
	}
	p.badAs(env, "%q is not %s or %s", proto, telemetry.ProtocolHTTP, telemetry.ProtocolGRPC)
	return ""
}

// parseSMTP reads the SMTP URL, whose sender PARTNERD_MAIL_FROM overrides, and settles the
// sender of outgoing email. A bad PARTNERD_MAIL_FROM, reported already, leaves SMTP unread.
func parseSMTP(c *config, v string, p *problems) {
	if c.MailFrom != "" {
		if _, err := models.ParseMailAddress(c.MailFrom); err != nil {
			return
		}
	}
	if v != "" {
		smtpCfg, err := pdmail.ParseSMTPURL(v)
		if err != nil {
			p.bad("%v", err)
		} else {
			if c.MailFrom != "" {
				smtpCfg.From = c.MailFrom
			}
			c.MailFrom = smtpCfg.From
			if smtpCfg.From == "" {
				p.badAs("PARTNERD_MAIL_FROM", "sending over SMTP needs a sender: set PARTNERD_MAIL_FROM or from= in PARTNERD_SMTP_URL")
			} else if c.SMTP, err = pdmail.NewSMTP(smtpCfg); err != nil {
				p.bad("%v", err)
			}
		}
	}
	if c.MailFrom == "" {
		c.MailFrom = pdmail.DefaultFrom
	}
}

// oneOf reads one of the names of values into field, as the value it maps to; any other is
// reported with message, which quotes it.
func oneOf(field func(*config) *string, message string, values map[string]string) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		*field(c) = v
		if canonical, ok := values[v]; ok {
			*field(c) = canonical
		} else {
			p.bad(message, v)
		}
	}
}

// quota reads a rate-limit quota ("600/1m" or "off") into field of the rate limits.
func quota(field func(*api.RateLimits) *models.Quota) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		q, err := models.ParseQuota(v)
		if err != nil {
			p.bad("%v", err)
		}
		*field(&c.RateLimits) = q
	}
}

// required reads a value that must not be empty into field.
func required(field func(*config) *string) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		if *field(c) = v; v == "" {
			p.bad("must not be empty")
		}
	}
}

// hostPort reads host:port into field; anyPort allows port 0, and an empty value is allowed
// unless required.
func hostPort(field func(*config) *string, anyPort, required bool) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		if *field(c) = v; v == "" && !required {
			return
		}
		if _, port, err := net.SplitHostPort(v); err != nil || !validPort(port, anyPort) {
			p.bad("%q is not host:port", v)
		}
	}
}

// boolean reads true or false into field.
func boolean(field func(*config) *bool) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		var err error
		if *field(c), err = strconv.ParseBool(v); err != nil {
			p.bad("%q is not true or false", v)
		}
	}
}

// positiveDuration reads a duration above zero, such as example, into field.
func positiveDuration(field func(*config) *time.Duration, example string) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		d, err := time.ParseDuration(v)
		if *field(c) = d; err != nil || d <= 0 {
			p.bad("%q is not a positive duration such as %s", v, example)
		}
	}
}

// list reads each non-blank item of a comma-separated value with item.
func list(item func(c *config, v string, p *problems)) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		for raw := range strings.SplitSeq(v, ",") {
			if raw = strings.TrimSpace(raw); raw != "" {
				item(c, raw, p)
			}
		}
	}
}

func validPort(p string, allowZero bool) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n <= 65535 && (n > 0 || allowZero && n == 0)
}

// decodeVersionedKey reads "vN:base64" or, without a prefix, base64 with version def.
func decodeVersionedKey(raw string, def int) (int, []byte, error) {
	v := def
	if prefix, rest, ok := strings.Cut(raw, ":"); ok && strings.HasPrefix(prefix, "v") {
		n, err := strconv.Atoi(prefix[1:])
		if err != nil || n < 1 {
			return 0, nil, fmt.Errorf("%q is not a key version (v1, v2, ...)", prefix)
		}
		v, raw = n, rest
	}
	key, err := decodeSecretKey(raw)
	return v, key, err
}

// decodeSecretKey accepts 32 bytes in standard or URL-safe base64, with or without padding.
func decodeSecretKey(raw string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(raw); err == nil {
			if len(key) != 32 {
				return nil, fmt.Errorf("decodes to %d bytes, want 32 (make one with: openssl rand -base64 32)", len(key))
			}
			return key, nil
		}
	}
	return nil, errors.New("is not base64 (make one with: openssl rand -base64 32)")
}

func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "an unparseable URL"
	}
	return u.Redacted()
}

// secretKeyFile is where development keeps its generated key.
func secretKeyFile(dataDir string) string { return filepath.Join(dataDir, "secret.key") }

// keyring builds the master keyring: the current key (configured or kept in the data
// directory) and the retired ones.
func keyring(c config) (*models.Keyring, error) {
	current, err := resolveSecretKey(c)
	if err != nil {
		return nil, err
	}
	return app.Keyring(current, c.SecretKeyVersion, c.RetiredKeys)
}

// resolveSecretKey returns the configured key or, when none is set (development, or production
// with embedded defaults allowed), the one kept in the data directory, made on first run.
func resolveSecretKey(c config) ([]byte, error) {
	if c.SecretKey != nil {
		return c.SecretKey, nil
	}
	file := secretKeyFile(c.DataDir)
	if raw, err := os.ReadFile(file); err == nil {
		key, err := decodeSecretKey(strings.TrimSpace(string(raw)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return key, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", file, err)
	}
	defer f.Close()
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		return nil, fmt.Errorf("write %s: %w", file, err)
	}
	return key, nil
}

// railURL parses a payout rail's API address: empty, or an absolute http(s) URL.
func railURL(field func(*config) *string) func(*config, string, *problems) {
	return func(c *config, v string, p *problems) {
		if v == "" {
			return
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.bad("%q is not an http(s) URL", v)
			return
		}
		*field(c) = strings.TrimRight(v, "/")
	}
}
