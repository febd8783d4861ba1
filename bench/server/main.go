// Command server runs the partnerd HTTP API without Temporal, for load tests on loopback: it
// opens and migrates the database, seeds a tenant with a machine key holding events:write and
// some customers, writes the key to a file, and serves until interrupted.
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/partnerd/partnerd/internal/app"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func main() {
	dbURL := flag.String("db", "", "postgres:// URL of an empty (or previously seeded) database; empty for SQLite in -sqlite")
	sqlitePath := flag.String("sqlite", "bench/out/bench.db", "SQLite file when -db is empty")
	addr := flag.String("addr", "127.0.0.1:8089", "listen address (loopback)")
	keyFile := flag.String("keyfile", "bench/out/key", "file that receives the machine key (mode 0600)")
	customers := flag.Int("customers", 1000, "customers to seed (bench-<n>@example.com)")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this loopback address too, e.g. 127.0.0.1:6060")
	logLevel := flag.String("log-level", "info", "request log level: debug, info, warn (info logs every request, as serve does)")
	rateLimit := flag.String("rate-limit", "1000000000/1s", "quota of the machine key and of the tenant (N/window or off); the default counts every request, as serve does, and refuses none")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail(err)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, err := app.OpenStore(ctx, *dbURL, *sqlitePath, log)
	if err != nil {
		fail(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		fail(err)
	}
	key, err := seed(ctx, st, *customers)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(*keyFile, []byte(key+"\n"), 0o600); err != nil {
		fail(err)
	}

	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, err := app.Keyring(master, 1, nil)
	if err != nil {
		fail(err)
	}
	quota, err := models.ParseQuota(*rateLimit)
	if err != nil {
		fail(err)
	}
	limits := app.DefaultRateLimits()
	limits.MachineKey, limits.Tenant = quota, quota
	srv := app.NewAPI(app.Config{Version: "bench", RateLimits: &limits}, st, keys, nil, log)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", *addr)
	if err != nil {
		fail(err)
	}
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() { _ = httpSrv.Serve(ln) }()
	if *pprofAddr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		go func() {
			_ = (&http.Server{Addr: *pprofAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}).ListenAndServe()
		}()
	}
	fmt.Fprintf(os.Stdout, "bench server on http://%s (%s), key in %s\n", ln.Addr(), st.Dialect(), *keyFile)
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(shutdown)
}

// seed creates the bench tenant, its customers and a new machine key with events:write, and
// returns the key. Run again on a seeded database, it only mints another key.
func seed(ctx context.Context, st *stores.Set, customers int) (string, error) {
	const slug = "bench"
	owner := "owner@bench.test"
	err := app.CreateTenant(ctx, st, &models.Tenant{Slug: slug, Name: "Bench"}, &models.User{Email: owner, Name: "Owner"}, "bench-password-not-used")
	fresh := err == nil
	if err != nil && !strings.Contains(err.Error(), "TENANT_SLUG_TAKEN") && models.ErrorKind(err) != models.KindConflict {
		return "", err
	}
	users, err := st.UsersByEmail(ctx, owner, slug)
	if err != nil {
		return "", fmt.Errorf("owner lookup: %w", err)
	}
	if len(users) != 1 {
		return "", fmt.Errorf("owner lookup: %d users named %s", len(users), owner)
	}
	sc := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: users[0].TenantID, UserID: users[0].ID})
	if fresh {
		for i := range customers {
			email := fmt.Sprintf("bench-%d@example.com", i)
			if err := sc.CreateCustomer(ctx, &models.Customer{Email: &email, Name: email}); err != nil {
				return "", err
			}
		}
	}
	return app.CreateMachineKey(ctx, sc, "bench", "events:write", "events:read")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench server:", err)
	os.Exit(1)
}
