package main

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// payoutProvider is an http payout provider for the tests: it holds the first payout call until
// the process that made it is gone (the answer is lost), and pays every later call with its
// reference. It records each call's idempotency key.
type payoutProvider struct {
	reference    string
	server       *httptest.Server
	firstArrived chan struct{}

	mu   sync.Mutex
	keys []string
}

// newPayoutProvider starts a payout provider that answers with reference; it is closed when the
// test ends.
func newPayoutProvider(t *testing.T, reference string) *payoutProvider {
	t.Helper()
	p := &payoutProvider{reference: reference, firstArrived: make(chan struct{})}
	p.server = httptest.NewServer(http.HandlerFunc(p.serveHTTP))
	t.Cleanup(p.server.Close)
	return p
}

func (p *payoutProvider) serveHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/payouts" {
		// Not a payout call (a process of an earlier test reaching a reused port).
		http.NotFound(w, r)
		return
	}
	p.mu.Lock()
	p.keys = append(p.keys, r.Header.Get("Idempotency-Key"))
	n := len(p.keys)
	p.mu.Unlock()
	if n == 1 {
		close(p.firstArrived)
		<-r.Context().Done() // the process that asked is gone before the answer
		return
	}
	_, _ = io.WriteString(w, `{"reference":"`+p.reference+`"}`)
}

// configure makes the provider the tenant's payout provider at base, as owner.
func (p *payoutProvider) configure(t *testing.T, base, owner string) {
	t.Helper()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	if code := call(t, http.MethodPut, base+"/api/payout-settings", owner, map[string]any{"provider": "http", "httpUrl": p.server.URL + "/payouts",
		"httpSecret": "whsec_" + base64.StdEncoding.EncodeToString(secret), "minimums": map[string]int64{}, "confirmDays": 14}, nil); code != http.StatusOK {
		t.Fatalf("payout settings = %d", code)
	}
}

// awaitFirstCall waits until the first payout call is being held.
func (p *payoutProvider) awaitFirstCall(t *testing.T) {
	t.Helper()
	select {
	case <-p.firstArrived:
	case <-time.After(time.Minute):
		t.Fatal("the provider was never called")
	}
}

// checkCalls fails the test unless w was paid with the provider's reference after at least
// two payout calls (the held one and a retry), every one carrying the payout id as its key.
func (p *payoutProvider) checkCalls(t *testing.T, w e2eWithdrawal) {
	t.Helper()
	p.mu.Lock()
	calls := append([]string(nil), p.keys...)
	p.mu.Unlock()
	if len(calls) < 2 || w.Payout == nil || w.Reference != p.reference {
		t.Fatalf("provider calls %v, withdrawal %+v", calls, w)
	}
	for _, k := range calls {
		if k != w.Payout.ID {
			t.Fatalf("provider calls carried keys %v, want %s on every one", calls, w.Payout.ID)
		}
	}
}
