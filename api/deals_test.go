package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// mintKey makes a machine key with scopes, bound to partner unless it is "".
func mintKey(t testing.TB, env *ingestEnv, partner string, scopes ...authz.Permission) string {
	t.Helper()
	k, err := authn.NewMachineKey()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(scopes)
	rec := &models.APIKey{Name: "deals", LookupID: k.LookupID, Hash: k.Hash, Scopes: string(b)}
	if partner != "" {
		rec.PartnerID = &partner
	}
	if err := env.owner.CreateAPIKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return k.Plaintext
}

func TestDealRegistrationOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		h := env.h
		p1 := mintKey(t, env, env.partner1, authz.DealsRead, authz.DealsWrite, authz.PipelinesRead)
		p2 := mintKey(t, env, env.partner2, authz.DealsRead, authz.DealsWrite)
		op := bearer(env.ownerToken)

		pipes := decode[ListBody[Pipeline]](t, do(t, h, http.MethodGet, "/api/pipelines", nil, bearer(p1)...))
		if len(pipes.Data) != 1 || !pipes.Data[0].IsDefault || len(pipes.Data[0].Stages) != 6 {
			t.Fatalf("pipelines = %+v", pipes)
		}
		stages := map[string]string{}
		for _, s := range pipes.Data[0].Stages {
			stages[s.Name] = s.ID
		}

		// Bad input is a 422 naming the field, and stores nothing.
		for name, body := range map[string]map[string]any{
			"missing company":     {"amountMinor": 1, "currency": "EUR"},
			"lower-case currency": {"customerCompany": "X", "amountMinor": 1, "currency": "eur"},
			"negative amount":     {"customerCompany": "X", "amountMinor": -5, "currency": "EUR"},
			"float amount":        {"customerCompany": "X", "amountMinor": 10.5, "currency": "EUR"},
			"bad email":           {"customerCompany": "X", "amountMinor": 1, "currency": "EUR", "contactEmail": "nope"},
		} {
			if p := do(t, h, http.MethodPost, "/api/deals", jsonBody(t, body), bearer(p1)...).problem(t); p.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s = %d %s", name, p.Status, p.Detail)
			}
		}
		// A partner cannot register for another partner.
		if p := do(t, h, http.MethodPost, "/api/deals", jsonBody(t, map[string]any{"partnerId": env.partner2, "customerCompany": "X", "amountMinor": 1, "currency": "EUR"}), bearer(p1)...).problem(t); p.Status != http.StatusForbidden || p.Code != "OTHER_PARTNER" {
			t.Fatalf("registering for another partner = %+v", p)
		}
		// Operators must say for whom.
		if p := do(t, h, http.MethodPost, "/api/deals", jsonBody(t, map[string]any{"customerCompany": "X", "amountMinor": 1, "currency": "EUR"}), op...).problem(t); p.Code != "PARTNER_REQUIRED" {
			t.Fatalf("an operator registering for nobody = %+v", p)
		}

		first := decode[Deal](t, do(t, h, http.MethodPost, "/api/deals", jsonBody(t, map[string]any{"customerCompany": "Initech", "customerDomain": "initech.com",
			"contactEmail": "bill@initech.com", "amountMinor": 999_999_999_999_999, "currency": "EUR"}), bearer(p1)...))
		if first.AmountMinor != 999_999_999_999_999 || first.Status != "submitted" || first.ReviewRequired || first.StageID != stages["Registered"] {
			t.Fatalf("first = %+v", first)
		}
		second := decode[Deal](t, do(t, h, http.MethodPost, "/api/deals", jsonBody(t, map[string]any{"customerCompany": "Initech", "customerDomain": "www.initech.com",
			"amountMinor": 1, "currency": "EUR"}), bearer(p2)...))
		if !second.ReviewRequired {
			t.Fatalf("an overlapping registration = %+v", second)
		}
		res := string(do(t, h, http.MethodGet, "/api/deals/"+second.ID, nil, bearer(p2)...).Body)
		if strings.Contains(res, env.partner1) || strings.Contains(res, first.ID) || strings.Contains(res, "bill@") {
			t.Fatalf("partner 2 sees partner 1's data: %s", res)
		}
		if p := do(t, h, http.MethodGet, "/api/deals/"+second.ID+"/conflicts", nil, bearer(p2)...).problem(t); p.Status != http.StatusForbidden {
			t.Fatalf("partner reading conflicts = %d", p.Status)
		}
		raw := string(do(t, h, http.MethodGet, "/api/deals/"+second.ID+"/conflicts", nil, op...).Body)
		if !strings.Contains(raw, first.ID) || !strings.Contains(raw, `"kind":"domain"`) {
			t.Fatalf("operator conflicts = %s", raw)
		}
		if p := do(t, h, http.MethodPost, "/api/deals/"+second.ID+"/approve", jsonBody(t, map[string]any{}), op...).problem(t); p.Status != http.StatusConflict || p.Code != "CONFLICT_REVIEW_PENDING" {
			t.Fatalf("approve under review = %+v", p)
		}
		if p := do(t, h, http.MethodPost, "/api/deals/"+first.ID+"/move", jsonBody(t, map[string]any{"stageId": stages["Qualified"]}), bearer(p1)...).problem(t); p.Status != http.StatusConflict || p.Code != "DEAL_NOT_APPROVED" {
			t.Fatalf("move before approval = %+v", p)
		}
		approved := decode[Deal](t, do(t, h, http.MethodPost, "/api/deals/"+first.ID+"/approve", jsonBody(t, map[string]any{}), op...))
		if approved.Status != "approved" || approved.ProtectedUntil == nil {
			t.Fatalf("approved = %+v", approved)
		}
		if p := do(t, h, http.MethodPost, "/api/deals/"+first.ID+"/move", jsonBody(t, map[string]any{"stageId": stages["Closed lost"]}), bearer(p1)...).problem(t); p.Code != "REASON_REQUIRED" {
			t.Fatalf("lost without reason = %+v", p)
		}
		won := decode[Deal](t, do(t, h, http.MethodPost, "/api/deals/"+first.ID+"/move", jsonBody(t, map[string]any{"stageId": stages["Closed won"]}), bearer(p1)...))
		if won.Status != "won" || won.CustomerID == "" {
			t.Fatalf("won = %+v", won)
		}
		if p := do(t, h, http.MethodPost, "/api/deals/"+first.ID+"/move", jsonBody(t, map[string]any{"stageId": stages["Qualified"]}), bearer(p1)...).problem(t); p.Status != http.StatusConflict || p.Code != "DEAL_CLOSED" {
			t.Fatalf("moving a won deal = %+v", p)
		}
		if p := do(t, h, http.MethodGet, "/api/deals/"+first.ID, nil, bearer(p2)...).problem(t); p.Status != http.StatusNotFound {
			t.Fatalf("partner 2 reading partner 1's deal = %d", p.Status)
		}
		tl := decode[ListBody[TimelineEntry]](t, do(t, h, http.MethodGet, "/api/deals/"+first.ID+"/timeline", nil, bearer(p1)...))
		var types []string
		for _, e := range tl.Data {
			types = append(types, e.Type)
		}
		if strings.Join(types, ",") != "deal.registered,deal.approved,deal.won" {
			t.Fatalf("timeline = %v", types)
		}
		mine := decode[ListBody[Deal]](t, do(t, h, http.MethodGet, "/api/deals?partnerId="+env.partner1, nil, bearer(p2)...))
		if len(mine.Data) != 0 {
			t.Fatalf("partner 2 filtering on partner 1 sees %d deals", len(mine.Data))
		}
		if all := decode[ListBody[Deal]](t, do(t, h, http.MethodGet, "/api/deals?status=won", nil, op...)); len(all.Data) != 1 {
			t.Fatalf("operator status filter = %d", len(all.Data))
		}
	})
}
