package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

// syncBuffer collects log output written from handler goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// modulesOf is every module store of st as one principal sees it.
func modulesOf(st *stores.Set) Modules {
	return Modules{
		APIKeys:        func(p *models.Principal) KeyStore { return st.For(p) },
		Audit:          func(p *models.Principal) AuditStore { return st.For(p) },
		People:         func(p *models.Principal) PeopleStore { return st.For(p) },
		Partners:       func(p *models.Principal) PartnerStore { return st.For(p) },
		Roles:          func(p *models.Principal) RoleStore { return st.For(p) },
		Tenant:         func(p *models.Principal) TenantStore { return st.For(p) },
		Events:         func(p *models.Principal) EventsStore { return st.For(p) },
		Customers:      func(p *models.Principal) CustomerStore { return st.For(p) },
		Webhooks:       func(p *models.Principal) WebhookStore { return st.For(p) },
		Metrics:        func(p *models.Principal) MetricStore { return st.For(p) },
		Dashboards:     func(p *models.Principal) DashboardStore { return st.For(p) },
		Deals:          func(p *models.Principal) DealStore { return st.For(p) },
		Tasks:          func(p *models.Principal) TaskStore { return st.For(p) },
		Desk:           func(p *models.Principal) DeskStore { return st.For(p) },
		Levels:         func(p *models.Principal) LevelStore { return st.For(p) },
		Applications:   func(p *models.Principal) ApplicationStore { return st.For(p) },
		Mail:           func(p *models.Principal) MailStore { return st.For(p) },
		Commissions:    func(p *models.Principal) CommissionStore { return st.For(p) },
		Ledger:         func(p *models.Principal) LedgerStore { return st.For(p) },
		Withdrawals:    func(p *models.Principal) WithdrawalStore { return st.For(p) },
		Playbooks:      func(p *models.Principal) PlaybookStore { return st.For(p) },
		Content:        func(p *models.Principal) ContentStore { return st.For(p) },
		Agreements:     func(p *models.Principal) AgreementStore { return st.For(p) },
		Surveys:        func(p *models.Principal) SurveyStore { return st.For(p) },
		Tax:            func(p *models.Principal) TaxStore { return st.For(p) },
		MDF:            func(p *models.Principal) MDFStore { return st.For(p) },
		Certifications: func(p *models.Principal) CertificationStore { return st.For(p) },
		Branding:       func(p *models.Principal) BrandingStore { return st.For(p) },
		Domains:        func(p *models.Principal) DomainStore { return st.For(p) },
		Health:         func(p *models.Principal) HealthStore { return st.For(p) },
	}
}

// testServer builds a Server whose JSON logs land in the returned buffer.
func testServer(t testing.TB, deps Deps) (*Server, *syncBuffer) {
	t.Helper()
	return testServerWith(t, Config{Version: "test"}, deps)
}

// testBlobs is a blob store in a fresh local directory, as `partnerd serve` keeps one under its
// data directory.
func testBlobs(t testing.TB) *blobstore.Store {
	t.Helper()
	b, err := blobstore.Open(context.Background(), blobstore.DefaultURL(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func testServerWith(t testing.TB, cfg Config, deps Deps) (*Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	deps.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return New(cfg, deps), logs
}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) problem(t testing.TB) Problem {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, problemContentType) {
		t.Fatalf("content type = %q, want %s; body %s", ct, problemContentType, r.Body)
	}
	var p Problem
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("problem body does not parse: %v: %s", err, r.Body)
	}
	return p
}

func do(t testing.TB, h http.Handler, method, target string, body io.Reader, headers ...string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// doFrom is do from the client address addr (host:port).
func doFrom(t testing.TB, h http.Handler, addr, method, target string, body io.Reader) response {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr = addr
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

func doBench(h http.Handler, body string) int {
	req := httptest.NewRequest(http.MethodPost, "/api/auth/login", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}
