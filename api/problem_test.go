package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

type echoInput struct {
	Body struct {
		Name  string `json:"name" minLength:"3"`
		Email string `json:"email" format:"email"`
	}
}

type echoOutput struct {
	Body struct {
		Name string `json:"name"`
	}
}

// withProbeRoutes adds operations that fail in each way the problem tests need.
func withProbeRoutes(s *Server) {
	tags := []string{"Test"}
	register(s, huma.Operation{OperationID: "echo", Method: http.MethodPost, Path: "/test/echo", Tags: tags, MaxBodyBytes: 64},
		Public(), func(_ context.Context, in *echoInput) (*echoOutput, error) {
			out := &echoOutput{}
			out.Body.Name = in.Body.Name
			return out, nil
		})
	register(s, huma.Operation{OperationID: "panics", Method: http.MethodGet, Path: "/test/panic", Tags: tags},
		Public(), func(context.Context, *struct{}) (*struct{}, error) {
			panic("database password is hunter2")
		})
	register(s, huma.Operation{OperationID: "fails", Method: http.MethodGet, Path: "/test/fail", Tags: tags},
		Public(), func(context.Context, *struct{}) (*struct{}, error) {
			return nil, errors.New("dial tcp 10.0.0.7:5432: connection refused")
		})
	register(s, huma.Operation{OperationID: "database-down", Method: http.MethodGet, Path: "/test/database-down", Tags: tags},
		Public(), func(context.Context, *struct{}) (*struct{}, error) {
			refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 5432},
				Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
			return nil, fmt.Errorf("list deals: %w", store.WrapUnavailable(refused))
		})
	register(s, huma.Operation{OperationID: "conflicts", Method: http.MethodGet, Path: "/test/conflict", Tags: tags},
		Public(), func(context.Context, *struct{}) (*struct{}, error) {
			return nil, models.Conflict("DEAL_ALREADY_WON", "the deal is already won")
		})
}

