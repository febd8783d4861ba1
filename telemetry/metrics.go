// Package telemetry is partnerd's operational telemetry: the Prometheus metrics that operators
// scrape from the admin address (GET /metrics), OpenTelemetry tracing, and the log handler that
// stamps trace and request ids on log lines (ADR 20). It is not the tenants' metrics module
// (ADR 10), which computes business metrics from the event log.
//
// Every label value a metric carries comes from a fixed set (operation ids of the API, status
// classes, outcomes); nothing a caller sends and no tenant id ever becomes a label value.
package telemetry

import (
	"context"
	"database/sql"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/partnerd/partnerd/models"
)

// Namespace prefixes every metric partnerd defines.
const Namespace = "partnerd"

// Label values used when a value is outside its fixed set.
const (
	// OperationNone labels requests that reached no API operation: the console, the API
	// reference, the OpenAPI document and unknown paths.
	OperationNone = "none"
	// Other stands for any value outside a label's fixed set.
	Other = "other"
)

// maxWebhookAttempt is the highest attempt number used as a label value: a delivery schedule
// has at most 20 attempts (PARTNERD_WEBHOOK_RETRY_SCHEDULE).
const maxWebhookAttempt = 20

// Fixed sets of label values.
var (
	webhookOutcomes = set("succeeded", "http_error", "network_error", "skipped")
	payoutOutcomes  = set("succeeded", "failed", "rejected", "paid")
	payoutProviders = set(models.ProviderHTTP, models.ProviderManual)
	runStatuses     = set(models.RunCompleted, models.RunFailed, models.RunCancelled)
)

func set(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// bounded returns v when it is in allowed, else Other.
func bounded(v string, allowed map[string]bool) string {
	if allowed[v] {
		return v
	}
	return Other
}

// Metrics holds partnerd's Prometheus registry and its collectors. A nil *Metrics records
// nothing, so that code paths without metrics (tests, tools) need no checks.
type Metrics struct {
	registry *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	httpInFlight prometheus.Gauge

	ingestGroupEvents   prometheus.Histogram
	ingestGroupRequests prometheus.Histogram
	ingestGroupCommit   *prometheus.HistogramVec

	webhookAttempts *prometheus.CounterVec
	webhookDuration *prometheus.HistogramVec

	payoutAttempts *prometheus.CounterVec
	payoutsSettled *prometheus.CounterVec

	runsStarted  prometheus.Counter
	runsFinished *prometheus.CounterVec
}

// NewMetrics builds the registry with partnerd's collectors, the Go runtime's and the
// process's. version is reported by partnerd_build_info.
func NewMetrics(version string) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		registry: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by API operation id and status class (2xx, 4xx, ...).",
		}, []string{"operation", "status_class"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from the first byte of a request to its answer, by API operation id.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"operation"}),
		httpInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "http", Name: "requests_in_flight",
			Help: "HTTP requests being served now.",
		}),
		ingestGroupEvents: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "group_events",
			Help:    "Events written per ingest group commit (its count is the number of group commits).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2000},
		}),
		ingestGroupRequests: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "group_requests",
			Help:    "Ingest requests committed together per group commit.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
		ingestGroupCommit: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "group_commit_seconds",
			Help:    "Duration of one ingest group transaction, by result (ok, error).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"result"}),
		webhookAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "webhook", Name: "attempts_total",
			Help: "Webhook delivery attempts, by outcome (succeeded, http_error, network_error, skipped) and attempt number (1-20).",
		}, []string{"outcome", "attempt"}),
		webhookDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "webhook", Name: "attempt_duration_seconds",
			Help:    "Duration of the HTTP call of a webhook attempt, by outcome.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"outcome"}),
		payoutAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "payout", Name: "attempts_total",
			Help: "Calls of a payout provider, by provider (http) and outcome (succeeded, failed: retried, rejected: not retried).",
		}, []string{"provider", "outcome"}),
		payoutsSettled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "payouts", Name: "settled_total",
			Help: "Payouts settled for good, by provider (http, manual) and outcome (paid, failed).",
		}, []string{"provider", "outcome"}),
		runsStarted: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "playbook", Name: "runs_started_total",
			Help: "Playbook runs created by the events that trigger them.",
		}),
		runsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "playbook", Name: "runs_finished_total",
			Help: "Playbook runs ended, by status (completed, failed, cancelled).",
		}, []string{"status"}),
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "build_info",
		Help:        "Always 1; its labels name the running build.",
		ConstLabels: prometheus.Labels{"version": version, "go_version": runtime.Version()},
	})
	buildInfo.Set(1)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo,
		m.httpRequests, m.httpDuration, m.httpInFlight,
		m.ingestGroupEvents, m.ingestGroupRequests, m.ingestGroupCommit,
		m.webhookAttempts, m.webhookDuration,
		m.payoutAttempts, m.payoutsSettled,
		m.runsStarted, m.runsFinished,
	)
	return m
}

// Registry is where every collector of the process registers; /metrics gathers from it.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the metrics in the Prometheus text format (or OpenMetrics when asked). A
// collector that fails (the database, for the outbox lag) leaves its metrics out and the rest is
// served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
		Timeout:           10 * time.Second,
	})
}

