package domains_test

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

func TestACustomDomainServesOnlyOnceVerifiedAndStopsAfterItsRecordIsGoneThroughTheGrace(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		sys := models.System(e.TenantID)
		for _, bad := range []string{"localhost", "127.0.0.1", "a..b", "-x.example", "x.localhost", "single"} {
			if _, err := e.Op.AddDomain(e.Ctx, bad, ""); code(err) != "INVALID_HOST" {
				t.Fatalf("%q: %v", bad, err)
			}
		}
		if _, err := e.A.AddDomain(e.Ctx, "partners.alpha.example", e.PartnerA); code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner added a domain: %v", err)
		}
		d, err := e.Op.AddDomain(e.Ctx, "Partners.Acme.Example.", "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Host != "partners.acme.example" || d.Status != models.DomainPending || d.ChallengeName() != "_partnerd-challenge.partners.acme.example" || len(d.Token) < 30 {
			t.Fatalf("added: %+v", d)
		}
		if _, err := e.Op.AddDomain(e.Ctx, "partners.acme.example", ""); code(err) != "DOMAIN_EXISTS" {
			t.Fatalf("twice: %v", err)
		}
		// Another tenant may claim the host, but only a verified claim serves it.
		otherOwner := storetest.Tenant(t, s.Core(), "squatter")
		squat, err := s.For(otherOwner).AddDomain(e.Ctx, "partners.acme.example", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.VerifiedHost(e.Ctx, "partners.acme.example"); code(err) != "HOST_NOT_FOUND" {
			t.Fatalf("pending host served: %v", err)
		}
		if _, err := e.A.Domain(e.Ctx, d.ID); code(err) != "DOMAIN_NOT_FOUND" {
			t.Fatalf("a partner sees domains: %v", err)
		}
		if _, err := s.For(otherOwner).Domain(e.Ctx, d.ID); code(err) != "DOMAIN_NOT_FOUND" {
			t.Fatalf("another tenant sees the domain: %v", err)
		}
		t0 := time.Now().UTC()
		if st, err := s.RecordDomainCheck(e.Ctx, sys, d.ID, models.DomainCheck{}, t0, false, models.DomainGrace); err != nil || st != models.DomainPending {
			t.Fatalf("not found, not final: %q %v", st, err)
		}
		if st, err := s.RecordDomainCheck(e.Ctx, sys, d.ID, models.DomainCheck{Found: true}, t0, false, models.DomainGrace); err != nil || st != models.DomainVerified {
			t.Fatalf("found: %q %v", st, err)
		}
		site, err := s.VerifiedHost(e.Ctx, "partners.acme.example")
		if err != nil || site.TenantID != e.TenantID || site.PartnerID != "" {
			t.Fatalf("verified host: %+v %v", site, err)
		}
		// The squatter's claim never verifies (it cannot hold the record): it fails in the end.
		if st, err := s.RecordDomainCheck(e.Ctx, models.System(otherOwner.TenantID), squat.ID, models.DomainCheck{}, t0, true, models.DomainGrace); err != nil || st != models.DomainFailed {
			t.Fatalf("squatter: %q %v", st, err)
		}
		// The record goes missing: the host serves through the grace period, then not.
		if st, _ := s.RecordDomainCheck(e.Ctx, sys, d.ID, models.DomainCheck{}, t0.Add(24*time.Hour), false, models.DomainGrace); st != models.DomainVerified {
			t.Fatalf("missing once: %q", st)
		}
		if _, err := s.VerifiedHost(e.Ctx, "partners.acme.example"); err != nil {
			t.Fatalf("within the grace: %v", err)
		}
		if st, _ := s.RecordDomainCheck(e.Ctx, sys, d.ID, models.DomainCheck{}, t0.Add(96*time.Hour), false, models.DomainGrace); st != models.DomainUnverified {
			t.Fatalf("missing beyond the grace: %q", st)
		}
		if _, err := s.VerifiedHost(e.Ctx, "partners.acme.example"); code(err) != "HOST_NOT_FOUND" {
			t.Fatalf("unverified host served: %v", err)
		}
		evs, _, err := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: "domain.*"}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, ev := range evs {
			seen[ev.Type] = true
		}
		for _, want := range []string{models.EventDomainAdded, models.EventDomainVerified, models.EventDomainUnverified} {
			if !seen[want] {
				t.Fatalf("no %s among %v", want, seen)
			}
		}
		// A partner's co-branded portal; verification can start again after a failure.
		pd, err := e.Op.AddDomain(e.Ctx, "alpha.partners.acme.example", e.PartnerA)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordDomainCheck(e.Ctx, sys, pd.ID, models.DomainCheck{Found: true}, t0, false, models.DomainGrace); err != nil {
			t.Fatal(err)
		}
		if site, err := s.VerifiedHost(e.Ctx, "alpha.partners.acme.example"); err != nil || site.PartnerID != e.PartnerA {
			t.Fatalf("partner host: %+v %v", site, err)
		}
		again, err := e.Op.RestartVerification(e.Ctx, d.ID)
		if err != nil || again.Status != models.DomainPending {
			t.Fatalf("restart: %+v %v", again, err)
		}
		list, _, err := e.Op.ListDomains(e.Ctx, models.Page{Limit: 10})
		if err != nil || len(list) != 2 {
			t.Fatalf("list: %d %v", len(list), err)
		}
		if _, err := e.Op.RemoveDomain(e.Ctx, pd.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.VerifiedHost(e.Ctx, "alpha.partners.acme.example"); code(err) != "HOST_NOT_FOUND" {
			t.Fatalf("removed host served: %v", err)
		}
	})
}

