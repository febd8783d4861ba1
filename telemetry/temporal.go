package telemetry

import (
	"io"
	"time"

	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// TemporalMetrics is the Temporal SDK's own metrics handler (temporal_* metrics: requests to the
// frontend, task polls, schedule-to-start latencies, workflow and activity outcomes), reported
// through a tally scope into this registry. Set it as client.Options.MetricsHandler; close the
// returned closer when the client is closed. A nil *Metrics gives the SDK's no-op handler.
func (m *Metrics) TemporalMetrics() (client.MetricsHandler, io.Closer) {
	if m == nil {
		return client.MetricsNopHandler, io.NopCloser(nil)
	}
	reporter := tallyprom.NewReporter(tallyprom.Options{
		Registerer:       m.registry,
		DefaultTimerType: tallyprom.HistogramTimerType,
		DefaultHistogramBuckets: []float64{
			.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60,
		},
		// A clash of names is a programming error, which tests catch; at run time it must not
		// bring a worker down.
		OnRegisterError: func(error) {},
	})
	scope, closer := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sdktally.PrometheusSanitizeOptions,
		// tally_internal_* would count tally's own series; the registry shows them already.
		OmitCardinalityMetrics: true,
	}, time.Second)
	return sdktally.NewMetricsHandler(sdktally.NewPrometheusNamingScope(scope)), closer
}
