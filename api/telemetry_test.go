package api

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	gormtracing "gorm.io/plugin/opentelemetry/tracing"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/telemetry"
)

// telemetryServer is identityServer with metrics, tracing (when tr is set) and the process's log
// handler, whose JSON lines go to logs.
func telemetryServer(t testing.TB, st *stores.Set, m *telemetry.Metrics, tr *telemetry.Tracing, logs io.Writer) *Server {
	t.Helper()
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, err := models.NewKeyring(map[int][]byte{1: master}, 1)
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{
		Logger:       slog.New(telemetry.LogHandler(slog.NewJSONHandler(logs, nil))),
		Tenants:      st,
		Identity:     st,
		Modules:      modulesOf(st),
		Tokens:       authn.NewTokens(keys, "partnerd", "partnerd-api"),
		Authorizer:   authz.NewAuthorizer(st),
		Webhooks:     WebhookDeps{Keyring: webhookTestKeys, Starter: &fakeStarter{}},
		Applications: st,
		SurveyLinks:  st,
		Payouts:      &fakePayouts{},
		Runs:         &fakeRuns{},
		Idempotency:  st,
		Metrics:      m,
	}
	if tr != nil {
		deps.Tracing = &Tracing{Provider: tr.Provider, Propagator: tr.Propagator}
	}
	return New(Config{Version: "test", SignupEnabled: true}, deps)
}

func TestMetricsLabelRequestsByOperationNeverByTenantOrPath(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		m := telemetry.NewMetrics("test")
		s := telemetryServer(t, st, m, nil, io.Discard)
		s.MountMetrics(m.Handler())
		h := s.Handler()
		tenantID, email := seedTenant(t, st, "acme")
		tok := login(t, h, email, ownerPassword)

		if res := do(t, h, http.MethodGet, "/api/deals", nil, bearer(tok.AccessToken)...); res.Status != http.StatusOK {
			t.Fatalf("list deals = %d %s", res.Status, res.Body)
		}
		odd := "oddmarker" + tenantID + "%3Cb%3E"
		for _, target := range []string{"/api/deals/" + tenantID, "/api/deals/" + odd} {
			if res := do(t, h, http.MethodGet, target, nil, bearer(tok.AccessToken)...); res.Status/100 != 4 {
				t.Fatalf("GET %s = %d, want 4xx", target, res.Status)
			}
		}
		do(t, h, http.MethodGet, "/no/such/"+odd, nil)
		do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": "wrong"}))

		res := do(t, h, http.MethodGet, "/metrics", nil)
		body := string(res.Body)
		if res.Status != http.StatusOK {
			t.Fatalf("GET /metrics = %d", res.Status)
		}
		for _, want := range []string{
			`partnerd_http_requests_total{operation="list-deals",status_class="2xx"} 1`,
			`partnerd_http_requests_total{operation="get-deal",status_class="4xx"} 2`,
			`partnerd_http_requests_total{operation="login",status_class="2xx"} 1`,
			`partnerd_http_requests_total{operation="login",status_class="4xx"} 1`,
			`partnerd_http_requests_total{operation="none",status_class=`,
			`partnerd_http_request_duration_seconds_count{operation="list-deals"} 1`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the scrape lacks %s", want)
			}
		}
		for _, secret := range []string{tenantID, email, "oddmarker", "no/such", "acme"} {
			if strings.Contains(body, secret) {
				t.Errorf("the scrape shows %q, which came from a request", secret)
			}
		}

		ops := map[string]bool{telemetry.OperationNone: true}
		for _, path := range s.OpenAPI().Paths {
			for _, op := range operationsOf(path) {
				ops[op.OperationID] = true
			}
		}
		families, err := m.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			for _, metric := range f.GetMetric() {
				for _, l := range metric.GetLabel() {
					if l.GetName() == "operation" && !ops[l.GetValue()] {
						t.Errorf("%s has operation %q, which is no operation id of the API", f.GetName(), l.GetValue())
					}
				}
			}
		}
	})
}

