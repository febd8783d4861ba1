package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestTraceFollowsARequestIntoItsWorkflowAndActivitiesAndMetricsAreServed sends a webhook test
// delivery, which the API runs as a workflow on the embedded Temporal server and waits for, with
// the caller's trace context, and checks that one trace holds the operation's span, its
// database spans, the workflow's start and run, and the activities with their own database
// spans; then that the admin listener serves the metrics the request left.
func TestTraceFollowsARequestIntoItsWorkflowAndActivitiesAndMetricsAreServed(t *testing.T) {
	const password = "bootstrap-Password-0451"
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	adminAddr := "127.0.0.1:" + freeTCPPort(t)
	cfg, err := loadConfig("serve", nil, envOf(map[string]string{
		"PARTNERD_DATA_DIR":                 t.TempDir(),
		"PARTNERD_HTTP_ADDR":                "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":            freeTCPPort(t),
		"PARTNERD_ADMIN_ADDR":               adminAddr,
		"PARTNERD_METRICS_ON_API":           "true",
		"PARTNERD_BOOTSTRAP_EMAIL":          "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD":       password,
		"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	cfg.traceExporter = exp
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{out: &lockedBuffer{}, logs: &lockedBuffer{}, stop: cancel, result: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() { r.result <- serve(ctx, cfg, r.out, r.logs, func(a string) { addr <- a }) }()
	select {
	case r.addr = <-addr:
	case err := <-r.result:
		t.Fatalf("serve stopped before it was ready: %v\n%s", err, r.logs.String())
	case <-time.After(2 * time.Minute):
		cancel()
		t.Fatalf("serve was not ready within 2 minutes:\n%s", r.logs.String())
	}
	defer r.shutdown(t)
	base := "http://" + r.addr

	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	if code := call(t, http.MethodPost, base+"/api/auth/login", "", map[string]string{"email": "founder@example.test", "password": password}, &tok); code != http.StatusOK {
		t.Fatalf("login = %d", code)
	}
	var hook struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, base+"/api/webhooks", tok.AccessToken, map[string]any{"url": receiver.URL + "/in", "eventTypes": []string{"invoice.*"}}, &hook); code != http.StatusCreated {
		t.Fatalf("create webhook = %d", code)
	}

	const traceID = "0af7651916cd43dd8448eb211c80319c"
	req, _ := http.NewRequest(http.MethodPost, base+"/api/webhooks/"+hook.ID+"/test", nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("traceparent", "00-"+traceID+"-b7ad6b7169203331-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"succeeded"`) {
		t.Fatalf("test delivery = %d %s", res.StatusCode, body)
	}

	// Spans end as their work ends; the workflow's may end a moment after the answer.
	want := []string{"test-webhook", "StartWorkflow:WebhookDelivery", "RunWorkflow:WebhookDelivery",
		"RunActivity:BeginWebhookDelivery", "RunActivity:SendWebhook", "RunActivity:RecordWebhookAttempt"}
	var inTrace map[string]tracetest.SpanStub
	var all tracetest.SpanStubs
	eventually(t, "the workflow's spans", 20*time.Second, func() bool {
		all = exp.GetSpans()
		inTrace = map[string]tracetest.SpanStub{}
		for _, s := range all {
			if s.SpanContext.TraceID().String() == traceID {
				inTrace[s.Name] = s
			}
		}
		for _, name := range want {
			if _, ok := inTrace[name]; !ok {
				return false
			}
		}
		return true
	})
	// The database spans of the operation and of the activities sit under them in the trace.
	under := map[string]int{}
	for _, s := range all {
		if s.SpanContext.TraceID().String() != traceID || s.SpanKind != trace.SpanKindClient {
			continue
		}
		for name, parent := range inTrace {
			if s.Parent.SpanID() == parent.SpanContext.SpanID() {
				under[name]++
			}
		}
	}
	for _, name := range []string{"test-webhook", "RunActivity:BeginWebhookDelivery", "RunActivity:SendWebhook", "RunActivity:RecordWebhookAttempt"} {
		if under[name] == 0 {
			t.Errorf("no database span under %s (database spans by parent: %v)", name, under)
		}
	}
	if !strings.Contains(r.logs.String(), "trace_id="+traceID) {
		t.Errorf("no log line carries trace_id=%s", traceID)
	}

	code, scrape := get(t, "http://"+adminAddr+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET admin /metrics = %d", code)
	}
	for _, line := range []string{
		`partnerd_http_requests_total{operation="test-webhook",status_class="2xx"} 1`,
		`partnerd_webhook_attempts_total{attempt="1",outcome="succeeded"} 1`,
		`go_sql_open_connections{db_name="partnerd"}`,
		`partnerd_outbox_oldest_age_seconds`,
		`partnerd_ingest_queue_requests 0`,
		`temporal_request_total{`,
		`temporal_workflow_completed_total{`,
	} {
		if !strings.Contains(scrape, line) {
			t.Errorf("the admin scrape lacks %s", line)
		}
	}
	if code, onAPI := get(t, base+"/metrics"); code != http.StatusOK || !strings.Contains(onAPI, "partnerd_build_info") {
		t.Errorf("GET /metrics on the API listener = %d", code)
	}
	if strings.Contains(scrape, hook.ID) || strings.Contains(scrape, "founder@example.test") {
		t.Error("the scrape shows a webhook id or an email")
	}
}
