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

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/internal/app"
	pdmail "github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
)

// Environment names.
const (
	envDevelopment = "development"
	envProduction  = "production"
)

// config is every setting of the process, from flags and environment variables.
type config struct {
	Env               string
	HTTPAddr          string
	PublicURL         string
	DataDir           string
	DatabaseURL       string
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
	ShutdownTimeout   time.Duration
	Signup            bool
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
}

// defaultWebhookSchedule is the Svix schedule of CONVENTIONS.md.
const defaultWebhookSchedule = "0s,5s,5m,30m,2h,5h,10h,10h"

// setting is one configurable value: its flag, its environment variable and its default.
type setting struct {
	flag, env, def, usage string
}

var settings = []setting{
	{"env", "PARTNERD_ENV", envDevelopment, "development or production"},
	{"http-addr", "PARTNERD_HTTP_ADDR", "127.0.0.1:8080", "host:port the HTTP API listens on"},
	{"public-url", "PARTNERD_PUBLIC_URL", "", "external base URL printed and used in links (default http://<http-addr>)"},
	{"data-dir", "PARTNERD_DATA_DIR", ".data", "directory of the embedded database, the embedded Temporal server and the dev secret key"},
	{"database-url", "DATABASE_URL", "", "postgres:// URL; empty uses the embedded SQLite database"},
	{"temporal-address", "TEMPORAL_ADDRESS", "", "host:port of a Temporal frontend; empty starts the embedded server"},
	{"temporal-namespace", "TEMPORAL_NAMESPACE", "default", "Temporal namespace"},
	{"temporal-port", "PARTNERD_TEMPORAL_PORT", "7233", "frontend port of the embedded Temporal server"},
	{"secret-key", "PARTNERD_SECRET_KEY", "", "[vN:]base64 of 32 random bytes (version N, default 1); generated into the data directory in development"},
	{"retired-secret-keys", "PARTNERD_RETIRED_SECRET_KEYS", "", "comma-separated vN:base64 keys that still open sealed secrets and verify tokens after a rotation"},
	{"allow-embedded", "PARTNERD_ALLOW_EMBEDDED", "false", "allow the embedded database, Temporal server and generated key in production"},
	{"log-level", "PARTNERD_LOG_LEVEL", "info", "debug, info, warn or error"},
	{"log-format", "PARTNERD_LOG_FORMAT", "", "text or json (default: json in production, text otherwise)"},
	{"bootstrap-email", "PARTNERD_BOOTSTRAP_EMAIL", "owner@demo.partnerd.test", "email of the demo tenant's owner, created on an empty database"},
	{"bootstrap-password", "PARTNERD_BOOTSTRAP_PASSWORD", "", "password of that owner (default: generated and printed once)"},
	{"trusted-proxies", "PARTNERD_TRUSTED_PROXIES", "", "comma-separated IPs or CIDRs whose X-Forwarded-For is believed"},
	{"shutdown-timeout", "PARTNERD_SHUTDOWN_TIMEOUT", "20s", "how long SIGTERM waits for requests and workflows to drain"},
	{"signup", "PARTNERD_SIGNUP", "true", "allow anyone to open a tenant with POST /api/signup"},
	{"webhook-allowed-networks", "PARTNERD_WEBHOOK_ALLOWED_NETWORKS", "", "comma-separated CIDRs of private or loopback networks webhook deliveries may reach (none by default)"},
	{"webhook-retry-schedule", "PARTNERD_WEBHOOK_RETRY_SCHEDULE", defaultWebhookSchedule, "comma-separated waits before each webhook delivery attempt"},
	{"webhook-disable-after", "PARTNERD_WEBHOOK_DISABLE_AFTER", "120h", "how long a webhook endpoint may keep failing before it is disabled"},
	{"smtp-url", "PARTNERD_SMTP_URL", "", "smtp://user:pass@host:587?tls=starttls|tls|none&from=addr; empty keeps email in the outbox, unsent"},
	{"mail-from", "PARTNERD_MAIL_FROM", "", "sender of outgoing email, e.g. 'Acme Partners <partners@acme.com>' (default: from= of the SMTP URL)"},
}

