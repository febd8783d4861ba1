package devserver

import (
	"context"
	"database/sql"
	"log/slog"
	"net"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const timerQueue = "devserver-test"

// sleepOnTimer waits on a durable timer and then reports how long it waited.
func sleepOnTimer(ctx workflow.Context, d time.Duration) (time.Duration, error) {
	start := workflow.Now(ctx)
	if err := workflow.Sleep(ctx, d); err != nil {
		return 0, err
	}
	return workflow.Now(ctx).Sub(start), nil
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

func startServer(t *testing.T, dir string, port int) *Server {
	t.Helper()
	s, err := Start(context.Background(), Options{DataDir: dir, Port: port, Logger: testLogger(t), LogLevel: slog.LevelError})
	if err != nil {
		t.Fatalf("start embedded server: %v", err)
	}
	return s
}

func connect(t *testing.T, s *Server) (client.Client, worker.Worker) {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.Address(), Namespace: "default", Logger: sdklog.NewStructuredLogger(testLogger(t))})
	if err != nil {
		t.Fatalf("dial %s: %v", s.Address(), err)
	}
	w := worker.New(c, timerQueue, worker.Options{})
	w.RegisterWorkflow(sleepOnTimer)
	if err := w.Start(); err != nil {
		t.Fatalf("start worker: %v", err)
	}
	return c, w
}

func TestDurableTimerSurvivesAServerRestart(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)

	s := startServer(t, dir, port)
	c, w := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "timer-across-restart", TaskQueue: timerQueue}, sleepOnTimer, 4*time.Second)
	if err != nil {
		t.Fatalf("start workflow: %v", err)
	}
	// Let the timer be recorded, then take everything down mid-timer.
	waitForTimer(ctx, t, c, run.GetID())
	w.Stop()
	c.Close()
	s.Stop()

	s = startServer(t, dir, port)
	defer s.Stop()
	c, w = connect(t, s)
	defer c.Close()
	defer w.Stop()

	var waited time.Duration
	if err := c.GetWorkflow(ctx, run.GetID(), run.GetRunID()).Get(ctx, &waited); err != nil {
		t.Fatalf("the workflow did not complete after the restart: %v", err)
	}
	if waited < 4*time.Second {
		t.Fatalf("the timer fired after %v, before its 4s", waited)
	}
}

func TestTwoServersRunSideBySide(t *testing.T) {
	a := startServer(t, t.TempDir(), freePort(t))
	defer a.Stop()
	b := startServer(t, t.TempDir(), freePort(t))
	defer b.Stop()
	for _, s := range []*Server{a, b} {
		c, err := client.Dial(client.Options{HostPort: s.Address(), Logger: sdklog.NewStructuredLogger(testLogger(t))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CheckHealth(context.Background(), &client.CheckHealthRequest{}); err != nil {
			t.Fatalf("server at %s is not healthy: %v", s.Address(), err)
		}
		c.Close()
	}
}

func TestStartRefusesATakenFrontendPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if _, err := Start(context.Background(), Options{DataDir: t.TempDir(), Port: port, Logger: testLogger(t)}); err == nil {
		t.Fatal("the server started on a taken port")
	}
}

func waitForTimer(ctx context.Context, t *testing.T, c client.Client, id string) {
	t.Helper()
	for {
		desc, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err == nil && desc.GetWorkflowExecutionInfo().GetHistoryLength() >= 5 {
			return // started, task scheduled, started, completed, timer started
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the workflow never reached its timer: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return ports[0]
}

func TestTheDatabaseIsInWALMode(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, freePort(t))
	s.Stop()
	db, err := sql.Open("sqlite", "file:"+DatabaseFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("journal mode %q, want wal", mode)
	}
}
