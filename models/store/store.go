// Package store is the only package that talks to the database: connections, tenant scoping,
// transactions and versioned migrations. It speaks gorm on the inside and models on the outside.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3/gormlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// Dialect names the database engine behind a Store.
type Dialect string

// The supported engines.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Config says which database to open.
type Config struct {
	// URL is a postgres:// or postgresql:// URL; empty means the embedded SQLite database.
	URL string
	// SQLitePath is the embedded database file, used when URL is empty.
	SQLitePath string
	// Logger receives slow-query and error logs; nil discards them.
	Logger *slog.Logger
	// Plugins are installed on the database handle once it is open (the OpenTelemetry plugin
	// when tracing is on).
	Plugins []gorm.Plugin
}

// Store is a handle on the database.
type Store struct {
	db        *gorm.DB
	dialect   Dialect
	dispatch  Dispatcher
	subs      subscriptions
	listeners []Listener
	// tenantSetups run in the transaction that creates a tenant.
	tenantSetups []TenantSetup
	// rates holds what this process keeps of the rate-limit quotas (ratelimit.go).
	rates *rateLimits
}

// Open connects to the configured database. It does not migrate; call Migrate for that.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	var (
		dialector gorm.Dialector
		dialect   Dialect
	)
	switch {
	case cfg.URL == "":
		if cfg.SQLitePath == "" {
			return nil, errors.New("store: no database URL and no SQLite path")
		}
		if err := os.MkdirAll(filepath.Dir(cfg.SQLitePath), 0o700); err != nil {
			return nil, fmt.Errorf("store: create database directory: %w", err)
		}
		dialector, dialect = gormlite.Open(sqliteDSN(cfg.SQLitePath)), SQLite
	case strings.HasPrefix(cfg.URL, "postgres://") || strings.HasPrefix(cfg.URL, "postgresql://"):
		dialector, dialect = postgresDialector{&postgres.Dialector{Config: &postgres.Config{DSN: cfg.URL}}}, Postgres
	default:
		return nil, fmt.Errorf("store: unsupported database URL scheme in %q (want postgres://)", RedactURL(cfg.URL))
	}
	gcfg := &gorm.Config{
		Logger:         newGormLogger(cfg.Logger),
		TranslateError: true,
		NowFunc:        func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
	}
	db, err := gorm.Open(dialector, gcfg)
	// Switching a new SQLite file to WAL needs a moment of exclusive access, and SQLite answers
	// "locked" at once instead of waiting when several processes open it at the same time.
	for attempt := 0; err != nil && dialect == SQLite && isLocked(err) && attempt < 50; attempt++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(20+attempt*10) * time.Millisecond):
		}
		db, err = gorm.Open(gormlite.Open(sqliteDSN(cfg.SQLitePath)), gcfg)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dialect, err)
	}
	if dialect == Postgres {
		if err := wrapRowErrors(db); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if dialect == SQLite {
		// One writer at a time is all SQLite allows; immediate transactions queue on busy_timeout.
		sqlDB.SetMaxOpenConns(8)
	} else {
		sqlDB.SetMaxOpenConns(32)
		sqlDB.SetMaxIdleConns(32)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	s := &Store{db: db, dialect: dialect, rates: &rateLimits{}}
	for _, p := range cfg.Plugins {
		if err := db.Use(p); err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("store: plugin %s: %w", p.Name(), err)
		}
	}
	if err := s.Ping(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN opens the file in WAL mode with immediate transactions: SQLite ignores FOR UPDATE,
// so writers serialise at BEGIN instead of failing at COMMIT.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Add("_txlock", "immediate")
	q.Add("_pragma", "busy_timeout(10000)") // first, so that the pragmas below wait too
	q.Add("_pragma", "journal_mode(wal)")
	q.Add("_pragma", "foreign_keys(on)")
	q.Add("_pragma", "synchronous(normal)")
	return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
}

func isLocked(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY")
}

// Dialect reports the engine behind the store.
func (s *Store) Dialect() Dialect { return s.dialect }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("store: database unreachable: %w", err)
	}
	return nil
}

// Pool is the connection pool, for its statistics (sql.DB.Stats).
func (s *Store) Pool() (*sql.DB, error) { return s.db.DB() }

// Close releases the connections.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// RedactURL hides the password of a database URL so that it can be logged.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}

// DB is the database handle for one request, for the module stores built on this one.
func (s *Store) DB(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// CustomPlanned runs fn, a read of one request, so that on Postgres every statement in it is
// planned for its own values: prepared statements otherwise switch to a generic plan after a few
// executions, and a generic plan cannot use a trigram index for a LIKE pattern it does not know
// (a text search then reads every row). On Postgres fn runs in a transaction with
// plan_cache_mode = force_custom_plan set for that transaction only; on SQLite it runs as is.
func (s *Store) CustomPlanned(ctx context.Context, fn func(db *gorm.DB) error) error {
	if s.dialect != Postgres {
		return fn(s.DB(ctx))
	}
	return s.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SET LOCAL plan_cache_mode = force_custom_plan").Error; err != nil {
			return err
		}
		return fn(tx)
	})
}