func TestErrorsAreProblemJSONWithCodeAndRequestID(t *testing.T) {
	s, logs := testServer(t, Deps{})
	withProbeRoutes(s)
	h := s.Handler()

	cases := []struct {
		name     string
		method   string
		path     string
		body     string
		status   int
		code     string
		mustHide string
	}{
		{name: "an unknown route is 404", method: http.MethodGet, path: "/api/nothing-here", status: 404, code: "NOT_FOUND"},
		{name: "a known route with another method is 405", method: http.MethodDelete, path: "/healthz", status: 405, code: "METHOD_NOT_ALLOWED"},
		{name: "an oversized body is 413", method: http.MethodPost, path: "/test/echo", body: `{"name":"` + strings.Repeat("x", 200) + `"}`, status: 413, code: "PAYLOAD_TOO_LARGE"},
		{name: "invalid fields are 422 listing every field", method: http.MethodPost, path: "/test/echo", body: `{"name":"x","email":"nope"}`, status: 422, code: "VALIDATION_FAILED"},
		{name: "malformed JSON is 400", method: http.MethodPost, path: "/test/echo", body: `{"name":`, status: 400, code: "BAD_REQUEST"},
		{name: "a panic is 500 without internals", method: http.MethodGet, path: "/test/panic", status: 500, code: "INTERNAL", mustHide: "hunter2"},
		{name: "an unexpected error is 500 without internals", method: http.MethodGet, path: "/test/fail", status: 500, code: "INTERNAL", mustHide: "10.0.0.7"},
		{name: "a database out of reach is 503 without internals", method: http.MethodGet, path: "/test/database-down", status: 503, code: "DATABASE_UNAVAILABLE", mustHide: "10.0.0.7"},
		{name: "a domain conflict keeps its code", method: http.MethodGet, path: "/test/conflict", status: 409, code: "DEAL_ALREADY_WON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body *strings.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			var res response
			if body != nil {
				res = do(t, h, tc.method, tc.path, body, HeaderRequestID, "req-"+strings.ReplaceAll(tc.name, " ", "-")[:10])
			} else {
				res = do(t, h, tc.method, tc.path, nil, HeaderRequestID, "req-"+strings.ReplaceAll(tc.name, " ", "-")[:10])
			}
			if res.Status != tc.status {
				t.Fatalf("status = %d, want %d: %s", res.Status, tc.status, res.Body)
			}
			p := res.problem(t)
			if p.Status != tc.status || p.Code != tc.code || p.Title == "" || p.Type == "" {
				t.Fatalf("problem = %+v, want status %d code %s with title and type", p, tc.status, tc.code)
			}
			if p.RequestID == "" || p.RequestID != res.Header.Get(HeaderRequestID) {
				t.Fatalf("problem requestId %q does not match the response header %q", p.RequestID, res.Header.Get(HeaderRequestID))
			}
			if p.Instance != tc.path {
				t.Fatalf("instance = %q, want %q", p.Instance, tc.path)
			}
			if tc.mustHide != "" && strings.Contains(string(res.Body), tc.mustHide) {
				t.Fatalf("the response leaks %q: %s", tc.mustHide, res.Body)
			}
		})
	}

	t.Run("a validation problem lists each bad field", func(t *testing.T) {
		p := do(t, h, http.MethodPost, "/test/echo", strings.NewReader(`{"name":"x","email":"nope"}`)).problem(t)
		var locations []string
		for _, e := range p.Errors {
			locations = append(locations, e.Location)
		}
		got := strings.Join(locations, ",")
		if !strings.Contains(got, "body.name") || !strings.Contains(got, "body.email") {
			t.Fatalf("errors name %q, want body.name and body.email", got)
		}
	})

	t.Run("internal causes are logged under the request id", func(t *testing.T) {
		do(t, h, http.MethodGet, "/test/fail", nil, HeaderRequestID, "trace-me-500")
		if !strings.Contains(logs.String(), "10.0.0.7") || !strings.Contains(logs.String(), "trace-me-500") {
			t.Fatalf("the cause of a 500 is not in the logs: %s", logs.String())
		}
	})

	t.Run("a database out of reach asks to retry in a second and is logged", func(t *testing.T) {
		res := do(t, h, http.MethodGet, "/test/database-down", nil, HeaderRequestID, "trace-me-503")
		if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("GET /test/database-down = %d, Retry-After %q; want 503 with Retry-After 1", res.Status, res.Header.Get("Retry-After"))
		}
		if !strings.Contains(logs.String(), "connection refused") || !strings.Contains(logs.String(), "trace-me-503") {
			t.Fatalf("the cause of a 503 is not in the logs: %s", logs.String())
		}
	})

	t.Run("a 405 names the allowed methods", func(t *testing.T) {
		res := do(t, h, http.MethodPost, "/healthz", nil)
		if res.Status != http.StatusMethodNotAllowed || !strings.Contains(res.Header.Get("Allow"), http.MethodGet) {
			t.Fatalf("POST /healthz = %d, Allow %q", res.Status, res.Header.Get("Allow"))
		}
	})
}

func TestRequestIDIsAdoptedOrGenerated(t *testing.T) {
	s, _ := testServer(t, Deps{})
	h := s.Handler()
	if got := do(t, h, http.MethodGet, "/healthz", nil, HeaderRequestID, "abc-123").Header.Get(HeaderRequestID); got != "abc-123" {
		t.Fatalf("a well-formed incoming id was replaced by %q", got)
	}
	got := do(t, h, http.MethodGet, "/healthz", nil, HeaderRequestID, "bad id\" with <script>").Header.Get(HeaderRequestID)
	if got == "" || strings.ContainsAny(got, " <\"") {
		t.Fatalf("a malformed incoming id was kept or dropped: %q", got)
	}
	a := do(t, h, http.MethodGet, "/healthz", nil).Header.Get(HeaderRequestID)
	b := do(t, h, http.MethodGet, "/healthz", nil).Header.Get(HeaderRequestID)
	if a == "" || a == b {
		t.Fatalf("generated ids %q and %q are not unique", a, b)
	}
}

func TestAccessLogHasOneLinePerRequestAndNoSecrets(t *testing.T) {
	s, logs := testServer(t, Deps{})
	withProbeRoutes(s)
	do(t, s.Handler(), http.MethodPost, "/test/echo?token=query-secret", strings.NewReader(`{"name":"body-secret","email":"a@b.co"}`),
		"Authorization", "Bearer header-secret", HeaderRequestID, "log-line-1")
	out := logs.String()
	lines := 0
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if strings.Contains(line, `"msg":"request"`) && strings.Contains(line, "log-line-1") {
			lines++
			for _, field := range []string{`"method":"POST"`, `"route":"/test/echo"`, `"status":200`, `"duration"`} {
				if !strings.Contains(line, field) {
					t.Errorf("access line lacks %s: %s", field, line)
				}
			}
		}
	}
	if lines != 1 {
		t.Fatalf("access lines for the request = %d, want 1:\n%s", lines, out)
	}
	for _, secret := range []string{"query-secret", "body-secret", "header-secret"} {
		if strings.Contains(out, secret) {
			t.Fatalf("the log holds %q:\n%s", secret, out)
		}
	}
}

