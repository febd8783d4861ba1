package telemetry

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Admin is the admin listener: GET /metrics for Prometheus, apart from the API's listener so
// that it can stay off the public network.
type Admin struct {
	srv  *http.Server
	addr string
	done chan struct{}
}

// ServeAdmin listens on addr and serves the metrics of m at GET /metrics until Close.
func ServeAdmin(ctx context.Context, addr string, m *Metrics, log *slog.Logger) (*Admin, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	a := &Admin{
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		addr: ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(a.done)
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin listener stopped", "error", err)
		}
	}()
	return a, nil
}

// Addr is the address the listener took (its port when addr asked for port 0).
func (a *Admin) Addr() string { return a.addr }

// Close stops the listener, letting a scrape under way finish for up to 5 s.
func (a *Admin) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.srv.Shutdown(ctx)
	<-a.done
	return err
}