// StatusClass is the label value of an HTTP status: "2xx", "4xx", ...
func StatusClass(status int) string {
	switch {
	case status >= 100 && status < 200:
		return "1xx"
	case status < 300 && status >= 200:
		return "2xx"
	case status < 400 && status >= 300:
		return "3xx"
	case status < 500 && status >= 400:
		return "4xx"
	case status < 600 && status >= 500:
		return "5xx"
	}
	return Other
}

// RequestStarted counts a request in flight until RequestDone.
func (m *Metrics) RequestStarted() {
	if m != nil {
		m.httpInFlight.Inc()
	}
}

// RequestDone records an answered request. operation is the API operation id (from the API's
// own registry, never from the request) or "" for a request that reached no operation.
func (m *Metrics) RequestDone(operation string, status int, elapsed time.Duration) {
	if m == nil {
		return
	}
	if operation == "" {
		operation = OperationNone
	}
	m.httpInFlight.Dec()
	m.httpRequests.WithLabelValues(operation, StatusClass(status)).Inc()
	m.httpDuration.WithLabelValues(operation).Observe(elapsed.Seconds())
}

// IngestGroup records one ingest group commit: the requests and events it wrote together, how
// long its transaction took and whether it failed.
func (m *Metrics) IngestGroup(requests, events int, took time.Duration, failed bool) {
	if m == nil {
		return
	}
	m.ingestGroupEvents.Observe(float64(events))
	m.ingestGroupRequests.Observe(float64(requests))
	result := "ok"
	if failed {
		result = "error"
	}
	m.ingestGroupCommit.WithLabelValues(result).Observe(took.Seconds())
}

// WatchIngestQueue reports, at every scrape, the ingest requests and events waiting for a group
// commit, as queue reports them.
func (m *Metrics) WatchIngestQueue(queue func() (requests, events int)) {
	if m == nil {
		return
	}
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "queue_requests",
			Help: "Ingest requests waiting for a group commit.",
		}, func() float64 { r, _ := queue(); return float64(r) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "queue_events",
			Help: "Events of ingest requests waiting for a group commit.",
		}, func() float64 { _, e := queue(); return float64(e) }),
	)
}

// WatchOutbox reports, at every scrape, the outbox lag: the age of the oldest event not yet
// handed to its fan-out, 0 when none waits. oldest reads it from the database.
func (m *Metrics) WatchOutbox(oldest func(ctx context.Context) (time.Time, bool, error)) {
	if m == nil {
		return
	}
	m.registry.MustRegister(&outboxCollector{oldest: oldest, now: time.Now})
}

// WatchDB reports the connection pool statistics of db (go_sql_* with db_name="partnerd").
func (m *Metrics) WatchDB(db *sql.DB) {
	if m == nil || db == nil {
		return
	}
	m.registry.MustRegister(collectors.NewDBStatsCollector(db, Namespace))
}

// WebhookAttempt records one attempt of a webhook delivery: its outcome, its number in the
// delivery's schedule (from 1) and the duration of its HTTP call.
func (m *Metrics) WebhookAttempt(outcome string, attempt int, elapsed time.Duration) {
	if m == nil {
		return
	}
	outcome = bounded(outcome, webhookOutcomes)
	n := Other
	if attempt >= 1 && attempt <= maxWebhookAttempt {
		n = strconv.Itoa(attempt)
	}
	m.webhookAttempts.WithLabelValues(outcome, n).Inc()
	if outcome != "skipped" {
		m.webhookDuration.WithLabelValues(outcome).Observe(elapsed.Seconds())
	}
}

// PayoutAttempt records one call of a payout provider.
func (m *Metrics) PayoutAttempt(provider, outcome string) {
	if m == nil {
		return
	}
	m.payoutAttempts.WithLabelValues(bounded(provider, payoutProviders), bounded(outcome, payoutOutcomes)).Inc()
}

// PayoutSettled records a payout settled for good: outcome is paid or failed.
func (m *Metrics) PayoutSettled(provider, outcome string) {
	if m == nil {
		return
	}
	m.payoutsSettled.WithLabelValues(bounded(provider, payoutProviders), bounded(outcome, payoutOutcomes)).Inc()
}

// PlaybookRunsStarted records n new playbook runs.
func (m *Metrics) PlaybookRunsStarted(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.runsStarted.Add(float64(n))
}

// PlaybookRunFinished records a run that ended with status.
func (m *Metrics) PlaybookRunFinished(status string) {
	if m == nil {
		return
	}
	m.runsFinished.WithLabelValues(bounded(status, runStatuses)).Inc()
}

// outboxCollector reads the outbox lag from the database at scrape time.
type outboxCollector struct {
	oldest func(ctx context.Context) (time.Time, bool, error)
	now    func() time.Time
}

var outboxLagDesc = prometheus.NewDesc(Namespace+"_outbox_oldest_age_seconds",
	"Age of the oldest event in the outbox, not yet handed to its fan-out; 0 when the outbox is empty.", nil, nil)

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- outboxLagDesc }

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	oldest, ok, err := c.oldest(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(outboxLagDesc, err)
		return
	}
	age := 0.0
	if ok {
		age = max(c.now().Sub(oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(outboxLagDesc, prometheus.GaugeValue, age)
}
