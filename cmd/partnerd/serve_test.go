package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type running struct {
	addr   string
	out    *lockedBuffer
	logs   *lockedBuffer
	stop   context.CancelFunc
	result chan error
}

func startServe(t *testing.T, env map[string]string) *running {
	t.Helper()
	cfg, err := loadConfig("serve", nil, envOf(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{out: &lockedBuffer{}, logs: &lockedBuffer{}, stop: cancel, result: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		r.result <- serve(ctx, cfg, r.out, r.logs, func(a string) { addr <- a })
	}()
	select {
	case r.addr = <-addr:
	case err := <-r.result:
		cancel()
		t.Fatalf("serve stopped before it was ready: %v\n%s", err, r.logs.String())
	case <-time.After(2 * time.Minute):
		cancel()
		t.Fatalf("serve was not ready within 2 minutes:\n%s", r.logs.String())
	}
	return r
}

func (r *running) shutdown(t *testing.T) {
	t.Helper()
	r.stop()
	select {
	case err := <-r.result:
		if err != nil {
			t.Fatalf("serve returned %v on shutdown", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop within a minute of being asked")
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func freeTCPPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func TestServeRunsEverythingAndRestartsOnTheSameDataDirectory(t *testing.T) {
	const password = "bootstrap-Password-0451"
	env := map[string]string{
		"PARTNERD_DATA_DIR":           t.TempDir(),
		"PARTNERD_HTTP_ADDR":          "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":      freeTCPPort(t),
		"PARTNERD_BOOTSTRAP_EMAIL":    "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD": password,
		"PARTNERD_LOG_LEVEL":          "debug",
	}

	first := startServe(t, env)
	base := "http://" + first.addr
	if code, body := get(t, base+"/readyz"); code != http.StatusOK || !strings.Contains(body, `"temporal":"ok"`) || !strings.Contains(body, `"database":"ok"`) {
		t.Fatalf("GET /readyz = %d %s", code, body)
	}
	for _, path := range []string{"/healthz", "/openapi.json", "/swagger/index.html", "/docs"} {
		if code, _ := get(t, base+path); code != http.StatusOK {
			t.Errorf("GET %s = %d", path, code)
		}
	}
	banner := first.out.String()
	for _, want := range []string{base + "/docs", base + "/swagger/", "Temporal", `Demo tenant "demo" created`, "founder@example.test", "alice@northwind.demo"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner lacks %q:\n%s", want, banner)
		}
	}
	res, err := http.Post(base+"/api/auth/login", "application/json",
		strings.NewReader(`{"email":"founder@example.test","password":"`+password+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	_ = json.NewDecoder(res.Body).Decode(&tok)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || tok.AccessToken == "" {
		t.Fatalf("the bootstrap owner cannot sign in: %d", res.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/api/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	me, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	meBody, _ := io.ReadAll(me.Body)
	me.Body.Close()
	if me.StatusCode != http.StatusOK || !strings.Contains(string(meBody), `"owner"`) {
		t.Fatalf("GET /api/me as the bootstrap owner = %d %s", me.StatusCode, meBody)
	}
	if !strings.Contains(first.logs.String(), "database_ok=true") {
		t.Errorf("the worker probe did not pass through the embedded server:\n%s", first.logs.String())
	}
	cfg, _ := loadConfig("serve", nil, envOf(env), io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = serve(ctx, cfg, io.Discard, io.Discard, nil)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second serve on the same data directory: err = %v, want in use", err)
	}
	first.shutdown(t)
	if !strings.Contains(first.logs.String(), "shutting down") {
		t.Error("shutdown was not logged")
	}

	again := startServe(t, env)
	defer again.shutdown(t)
	if code, body := get(t, "http://"+again.addr+"/readyz"); code != http.StatusOK {
		t.Fatalf("after restart GET /readyz = %d %s", code, body)
	}
	if strings.Contains(again.out.String(), "created") {
		t.Fatalf("the restart bootstrapped again:\n%s", again.out.String())
	}
	if !strings.Contains(again.logs.String(), "database_ok=true") {
		t.Errorf("the restarted server did not run the probe:\n%s", again.logs.String())
	}

	for _, r := range []*running{first, again} {
		for _, out := range []string{r.logs.String(), r.out.String()} {
			if strings.Contains(out, password) {
				t.Fatal("the bootstrap password reached the output")
			}
		}
	}
}
