package app

import (
	"fmt"
	"io"

	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"gorm.io/gorm"
	gormtracing "gorm.io/plugin/opentelemetry/tracing"

	"github.com/partnerd/partnerd/api"
	"github.com/partnerd/partnerd/models/store/ingest"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/telemetry"
)

// Telemetry is the process's metrics and tracing, which the API, the worker's activities, the
// store and the Temporal client report to (ADR 20). The zero value records nothing.
type Telemetry struct {
	// Metrics is the Prometheus registry the admin address serves; nil records no metrics.
	Metrics *telemetry.Metrics
	// Tracing, when enabled, traces requests, database statements, workflows and activities.
	Tracing *telemetry.Tracing
}

func (t Telemetry) tracing() bool { return t.Tracing != nil && t.Tracing.Enabled }

// StorePlugins are the database plugins tracing needs: a span per statement, without the
// statement's values.
func (t Telemetry) StorePlugins() []gorm.Plugin {
	if !t.tracing() {
		return nil
	}
	return []gorm.Plugin{gormtracing.NewPlugin(
		gormtracing.WithTracerProvider(t.Tracing.Provider),
		gormtracing.WithoutQueryVariables(),
		gormtracing.WithoutMetrics(),
	)}
}

// ObserveStore reports the store set's connection pool, outbox lag and ingest group commits.
func (t Telemetry) ObserveStore(st *stores.Set) error {
	m := t.Metrics
	if m == nil {
		return nil
	}
	pool, err := st.Pool()
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	m.WatchDB(pool)
	m.WatchOutbox(st.OldestOutbox)
	m.WatchIngestQueue(st.IngestEngine.Queue)
	st.IngestEngine.Observe(func(g ingest.GroupStats) { m.IngestGroup(g.Requests, g.Events, g.Took, g.Failed) })
	return nil
}

// TemporalClient adds the SDK's metrics handler and Temporal's OpenTelemetry interceptor to
// the options of a Temporal client; workers made from the client trace with it too. Close the
// returned closer after the client.
func (t Telemetry) TemporalClient(opts *client.Options) (io.Closer, error) {
	handler, closer := t.Metrics.TemporalMetrics()
	opts.MetricsHandler = handler
	if t.tracing() {
		ic, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
			Tracer:            t.Tracing.Provider.Tracer("go.temporal.io/sdk"),
			TextMapPropagator: t.Tracing.Propagator,
		})
		if err != nil {
			_ = closer.Close()
			return nil, fmt.Errorf("temporal tracing: %w", err)
		}
		opts.Interceptors = append([]interceptor.ClientInterceptor{ic}, opts.Interceptors...)
	}
	return closer, nil
}

// apiDeps sets the API's metrics and tracing.
func (t Telemetry) apiDeps(deps *api.Deps) {
	if t.Metrics != nil {
		deps.Metrics = t.Metrics
	}
	if t.tracing() {
		deps.Tracing = &api.Tracing{Provider: t.Tracing.Provider, Propagator: t.Tracing.Propagator}
	}
}
