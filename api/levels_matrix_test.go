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
		newLevel := func() string {
			l := &models.Level{Name: f.unique("level"), Rank: 1}
			if err := sc.CreateLevel(ctx, l, models.LevelRequirements{}); err != nil {
				t.Fatal(err)
			}
			return l.ID
		}
		f.ids["level"] = newLevel()
		f.fresh["level"] = func(string) string { return newLevel() }
		f.fresh["proposal"] = func(string) string {
			p := &models.Partner{Name: "Proposed", Type: models.PartnerReseller, Level: "bronze"}
			if err := sc.CreatePartner(ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := sc.ReviewLevelsNow(ctx); err != nil {
				t.Fatal(err)
			}
			props, _, err := sc.ListLevelProposals(ctx, models.ProposalPending, models.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, prop := range props {
				if prop.PartnerID == p.ID {
					return prop.ID
				}
			}
			t.Fatal("the review proposed nothing for a partner below every level")
			return ""
		}
		f.ids["proposal"] = f.fresh["proposal"]("")
	})
	level := func(method, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			return request{method, "/api/levels/" + f.ids["level"] + suffix, body}
		}
	}
	cases := map[string]matrixCase{
		"create-level": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/levels", map[string]any{"name": f.unique("lv"), "rank": 2,
				"requirements": map[string]any{"minWonDeals": 3, "minWonAmountMinor": 100000, "currency": "EUR"}}}
		}},
		"list-levels":  {call: get("/api/levels")},
		"get-level":    {byID: true, call: level(http.MethodGet, "", nil)},
		"update-level": {byID: true, call: level(http.MethodPatch, "", map[string]any{"benefits": "Co-marketing funds"})},
		"delete-level": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["level"]
			if role != "foreign" && role != "" {
				id = f.fresh["level"](role)
			}
			return request{http.MethodDelete, "/api/levels/" + id, nil}
		}},
		"evaluate-partner-level": {byID: true, call: func(f *fixture, _ string) request {
			return request{http.MethodGet, "/api/partners/" + f.partner1 + "/level-evaluation", nil}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodGet, "/api/partners/" + f.partner2 + "/level-evaluation", nil}
		}},
		"list-level-proposals": {call: get("/api/level-proposals")},
		"review-levels": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/levels/review", nil}
		}},
		"decide-level-proposal": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["proposal"]
			if role != "foreign" && role != "" {
				id = f.fresh["proposal"](role)
			}
			return request{http.MethodPost, "/api/level-proposals/" + id + "/decide", map[string]any{"apply": true}}
		}},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
