package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker/devserver"
	"github.com/partnerd/partnerd/workflows"
)

func runCommand(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, envOf(env), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVersionOpenAPIAndUnknownCommands(t *testing.T) {
	if code, out, _ := runCommand(t, nil, "version"); code != 0 || !strings.HasPrefix(out, "partnerd ") {
		t.Fatalf("version = %d %q", code, out)
	}
	code, out, _ := runCommand(t, nil, "openapi")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !strings.HasPrefix(doc.OpenAPI, "3.1") || doc.Paths["/healthz"] == nil {
		t.Fatalf("openapi = %d, openapi %q, %d paths", code, doc.OpenAPI, len(doc.Paths))
	}
	if code, out, _ := runCommand(t, nil, "openapi", "-spec", "3.0"); code != 0 || !strings.Contains(out, `"openapi": "3.0`) {
		t.Fatalf("openapi -spec 3.0 = %d", code)
	}
	if code, _, errOut := runCommand(t, nil, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("unknown command = %d %q", code, errOut)
	}
	if code, _, errOut := runCommand(t, map[string]string{"PARTNERD_HTTP_ADDR": "nope"}, "serve"); code != 1 || !strings.Contains(errOut, "PARTNERD_HTTP_ADDR") {
		t.Fatalf("serve with a bad address = %d %q", code, errOut)
	}
}

func TestMigrateAppliesTheSchemaOnEveryEngine(t *testing.T) {
	for _, e := range storetest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			cfg := storetest.Config(t, e)
			env := map[string]string{"PARTNERD_DATA_DIR": t.TempDir(), "DATABASE_URL": cfg.URL}
			if cfg.URL == "" {
				env["PARTNERD_DATA_DIR"] = filepath.Dir(cfg.SQLitePath)
			}
			for range 2 {
				code, out, errOut := runCommand(t, env, "migrate")
				if code != 0 || !strings.Contains(out, "schema up to date") || !strings.Contains(out, "latest 0") {
					t.Fatalf("migrate = %d %q %q", code, out, errOut)
				}
			}
		})
	}
}

// startTemporal runs an embedded server for tests that stand for an external cluster.
func startTemporal(t *testing.T) *devserver.Server {
	t.Helper()
	port, _ := strconv.Atoi(freeTCPPort(t))
	s, err := devserver.Start(context.Background(), devserver.Options{
		DataDir: t.TempDir(), Port: port, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func TestWorkerCommandServesTheTaskQueue(t *testing.T) {
	temporal := startTemporal(t)
	env := map[string]string{"PARTNERD_DATA_DIR": t.TempDir(), "TEMPORAL_ADDRESS": temporal.Address()}
	cfg, err := loadConfig("worker", nil, envOf(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runWorker(ctx, cfg, io.Discard) }()

	c, err := client.Dial(client.Options{HostPort: temporal.Address(), Logger: discardSDKLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), time.Minute)
	defer wcancel()
	run, err := c.ExecuteWorkflow(wctx, client.StartWorkflowOptions{ID: "probe-worker-test", TaskQueue: workflows.TaskQueue},
		workflows.Probe, workflows.ProbeInput{RequestedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.ProbeResult
	if err := run.Get(wctx, &res); err != nil {
		t.Fatalf("the worker did not run the probe: %v", err)
	}
	if !res.DatabaseOK || res.WorkerVersion != version {
		t.Fatalf("probe result %+v", res)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop when asked")
	}
}

func TestServeUsesAnExternalTemporalAndTheConfiguredDatabase(t *testing.T) {
	temporal := startTemporal(t)
	for _, e := range storetest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			db := storetest.Config(t, e)
			env := map[string]string{
				"PARTNERD_DATA_DIR":  t.TempDir(),
				"PARTNERD_HTTP_ADDR": "127.0.0.1:0",
				"TEMPORAL_ADDRESS":   temporal.Address(),
				"DATABASE_URL":       db.URL,
			}
			r := startServe(t, env)
			defer r.shutdown(t)
			if code, body := get(t, "http://"+r.addr+"/readyz"); code != 200 {
				t.Fatalf("GET /readyz = %d %s", code, body)
			}
			logs := r.logs.String()
			if strings.Contains(logs, "embedded Temporal server started") {
				t.Fatal("an embedded server started although TEMPORAL_ADDRESS was set")
			}
			if !strings.Contains(r.out.String(), temporal.Address()) {
				t.Fatalf("the banner does not show the external Temporal address:\n%s", r.out.String())
			}
			wantDialect := "dialect=sqlite"
			if db.URL != "" {
				wantDialect = "dialect=postgres"
			}
			if !strings.Contains(logs, wantDialect) {
				t.Fatalf("serve did not open the configured database (%s):\n%s", wantDialect, logs)
			}
		})
	}
}

func discardSDKLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))
}

func TestTenantCreateOpensATenantOnce(t *testing.T) {
	env := map[string]string{"PARTNERD_DATA_DIR": t.TempDir()}
	code, out, errOut := runCommand(t, env, "tenant", "create", "-slug", "acme", "-name", "Acme", "-email", "owner@acme.test")
	if code != 0 || !strings.Contains(out, `tenant "acme" created`) || !strings.Contains(out, "password") {
		t.Fatalf("tenant create = %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCommand(t, env, "tenant", "create", "-slug", "acme", "-name", "Again", "-email", "x@acme.test"); code != 1 || !strings.Contains(errOut, "slug") {
		t.Fatalf("a taken slug = %d %q", code, errOut)
	}
	if code, _, errOut := runCommand(t, env, "tenant", "create", "-slug", "Bad Slug", "-name", "", "-email", "nope"); code != 1 ||
		!strings.Contains(errOut, "-slug") || !strings.Contains(errOut, "-name") || !strings.Contains(errOut, "-email") {
		t.Fatalf("bad flags = %d %q", code, errOut)
	}
}