func TestRegisterRefusesUnguardedOperations(t *testing.T) {
	handler := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	base := func() huma.Operation {
		return huma.Operation{OperationID: "op", Method: http.MethodGet, Path: "/x", Tags: []string{"T"}, Security: UsersOnly}
	}
	cases := []struct {
		name   string
		op     func() huma.Operation
		access Access
		want   string
	}{
		{"an operation without a tag", func() huma.Operation { o := base(); o.Tags = nil; return o }, Requires(authz.TenantRead), "no tag"},
		{"an operation without an id", func() huma.Operation { o := base(); o.OperationID = ""; return o }, Requires(authz.TenantRead), "no operation id"},
		{"an operation without a permission", base, Access{}, "no permission"},
		{"an operation with an uncatalogued permission", base, Requires("made:up"), "not in the permission catalogue"},
		{"a guarded operation without a security requirement", func() huma.Operation { o := base(); o.Security = nil; return o }, Requires(authz.TenantRead), "no security requirement"},
		{"a public operation that also claims a scheme", base, Public(), "must not declare"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := testServer(t, Deps{})
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(error).Error(), tc.want) {
					t.Fatalf("register did not refuse with %q: %v", tc.want, r)
				}
			}()
			register(s, tc.op(), tc.access, handler)
		})
	}
}

func TestReadinessReportsEachFailingDependency(t *testing.T) {
	ok := ReadinessCheck{Name: "database", Check: func(context.Context) error { return nil }}
	down := ReadinessCheck{Name: "temporal", Check: func(context.Context) error { return errors.New("connection refused") }}

	s, _ := testServer(t, Deps{Readiness: []ReadinessCheck{ok}})
	if res := do(t, s.Handler(), http.MethodGet, "/readyz", nil); res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"database":"ok"`) {
		t.Fatalf("ready = %d %s", res.Status, res.Body)
	}

	s, _ = testServer(t, Deps{Readiness: []ReadinessCheck{ok, down}})
	res := do(t, s.Handler(), http.MethodGet, "/readyz", nil)
	p := res.problem(t)
	if p.Status != http.StatusServiceUnavailable || p.Code != "NOT_READY" || len(p.Errors) != 1 || p.Errors[0].Location != "temporal" {
		t.Fatalf("not ready = %+v", p)
	}
	if strings.Contains(string(res.Body), "connection refused") {
		t.Fatal("the readiness problem leaks the cause")
	}
}

func TestAProblemListsAtMostTwentyFieldsAndEchoesNoLargeValue(t *testing.T) {
	big := make([]any, 3000)
	for i := range big {
		big[i] = "profile:read"
	}
	errs := make([]error, 0, 3000)
	for range 3000 {
		errs = append(errs, &huma.ErrorDetail{Location: "body.scopes", Message: "expected array items to be unique", Value: big})
	}
	errs = append(errs, &huma.ErrorDetail{Location: "body.name", Message: "expected length <= 200", Value: strings.Repeat("x", 100_000)})
	p := humaProblem(t.Context(), 422, "validation failed", errs)
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 8<<10 {
		t.Fatalf("the problem has %d bytes", len(b))
	}
	if len(p.Errors) != MaxProblemErrors+1 || p.Errors[MaxProblemErrors].Message != "and 2981 more problems" {
		t.Fatalf("%d entries, last %+v", len(p.Errors), p.Errors[len(p.Errors)-1])
	}
	if p.Errors[0].Value != "(an array of 3000 items)" {
		t.Fatalf("the first value echoed is %v", p.Errors[0].Value)
	}
	one := humaProblem(t.Context(), 422, "validation failed", errs[3000:])
	if v, _ := one.Errors[0].Value.(string); len(v) > maxEchoBytes+len("…") || !utf8.ValidString(v) {
		t.Fatalf("a 100 kB string is echoed as %d bytes", len(v))
	}
}