// loadConfig reads flags (which win) and environment variables (then defaults), and checks
// every value, reporting each bad one with the variable that set it.
func loadConfig(name string, args []string, getenv func(string) string, usageOut io.Writer) (config, error) {
	fs := flag.NewFlagSet("partnerd "+name, flag.ContinueOnError)
	fs.SetOutput(usageOut)
	values := map[string]*string{}
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		values[s.env] = fs.String(s.flag, def, s.usage+" ($"+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	get := func(env string) string { return strings.TrimSpace(*values[env]) }

	var errs []error
	bad := func(env, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", env, fmt.Sprintf(format, args...)))
	}
	var c config

	switch c.Env = get("PARTNERD_ENV"); c.Env {
	case envDevelopment, envProduction:
	case "dev":
		c.Env = envDevelopment
	case "prod":
		c.Env = envProduction
	default:
		bad("PARTNERD_ENV", "%q is not development or production", c.Env)
	}

	c.HTTPAddr = get("PARTNERD_HTTP_ADDR")
	if _, port, err := net.SplitHostPort(c.HTTPAddr); err != nil || !validPort(port, true) {
		bad("PARTNERD_HTTP_ADDR", "%q is not host:port", c.HTTPAddr)
	}
	c.PublicURL = strings.TrimRight(get("PARTNERD_PUBLIC_URL"), "/")
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("PARTNERD_PUBLIC_URL", "%q is not an http(s) URL", c.PublicURL)
		}
	}

	c.DataDir = get("PARTNERD_DATA_DIR")
	if c.DataDir == "" {
		bad("PARTNERD_DATA_DIR", "must not be empty")
	} else if abs, err := filepath.Abs(c.DataDir); err == nil {
		c.DataDir = abs
	}

	c.DatabaseURL = get("DATABASE_URL")
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			bad("DATABASE_URL", "must be a postgres:// URL with a host (got %s)", redactedURL(c.DatabaseURL))
		}
	}

	c.TemporalAddress = get("TEMPORAL_ADDRESS")
	if c.TemporalAddress != "" {
		if _, port, err := net.SplitHostPort(c.TemporalAddress); err != nil || !validPort(port, false) {
			bad("TEMPORAL_ADDRESS", "%q is not host:port", c.TemporalAddress)
		}
	}
	if c.TemporalNamespace = get("TEMPORAL_NAMESPACE"); c.TemporalNamespace == "" {
		bad("TEMPORAL_NAMESPACE", "must not be empty")
	}
	port, err := strconv.Atoi(get("PARTNERD_TEMPORAL_PORT"))
	if err != nil || port < 1 || port > 65535 {
		bad("PARTNERD_TEMPORAL_PORT", "%q is not a port number (1-65535)", get("PARTNERD_TEMPORAL_PORT"))
	}
	c.TemporalPort = port

	c.SecretKeyVersion = 1
	if raw := get("PARTNERD_SECRET_KEY"); raw != "" {
		v, key, err := decodeVersionedKey(raw, 1)
		if err != nil {
			bad("PARTNERD_SECRET_KEY", "%v", err)
		}
		c.SecretKey, c.SecretKeyVersion = key, v
	}
	c.RetiredKeys = map[int][]byte{}
	for raw := range strings.SplitSeq(get("PARTNERD_RETIRED_SECRET_KEYS"), ",") {
		if raw = strings.TrimSpace(raw); raw == "" {
			continue
		}
		if !strings.HasPrefix(raw, "v") {
			bad("PARTNERD_RETIRED_SECRET_KEYS", "each key needs its version, as vN:base64")
			continue
		}
		v, key, err := decodeVersionedKey(raw, 0)
		switch {
		case err != nil:
			bad("PARTNERD_RETIRED_SECRET_KEYS", "%v", err)
		case v == c.SecretKeyVersion:
			bad("PARTNERD_RETIRED_SECRET_KEYS", "version %d is the current key's version", v)
		default:
			c.RetiredKeys[v] = key
		}
	}
	if c.AllowEmbedded, err = strconv.ParseBool(get("PARTNERD_ALLOW_EMBEDDED")); err != nil {
		bad("PARTNERD_ALLOW_EMBEDDED", "%q is not true or false", get("PARTNERD_ALLOW_EMBEDDED"))
	}

	if err := c.LogLevel.UnmarshalText([]byte(get("PARTNERD_LOG_LEVEL"))); err != nil {
		bad("PARTNERD_LOG_LEVEL", "%q is not debug, info, warn or error", get("PARTNERD_LOG_LEVEL"))
	}
	switch c.LogFormat = get("PARTNERD_LOG_FORMAT"); c.LogFormat {
	case "text", "json":
	case "":
		c.LogFormat = "text"
		if c.Env == envProduction {
			c.LogFormat = "json"
		}
	default:
		bad("PARTNERD_LOG_FORMAT", "%q is not text or json", c.LogFormat)
	}

	c.BootstrapEmail = get("PARTNERD_BOOTSTRAP_EMAIL")
	if a, err := mail.ParseAddress(c.BootstrapEmail); err != nil || a.Address != c.BootstrapEmail {
		bad("PARTNERD_BOOTSTRAP_EMAIL", "%q is not an email address", c.BootstrapEmail)
	}
	c.BootstrapPassword = *values["PARTNERD_BOOTSTRAP_PASSWORD"] // spaces are part of a password
	if c.BootstrapPassword != "" && len([]rune(c.BootstrapPassword)) < authn.MinPasswordLength {
		bad("PARTNERD_BOOTSTRAP_PASSWORD", "must be at least %d characters", authn.MinPasswordLength)
	}

	for p := range strings.SplitSeq(get("PARTNERD_TRUSTED_PROXIES"), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				bad("PARTNERD_TRUSTED_PROXIES", "%q is not an IP address or CIDR", p)
			}
		}
		c.TrustedProxies = append(c.TrustedProxies, p)
	}
	if c.ShutdownTimeout, err = time.ParseDuration(get("PARTNERD_SHUTDOWN_TIMEOUT")); err != nil || c.ShutdownTimeout <= 0 {
		bad("PARTNERD_SHUTDOWN_TIMEOUT", "%q is not a positive duration such as 20s", get("PARTNERD_SHUTDOWN_TIMEOUT"))
	}

	if c.Signup, err = strconv.ParseBool(get("PARTNERD_SIGNUP")); err != nil {
		bad("PARTNERD_SIGNUP", "%q is not true or false", get("PARTNERD_SIGNUP"))
	}

	for n := range strings.SplitSeq(get("PARTNERD_WEBHOOK_ALLOWED_NETWORKS"), ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(n)
		if err != nil {
			bad("PARTNERD_WEBHOOK_ALLOWED_NETWORKS", "%q is not a CIDR such as 127.0.0.0/8", n)
			continue
		}
		c.WebhookAllowedNetworks = append(c.WebhookAllowedNetworks, prefix.Masked())
	}
	for w := range strings.SplitSeq(get("PARTNERD_WEBHOOK_RETRY_SCHEDULE"), ",") {
		d, err := time.ParseDuration(strings.TrimSpace(w))
		if err != nil || d < 0 {
			bad("PARTNERD_WEBHOOK_RETRY_SCHEDULE", "%q is not a duration such as 5m", w)
			continue
		}
		c.WebhookRetrySchedule = append(c.WebhookRetrySchedule, d)
	}
	if len(c.WebhookRetrySchedule) > 20 {
		bad("PARTNERD_WEBHOOK_RETRY_SCHEDULE", "at most 20 attempts")
	}
	if c.WebhookDisableAfter, err = time.ParseDuration(get("PARTNERD_WEBHOOK_DISABLE_AFTER")); err != nil || c.WebhookDisableAfter <= 0 {
		bad("PARTNERD_WEBHOOK_DISABLE_AFTER", "%q is not a positive duration such as 120h", get("PARTNERD_WEBHOOK_DISABLE_AFTER"))
	}

	c.MailFrom = get("PARTNERD_MAIL_FROM")
	fromOK := true
	if c.MailFrom != "" {
		if _, err := models.ParseMailAddress(c.MailFrom); err != nil {
			bad("PARTNERD_MAIL_FROM", "%q %v", c.MailFrom, err)
			fromOK = false
		}
	}
	if raw := get("PARTNERD_SMTP_URL"); raw != "" && fromOK {
		smtpCfg, err := pdmail.ParseSMTPURL(raw)
		if err != nil {
			bad("PARTNERD_SMTP_URL", "%v", err)
		} else {
			if c.MailFrom != "" {
				smtpCfg.From = c.MailFrom
			}
			c.MailFrom = smtpCfg.From
			if smtpCfg.From == "" {
				bad("PARTNERD_MAIL_FROM", "sending over SMTP needs a sender: set PARTNERD_MAIL_FROM or from= in PARTNERD_SMTP_URL")
			} else if c.SMTP, err = pdmail.NewSMTP(smtpCfg); err != nil {
				bad("PARTNERD_SMTP_URL", "%v", err)
			}
		}
	}
	if c.MailFrom == "" {
		c.MailFrom = pdmail.DefaultFrom
	}

	if c.Env == envProduction && !c.AllowEmbedded {
		if c.DatabaseURL == "" {
			bad("DATABASE_URL", "production needs Postgres; the embedded database is refused unless PARTNERD_ALLOW_EMBEDDED=true")
		}
		if c.TemporalAddress == "" && name == "serve" {
			bad("TEMPORAL_ADDRESS", "production needs a Temporal cluster; the embedded server is refused unless PARTNERD_ALLOW_EMBEDDED=true")
		}
		if c.SecretKey == nil {
			bad("PARTNERD_SECRET_KEY", "production needs a secret key; a generated one is refused unless PARTNERD_ALLOW_EMBEDDED=true")
		}
	}
	if err := errors.Join(errs...); err != nil {
		return config{}, err
	}
	return c, nil
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
