package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func refused() error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 5432},
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

func TestErrorsSayingTheDatabaseIsOutOfReachAreDatabaseUnavailable(t *testing.T) {
	unavailable := map[string]error{
		"a refused connection":           fmt.Errorf("failed to connect: %w", refused()),
		"a reset connection":             fmt.Errorf("read: %w", syscall.ECONNRESET),
		"a connection closed mid-answer": fmt.Errorf("unexpected EOF: %w", io.ErrUnexpectedEOF),
		"Postgres shutting down (57P01)": &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"},
		"Postgres starting up (57P03)":   &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"},
		"a connection failure (08006)":   &pgconn.PgError{Code: "08006", Message: "connection failure"},
	}
	for name, err := range unavailable {
		got := store.WrapUnavailable(err)
		e, ok := models.AsError(got)
		if !ok || e.Kind != models.KindUnavailable || e.Code != models.CodeDatabaseUnavailable || !errors.Is(got, err) {
			t.Errorf("%s: %v, want a KindUnavailable %s error wrapping it", name, got, models.CodeDatabaseUnavailable)
		}
		if again := store.WrapUnavailable(got); again != got { //nolint:errorlint // the same error, not wrapped again
			t.Errorf("%s: wrapped twice: %v", name, again)
		}
	}
	others := map[string]error{
		"no row":               gorm.ErrRecordNotFound,
		"a unique violation":   &pgconn.PgError{Code: "23505", Message: "duplicate key value"},
		"a domain conflict":    models.Conflict("DEAL_ALREADY_WON", "the deal is already won"),
		"a cancelled request":  context.Canceled,
		"an error of no class": errors.New("something else"),
	}
	for name, err := range others {
		if got := store.WrapUnavailable(err); got != err { //nolint:errorlint // the same error, not wrapped
			t.Errorf("%s: %v became %v", name, err, got)
		}
	}
	if store.WrapUnavailable(nil) != nil {
		t.Error("nil is not nil")
	}
}

// proxy passes TCP connections to target until it is closed, which refuses new connections and
// breaks those it passed.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
			go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// TestAStoreWhosePostgresIsGoneAnswersDatabaseUnavailable: once Postgres cannot be reached, a
// statement and a transaction through the store fail with a DatabaseUnavailable error, not with
// the driver's.
func TestAStoreWhosePostgresIsGoneAnswersDatabaseUnavailable(t *testing.T) {
	raw := storetest.PostgresURL(t)
	if raw == "" {
		t.Skipf("%s is not set", storetest.PostgresEnv)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{URL: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.DB(ctx).Exec("SELECT 1").Error; err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.close()
	check := func(what string, err error) {
		t.Helper()
		if e, ok := models.AsError(err); !ok || e.Kind != models.KindUnavailable || e.Code != models.CodeDatabaseUnavailable {
			t.Fatalf("%s with Postgres gone: %v, want %s", what, err, models.CodeDatabaseUnavailable)
		}
	}
	check("a statement", s.DB(ctx).Exec("SELECT 1").Error)
	check("a transaction", s.DB(ctx).Transaction(func(tx *gorm.DB) error { return tx.Exec("SELECT 1").Error }))
	var n int
	check("a read", s.DB(ctx).Raw("SELECT 1").Scan(&n).Error)
}
