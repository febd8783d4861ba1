package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// transferIn is the body of the operations the idempotency tests register.
type transferIn struct {
	Body struct {
		Amount int64  `json:"amount" minimum:"1"`
		Note   string `json:"note,omitempty" maxLength:"200"`
	}
}

type transferOut struct {
	Body struct {
		ID     string `json:"id"`
		Amount int64  `json:"amount"`
	}
}

// transferHandler stands in for a money operation: it counts its runs, can be made to block,
// to fail once, or to reject the request.
type transferHandler struct {
	runs     atomic.Int64
	failNext atomic.Bool
	// panicNext makes the next run panic, as a crashing handler would.
	panicNext atomic.Bool
	// entered and release hold the next run in the handler when block is set.
	block   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (h *transferHandler) serve(_ context.Context, in *transferIn) (*transferOut, error) {
	h.runs.Add(1)
	if h.block.CompareAndSwap(true, false) {
		h.entered <- struct{}{}
		<-h.release
	}
	if h.panicNext.CompareAndSwap(true, false) {
		panic("the handler crashed")
	}
	if h.failNext.CompareAndSwap(true, false) {
		return nil, errors.New("the payment provider is down")
	}
	if in.Body.Note == "reject" {
		return nil, models.Invalid("TRANSFER_REJECTED", "the transfer was rejected")
	}
	out := &transferOut{}
	out.Body.ID = models.NewID()
	out.Body.Amount = in.Body.Amount
	return out, nil
}

// idempotencyServer is a real server with test operations that take Idempotency-Key: POST
// /api/test-idempotent (key required, bodies up to 256 bytes), /api/test-idempotent-other
// (required) and /api/test-idempotent-optional (optional).
func idempotencyServer(t *testing.T, st *stores.Set) (http.Handler, *transferHandler) {
	t.Helper()
	s, _ := identityServer(t, st)
	h := &transferHandler{entered: make(chan struct{}), release: make(chan struct{})}
	for _, o := range []struct {
		id, path string
		required bool
	}{
		{"testIdempotent", "/api/test-idempotent", true},
		{"testIdempotentOther", "/api/test-idempotent-other", true},
		{"testIdempotentOptional", "/api/test-idempotent-optional", false},
	} {
		op := huma.Operation{
			OperationID: o.id, Method: http.MethodPost, Path: o.path, Tags: []string{"Test"},
			Security: UsersOrKeys, DefaultStatus: http.StatusCreated, MaxBodyBytes: 256,
		}
		register(s, idempotent(op, o.required), Requires(authz.EventsWrite), h.serve)
	}
	return s.Handler(), h
}

func TestIdempotencyKeysRunAWriteOnceAndReplayItsResponse(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		srv, h := idempotencyServer(t, st)
		_, email := seedTenant(t, st, "acme")
		_, otherEmail := seedTenant(t, st, "globex")
		tok := login(t, srv, email, ownerPassword).AccessToken
		otherTok := login(t, srv, otherEmail, ownerPassword).AccessToken

		post := func(path, token, key, body string) response {
			t.Helper()
			headers := bearer(token)
			if key != "" {
				headers = append(headers, HeaderIdempotencyKey, key)
			}
			return do(t, srv, http.MethodPost, path, strings.NewReader(body), headers...)
		}
		runs := func() int64 { return h.runs.Load() }

		t.Run("the same key and body replay the first response without running again", func(t *testing.T) {
			before := runs()
			first := post("/api/test-idempotent", tok, "pay-1", `{"amount":100}`)
			if first.Status != http.StatusCreated || first.Header.Get(HeaderIdempotentReplayed) != "" {
				t.Fatalf("first request = %d %v %s", first.Status, first.Header, first.Body)
			}
			second := post("/api/test-idempotent", tok, "pay-1", `{"amount":100}`)
			if second.Status != http.StatusCreated || string(second.Body) != string(first.Body) {
				t.Fatalf("repeat = %d %s, want %d %s", second.Status, second.Body, first.Status, first.Body)
			}
			if second.Header.Get(HeaderIdempotentReplayed) != "true" || second.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
				t.Fatalf("repeat headers = %v", second.Header)
			}
			if n := runs() - before; n != 1 {
				t.Fatalf("the handler ran %d times for one key", n)
			}
			third := post("/api/test-idempotent", tok, "pay-2", `{"amount":100}`)
			if third.Status != http.StatusCreated || string(third.Body) == string(first.Body) || runs()-before != 2 {
				t.Fatalf("a new key did not run the write: %d %s", third.Status, third.Body)
			}
		})

		t.Run("the same key with another body, operation or caller is refused", func(t *testing.T) {
			before := runs()
			res := post("/api/test-idempotent", tok, "pay-1", `{"amount":101}`)
			if p := res.problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != CodeIdempotencyKeyReused {
				t.Fatalf("another body = %+v", p)
			}
			res = post("/api/test-idempotent-other", tok, "pay-1", `{"amount":100}`)
			if p := res.problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != CodeIdempotencyKeyReused {
				t.Fatalf("another operation = %+v", p)
			}
			key := decode[keyOut](t, do(t, srv, http.MethodPost, "/api/apikeys",
				jsonBody(t, map[string]any{"name": "payments", "scopes": []string{string(authz.EventsWrite)}}), bearer(tok)...))
			res = post("/api/test-idempotent", key.Key, "pay-1", `{"amount":100}`)
			if p := res.problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != CodeIdempotencyKeyReused {
				t.Fatalf("a machine key of the same tenant reusing a user's key = %+v", p)
			}
			if runs() != before {
				t.Fatal("a refused request ran the handler")
			}
		})

		t.Run("keys of another tenant are independent", func(t *testing.T) {
			before := runs()
			res := post("/api/test-idempotent", otherTok, "pay-1", `{"amount":100}`)
			if res.Status != http.StatusCreated || res.Header.Get(HeaderIdempotentReplayed) != "" || runs()-before != 1 {
				t.Fatalf("the same key in another tenant = %d %s", res.Status, res.Body)
			}
		})

		t.Run("a repeat while the first request runs is told it is in flight", func(t *testing.T) {
			h.block.Store(true)
			var (
				wg    sync.WaitGroup
				first response
			)
			wg.Go(func() { first = post("/api/test-idempotent", tok, "pay-slow", `{"amount":5}`) })
			select {
			case <-h.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("the first request never reached the handler")
			}
			res := post("/api/test-idempotent", tok, "pay-slow", `{"amount":5}`)
			p := res.problem(t)
			close(h.release)
			wg.Wait()
			if p.Status != http.StatusConflict || p.Code != CodeIdempotencyKeyInFlight || res.Header.Get("Retry-After") == "" {
				t.Fatalf("a repeat in flight = %+v %v", p, res.Header)
			}
			if first.Status != http.StatusCreated {
				t.Fatalf("the first request = %d %s", first.Status, first.Body)
			}
			after := post("/api/test-idempotent", tok, "pay-slow", `{"amount":5}`)
			if after.Status != http.StatusCreated || string(after.Body) != string(first.Body) || after.Header.Get(HeaderIdempotentReplayed) != "true" {
				t.Fatalf("the repeat after the first finished = %d %s", after.Status, after.Body)
			}
		})

		t.Run("a server error releases the key so that a retry runs", func(t *testing.T) {
			before := runs()
			h.failNext.Store(true)
			res := post("/api/test-idempotent", tok, "pay-retry", `{"amount":7}`)
			if p := res.problem(t); p.Status != http.StatusInternalServerError {
				t.Fatalf("the failing request = %+v", p)
			}
			res = post("/api/test-idempotent", tok, "pay-retry", `{"amount":7}`)
			if res.Status != http.StatusCreated || res.Header.Get(HeaderIdempotentReplayed) != "" || runs()-before != 2 {
				t.Fatalf("the retry = %d %s after %d runs", res.Status, res.Body, runs()-before)
			}
		})

		t.Run("a handler that panics releases the key so that a retry runs", func(t *testing.T) {
			before := runs()
			h.panicNext.Store(true)
			res := post("/api/test-idempotent", tok, "pay-panic", `{"amount":8}`)
			if p := res.problem(t); p.Status != http.StatusInternalServerError {
				t.Fatalf("the panicking request = %+v", p)
			}
			res = post("/api/test-idempotent", tok, "pay-panic", `{"amount":8}`)
			if res.Status != http.StatusCreated || res.Header.Get(HeaderIdempotentReplayed) != "" || runs()-before != 2 {
				t.Fatalf("the retry after a panic = %d %s after %d runs", res.Status, res.Body, runs()-before)
			}
		})

		t.Run("a rejection is the answer and replays too", func(t *testing.T) {
			before := runs()
			first := post("/api/test-idempotent", tok, "pay-rejected", `{"amount":9,"note":"reject"}`)
			if p := first.problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != "TRANSFER_REJECTED" {
				t.Fatalf("the rejected request = %+v", p)
			}
			again := post("/api/test-idempotent", tok, "pay-rejected", `{"amount":9,"note":"reject"}`)
			if again.Status != http.StatusUnprocessableEntity || string(again.Body) != string(first.Body) ||
				again.Header.Get(HeaderIdempotentReplayed) != "true" || !strings.HasPrefix(again.Header.Get("Content-Type"), problemContentType) {
				t.Fatalf("the repeat of a rejection = %d %v %s", again.Status, again.Header, again.Body)
			}
			if runs()-before != 1 {
				t.Fatalf("a rejected request ran %d times", runs()-before)
			}
		})

		t.Run("keys are required where the operation says so and must be well formed", func(t *testing.T) {
			before := runs()
			res := post("/api/test-idempotent", tok, "", `{"amount":1}`)
			if p := res.problem(t); p.Status != http.StatusBadRequest || p.Code != CodeIdempotencyKeyRequired {
				t.Fatalf("no key = %+v", p)
			}
			for _, bad := range []string{strings.Repeat("k", 256), "caf\u00e9", "tab\there"} {
				res := post("/api/test-idempotent", tok, bad, `{"amount":1}`)
				if p := res.problem(t); p.Status != http.StatusBadRequest || p.Code != CodeIdempotencyKeyInvalid {
					t.Fatalf("key %q = %+v", bad, p)
				}
			}
			if runs() != before {
				t.Fatal("a request without a usable key ran the handler")
			}
			if res := post("/api/test-idempotent", tok, strings.Repeat("k", 255), `{"amount":1}`); res.Status != http.StatusCreated {
				t.Fatalf("a 255-character key = %d %s", res.Status, res.Body)
			}
			for range 2 {
				if res := post("/api/test-idempotent-optional", tok, "", `{"amount":1}`); res.Status != http.StatusCreated {
					t.Fatalf("no key on an optional operation = %d %s", res.Status, res.Body)
				}
			}
			if runs()-before != 3 {
				t.Fatalf("requests without a key on an optional operation ran %d times, want 3", runs()-before)
			}
		})

		t.Run("the body limit still answers 413 and leaves the key unused", func(t *testing.T) {
			big := `{"amount":1,"note":"` + strings.Repeat("x", 300) + `"}`
			res := post("/api/test-idempotent", tok, "pay-big", big)
			if p := res.problem(t); p.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("a body over the limit = %+v", p)
			}
			if res := post("/api/test-idempotent", tok, "pay-big", `{"amount":1}`); res.Status != http.StatusCreated {
				t.Fatalf("the key after a refused body = %d %s", res.Status, res.Body)
			}
		})

		t.Run("the header is documented on the operation", func(t *testing.T) {
			s, _ := identityServer(t, st)
			register(s, idempotent(huma.Operation{
				OperationID: "testDoc", Method: http.MethodPost, Path: "/api/test-doc", Tags: []string{"Test"}, Security: UsersOnly,
			}, true), Requires(authz.EventsWrite), h.serve)
			var param *huma.Param
			for _, p := range s.OpenAPI().Paths["/api/test-doc"].Post.Parameters {
				if p.Name == HeaderIdempotencyKey {
					param = p
				}
			}
			if param == nil || param.In != "header" || !param.Required || param.Schema == nil ||
				param.Schema.MinLength == nil || *param.Schema.MinLength != 1 || param.Schema.MaxLength == nil || *param.Schema.MaxLength != 255 {
				t.Fatalf("Idempotency-Key parameter = %+v", param)
			}
		})
	})
}
