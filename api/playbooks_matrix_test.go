package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		ctx := context.Background()
		tenantID := sc.Principal().TenantID
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		var graph models.PlaybookGraph
		decodeInto(t, dealWonPlaybook("7d"), &graph)
		draft := func() string {
			p := &models.Playbook{ID: models.NewID(), Name: f.unique("playbook"), Status: models.PlaybookDraft, Graph: graph}
			must(sc.CreatePlaybook(ctx, p))
			return p.ID
		}
		published := func() string {
			id := draft()
			_, err := sc.PublishPlaybook(ctx, id)
			must(err)
			return id
		}
		enabled := func() string {
			id := published()
			_, err := sc.SetPlaybookStatus(ctx, id, models.PlaybookEnabled)
			must(err)
			return id
		}
		f.ids["playbook"] = published()
		f.fresh["playbook"] = func(string) string { return draft() }
		f.fresh["published-playbook"] = func(string) string { return published() }
		f.fresh["enabled-playbook"] = func(string) string { return enabled() }
		run := func() string { return seedRun(t, f.st, tenantID, f.ids["playbook"], f.partner1).ID }
		f.ids["run"] = run()
		f.fresh["run"] = func(string) string { return run() }
		doc := func(partnerID string) string {
			id, err := f.st.PlaybookCreateDocument(ctx, models.System(tenantID), "matrix:"+models.NewID(), &models.Document{PartnerID: &partnerID, Title: "Matrix", Body: "<p>Matrix</p>"})
			must(err)
			return id
		}
		f.ids["document1"] = doc(f.partner1)
		f.ids["document2"] = doc(f.partner2)
	})

	// fresh aims a consuming call at a new record, and the foreign and anonymous calls at the
	// fixture's record of that kind.
	fresh := func(method, prefix, kind, stable, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, role string) request {
			id := f.ids[stable]
			if role != "foreign" && role != "" {
				id = f.fresh[kind](role)
			}
			return request{method, prefix + id + suffix, body}
		}
	}
	on := func(method, prefix, name, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, _ string) request { return request{method, prefix + f.ids[name] + suffix, body} }
	}
	sample := map[string]any{"event": map[string]any{"type": "deal.won", "payload": map[string]any{"amountMinor": 150000}}}
	const playbooks, runs, documents = "/api/playbooks/", "/api/playbook-runs/", "/api/documents/"
	cases := map[string]matrixCase{
		"create-playbook": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/playbooks", map[string]any{"name": "Matrix", "graph": dealWonPlaybook("7d")}}
		}},
		"list-playbooks": {call: get("/api/playbooks?status=enabled")},
		"validate-playbook": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/playbooks/validate", map[string]any{"graph": brokenPlaybook()}}
		}},
		"get-playbook":             {byID: true, call: on(http.MethodGet, playbooks, "playbook", "", nil)},
		"update-playbook":          {byID: true, call: on(http.MethodPut, playbooks, "playbook", "", map[string]any{"description": "changed"})},
		"publish-playbook":         {byID: true, call: on(http.MethodPost, playbooks, "playbook", "/publish", nil)},
		"list-playbook-versions":   {byID: true, call: on(http.MethodGet, playbooks, "playbook", "/versions", nil)},
		"get-playbook-version":     {byID: true, call: on(http.MethodGet, playbooks, "playbook", "/versions/1", nil)},
		"list-playbook-node-kinds": {call: get("/api/playbook-node-kinds")},
		"enable-playbook":          {byID: true, call: fresh(http.MethodPost, playbooks, "published-playbook", "playbook", "/enable", nil)},
		"disable-playbook":         {byID: true, call: fresh(http.MethodPost, playbooks, "enabled-playbook", "playbook", "/disable", nil)},
		"archive-playbook":         {byID: true, call: fresh(http.MethodPost, playbooks, "playbook", "playbook", "/archive", nil)},
		"simulate-playbook":        {byID: true, call: on(http.MethodPost, playbooks, "playbook", "/simulate", sample)},

		"list-playbook-runs":  {call: get("/api/playbook-runs?status=running")},
		"get-playbook-run":    {byID: true, call: on(http.MethodGet, runs, "run", "", nil)},
		"cancel-playbook-run": {byID: true, call: fresh(http.MethodPost, runs, "run", "run", "/cancel", nil)},

		"rotate-playbook-webhook-secret": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/playbooks/webhook-secret", nil}
		}},

		"list-documents": {call: get("/api/documents")},
		"get-document": {byID: true, call: on(http.MethodGet, documents, "document1", "", nil),
			otherPartner: func(f *fixture) request { return request{http.MethodGet, documents + f.ids["document2"], nil} }},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
