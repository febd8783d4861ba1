package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/internal/autotls"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig("serve", nil, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || filepath.Base(c.DataDir) != ".data" || c.TemporalPort != 7233 ||
		c.Env != envDevelopment || c.LogFormat != "text" || c.DatabaseURL != "" || c.TemporalAddress != "" {
		t.Fatalf("defaults = %+v", c)
	}
	if len(c.WebhookRetrySchedule) != 8 || c.WebhookRetrySchedule[2] != 5*time.Minute || c.WebhookDisableAfter != 120*time.Hour || len(c.WebhookAllowedNetworks) != 0 {
		t.Fatalf("webhook defaults = %v %v %v", c.WebhookRetrySchedule, c.WebhookDisableAfter, c.WebhookAllowedNetworks)
	}
}

func TestConfigFlagsWinOverEnvironment(t *testing.T) {
	c, err := loadConfig("serve", []string{"-http-addr", "127.0.0.1:9999"}, envOf(map[string]string{
		"PARTNERD_HTTP_ADDR": "127.0.0.1:7777", "PARTNERD_TEMPORAL_PORT": "17233",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:9999" || c.TemporalPort != 17233 {
		t.Fatalf("http %s temporal port %d", c.HTTPAddr, c.TemporalPort)
	}
}

func TestConfigReportsEveryBadValueWithItsVariable(t *testing.T) {
	_, err := loadConfig("serve", nil, envOf(map[string]string{
		"PARTNERD_ENV":                      "staging",
		"PARTNERD_HTTP_ADDR":                "localhost",
		"DATABASE_URL":                      "mysql://root:hunter2@db/x",
		"TEMPORAL_ADDRESS":                  "temporal",
		"PARTNERD_TEMPORAL_PORT":            "70000",
		"PARTNERD_SECRET_KEY":               base64.StdEncoding.EncodeToString([]byte("too short")),
		"PARTNERD_LOG_LEVEL":                "loud",
		"PARTNERD_BOOTSTRAP_EMAIL":          "not-an-email",
		"PARTNERD_BOOTSTRAP_PASSWORD":       "short",
		"PARTNERD_TRUSTED_PROXIES":          "10.0.0.0/8, proxy.local",
		"PARTNERD_SHUTDOWN_TIMEOUT":         "-1s",
		"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1",
		"PARTNERD_WEBHOOK_RETRY_SCHEDULE":   "0s,soon",
		"PARTNERD_WEBHOOK_DISABLE_AFTER":    "0s",
	}), io.Discard)
	if err == nil {
		t.Fatal("bad configuration accepted")
	}
	msg := err.Error()
	for _, name := range []string{"PARTNERD_ENV", "PARTNERD_HTTP_ADDR", "DATABASE_URL", "TEMPORAL_ADDRESS", "PARTNERD_TEMPORAL_PORT",
		"PARTNERD_SECRET_KEY", "PARTNERD_LOG_LEVEL", "PARTNERD_BOOTSTRAP_EMAIL", "PARTNERD_BOOTSTRAP_PASSWORD",
		"PARTNERD_TRUSTED_PROXIES", "PARTNERD_SHUTDOWN_TIMEOUT", "PARTNERD_WEBHOOK_ALLOWED_NETWORKS",
		"PARTNERD_WEBHOOK_RETRY_SCHEDULE", "PARTNERD_WEBHOOK_DISABLE_AFTER"} {
		if !strings.Contains(msg, name+":") {
			t.Errorf("the error does not name %s:\n%s", name, msg)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Fatalf("the error leaks the database password:\n%s", msg)
	}
}

func TestProductionRefusesEmbeddedDefaultsUnlessAllowed(t *testing.T) {
	_, err := loadConfig("serve", nil, envOf(map[string]string{"PARTNERD_ENV": "production"}), io.Discard)
	if err == nil {
		t.Fatal("production started on embedded defaults")
	}
	for _, name := range []string{"DATABASE_URL", "TEMPORAL_ADDRESS", "PARTNERD_SECRET_KEY"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the refusal does not name %s: %v", name, err)
		}
	}

	c, err := loadConfig("serve", nil, envOf(map[string]string{"PARTNERD_ENV": "production", "PARTNERD_ALLOW_EMBEDDED": "true"}), io.Discard)
	if err != nil {
		t.Fatalf("explicitly allowed embedded defaults were refused: %v", err)
	}
	if c.LogFormat != "json" {
		t.Fatalf("production logs as %s, want json", c.LogFormat)
	}

	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	if _, err := loadConfig("serve", nil, envOf(map[string]string{
		"PARTNERD_ENV": "production", "PARTNERD_SECRET_KEY": key,
		"DATABASE_URL": "postgres://db.internal/partnerd", "TEMPORAL_ADDRESS": "temporal.internal:7233",
	}), io.Discard); err != nil {
		t.Fatalf("a complete production configuration was refused: %v", err)
	}
}

func TestDevelopmentSecretKeyIsGeneratedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	c := config{DataDir: dir}
	first, err := resolveSecretKey(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 {
		t.Fatalf("key has %d bytes", len(first))
	}
	info, err := os.Stat(secretKeyFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", info.Mode().Perm())
	}
	second, err := resolveSecretKey(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(second) {
		t.Fatal("a second start made a new key")
	}
	configured := make([]byte, 32)
	configured[0] = 7
	got, _ := resolveSecretKey(config{DataDir: dir, SecretKey: configured})
	if got[0] != 7 {
		t.Fatal("a configured key did not win over the file")
	}
}

func TestSecretKeysRotateWithVersions(t *testing.T) {
	k1 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32))
	k2 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{2}, 32))
	c, err := loadConfig("serve", nil, envOf(map[string]string{
		"PARTNERD_SECRET_KEY": "v2:" + k2, "PARTNERD_RETIRED_SECRET_KEYS": "v1:" + k1,
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := keyring(c)
	if err != nil {
		t.Fatal(err)
	}
	if ring.Current() != 2 || len(ring.Versions()) != 2 {
		t.Fatalf("keyring current %d versions %v", ring.Current(), ring.Versions())
	}
	for name, env := range map[string]map[string]string{
		"a retired key without version":          {"PARTNERD_SECRET_KEY": k2, "PARTNERD_RETIRED_SECRET_KEYS": k1},
		"a retired key with the current version": {"PARTNERD_SECRET_KEY": "v1:" + k2, "PARTNERD_RETIRED_SECRET_KEYS": "v1:" + k1},
		"a bad version":                          {"PARTNERD_SECRET_KEY": "vx:" + k2},
	} {
		if _, err := loadConfig("serve", nil, envOf(env), io.Discard); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
}

// On-demand TLS is off by default; on, it needs host routing and reads the ACME settings.
func TestOnDemandTLSSettings(t *testing.T) {
	c, err := loadConfig("serve", []string{"-data-dir", "/var/lib/partnerd"}, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.TLS.On() || c.TLS.CA != autotls.LetsEncrypt || c.TLS.StorageDir != "/var/lib/partnerd/acme" {
		t.Fatalf("defaults: %+v", c.TLS)
	}
	_, err = loadConfig("serve", nil, envOf(map[string]string{"PARTNERD_TLS_ADDR": ":443"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "PARTNERD_TLS_ADDR") || !strings.Contains(err.Error(), "PARTNERD_OWN_HOSTS") {
		t.Fatalf("TLS without host routing: %v", err)
	}
	c, err = loadConfig("serve", nil, envOf(map[string]string{
		"PARTNERD_OWN_HOSTS": "app.partnerd.example", "PARTNERD_TLS_ADDR": ":443", "PARTNERD_ACME_EMAIL": "ops@partnerd.example",
		"PARTNERD_ACME_CA": "https://acme-staging-v02.api.letsencrypt.org/directory", "PARTNERD_ACME_STORAGE": "/shared/acme",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !c.TLS.On() || c.TLS.Addr != ":443" || c.TLS.Email != "ops@partnerd.example" || c.TLS.StorageDir != "/shared/acme" ||
		c.TLS.CA != "https://acme-staging-v02.api.letsencrypt.org/directory" {
		t.Fatalf("on: %+v", c.TLS)
	}
	for env, v := range map[string]string{"PARTNERD_ACME_CA": "http://ca.example/dir", "PARTNERD_ACME_EMAIL": "nope", "PARTNERD_ACME_CA_ROOTS": "/no/such/file.pem"} {
		if _, err := loadConfig("serve", nil, envOf(map[string]string{env: v}), io.Discard); err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("%s=%s: %v", env, v, err)
		}
	}
}
