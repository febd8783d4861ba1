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
