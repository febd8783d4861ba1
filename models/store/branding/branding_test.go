package branding_test

import (
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

func ptr[T any](v T) *T { return &v }

func TestATenantsBrandIsItsOperatorsToChangeAndPublicOnlyAsPresentation(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		pb, err := s.PublicBranding(e.Ctx, e.TenantID, "")
		if err != nil {
			t.Fatal(err)
		}
		if pb.Name == "" || !pb.Logo.Empty() {
			t.Fatalf("default brand: %+v", pb)
		}
		if _, err := e.A.UpdateBranding(e.Ctx, models.BrandingChanges{Name: ptr("Alpha's")}); code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner changed the brand: %v", err)
		}
		if _, err := e.Op.UpdateBranding(e.Ctx, models.BrandingChanges{Theme: &models.ThemeTokens{Primary: "red"}}); code(err) != "INVALID_COLOUR" {
			t.Fatalf("bad colour: %v", err)
		}
		for _, bad := range []map[string]string{
			{"--x": "url(https://evil.example/x.png)"},
			{"--x": "red; } body { display: none"},
			{"--x": `"quoted"`},
			{"color": "red"},
			{"--x": "expression(alert(1))"},
		} {
			if _, err := e.Op.UpdateBranding(e.Ctx, models.BrandingChanges{CSSVariables: bad, SetCSSVariables: true}); code(err) != "INVALID_CSS_VARIABLE" {
				t.Fatalf("%v accepted: %v", bad, err)
			}
		}
		if _, err := e.Op.UpdateBranding(e.Ctx, models.BrandingChanges{SupportEmail: ptr("not an address")}); code(err) != "INVALID_EMAIL" {
			t.Fatalf("bad email: %v", err)
		}
		b, err := e.Op.UpdateBranding(e.Ctx, models.BrandingChanges{Name: ptr(" Acme Partners "), Theme: &models.ThemeTokens{Primary: "#112233", Accent: "#aabbcc"},
			SupportEmail: ptr("help@acme.example"), CSSVariables: map[string]string{"--brand-radius": "8px", "--brand-shadow": "0 1px 2px rgba(0, 0, 0, 0.2)"}, SetCSSVariables: true})
		if err != nil {
			t.Fatal(err)
		}
		if b.Name != "Acme Partners" || b.Theme.Primary != "#112233" {
			t.Fatalf("updated: %+v", b)
		}
		// A second change leaves what it does not name.
		if _, err := e.Op.UpdateBranding(e.Ctx, models.BrandingChanges{Theme: &models.ThemeTokens{Primary: "#445566"}}); err != nil {
			t.Fatal(err)
		}
		got, err := e.Op.Branding(e.Ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Acme Partners" || got.Theme.Primary != "#445566" || got.SupportEmail != "help@acme.example" || got.CSSVariables["--brand-radius"] != "8px" {
			t.Fatalf("stored: %+v", got)
		}
		logo := models.BrandImage{Key: "branding/k1", ContentType: "image/png", SHA256: "aa11", Width: 200, Height: 50}
		if _, old, err := e.Op.SetBrandImage(e.Ctx, "", models.BrandLogo, logo); err != nil || !old.Empty() {
			t.Fatalf("logo: %v %+v", err, old)
		}
		logo2 := logo
		logo2.Key, logo2.SHA256 = "branding/k2", "bb22"
		if _, old, err := e.Op.SetBrandImage(e.Ctx, "", models.BrandLogo, logo2); err != nil || old.Key != "branding/k1" {
			t.Fatalf("replacing the logo returns the old one: %v %+v", err, old)
		}
		// Co-brand: a partner's logo, never a favicon, never another tenant's partner.
		co := models.BrandImage{Key: "branding/p1", ContentType: "image/png", SHA256: "cc33", Width: 100, Height: 100}
		if _, _, err := e.Op.SetBrandImage(e.Ctx, e.PartnerA, models.BrandFavicon, co); code(err) != "INVALID_IMAGE_KIND" {
			t.Fatalf("partner favicon: %v", err)
		}
		if _, _, err := e.Op.SetBrandImage(e.Ctx, e.PartnerA, models.BrandLogo, co); err != nil {
			t.Fatal(err)
		}
		otherOwner := storetest.Tenant(t, s.Core(), "other")
		other := struct {
			Op       *stores.Scoped
			TenantID string
		}{s.For(otherOwner), otherOwner.TenantID}
		if _, _, err := other.Op.SetBrandImage(e.Ctx, e.PartnerB, models.BrandLogo, co); code(err) != "PARTNER_NOT_FOUND" {
			t.Fatalf("another tenant's partner: %v", err)
		}
		if _, err := other.Op.Branding(e.Ctx, e.PartnerA); code(err) != "PARTNER_NOT_FOUND" {
			t.Fatalf("another tenant's partner's brand: %v", err)
		}
		pa, err := s.PublicBranding(e.Ctx, e.TenantID, e.PartnerA)
		if err != nil {
			t.Fatal(err)
		}
		if pa.Name != "Acme Partners" || pa.Logo.SHA256 != "bb22" || pa.PartnerLogo.SHA256 != "cc33" || pa.Theme.Primary != "#445566" {
			t.Fatalf("public with co-brand: %+v", pa)
		}
		pbB, err := s.PublicBranding(e.Ctx, e.TenantID, e.PartnerB)
		if err != nil || !pbB.PartnerLogo.Empty() {
			t.Fatalf("partner B has no co-brand: %v %+v", err, pbB)
		}
		// The other tenant's brand is untouched.
		if ob, err := s.PublicBranding(e.Ctx, other.TenantID, ""); err != nil || ob.Logo.SHA256 != "" || ob.Theme.Primary != "" {
			t.Fatalf("other tenant: %v %+v", err, ob)
		}
		if img, err := s.BrandImageBySHA256(e.Ctx, "bb22"); err != nil || img.Key != "branding/k2" {
			t.Fatalf("by hash: %v %+v", err, img)
		}
		if _, err := s.BrandImageBySHA256(e.Ctx, "aa11"); code(err) != "IMAGE_NOT_FOUND" {
			t.Fatalf("a replaced image is gone: %v", err)
		}
		if _, old, err := e.Op.ClearBrandImage(e.Ctx, e.PartnerA, models.BrandLogo); err != nil || old.Key != "branding/p1" {
			t.Fatalf("clear co-brand: %v %+v", err, old)
		}
		entries, _, err := e.Op.ListAudit(e.Ctx, models.AuditFilter{}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]bool{}
		for _, a := range entries {
			actions[a.Action] = true
		}
		for _, want := range []string{"branding.updated", "branding.logo_set", "branding.logo_removed"} {
			if !actions[want] {
				t.Fatalf("audit lacks %s: %v", want, actions)
			}
		}
	})
}
