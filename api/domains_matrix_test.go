package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/partnerd/partnerd/models/store/stores"
)

// fakeDomains records the verifications the API starts.
type fakeDomains struct {
	mu      sync.Mutex
	started []string
}

func (f *fakeDomains) VerifyDomain(_ context.Context, _, domainID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = append(f.started, domainID)
	return nil
}

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		d, err := sc.AddDomain(context.Background(), "partners.matrix.example", "")
		if err != nil {
			t.Fatal(err)
		}
		f.ids["domain"] = d.ID
		f.fresh["domain"] = func(string) string {
			d, err := sc.AddDomain(context.Background(), fmt.Sprintf("d%d.matrix.example", f.seq.Add(1)), "")
			if err != nil {
				t.Fatal(err)
			}
			return d.ID
		}
	})
	cases := map[string]matrixCase{
		"get-cors-origins": {call: get("/api/settings/cors-origins")},
		"set-cors-origins": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/settings/cors-origins", map[string]any{"origins": []string{"https://www.matrix.example"}}}
		}},
		"list-domains": {call: get("/api/domains")},
		"add-domain": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/domains", map[string]any{"host": fmt.Sprintf("p%d.matrix.example", f.seq.Add(1))}}
		}},
		"get-domain": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/domains/" + f.ids["domain"], nil}
		}},
		"verify-domain": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/domains/" + f.ids["domain"] + "/verify", nil}
		}},
		"remove-domain": {byID: true, call: func(f *fixture, role string) request {
			return request{http.MethodDelete, "/api/domains/" + f.fresh["domain"](role), nil}
		}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