func TestTraceSpanPerOperationJoinsTheCallersTraceWithDatabaseSpansAndLogIDs(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		exp := tracetest.NewInMemoryExporter()
		tr, err := telemetry.NewTracing(context.Background(), telemetry.TracingOptions{Exporter: exp, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Core().DB(context.Background()).Use(gormtracing.NewPlugin(gormtracing.WithTracerProvider(tr.Provider),
			gormtracing.WithoutQueryVariables(), gormtracing.WithoutMetrics())); err != nil {
			t.Fatal(err)
		}
		logs := &syncBuffer{}
		h := telemetryServer(t, st, nil, tr, logs).Handler()
		_, email := seedTenant(t, st, "acme")
		exp.Reset()

		const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		res := do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": email, "password": ownerPassword}),
			"traceparent", "00-"+traceID+"-"+parentID+"-01", HeaderRequestID, "req-trace-1")
		if res.Status != http.StatusOK {
			t.Fatalf("login = %d %s", res.Status, res.Body)
		}
		spans := exp.GetSpans()
		var op *tracetest.SpanStub
		for i := range spans {
			if spans[i].Name == "login" {
				op = &spans[i]
			}
		}
		if op == nil {
			t.Fatalf("no span named after the operation among %d spans", len(spans))
		}
		if op.SpanContext.TraceID().String() != traceID || op.Parent.SpanID().String() != parentID || op.SpanKind != trace.SpanKindServer {
			t.Fatalf("operation span in trace %s under %s (kind %v), want the caller's trace %s under %s",
				op.SpanContext.TraceID(), op.Parent.SpanID(), op.SpanKind, traceID, parentID)
		}
		found := false
		for _, a := range op.Attributes {
			found = found || a.Key == "partnerd.operation" && a.Value.AsString() == "login"
		}
		if !found {
			t.Errorf("operation span attributes %v lack partnerd.operation=login", op.Attributes)
		}
		db := 0
		for _, s := range spans {
			if s.SpanKind == trace.SpanKindClient && s.SpanContext.TraceID() == op.SpanContext.TraceID() && s.Parent.SpanID() == op.SpanContext.SpanID() {
				db++
				for _, a := range s.Attributes {
					if a.Key == "db.statement" && strings.Contains(a.Value.AsString(), email) {
						t.Errorf("a database span shows the statement's values: %s", a.Value.AsString())
					}
				}
			}
		}
		if db == 0 {
			t.Errorf("no database span under the operation span among %d spans", len(spans))
		}

		var line string
		for l := range strings.SplitSeq(logs.String(), "\n") {
			if strings.Contains(l, `"msg":"request"`) && strings.Contains(l, "/api/auth/login") {
				line = l
			}
		}
		for _, want := range []string{`"trace_id":"` + traceID + `"`, `"span_id":"` + op.SpanContext.SpanID().String() + `"`, `"request_id":"req-trace-1"`} {
			if !strings.Contains(line, want) {
				t.Errorf("access log line lacks %s: %s", want, line)
			}
		}
	})
}

// BenchmarkRequestMetrics measures what the metrics middleware adds to a request: the same
// public operation through the same stack without and with it.
func BenchmarkRequestMetrics(b *testing.B) {
	for _, bc := range []struct {
		name    string
		metrics RequestMetrics
	}{{"without", nil}, {"with", telemetry.NewMetrics("bench")}} {
		b.Run(bc.name, func(b *testing.B) {
			s := New(Config{Version: "bench"}, Deps{Metrics: bc.metrics})
			h := s.Handler()
			req, _ := http.NewRequest(http.MethodGet, "/healthz", nil)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec := discardWriter{header: http.Header{}}
				h.ServeHTTP(&rec, req)
				if rec.status != http.StatusOK {
					b.Fatalf("status %d", rec.status)
				}
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps only the status, so that the benchmark measures
// the server rather than a recorder.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}
func (w *discardWriter) WriteHeader(code int) { w.status = code }