func TestATenantListsItsAllowedOriginsAndOnlyItsOperatorsChangeThem(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		if _, _, err := e.A.SetCORSOrigins(e.Ctx, []string{"https://www.alpha.example"}); code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner set origins: %v", err)
		}
		if _, err := e.A.CORSOrigins(e.Ctx); code(err) != "OPERATORS_ONLY" {
			t.Fatalf("a partner read origins: %v", err)
		}
		if _, _, err := e.Op.SetCORSOrigins(e.Ctx, []string{"https://ok.example", "null"}); code(err) != "INVALID_ORIGIN" {
			t.Fatalf("null: %v", err)
		}
		now, changed, err := e.Op.SetCORSOrigins(e.Ctx, []string{"https://b.example", "https://A.example:443", "https://b.example"})
		if err != nil || len(now) != 2 || now[0] != "https://a.example" || now[1] != "https://b.example" || len(changed) != 2 {
			t.Fatalf("set: %v %v %v", now, changed, err)
		}
		other := s.For(storetest.Tenant(t, s.Core(), "other"))
		if _, _, err := other.SetCORSOrigins(e.Ctx, []string{"https://b.example"}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			tenant, origin string
			want           bool
		}{
			{"", "https://a.example", true}, {e.TenantID, "https://a.example", true}, {e.TenantID, "https://c.example", false},
			{"", "https://c.example", false}, {"", "https://b.example", true},
		} {
			if got, err := s.AllowsOrigin(e.Ctx, c.tenant, c.origin); err != nil || got != c.want {
				t.Fatalf("%q %s = %v %v", c.tenant, c.origin, got, err)
			}
		}
		now, changed, err = e.Op.SetCORSOrigins(e.Ctx, []string{"https://c.example", "https://b.example"})
		if err != nil || len(now) != 2 || len(changed) != 2 {
			t.Fatalf("replace: %v %v %v", now, changed, err)
		}
		if got, _ := s.AllowsOrigin(e.Ctx, e.TenantID, "https://a.example"); got {
			t.Fatal("a removed origin is still allowed")
		}
		if list, err := other.CORSOrigins(e.Ctx); err != nil || len(list) != 1 || list[0] != "https://b.example" {
			t.Fatalf("the other tenant's list: %v %v", list, err)
		}
		if _, changed, err := e.Op.SetCORSOrigins(e.Ctx, []string{"https://b.example", "https://c.example"}); err != nil || len(changed) != 0 {
			t.Fatalf("the same list again changed %v: %v", changed, err)
		}
	})
}
