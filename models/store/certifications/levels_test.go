package certifications_test

import (
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// learner adds an active user to a partner and returns the store as that user sees it.
func learner(t *testing.T, s *stores.Set, e *storetest.Partners, partnerID, email string) *stores.Scoped {
	t.Helper()
	u := &models.User{ID: models.NewID(), TenantID: e.TenantID, PartnerID: &partnerID, Email: email, Name: email, Status: models.UserStatusActive,
		CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := s.Core().DB(e.Ctx).Create(u).Error; err != nil {
		t.Fatal(err)
	}
	return s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: e.TenantID, UserID: u.ID, PartnerID: partnerID})
}

func TestALevelCanAskForCertifiedUsers(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		c, _, _ := publishedCourse(t, e, 3, true)
		other, _, _ := publishedCourse(t, e, 3, true)
		if err := e.Op.CreateLevel(e.Ctx, &models.Level{Name: "base", Rank: 10, IsDefault: true}, models.LevelRequirements{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Op.CreateLevel(e.Ctx, &models.Level{Name: "certified", Rank: 30},
			models.LevelRequirements{MinCertifiedUsers: 2, CertificationCourseID: c.ID}); err != nil {
			t.Fatal(err)
		}
		passes := func(sc *stores.Scoped, course *models.Course) *models.Certificate {
			t.Helper()
			seen, err := sc.Course(e.Ctx, course.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range seen.ItemIDs {
				if _, err := sc.CompleteCourseItem(e.Ctx, course.ID, item); err != nil {
					t.Fatal(err)
				}
			}
			res, err := sc.SubmitQuizAttempt(e.Ctx, course.ID, right)
			if err != nil || res.Certificate == nil {
				t.Fatalf("pass: %+v, %v", res, err)
			}
			return res.Certificate
		}
		target := func(partnerID string) (string, int) {
			t.Helper()
			ev, err := e.Op.EvaluatePartnerLevel(e.Ctx, partnerID)
			if err != nil {
				t.Fatal(err)
			}
			return ev.TargetLevel, ev.Performance.CertifiedUsers[c.ID]
		}
		first := passes(learner(t, s, e, e.PartnerA, "a1@alpha.example"), c)
		passes(learner(t, s, e, e.PartnerA, "a2@alpha.example"), c)
		// Certificates of another course and of another partner do not count.
		passes(learner(t, s, e, e.PartnerB, "b1@beta.example"), c)
		passes(learner(t, s, e, e.PartnerB, "b2@beta.example"), other)

		if level, n := target(e.PartnerA); level != "certified" || n != 2 {
			t.Fatalf("partner A with two certified users qualifies for %q (%d)", level, n)
		}
		if level, n := target(e.PartnerB); level != "base" || n != 1 {
			t.Fatalf("partner B with one certified user of the course qualifies for %q (%d)", level, n)
		}
		// The level review proposes the promotion and says why.
		if _, err := s.ReviewLevels(e.Ctx, models.System(e.TenantID), time.Now()); err != nil {
			t.Fatal(err)
		}
		props, _, err := e.Op.ListLevelProposals(e.Ctx, models.ProposalPending, models.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range props {
			if p.PartnerID == e.PartnerA && p.ToLevel == "certified" && strings.Contains(p.Reason, "certified users") {
				found = true
			}
		}
		if !found {
			t.Fatalf("no proposal to promote partner A for its certified users: %+v", props)
		}
		// An expired certificate no longer counts.
		if _, err := s.AdvanceCertificateExpiry(e.Ctx, models.System(e.TenantID), first.ID, first.ExpiresAt); err != nil {
			t.Fatal(err)
		}
		if level, n := target(e.PartnerA); level != "base" || n != 1 {
			t.Fatalf("partner A after an expiry qualifies for %q (%d)", level, n)
		}
	})
}
