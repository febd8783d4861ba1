// Package storetest runs one test body against every database engine the store supports: the
// embedded SQLite file always, and Postgres when PARTNERD_TEST_DATABASE_URL names a server.
// With CI=true a missing or unreachable Postgres fails the test instead of skipping it.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
)

// PostgresEnv names the variable holding the Postgres server used by tests.
const PostgresEnv = "PARTNERD_TEST_DATABASE_URL"

// Engine is one database a test can run on.
type Engine struct {
	Name string
	open func(t testing.TB) store.Config
}

// Engines lists the engines available to this test run; it fails t in CI when Postgres is
// expected but not configured.
func Engines(t testing.TB) []Engine {
	engines := []Engine{{Name: "sqlite", open: sqliteConfig}}
	if PostgresURL(t) != "" {
		engines = append(engines, Engine{Name: "postgres", open: postgresConfig})
	}
	return engines
}

// PostgresURL is the Postgres server for tests, or "" when tests may skip Postgres.
func PostgresURL(t testing.TB) string {
	u := os.Getenv(PostgresEnv)
	if u == "" && os.Getenv("CI") == "true" {
		t.Fatalf("%s must point at a Postgres server when CI=true", PostgresEnv)
	}
	return u
}

// Run runs fn once per engine, each on a new, empty, migrated database with every module
// store wired to the core store fn receives.
func Run(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	RunSet(t, func(t *testing.T, s *stores.Set) { fn(t, s.Core()) })
}

// RunSet runs fn once per engine, each on a new, empty, migrated database, with every store.
func RunSet(t *testing.T, fn func(t *testing.T, s *stores.Set)) {
	t.Helper()
	for _, e := range Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			fn(t, Open(t, e))
		})
	}
}

// Open returns every store on a new, empty, migrated database of engine e, closed when the
// test ends.
func Open(t testing.TB, e Engine) *stores.Set {
	t.Helper()
	cfg := e.open(t)
	ctx := context.Background()
	s, err := stores.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open %s store: %v", e.Name, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s store: %v", e.Name, err)
	}
	return s
}

// Config returns the connection settings of a new, empty database on engine e without opening it.
func Config(t *testing.T, e Engine) store.Config { return e.open(t) }

func sqliteConfig(t testing.TB) store.Config {
	return store.Config{SQLitePath: filepath.Join(t.TempDir(), "partnerd.db")}
}

// postgresConfig creates a schema of its own for the test, so tests run in parallel on one
// database, and drops it when the test ends.
func postgresConfig(t testing.TB) store.Config {
	base := PostgresURL(t)
	admin, err := gorm.Open(postgres.Open(base), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatalf("connect to Postgres at %s: %v", store.RedactURL(base), err)
	}
	sqlDB, err := admin.DB()
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlDB.Ping(); err != nil {
		t.Fatalf("Postgres at %s is unreachable: %v", store.RedactURL(base), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_ = admin.Exec("DROP SCHEMA " + schema + " CASCADE").Error
		_ = sqlDB.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return store.Config{URL: u.String()}
}

// Tenant creates a tenant with an owner and returns the owner as a principal.
func Tenant(t testing.TB, s *store.Store, slug string) *models.Principal {
	t.Helper()
	tenant := &models.Tenant{Slug: slug, Name: slug}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner"}
	if err := s.CreateTenant(context.Background(), tenant, owner); err != nil {
		t.Fatal(err)
	}
	return &models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID}
}

// BenchPostgres opens a migrated store in a schema of its own on the test Postgres server, and
// a raw gorm handle on the same schema; it skips without PARTNERD_TEST_DATABASE_URL.
func BenchPostgres(b *testing.B) (*stores.Set, *gorm.DB) {
	b.Helper()
	base := PostgresURL(b)
	if base == "" {
		b.Skipf("%s is not set", PostgresEnv)
	}
	admin, err := gorm.Open(postgres.Open(base), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		b.Fatal(err)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	schema := "bench_" + hex.EncodeToString(r[:])
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	ctx := context.Background()
	st, err := stores.Open(ctx, store.Config{URL: u.String()})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := gorm.Open(postgres.Open(u.String()), &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		b.Fatal(err)
	}
	sqlDB, _ := raw.DB()
	sqlDB.SetMaxOpenConns(32)
	sqlDB.SetMaxIdleConns(32)
	b.Cleanup(func() {
		_ = st.Close()
		_ = sqlDB.Close()
		_ = admin.Exec("DROP SCHEMA " + schema + " CASCADE").Error
		if d, err := admin.DB(); err == nil {
			_ = d.Close()
		}
	})
	if err := st.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	return st, raw
}

// Code is the code of a domain error, the text of another error, or "" without one.
func Code(err error) string {
	if e, ok := models.AsError(err); ok {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// Recorder is an event dispatcher that remembers what it was handed.
type Recorder struct {
	mu   sync.Mutex
	refs []models.EventRef
}

// Dispatch records refs; install it with Store.SetDispatcher.
func (r *Recorder) Dispatch(_ context.Context, refs []models.EventRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs = append(r.refs, refs...)
}

// Refs are the events handed over so far.
func (r *Recorder) Refs() []models.EventRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.refs)
}

// Types are the types of the events handed over so far, in order.
func (r *Recorder) Types() []string {
	var out []string
	for _, ref := range r.Refs() {
		out = append(out, ref.Type)
	}
	return out
}

// Reset forgets what was handed over.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs = nil
}
