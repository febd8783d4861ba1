package partners_test

import (
	"slices"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestPartnersAreSearchedByNameAndFilteredByStatusAndLevel(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		// Alpha Resellers and Beta Partners (gold, active) come with the tenant.
		for _, p := range []*models.Partner{
			{Name: "ALPHA Campus", Type: models.PartnerCampus, Level: "silver", Status: models.PartnerOnboarding},
			{Name: "100% Brokers", Type: models.PartnerBroker, Level: "silver"},
			{Name: "1000 Brokers", Type: models.PartnerBroker, Level: "gold"},
			{Name: "under_score Ltd", Type: models.PartnerAgency, Level: "gold"},
			{Name: "underXscore Ltd", Type: models.PartnerAgency, Level: "gold"},
		} {
			if err := e.Op.CreatePartner(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		names := func(sc *stores.Scoped, f models.PartnerFilter, pg models.Page) ([]string, string) {
			t.Helper()
			ps, next, err := sc.ListPartners(ctx, f, pg)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, p := range ps {
				out = append(out, p.Name)
			}
			slices.Sort(out)
			return out, next
		}
		for _, c := range []struct {
			f    models.PartnerFilter
			want []string
		}{
			{models.PartnerFilter{Q: "alpha"}, []string{"ALPHA Campus", "Alpha Resellers"}},
			{models.PartnerFilter{Q: "ALPHA res"}, []string{"Alpha Resellers"}},
			{models.PartnerFilter{Q: "100%"}, []string{"100% Brokers"}},
			{models.PartnerFilter{Q: "%"}, []string{"100% Brokers"}},
			{models.PartnerFilter{Q: "under_score"}, []string{"under_score Ltd"}},
			{models.PartnerFilter{Q: `\`}, nil},
			{models.PartnerFilter{Status: models.PartnerOnboarding}, []string{"ALPHA Campus"}},
			{models.PartnerFilter{Level: "silver"}, []string{"100% Brokers", "ALPHA Campus"}},
			{models.PartnerFilter{Q: "alpha", Level: "gold", Status: models.PartnerActive}, []string{"Alpha Resellers"}},
			{models.PartnerFilter{Q: "brokers", Level: "gold"}, []string{"1000 Brokers"}},
			{models.PartnerFilter{Q: "nobody"}, nil},
		} {
			if got, _ := names(e.Op, c.f, models.Page{}); !slices.Equal(got, c.want) {
				t.Errorf("%+v lists %q, want %q", c.f, got, c.want)
			}
		}
		// Paging walks the filtered rows only.
		var all []string
		pages := 0
		for after := ""; pages == 0 || after != ""; pages++ {
			var page []string
			page, after = names(e.Op, models.PartnerFilter{Level: "gold"}, models.Page{Limit: 2, After: after})
			all = append(all, page...)
		}
		slices.Sort(all)
		if want := []string{"1000 Brokers", "Alpha Resellers", "Beta Partners", "underXscore Ltd", "under_score Ltd"}; pages != 3 || !slices.Equal(all, want) {
			t.Fatalf("gold partners over %d pages of 2 = %q, want %q", pages, all, want)
		}
		// A partner sees its own organisation whatever it searches for.
		if got, _ := names(e.A, models.PartnerFilter{Q: "a"}, models.Page{}); !slices.Equal(got, []string{"Alpha Resellers"}) {
			t.Fatalf("partner A searching for a sees %q", got)
		}
		if got, _ := names(e.A, models.PartnerFilter{Q: "beta"}, models.Page{}); got != nil {
			t.Fatalf("partner A searching for beta sees %q", got)
		}
	})
}
