// Package railstest gives tests of the payout rails their providers: the stripe-mock server
// named by PARTNERD_TEST_STRIPE_MOCK, and servers replaying recorded PayPal and Wise exchanges.
package railstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// StripeMockEnv names the base URL of a running stripe-mock (e.g. http://127.0.0.1:12111).
const StripeMockEnv = "PARTNERD_TEST_STRIPE_MOCK"

// StripeMock is the base URL of the stripe-mock the tests talk to. Without one the test fails
// in CI (CI=true: .ci/run installs and starts it) and is skipped elsewhere.
func StripeMock(t testing.TB) string {
	t.Helper()
	u := strings.TrimRight(os.Getenv(StripeMockEnv), "/")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s must name a running stripe-mock when CI=true", StripeMockEnv)
		}
		t.Skipf("%s is not set: no stripe-mock to pay through (install: go install github.com/stripe/stripe-mock@v0.203.0)", StripeMockEnv)
	}
	resp, err := http.Get(u + "/v1/balance") //nolint:noctx,gosec // a test's probe of the local mock its environment names
	if err != nil {
		t.Fatalf("stripe-mock at %s does not answer: %v", u, err)
	}
	_ = resp.Body.Close()
	return u
}

// Exchange is one recorded request and the provider's answer.
type Exchange struct {
	Request struct {
		Method string `json:"method"`
		Path   string `json:"path"`
		// Headers must be present with these values; Body must be contained in the request's
		// JSON (objects by their keys, arrays whole).
		Headers map[string]string `json:"headers,omitempty"`
		Body    json.RawMessage   `json:"body,omitempty"`
	} `json:"request"`
	Response struct {
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"response"`
}

// Replay serves a recorded conversation in order: each request must match the next exchange
// (with ${NAME} in the recording replaced by vars[NAME]), else the test fails.
type Replay struct {
	URL string
	t   testing.TB
	mu  sync.Mutex
	ex  []Exchange
	n   int
}

// NewReplay starts a server replaying the exchanges recorded in file (a JSON array).
func NewReplay(t testing.TB, file string, vars map[string]string) *Replay {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for k, v := range vars {
		text = strings.ReplaceAll(text, "${"+k+"}", v)
	}
	r := &Replay{t: t}
	if err := json.Unmarshal([]byte(text), &r.ex); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Replay) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	body, _ := io.ReadAll(req.Body)
	if r.n >= len(r.ex) {
		r.t.Errorf("unexpected request %s %s beyond the recording", req.Method, req.URL.RequestURI())
		http.Error(w, "not recorded", http.StatusNotImplemented)
		return
	}
	ex := r.ex[r.n]
	r.n++
	if err := ex.match(req, body); err != nil {
		r.t.Errorf("request %d: %v", r.n, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ex.Response.Status)
	_, _ = w.Write(ex.Response.Body)
}

func (ex Exchange) match(req *http.Request, body []byte) error {
	if req.Method != ex.Request.Method || req.URL.Path != strings.SplitN(ex.Request.Path, "?", 2)[0] {
		return fmt.Errorf("got %s %s, recorded %s %s", req.Method, req.URL.Path, ex.Request.Method, ex.Request.Path)
	}
	for k, v := range ex.Request.Headers {
		if got := req.Header.Get(k); got != v && (v != "*" || got == "") {
			return fmt.Errorf("%s %s: header %s = %q, recorded %q", req.Method, req.URL.Path, k, got, v)
		}
	}
	if len(ex.Request.Body) == 0 {
		return nil
	}
	var want, got any
	if err := json.Unmarshal(ex.Request.Body, &want); err != nil {
		return err
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &got); err != nil {
		return fmt.Errorf("%s %s: body is not JSON: %s", req.Method, req.URL.Path, body)
	}
	if !contains(got, want) {
		return fmt.Errorf("%s %s: body %s does not contain the recorded %s", req.Method, req.URL.Path, body, ex.Request.Body)
	}
	return nil
}

// contains reports whether got holds every key of want with an equal value, and arrays item by item.
func contains(got, want any) bool {
	if wa, ok := want.([]any); ok {
		ga, ok := got.([]any)
		if !ok || len(ga) != len(wa) {
			return false
		}
		for i := range wa {
			if !contains(ga[i], wa[i]) {
				return false
			}
		}
		return true
	}
	wm, ok := want.(map[string]any)
	if !ok {
		if want == "*" { // a recorded "*" stands for any value the test cannot know in advance
			gs, ok := got.(string)
			return ok && gs != ""
		}
		return reflect.DeepEqual(got, want)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, wv := range wm {
		if gv, ok := gm[k]; !ok || !contains(gv, wv) {
			return false
		}
	}
	return true
}

// Done fails the test unless every recorded exchange was requested.
func (r *Replay) Done() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n != len(r.ex) {
		r.t.Errorf("%d of %d recorded exchanges were requested", r.n, len(r.ex))
	}
}
