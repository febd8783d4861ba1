package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/models"
)

// labelValues gathers every label value of partnerd's own metric families, by label name.
func labelValues(t *testing.T, m *Metrics) map[string]map[string]bool {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), Namespace+"_") {
			continue
		}
		for _, metric := range f.GetMetric() {
			for _, l := range metric.GetLabel() {
				if out[l.GetName()] == nil {
					out[l.GetName()] = map[string]bool{}
				}
				out[l.GetName()][l.GetValue()] = true
			}
		}
	}
	return out
}

func TestMetricsKeepLabelValuesInTheirFixedSets(t *testing.T) {
	m := NewMetrics("v-test")
	const tenant = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	m.RequestStarted()
	m.RequestDone("list-deals", 200, 3*time.Millisecond)
	m.RequestStarted()
	m.RequestDone("", 404, time.Millisecond)
	m.RequestStarted()
	m.RequestDone("login", 799, time.Millisecond)
	m.WebhookAttempt("succeeded", 1, 20*time.Millisecond)
	m.WebhookAttempt("http_error", 2, 20*time.Millisecond)
	m.WebhookAttempt("tenant "+tenant, 3, time.Millisecond)
	m.WebhookAttempt("network_error", 999, time.Millisecond)
	m.WebhookAttempt("skipped", 0, 0)
	m.PayoutAttempt(models.ProviderHTTP, "succeeded")
	m.PayoutAttempt("stripe-"+tenant, "failed")
	m.PayoutSettled(models.ProviderManual, "paid")
	m.PayoutSettled(models.ProviderHTTP, "<script>")
	m.PlaybookRunsStarted(3)
	m.PlaybookRunFinished(models.RunCompleted)
	m.PlaybookRunFinished(models.RunFailed)
	m.PlaybookRunFinished("weird " + tenant)

	got := labelValues(t, m)
	want := map[string][]string{
		"operation":    {"list-deals", OperationNone, "login"},
		"status_class": {"2xx", "4xx", Other},
		"outcome":      {"succeeded", "http_error", "network_error", "skipped", "failed", "paid", Other},
		"attempt":      {"1", "2", "3", Other},
		"provider":     {models.ProviderHTTP, models.ProviderManual, Other},
		"status":       {models.RunCompleted, models.RunFailed, Other},
		"version":      {"v-test"},
		"go_version":   nil,
		"result":       nil,
	}
	for name, values := range got {
		allowed, known := want[name]
		if !known {
			t.Errorf("unexpected label %q with values %v", name, values)
			continue
		}
		for v := range values {
			if strings.Contains(v, tenant) {
				t.Errorf("label %s carries the tenant id: %q", name, v)
			}
			if allowed == nil {
				continue
			}
			found := false
			for _, a := range allowed {
				found = found || a == v
			}
			if !found {
				t.Errorf("label %s = %q, not in %v", name, v, allowed)
			}
		}
	}
	if n := testutil.ToFloat64(m.httpRequests.WithLabelValues("list-deals", "2xx")); n != 1 {
		t.Errorf("list-deals 2xx = %v, want 1", n)
	}
	if n := testutil.ToFloat64(m.httpInFlight); n != 0 {
		t.Errorf("requests in flight = %v after every request ended, want 0", n)
	}
	if n := testutil.ToFloat64(m.runsStarted); n != 3 {
		t.Errorf("runs started = %v, want 3", n)
	}
	if n := testutil.ToFloat64(m.webhookAttempts.WithLabelValues(Other, "3")); n != 1 {
		t.Errorf("an unknown webhook outcome counts as other: %v", n)
	}
}

