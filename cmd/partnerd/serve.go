package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/api"
	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/internal/app"
	"github.com/partnerd/partnerd/internal/autotls"
	pdmail "github.com/partnerd/partnerd/mail"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/telemetry"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/worker/devserver"
	"github.com/partnerd/partnerd/workflows"
)

// demoTenantSlug names the tenant created on an empty database.
const demoTenantSlug = "demo"

// started tells a caller (the end-to-end test) where the HTTP API listens once it is ready.
type started func(httpAddr string)

// newLogger logs in the configured format; lines logged with a request's context carry its
// trace, span and request ids.
func newLogger(cfg config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(telemetry.LogHandler(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(telemetry.LogHandler(slog.NewTextHandler(w, opts)))
}

// startTelemetry builds the process's metrics registry and tracer provider and starts the admin
// listener. The returned stop closes the listener and flushes the spans still buffered.
func startTelemetry(ctx context.Context, cfg config, log *slog.Logger) (app.Telemetry, func(), error) {
	tracing, err := telemetry.NewTracing(ctx, telemetry.TracingOptions{
		Protocol: cfg.TracesProtocol, Exporter: cfg.traceExporter, Version: version,
	})
	if err != nil {
		return app.Telemetry{}, nil, err
	}
	if tracing.Enabled {
		log.Info("tracing on", "otlp_protocol", cfg.TracesProtocol)
	}
	tel := app.Telemetry{Metrics: telemetry.NewMetrics(version), Tracing: tracing}
	var admin *telemetry.Admin
	if cfg.AdminAddr != "" {
		// Metrics must not take the service down: a taken port is reported, and Prometheus
		// sees the target down.
		if admin, err = telemetry.ServeAdmin(ctx, cfg.AdminAddr, tel.Metrics, log); err != nil {
			log.Error("admin listener not started: GET /metrics is not served", "address", cfg.AdminAddr, "error", err)
		} else {
			log.Info("admin listener started", "metrics", "http://"+admin.Addr()+"/metrics")
		}
	}
	return tel, func() {
		if admin != nil {
			_ = admin.Close()
		}
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tracing.Shutdown(flushCtx); err != nil {
			log.Warn("spans not flushed", "error", err)
		}
	}, nil
}

// serve runs the API, a worker and, unless configured away, the embedded Temporal server and
// database, until ctx ends; then it drains HTTP, stops the worker and the embedded server.
func serve(ctx context.Context, cfg config, stdout, logOut io.Writer, onStarted started) error {
	log := newLogger(cfg, logOut)
	t0 := time.Now()

	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	if cfg.DatabaseURL == "" || cfg.TemporalAddress == "" {
		unlock, err := lockDataDir(cfg.DataDir)
		if err != nil {
			return err
		}
		defer unlock()
	}
	keys, err := keyring(cfg)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	tel, stopTelemetry, err := startTelemetry(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer stopTelemetry()

	st, err := openStore(ctx, cfg, log, tel)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	login, err := bootstrap(ctx, cfg, st, keys)
	if err != nil {
		return err
	}

	temporalAddr := cfg.TemporalAddress
	if temporalAddr == "" {
		dev, err := devserver.Start(ctx, devserver.Options{
			DataDir:    filepath.Join(cfg.DataDir, "temporal"),
			Port:       cfg.TemporalPort,
			Namespaces: []string{cfg.TemporalNamespace},
			Logger:     log,
			LogLevel:   slog.LevelWarn,
		})
		if err != nil {
			return err
		}
		defer dev.Stop()
		temporalAddr = dev.Address()
		log.Info("embedded Temporal server started", "address", temporalAddr, "data", filepath.Join(cfg.DataDir, "temporal"))
	}
	tc, sdkMetrics, err := dialTemporal(ctx, cfg, temporalAddr, log, tel)
	if err != nil {
		return err
	}
	defer sdkMetrics.Close()
	defer tc.Close()

	// Events written from now on reach their fan-out right after their commit.
	dispatcher := app.Dispatcher(st, tc, log)
	st.SetDispatcher(dispatcher.Dispatch)
	ac := appConfig(cfg)
	ac.Telemetry = tel
	w := worker.New(tc, app.WorkerDeps(ac, keys, st, dispatcher, mailSender(cfg, log)))
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	defer w.Stop()
	if err := worker.StartRelay(ctx, tc, workflows.OutboxRelayInput{}); err != nil {
		log.Warn("outbox relay not started; a worker will start it", "error", err)
	}
	if err := worker.StartLevelReview(ctx, tc, workflows.LevelReviewInput{}); err != nil {
		log.Warn("level review not started; a worker will start it", "error", err)
	}
	if err := worker.StartHealthSchedule(ctx, tc, workflows.HealthScheduleInput{}); err != nil {
		log.Warn("health schedule not started; a worker will start it", "error", err)
	}
	if err := worker.StartPayoutBatchSchedule(ctx, tc, workflows.PayoutBatchScheduleInput{}); err != nil {
		log.Warn("payout batch schedule not started; a worker will start it", "error", err)
	}

	blobs, err := openBlobs(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() { _ = blobs.Close() }()
	ac.Blobs = blobs
	srv := app.NewAPI(ac, st, keys, tc, log)
	if cfg.MetricsOnAPI {
		srv.MountMetrics(tel.Metrics.Handler())
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpErr := make(chan error, 2)
	go func() { httpErr <- httpSrv.Serve(ln) }()
	tlsSrv, err := serveTLS(ctx, cfg, srv, httpSrv, log, httpErr)
	if err != nil {
		_ = httpSrv.Close()
		return err
	}

	probe(ctx, tc, log)
	log.Info("partnerd ready", "http", ln.Addr().String(), "temporal", temporalAddr, "startup", time.Since(t0).Round(time.Millisecond))
	printBanner(stdout, cfg, ln.Addr().String(), temporalAddr, login)
	if onStarted != nil {
		onStarted(ln.Addr().String())
	}

	select {
	case <-ctx.Done():
	case err := <-httpErr:
		return fmt.Errorf("HTTP server: %w", err)
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := httpSrv.Shutdown(shutdownCtx); err != nil {
		log.Warn("HTTP drain incomplete", "error", err)
	}
	if tlsSrv != nil {
		if err := tlsSrv.Shutdown(shutdownCtx); err != nil {
			log.Warn("TLS drain incomplete", "error", err)
		}
	}
	// The deferred calls stop, in order, the worker, the Temporal client, the embedded server,
	// the store and the data directory lock.
	return nil
}

// serveTLS starts, when PARTNERD_TLS_ADDR is set, the TLS listener of verified custom domains,
// serving the API as the HTTP listener does, with certificates obtained on demand for the hosts
// the API's host routing verifies. Off (nil server), nothing of certmagic runs.
func serveTLS(ctx context.Context, cfg config, srv *api.Server, plain *http.Server, log *slog.Logger, errs chan<- error) (*http.Server, error) {
	if !cfg.TLS.On() {
		return nil, nil
	}
	m, err := autotls.New(cfg.TLS, srv.AllowCertificate, log)
	if err != nil {
		return nil, err
	}
	ln, err := m.Listen(ctx)
	if err != nil {
		m.Stop()
		return nil, err
	}
	s := &http.Server{
		Handler:           plain.Handler,
		TLSConfig:         m.TLSConfig(),
		ReadHeaderTimeout: plain.ReadHeaderTimeout,
		ReadTimeout:       plain.ReadTimeout,
		WriteTimeout:      plain.WriteTimeout,
		IdleTimeout:       plain.IdleTimeout,
		ErrorLog:          plain.ErrorLog,
	}
	s.RegisterOnShutdown(m.Stop)
	go func() { errs <- s.ServeTLS(ln, "", "") }()
	log.Info("on-demand TLS for verified custom domains", "tls", ln.Addr().String(), "acme_ca", cfg.TLS.CA, "storage", cfg.TLS.StorageDir)
	return s, nil
}

// appConfig is what the API and the worker take from the settings.
func appConfig(cfg config) app.Config {
	return app.Config{
		Version:                version,
		TrustedProxies:         cfg.TrustedProxies,
		OwnHosts:               cfg.OwnHosts,
		DNSResolver:            cfg.DNSResolver,
		StripeURL:              cfg.StripeURL,
		PayPalURL:              cfg.PayPalURL,
		WiseURL:                cfg.WiseURL,
		Signup:                 cfg.Signup,
		ConsoleDir:             cfg.ConsoleDir,
		WebhookAllowedNetworks: cfg.WebhookAllowedNetworks,
		WebhookRetrySchedule:   cfg.WebhookRetrySchedule,
		WebhookDisableAfter:    cfg.WebhookDisableAfter,
		RateLimits:             &cfg.RateLimits,
		PublicURL:              publicURL(cfg),
	}
}

// publicURL is the external base URL of links in emails: PARTNERD_PUBLIC_URL, else the HTTP
// address.
func publicURL(cfg config) string {
	if cfg.PublicURL != "" {
		return cfg.PublicURL
	}
	return "http://" + cfg.HTTPAddr
}

// openBlobs opens the bucket of uploaded files: PARTNERD_BLOB_URL, else blobs/ in the data directory.
func openBlobs(ctx context.Context, cfg config, log *slog.Logger) (*blobstore.Store, error) {
	url := cfg.BlobURL
	if url == "" {
		url = blobstore.DefaultURL(cfg.DataDir)
	}
	b, err := blobstore.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	log.Info("blob store open", "bucket", blobstore.Redact(url))
	return b, nil
}

// openStore opens the configured database; with telemetry, its statements are traced and its
// pool, outbox lag and ingest are measured.
func openStore(ctx context.Context, cfg config, log *slog.Logger, tel app.Telemetry) (*stores.Set, error) {
	st, err := app.OpenStore(ctx, cfg.DatabaseURL, filepath.Join(cfg.DataDir, "partnerd.db"), log, tel.StorePlugins()...)
	if err != nil {
		return nil, err
	}
	if err := tel.ObserveStore(st); err != nil {
		_ = st.Close()
		return nil, err
	}
	log.Info("database open", "dialect", st.Dialect())
	return st, nil
}

// dialTemporal connects to Temporal with the SDK's metrics and, when tracing is on, its
// OpenTelemetry interceptor. Close the returned closer after the client.
func dialTemporal(ctx context.Context, cfg config, addr string, log *slog.Logger, tel app.Telemetry) (client.Client, io.Closer, error) {
	dialCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	opts := client.Options{
		HostPort:  addr,
		Namespace: cfg.TemporalNamespace,
		Logger:    sdklog.NewStructuredLogger(log.With("component", "temporal-client")),
	}
	closer, err := tel.TemporalClient(&opts)
	if err != nil {
		return nil, nil, err
	}
	tc, err := client.DialContext(dialCtx, opts)
	if err != nil {
		_ = closer.Close()
		return nil, nil, fmt.Errorf("connect to Temporal at %s: %w", addr, err)
	}
	return tc, closer, nil
}

// mailSender is the sender of outgoing email: the SMTP server when one is configured,
// otherwise the outbox, which keeps messages unsent for operators to read.
func mailSender(cfg config, log *slog.Logger) activities.Sender {
	if cfg.SMTP != nil {
		log.Info("email is sent over SMTP", "smtp", cfg.SMTP, "from", cfg.MailFrom)
		return cfg.SMTP
	}
	if cfg.Env == envProduction {
		log.Warn("no SMTP server configured (PARTNERD_SMTP_URL): email is kept in the outbox, not sent")
	} else {
		log.Info("email is kept in the outbox, not sent (set PARTNERD_SMTP_URL to send it)", "from", cfg.MailFrom)
	}
	return &pdmail.Outbox{From: cfg.MailFrom}
}

// bootstrapLogin is the owner login created on an empty database, for the banner.
type bootstrapLogin struct {
	Email, Password string
	PasswordFromEnv bool
	// Partners are the demo partner admins; they sign in with the same password.
	Partners []stores.DemoPartnerLogin
}

// bootstrap creates the demo tenant and its owner when the database has no tenant yet.
func bootstrap(ctx context.Context, cfg config, st *stores.Set, keys *models.Keyring) (*bootstrapLogin, error) {
	login := &bootstrapLogin{Email: cfg.BootstrapEmail, Password: cfg.BootstrapPassword, PasswordFromEnv: cfg.BootstrapPassword != ""}
	if login.Password == "" {
		p, err := authn.RandomPassword(20)
		if err != nil {
			return nil, err
		}
		login.Password = p
	}
	hash, err := authn.HashPassword(login.Password)
	if err != nil {
		return nil, err
	}
	created, err := st.Bootstrap(ctx,
		models.Tenant{Slug: demoTenantSlug, Name: "Demo Partner Program"},
		models.User{Email: login.Email, Name: "Demo Owner", PasswordHash: hash})
	if err != nil || !created {
		return nil, err
	}
	owners, err := st.UsersByEmail(ctx, login.Email, demoTenantSlug)
	if err != nil || len(owners) != 1 {
		return nil, fmt.Errorf("demo owner: %w", err)
	}
	if login.Partners, err = st.SeedDemo(ctx, owners[0].TenantID, owners[0].ID, hash, keys); err != nil {
		return nil, fmt.Errorf("demo data: %w", err)
	}
	return login, nil
}

// probe runs one workflow through the worker to prove the pipeline; a failure is logged, not
// fatal, because a remote worker fleet may still be starting.
func probe(ctx context.Context, tc client.Client, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	now := time.Now()
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        workflows.ProbeWorkflowID("serve", now),
		TaskQueue: workflows.TaskQueue,
	}, workflows.Probe, workflows.ProbeInput{RequestedAt: now})
	var res workflows.ProbeResult
	if err == nil {
		err = run.Get(ctx, &res)
	}
	if err != nil {
		log.Warn("worker probe failed", "error", err)
		return
	}
	log.Info("worker probe", "worker_version", res.WorkerVersion, "database_ok", res.DatabaseOK, "round_trip", time.Since(now).Round(time.Millisecond))
}

func printBanner(w io.Writer, cfg config, httpAddr, temporalAddr string, login *bootstrapLogin) {
	base := cfg.PublicURL
	if base == "" {
		base = "http://" + httpAddr
	}
	fmt.Fprintf(w, "\npartnerd %s is ready\n", version)
	fmt.Fprintf(w, "  Console      %s/\n", base)
	fmt.Fprintf(w, "  API          %s/api\n", base)
	fmt.Fprintf(w, "  Docs         %s/docs\n", base)
	fmt.Fprintf(w, "  Swagger UI   %s/swagger/\n", base)
	fmt.Fprintf(w, "  OpenAPI      %s/openapi.json\n", base)
	fmt.Fprintf(w, "  Temporal     %s (namespace %s)\n", temporalAddr, cfg.TemporalNamespace)
	if cfg.AdminAddr != "" {
		fmt.Fprintf(w, "  Metrics      http://%s/metrics (admin listener)\n", cfg.AdminAddr)
	}
	fmt.Fprintf(w, "  Temporal UI  not embedded: point Temporal's UI at %s (see README, \"Temporal UI\")\n", temporalAddr)
	if login != nil {
		fmt.Fprintf(w, "\nDemo tenant %q created. Sign in as\n  email     %s\n", demoTenantSlug, login.Email)
		if login.PasswordFromEnv {
			fmt.Fprintf(w, "  password  (the one in PARTNERD_BOOTSTRAP_PASSWORD)\n")
		} else {
			fmt.Fprintf(w, "  password  %s\n  (shown this once; set PARTNERD_BOOTSTRAP_PASSWORD to choose it)\n", login.Password)
		}
		for _, p := range login.Partners {
			fmt.Fprintf(w, "  partner   %s (%s), same password\n", p.Email, p.Partner)
		}
	}
	fmt.Fprintln(w)
}

// lockDataDir takes an exclusive lock on the data directory, so that two processes never run
// the embedded database or Temporal server on the same files.
func lockDataDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "partnerd.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("data directory %s is in use by another partnerd process", dir)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// runWorker runs only a worker against an existing Temporal server and database.
func runWorker(ctx context.Context, cfg config, logOut io.Writer) error {
	log := newLogger(cfg, logOut)
	if cfg.DatabaseURL == "" {
		log.Warn("worker uses the embedded SQLite database in the data directory; point DATABASE_URL at Postgres to scale out", "data", cfg.DataDir)
	}
	tel, stopTelemetry, err := startTelemetry(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer stopTelemetry()
	st, err := openStore(ctx, cfg, log, tel)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := keyring(cfg)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	addr := cfg.TemporalAddress
	if addr == "" {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.TemporalPort))
	}
	tc, sdkMetrics, err := dialTemporal(ctx, cfg, addr, log, tel)
	if err != nil {
		return err
	}
	defer sdkMetrics.Close()
	defer tc.Close()
	// Events written from now on reach their fan-out right after their commit.
	dispatcher := app.Dispatcher(st, tc, log)
	st.SetDispatcher(dispatcher.Dispatch)
	ac := appConfig(cfg)
	ac.Telemetry = tel
	w := worker.New(tc, app.WorkerDeps(ac, keys, st, dispatcher, mailSender(cfg, log)))
	if err := worker.StartRelay(ctx, tc, workflows.OutboxRelayInput{}); err != nil {
		log.Warn("outbox relay not started", "error", err)
	}
	if err := worker.StartLevelReview(ctx, tc, workflows.LevelReviewInput{}); err != nil {
		log.Warn("level review not started", "error", err)
	}
	if err := worker.StartHealthSchedule(ctx, tc, workflows.HealthScheduleInput{}); err != nil {
		log.Warn("health schedule not started", "error", err)
	}
	if err := worker.StartPayoutBatchSchedule(ctx, tc, workflows.PayoutBatchScheduleInput{}); err != nil {
		log.Warn("payout batch schedule not started", "error", err)
	}
	log.Info("worker running", "temporal", addr, "task_queue", workflows.TaskQueue)
	return w.Run(ctxInterrupt(ctx))
}

// ctxInterrupt turns the end of ctx into the SDK's interrupt channel.
func ctxInterrupt(ctx context.Context) <-chan any {
	ch := make(chan any, 1)
	go func() {
		<-ctx.Done()
		ch <- struct{}{}
	}()
	return ch
}

func migrate(ctx context.Context, cfg config, stdout, logOut io.Writer) error {
	log := newLogger(cfg, logOut)
	st, err := openStore(ctx, cfg, log, app.Telemetry{})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	ids, err := st.AppliedMigrations(ctx)
	if err != nil {
		return err
	}
	last := ""
	if len(ids) > 0 {
		last = ids[len(ids)-1]
	}
	fmt.Fprintf(stdout, "schema up to date: %d migrations applied, latest %s\n", len(ids), last)
	return nil
}

func printOpenAPI(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("partnerd openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	spec := fs.String("spec", "3.1", "OpenAPI version: 3.1 or 3.0")
	if err := fs.Parse(args); err != nil {
		return err
	}
	doc := api.New(api.Config{Version: version}, api.Deps{}).OpenAPI()
	var (
		b   []byte
		err error
	)
	switch *spec {
	case "3.1":
		b, err = doc.MarshalJSON()
	case "3.0":
		b, err = doc.Downgrade()
	default:
		return errors.New("-spec must be 3.1 or 3.0")
	}
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = out.WriteTo(stdout)
	return err
}
