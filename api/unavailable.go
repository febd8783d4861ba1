package api

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// databaseUnavailable reports whether err says the database cannot be reached or is shutting
// down or starting up: a condition that passes, answered 503 with Retry-After rather than 500.
// It covers refused, reset and broken connections and Postgres's refusals of SQLSTATE classes
// 08 (connection exception) and 57P (operator intervention: admin or crash shutdown, cannot
// connect now).
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

// unavailableProblem is the answer while the database cannot be reached.
func unavailableProblem(ctx context.Context) *Problem {
	p := newProblem(ctx, http.StatusServiceUnavailable, "the database cannot be reached; try again shortly")
	p.Code = "DATABASE_UNAVAILABLE"
	p.Type = problemType(p.Code)
	p.headers = http.Header{"Retry-After": []string{"1"}}
	return p
}
