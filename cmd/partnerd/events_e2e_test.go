package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// receivedHook is one request the test endpoint got.
type receivedHook struct {
	header http.Header
	body   []byte
}

// call is an authenticated JSON request to the running server.
func call(t *testing.T, method, url, bearer string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, raw)
		}
	}
	if res.StatusCode >= 300 {
		t.Logf("%s %s = %d %s", method, url, res.StatusCode, raw)
	}
	return res.StatusCode
}

// TestIngestedEventReachesASubscribedWebhookThroughTheEmbeddedServer drives the event bus end
// to end: a machine key ingests an event, the dispatcher starts its fan-out on the embedded
// Temporal server, the delivery workflow retries a failing endpoint on the configured
// schedule, and the endpoint verifies the signature with the Standard Webhooks library.
func TestIngestedEventReachesASubscribedWebhookThroughTheEmbeddedServer(t *testing.T) {
	const password = "bootstrap-Password-0451"
	var mu sync.Mutex
	var got []receivedHook
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, receivedHook{header: r.Header.Clone(), body: body})
		n := len(got)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the first attempt fails; the retry succeeds
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	r := startServe(t, map[string]string{
		"PARTNERD_DATA_DIR":                 t.TempDir(),
		"PARTNERD_HTTP_ADDR":                "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":            freeTCPPort(t),
		"PARTNERD_BOOTSTRAP_EMAIL":          "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD":       password,
		"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
		"PARTNERD_WEBHOOK_RETRY_SCHEDULE":   "0s,1s,1s",
	})
	defer r.shutdown(t)
	base := "http://" + r.addr

	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	if code := call(t, http.MethodPost, base+"/api/auth/login", "", map[string]string{"email": "founder@example.test", "password": password}, &tok); code != http.StatusOK {
		t.Fatalf("login = %d", code)
	}
	var key struct {
		Key string `json:"key"`
	}
	if code := call(t, http.MethodPost, base+"/api/apikeys", tok.AccessToken, map[string]any{"name": "ingest", "scopes": []string{"events:write"}}, &key); code != http.StatusCreated {
		t.Fatalf("create key = %d", code)
	}
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if code := call(t, http.MethodPost, base+"/api/webhooks", tok.AccessToken, map[string]any{"url": receiver.URL + "/in", "eventTypes": []string{"invoice.*"}}, &hook); code != http.StatusCreated {
		t.Fatalf("create webhook = %d", code)
	}

	var ack struct {
		EventID string `json:"id"`
		Status  string `json:"status"`
	}
	ev := map[string]any{"customerEmail": "buyer@example.test", "type": "invoice.paid", "payload": map[string]any{"amountMinor": 129900, "currency": "EUR"}}
	if code := call(t, http.MethodPost, base+"/api/events/ingest", key.Key, ev, &ack); code != http.StatusOK || ack.EventID == "" || ack.Status != "stored" {
		t.Fatalf("ingest = %d %+v", code, ack)
	}
	// A type nobody subscribes to is stored and never delivered.
	if code := call(t, http.MethodPost, base+"/api/events/ingest", key.Key, map[string]any{"customerEmail": "buyer@example.test", "type": "page.viewed", "payload": map[string]any{}}, nil); code != http.StatusOK {
		t.Fatalf("ingest of an unsubscribed type = %d", code)
	}

	type delivery struct {
		ID           string `json:"id"`
		EventID      string `json:"eventId"`
		MessageID    string `json:"messageId"`
		Status       string `json:"status"`
		AttemptCount int    `json:"attemptCount"`
	}
	var page struct {
		Data []delivery `json:"data"`
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		page.Data = nil
		if code := call(t, http.MethodGet, base+"/api/webhooks/"+hook.ID+"/deliveries", tok.AccessToken, nil, &page); code != http.StatusOK {
			t.Fatalf("list deliveries = %d", code)
		}
		if len(page.Data) == 1 && page.Data[0].Status == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no succeeded delivery within 90 s: %+v\n%s", page.Data, r.logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	d := page.Data[0]
	if d.EventID != ack.EventID || d.AttemptCount != 2 {
		t.Fatalf("delivery = %+v, want event %s after 2 attempts", d, ack.EventID)
	}

	mu.Lock()
	requests := append([]receivedHook(nil), got...)
	mu.Unlock()
	if len(requests) != 2 {
		t.Fatalf("the endpoint got %d requests, want 2", len(requests))
	}
	wh, err := standardwebhooks.NewWebhook(hook.Secret)
	if err != nil {
		t.Fatal(err)
	}
	for i, req := range requests {
		if id := req.header.Get("webhook-id"); id != d.MessageID {
			t.Errorf("attempt %d has webhook-id %q, want %q on every attempt", i+1, id, d.MessageID)
		}
		if err := wh.Verify(req.body, req.header); err != nil {
			t.Errorf("attempt %d: the Standard Webhooks library rejects our signature: %v", i+1, err)
		}
		var msg struct {
			Type string `json:"type"`
			Data struct {
				ID      string         `json:"id"`
				Payload map[string]any `json:"payload"`
			} `json:"data"`
		}
		if err := json.Unmarshal(req.body, &msg); err != nil || msg.Type != "invoice.paid" || msg.Data.ID != ack.EventID || msg.Data.Payload["amountMinor"] != float64(129900) {
			t.Errorf("attempt %d body = %s (%v)", i+1, req.body, err)
		}
	}

	var detail struct {
		Attempts []struct {
			StatusCode int `json:"statusCode"`
		} `json:"attempts"`
	}
	if code := call(t, http.MethodGet, base+"/api/webhooks/"+hook.ID+"/deliveries/"+d.ID, tok.AccessToken, nil, &detail); code != http.StatusOK {
		t.Fatalf("delivery detail = %d", code)
	}
	if len(detail.Attempts) != 2 || detail.Attempts[0].StatusCode != http.StatusServiceUnavailable || detail.Attempts[1].StatusCode != http.StatusNoContent {
		t.Fatalf("attempts = %+v, want 503 then 204", detail.Attempts)
	}
	if strings.Contains(r.logs.String(), hook.Secret) || strings.Contains(r.logs.String(), key.Key) {
		t.Fatal("a secret reached the log")
	}
}
