package store

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
)

// WrapUnavailable returns err as models.DatabaseUnavailable when it says that the database
// cannot be reached or is shutting down or starting up (a condition that passes), and err
// unchanged otherwise. Every statement run through the store's gorm handle has its errors
// wrapped so; code that reads the connection directly wraps what it returns itself.
func WrapUnavailable(err error) error {
	if err == nil || !databaseUnavailable(err) {
		return err
	}
	if e, ok := models.AsError(err); ok && e.Code == models.CodeDatabaseUnavailable {
		return err
	}
	return models.DatabaseUnavailable(err)
}

// databaseUnavailable reports whether err says the database cannot be reached or is shutting
// down or starting up. It covers refused, reset and broken connections and Postgres's refusals
// of SQLSTATE classes 08 (connection exception) and 57P (operator intervention: admin or crash
// shutdown, cannot connect now).
func databaseUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	var connErr *pgconn.ConnectError
	var opErr *net.OpError
	switch {
	case errors.As(err, &connErr), errors.As(err, &opErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// pgx reports a connection closed under a statement in these words only.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF")
}

// postgresDialector is Postgres's dialector whose error translation also wraps the errors that
// say the database is unavailable (WrapUnavailable). gorm translates every error it records
// (those of statements and of BEGIN and COMMIT) but those of Row and Rows: wrapRowErrors wraps
// them. It has every other method of Postgres's dialector (savepoints, identifier lengths). (The
// embedded SQLite database is a file, never out of reach.)
type postgresDialector struct {
	*postgres.Dialector
}

// Translate implements gorm.ErrorTranslator.
func (d postgresDialector) Translate(err error) error {
	return WrapUnavailable(d.Dialector.Translate(err))
}

// wrapRowErrors has the errors of Row, Rows and Scan, which gorm sets without translating them,
// wrapped as Translate wraps the others.
func wrapRowErrors(db *gorm.DB) error {
	return db.Callback().Row().After("gorm:row").Register("partnerd:unavailable", func(tx *gorm.DB) {
		tx.Error = WrapUnavailable(tx.Error)
	})
}
