package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		newCustomer := func(scope *stores.Scoped, email string) string {
			c := &models.Customer{Email: &email}
			if err := scope.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		f.ids["customer1"] = newCustomer(p1, "c1@matrix.test")
		f.ids["customer2"] = newCustomer(p2, "c2@matrix.test")
		for _, name := range []string{"customer1", "customer2"} {
			res, err := sc.Ingest(ctx, []models.IngestEvent{{CustomerID: f.ids[name], Type: "feature.used", Payload: `{"n":1}`}})
			if err != nil || res[0].Err != nil {
				t.Fatalf("ingest: %v %v", err, res)
			}
			f.ids["event-of-"+name] = res[0].EventID
		}
		f.fresh["customer"] = func(string) string { return newCustomer(p1, f.unique("fresh")) }
	})
	ingestBody := func(f *fixture) map[string]any {
		return map[string]any{"customerEmail": f.unique("ingest"), "type": "feature.used", "payload": map[string]any{"seats": 3}}
	}
	cases := map[string]matrixCase{
		"ingest-event": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/events/ingest", ingestBody(f)}
		}},
		"ingest-events": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/events/batch", map[string]any{"events": []any{ingestBody(f), ingestBody(f)}}}
		}},
		"list-events":      {call: get("/api/events")},
		"list-event-types": {call: get("/api/event-types")},
		"get-event": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodGet, "/api/events/" + f.ids["event-of-customer1"], nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/events/" + f.ids["event-of-customer2"], nil}
			}},
		"list-customers": {call: get("/api/customers")},
		"create-customer": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/customers", map[string]any{"email": f.unique("new-customer"), "name": "New"}}
		}},
		"get-customer": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodGet, "/api/customers/" + f.ids["customer1"], nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/customers/" + f.ids["customer2"], nil}
			}},
		"update-customer": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodPatch, "/api/customers/" + f.ids["customer1"], map[string]any{"name": "Renamed"}}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodPatch, "/api/customers/" + f.ids["customer2"], map[string]any{"name": "Renamed"}}
			}},
		"delete-customer": {byID: true,
			call: func(f *fixture, role string) request {
				id := f.ids["customer1"]
				if role != "foreign" && role != "" {
					id = f.fresh["customer"](role)
				}
				return request{http.MethodDelete, "/api/customers/" + id, nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodDelete, "/api/customers/" + f.ids["customer2"], nil}
			}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
