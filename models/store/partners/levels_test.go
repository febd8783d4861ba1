package partners_test

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestLevelReviewProposesOrAppliesByWonVolume(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		for _, l := range []struct {
			name    string
			rank    int
			def     bool
			minWon  int64
			minDeal int
		}{{"registered", 1, true, 0, 0}, {"silver", 2, false, 0, 1}, {"gold", 3, false, 1_000_000, 2}} {
			lv := &models.Level{Name: l.name, Rank: l.rank, IsDefault: l.def}
			if err := e.Op.CreateLevel(ctx, lv, models.LevelRequirements{MinWonAmountMinor: l.minWon, MinWonDeals: l.minDeal, Currency: "EUR"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Op.CreateLevel(ctx, &models.Level{Name: "gold"}, models.LevelRequirements{}); storetest.Code(err) != "LEVEL_EXISTS" {
			t.Fatalf("a second gold: %v", err)
		}
		fresh := &models.Partner{Name: "Fresh", Type: models.PartnerAgency}
		if err := e.Op.CreatePartner(ctx, fresh); err != nil || fresh.Level != "registered" {
			t.Fatalf("a new partner's level = %q, %v", fresh.Level, err)
		}
		win := func(sc *stores.Scoped, amount int64) {
			t.Helper()
			d := e.Register(t, sc, "Won Co", "", "", amount)
			if _, err := e.Op.ApproveDeal(ctx, d.ID, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := sc.MoveDeal(ctx, d.ID, models.DealMove{StageID: e.WonID}); err != nil {
				t.Fatal(err)
			}
		}
		win(e.A, 600_000)
		win(e.A, 600_000)
		win(e.B, 50_000)
		ev, err := e.A.EvaluatePartnerLevel(ctx, e.PartnerA)
		if err != nil || ev.TargetLevel != "gold" || ev.Performance.WonDeals != 2 || ev.Performance.WonAmountMinor["EUR"] != 1_200_000 {
			t.Fatalf("partner A's evaluation = %+v, %v", ev, err)
		}
		if _, err := e.A.EvaluatePartnerLevel(ctx, e.PartnerB); storetest.Code(err) != "PARTNER_NOT_FOUND" {
			t.Fatalf("partner A evaluating B: %v", err)
		}
		// Propose mode (the default): proposals, no change; a second review adds nothing.
		now := time.Now().UTC()
		// Partner A holds gold already and qualifies for it; B (seeded gold) qualifies for silver.
		if n, err := s.ReviewLevels(ctx, models.System(e.TenantID), now); err != nil || n != 1 {
			t.Fatalf("the review proposed %d changes, %v", n, err)
		}
		props, _, err := e.Op.ListLevelProposals(ctx, models.ProposalPending, models.Page{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{e.PartnerB: "silver"}
		got := map[string]string{}
		for _, p := range props {
			got[p.PartnerID] = p.ToLevel
		}
		if len(got) != len(want) || got[e.PartnerB] != "silver" {
			t.Fatalf("proposals = %v, want %v (partner A holds gold already)", got, want)
		}
		if n, _ := s.ReviewLevels(ctx, models.System(e.TenantID), now); n != 0 {
			t.Fatalf("a second review proposed %d more", n)
		}
		applied, err := e.Op.DecideLevelProposal(ctx, props[0].ID, true)
		if err != nil || applied.Status != models.ProposalApplied {
			t.Fatalf("apply = %+v, %v", applied, err)
		}
		if _, err := e.Op.DecideLevelProposal(ctx, props[0].ID, false); storetest.Code(err) != "PROPOSAL_DECIDED" {
			t.Fatalf("deciding twice: %v", err)
		}
		pb, _ := e.Op.Partner(ctx, e.PartnerB)
		if pb.Level != "silver" {
			t.Fatalf("partner B's level = %q", pb.Level)
		}
		// Apply mode: demotions happen by themselves once the won deals leave the window.
		mode := models.LevelChangesApply
		if _, err := e.Op.UpdateTenant(ctx, models.TenantChanges{LevelChanges: &mode}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.ReviewLevels(ctx, models.System(e.TenantID), now.AddDate(2, 0, 0)); err != nil || n != 2 {
			t.Fatalf("review two years on changed %d, %v", n, err)
		}
		pa, _ := e.Op.Partner(ctx, e.PartnerA)
		pb, _ = e.Op.Partner(ctx, e.PartnerB)
		if pa.Level != "registered" || pb.Level != "registered" {
			t.Fatalf("after the window: A %q, B %q", pa.Level, pb.Level)
		}
		evs, _, _ := e.Op.ListEvents(ctx, models.EventFilter{Type: models.EventPartnerLevelChanged}, models.Page{Limit: 100})
		if len(evs) != 3 {
			t.Fatalf("%d level_changed events, want 3", len(evs))
		}
	})
}