func TestPrometheusScrapeServesEveryMetricWithConventionalNames(t *testing.T) {
	m := NewMetrics("v-test")
	oldest := time.Now().Add(-42 * time.Second)
	m.WatchOutbox(func(context.Context) (time.Time, bool, error) { return oldest, true, nil })
	m.WatchIngestQueue(func() (int, int) { return 3, 120 })
	m.IngestGroup(4, 300, 12*time.Millisecond, false)
	handler, closer := m.TemporalMetrics()
	handler.WithTags(map[string]string{"namespace": "default"}).Counter("temporal_request").Inc(2)
	handler.Timer("temporal_request_latency").Record(30 * time.Millisecond)
	_ = closer.Close() // flushes the scope into the registry

	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range families {
		byName[f.GetName()] = f
		name := f.GetName()
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			if !strings.HasSuffix(name, "_total") {
				t.Errorf("counter %s does not end in _total", name)
			}
		case dto.MetricType_HISTOGRAM:
			if strings.HasSuffix(name, "_ms") || strings.HasSuffix(name, "_milliseconds") {
				t.Errorf("histogram %s is not in base units", name)
			}
		}
		if !strings.HasPrefix(name, "partnerd_") && !strings.HasPrefix(name, "go_") &&
			!strings.HasPrefix(name, "process_") && !strings.HasPrefix(name, "temporal_") {
			t.Errorf("metric %s has none of the prefixes partnerd_, go_, process_, temporal_", name)
		}
	}
	for _, name := range []string{"partnerd_build_info", "partnerd_outbox_oldest_age_seconds", "partnerd_ingest_queue_requests",
		"partnerd_ingest_queue_events", "partnerd_ingest_group_events", "partnerd_ingest_group_commit_seconds",
		"temporal_request_total", "temporal_request_latency_seconds", "go_goroutines", "process_cpu_seconds_total"} {
		if byName[name] == nil {
			t.Errorf("no %s in the scrape", name)
		}
	}
	if f := byName["partnerd_outbox_oldest_age_seconds"]; f != nil {
		if age := f.GetMetric()[0].GetGauge().GetValue(); age < 42 || age > 60 {
			t.Errorf("outbox lag = %v s, want about 42", age)
		}
	}
	if f := byName["partnerd_ingest_queue_events"]; f != nil && f.GetMetric()[0].GetGauge().GetValue() != 120 {
		t.Errorf("ingest queue events = %v, want 120", f.GetMetric()[0].GetGauge().GetValue())
	}
	if f := byName["partnerd_ingest_group_events"]; f != nil && f.GetMetric()[0].GetHistogram().GetSampleSum() != 300 {
		t.Errorf("ingest group events sum = %v, want 300", f.GetMetric()[0].GetHistogram().GetSampleSum())
	}
	if f := byName["temporal_request_total"]; f != nil && f.GetMetric()[0].GetCounter().GetValue() != 2 {
		t.Errorf("temporal_request_total = %v, want 2", f.GetMetric()[0].GetCounter().GetValue())
	}
}

func TestOutboxLagThatCannotBeReadLeavesTheRestOfTheScrape(t *testing.T) {
	m := NewMetrics("v-test")
	m.WatchOutbox(func(context.Context) (time.Time, bool, error) { return time.Time{}, false, errors.New("database down") })
	a, err := ServeAdmin(context.Background(), "127.0.0.1:0", m, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := http.Get("http://" + a.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "partnerd_build_info") {
		t.Fatalf("GET /metrics = %d\n%s", res.StatusCode, body)
	}
	if strings.Contains(string(body), "partnerd_outbox_oldest_age_seconds ") {
		t.Fatal("the outbox lag is reported although it could not be read")
	}
	if res, err := http.Get("http://" + a.Addr() + "/anything-else"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("the admin listener serves only /metrics: %v %v", res, err)
	}
}

func TestNilMetricsRecordNothingAndGiveTheSDKsNopHandler(t *testing.T) {
	var m *Metrics
	m.RequestStarted()
	m.RequestDone("login", 200, time.Millisecond)
	m.WebhookAttempt("succeeded", 1, time.Millisecond)
	m.PayoutAttempt("http", "succeeded")
	m.PayoutSettled("http", "paid")
	m.PlaybookRunsStarted(1)
	m.PlaybookRunFinished("completed")
	m.IngestGroup(1, 1, time.Millisecond, false)
	m.WatchDB(nil)
	if h, _ := m.TemporalMetrics(); h != client.MetricsNopHandler {
		t.Fatalf("handler = %T, want the SDK's no-op handler", h)
	}
}

func TestLogLinesCarryTraceSpanAndRequestIDs(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tr, err := NewTracing(context.Background(), TracingOptions{Exporter: exp, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tr.Shutdown(context.Background()) }()
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil)))

	ctx := models.WithRequestMeta(context.Background(), models.RequestMeta{RequestID: "req-123"})
	ctx, span := tr.Provider.Tracer("test").Start(ctx, "op")
	log.InfoContext(ctx, "inside")
	log.InfoContext(ctx, "named", "request_id", "mine")
	log.Info("outside")
	span.End()

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var inside, named, outside map[string]any
	for i, dst := range []*map[string]any{&inside, &named, &outside} {
		if err := json.Unmarshal([]byte(lines[i]), dst); err != nil {
			t.Fatal(err)
		}
	}
	sc := span.SpanContext()
	if inside[LogTraceID] != sc.TraceID().String() || inside[LogSpanID] != sc.SpanID().String() || inside[LogRequestID] != "req-123" {
		t.Errorf("line in a span = %v, want trace %s span %s request req-123", inside, sc.TraceID(), sc.SpanID())
	}
	if named[LogRequestID] != "mine" || strings.Count(lines[1], `"request_id"`) != 1 {
		t.Errorf("a record naming its request_id keeps it alone: %s", lines[1])
	}
	if _, ok := outside[LogTraceID]; ok {
		t.Errorf("line without a span has a trace id: %v", outside)
	}
	if len(exp.GetSpans()) != 1 {
		t.Fatalf("spans = %d, want 1", len(exp.GetSpans()))
	}
}

