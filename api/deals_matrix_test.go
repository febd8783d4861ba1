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
		register := func(scope *stores.Scoped, domain string) string {
			d := &models.Deal{CustomerCompany: "Matrix Co", CustomerDomain: domain, AmountMinor: 1000, Currency: "EUR"}
			if err := scope.RegisterDeal(ctx, d); err != nil {
				t.Fatal(err)
			}
			return d.ID
		}
		approved := func(scope *stores.Scoped) string {
			id := register(scope, "")
			if _, err := sc.ApproveDeal(ctx, id, ""); err != nil {
				t.Fatal(err)
			}
			return id
		}
		ps, _, err := sc.ListPipelines(ctx, models.Page{})
		if err != nil || len(ps) == 0 {
			t.Fatalf("pipelines: %v", err)
		}
		f.ids["pipeline"] = ps[0].ID
		f.ids["stage2"] = ps[0].Stages[1].ID
		f.ids["operator"] = sc.Principal().UserID
		f.ids["deal1"] = register(p1, "")
		f.ids["deal2"] = register(p2, "")
		f.ids["approved1"] = approved(p1)
		f.ids["approved2"] = approved(p2)
		f.fresh["submitted"] = func(string) string { return register(p1, "") }
		f.fresh["approved"] = func(string) string { return approved(p1) }
		f.fresh["conflicted"] = func(string) string {
			domain := f.unique("clash") + ".example"
			register(p2, domain)
			return register(p1, domain)
		}
	})
	deal := func(name, suffix string) func(*fixture) request {
		return func(f *fixture) request { return request{http.MethodGet, "/api/deals/" + f.ids[name] + suffix, nil} }
	}
	post := func(fresh, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, role string) request {
			id := f.ids["deal1"]
			if role != "foreign" && role != "" {
				id = f.fresh[fresh](role)
			}
			return request{http.MethodPost, "/api/deals/" + id + suffix, body}
		}
	}
	on := func(method, name, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, _ string) request { return request{method, "/api/deals/" + f.ids[name] + suffix, body} }
	}
	cases := map[string]matrixCase{
		"list-pipelines": {call: get("/api/pipelines")},
		"get-pipeline": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/pipelines/" + f.ids["pipeline"], nil}
		}},
		"create-pipeline": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/pipelines", map[string]any{"name": f.unique("pipe"), "stages": []map[string]any{
				{"name": "Open", "outcome": "open", "probability": 20}, {"name": "Won", "outcome": "won", "probability": 100},
				{"name": "Lost", "outcome": "lost", "probability": 0}}}}
		}},
		"register-deal": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/deals", map[string]any{"partnerId": f.partner1, "customerCompany": "Registered Co",
				"amountMinor": 125000, "currency": "EUR"}}
		}},
		"list-deals": {call: get("/api/deals")},
		"get-deal":   {byID: true, call: on(http.MethodGet, "deal1", "", nil), otherPartner: deal("deal2", "")},
		"update-deal": {byID: true, call: on(http.MethodPatch, "deal1", "", map[string]any{"notes": "updated"}),
			otherPartner: func(f *fixture) request {
				return request{http.MethodPatch, "/api/deals/" + f.ids["deal2"], map[string]any{"notes": "x"}}
			}},
		"move-deal": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["approved1"]
			if role != "foreign" && role != "" {
				id = f.fresh["approved"](role)
			}
			return request{http.MethodPost, "/api/deals/" + id + "/move", map[string]any{"stageId": f.ids["stage2"]}}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/deals/" + f.ids["approved2"] + "/move", map[string]any{"stageId": f.ids["stage2"]}}
		}},
		"approve-deal":           {byID: true, call: post("submitted", "/approve", map[string]any{})},
		"reject-deal":            {byID: true, call: post("submitted", "/reject", map[string]any{"reason": "duplicate"})},
		"list-deal-conflicts":    {byID: true, call: on(http.MethodGet, "deal1", "/conflicts", nil)},
		"resolve-deal-conflicts": {byID: true, call: post("conflicted", "/conflicts/resolve", map[string]any{"resolution": "different units"})},
		"assign-deal-owner": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/deals/" + f.ids["deal1"] + "/owner", map[string]any{"userId": f.ids["operator"]}}
		}},
		"request-deal-extension": {byID: true, call: on(http.MethodPost, "approved1", "/extension-request", map[string]any{"reason": "legal"}),
			otherPartner: func(f *fixture) request {
				return request{http.MethodPost, "/api/deals/" + f.ids["approved2"] + "/extension-request", map[string]any{"reason": "x"}}
			}},
		"extend-deal": {byID: true, call: on(http.MethodPost, "approved1", "/extend", map[string]any{"days": 10})},
		"add-deal-note": {byID: true, call: on(http.MethodPost, "deal1", "/notes", map[string]any{"body": "called the CFO"}),
			otherPartner: func(f *fixture) request {
				return request{http.MethodPost, "/api/deals/" + f.ids["deal2"] + "/notes", map[string]any{"body": "x"}}
			}},
		"get-deal-timeline": {byID: true, call: on(http.MethodGet, "deal1", "/timeline", nil), otherPartner: deal("deal2", "/timeline")},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