func TestTracingIsOffWithoutAnEndpointAndRefusesUnknownProtocols(t *testing.T) {
	tr, err := NewTracing(context.Background(), TracingOptions{})
	if err != nil || tr.Enabled {
		t.Fatalf("tracing without protocol = %+v, %v; want off", tr, err)
	}
	_, span := tr.Provider.Tracer("x").Start(context.Background(), "op")
	if span.SpanContext().IsValid() || span.IsRecording() {
		t.Fatal("tracing off records spans")
	}
	if _, err := NewTracing(context.Background(), TracingOptions{Protocol: "thrift"}); err == nil {
		t.Fatal("an unknown protocol is accepted")
	}
	var _ sdktrace.SpanExporter = tracetest.NewInMemoryExporter()
}

// TestGrafanaDashboardReadsOnlyMetricsThatExist keeps deploy/grafana/partnerd.json true to the
// registry: every partnerd_ metric a panel queries is one this package serves.
func TestGrafanaDashboardReadsOnlyMetricsThatExist(t *testing.T) {
	raw, err := os.ReadFile("../deploy/grafana/partnerd.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	m := NewMetrics("v-test")
	m.WatchOutbox(func(context.Context) (time.Time, bool, error) { return time.Time{}, false, nil })
	m.WatchIngestQueue(func() (int, int) { return 0, 0 })
	// Histograms and labelled families appear once observed.
	m.RequestStarted()
	m.RequestDone("login", 200, time.Millisecond)
	m.IngestGroup(1, 1, time.Millisecond, false)
	m.WebhookAttempt("succeeded", 1, time.Millisecond)
	m.PayoutAttempt("http", "succeeded")
	m.PayoutSettled("http", "paid")
	m.PlaybookRunFinished("completed")
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range families {
		served[f.GetName()] = true
	}
	name := regexp.MustCompile(`partnerd_[a-z_]+`)
	queried := 0
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			for _, n := range name.FindAllString(target.Expr, -1) {
				queried++
				base := n
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if s, ok := strings.CutSuffix(n, suffix); ok && served[s] {
						base = s
					}
				}
				if !served[base] {
					t.Errorf("the dashboard queries %s, which is not served", n)
				}
			}
		}
	}
	if queried < 15 {
		t.Fatalf("the dashboard queries %d partnerd metrics; it should read most of them", queried)
	}
}

// BenchmarkRequestDone is what the API's metrics middleware records per request.
func BenchmarkRequestDone(b *testing.B) {
	m := NewMetrics("bench")
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		m.RequestStarted()
		m.RequestDone("list-deals", 200, time.Since(start))
	}
}
