package agreements_test

import (
	"context"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/agreements"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

// published creates an agreement with one published version, required as req says.
func published(t *testing.T, e *storetest.Partners, title, text string, req *models.AgreementRequirement) (*models.Agreement, *models.AgreementVersion) {
	t.Helper()
	a, err := e.Op.CreateAgreement(e.Ctx, models.NewAgreement{Kind: models.AgreementPartner, Title: title})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Op.CreateAgreementVersion(e.Ctx, a.ID, text, "first")
	if err != nil {
		t.Fatal(err)
	}
	a, v, err = e.Op.PublishAgreementVersion(e.Ctx, a.ID, v.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	return a, v
}

func TestARequiredVersionGatesPartnersUntilTheyAcceptIt(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		if err := e.A.RequireAgreements(ctx, ""); err != nil {
			t.Fatalf("nothing is required yet: %v", err)
		}
		text := "# Partner agreement\n\nBe nice. Ünïcödé.\n"
		a, v := published(t, e, "Partner agreement", text, &models.AgreementRequirement{AllPartners: true})
		if v.SHA256 != models.SHA256Hex([]byte(text)) || v.Size != int64(len(text)) || v.Status != models.AgreementPublished {
			t.Fatalf("version %+v", v)
		}
		if err := e.A.RequireAgreements(ctx, ""); code(err) != "AGREEMENT_REQUIRED" {
			t.Fatalf("a partner that has not accepted: %v", err)
		}
		pending, err := e.A.PendingAgreements(ctx, "")
		if err != nil || len(pending) != 1 || pending[0].Agreement.ID != a.ID || pending[0].Version.ID != v.ID || !pending[0].Blocking {
			t.Fatalf("pending %+v, %v", pending, err)
		}
		if _, _, err := e.A.AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID, SHA256: "00"}); code(err) != "AGREEMENT_HASH_MISMATCH" {
			t.Fatalf("accepting another text: %v", err)
		}
		acc, created, err := e.A.AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID, SHA256: v.SHA256,
			ClientAddress: "203.0.113.7", UserAgent: "Browser/1.0"})
		if err != nil || !created || acc.PartnerID != e.PartnerA || acc.SHA256 != v.SHA256 || acc.ClientAddress != "203.0.113.7" || acc.OnBehalf {
			t.Fatalf("acceptance %+v, %v, %v", acc, created, err)
		}
		again, created, err := e.A.AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID})
		if err != nil || created || again.ID != acc.ID {
			t.Fatalf("accepting twice answers the first: %+v, %v, %v", again, created, err)
		}
		if err := e.A.RequireAgreements(ctx, ""); err != nil {
			t.Fatalf("after acceptance: %v", err)
		}
		if err := e.B.RequireAgreements(ctx, ""); code(err) != "AGREEMENT_REQUIRED" {
			t.Fatalf("B has not accepted: %v", err)
		}
		// B sees only its own acceptances, and none of A's by id.
		mine, _, err := e.B.ListAcceptances(ctx, models.AcceptanceFilter{}, models.Page{})
		if err != nil || len(mine) != 0 {
			t.Fatalf("B's acceptances %+v, %v", mine, err)
		}
		ours, _, err := e.A.ListAcceptances(ctx, models.AcceptanceFilter{}, models.Page{})
		if err != nil || len(ours) != 1 || ours[0].ID != acc.ID || ours[0].AgreementTitle != "Partner agreement" {
			t.Fatalf("A's acceptances name the agreement: %+v, %v", ours, err)
		}
		if _, err := e.B.AcceptanceCertificate(ctx, acc.ID); code(err) != "ACCEPTANCE_NOT_FOUND" {
			t.Fatalf("B reading A's certificate: %v", err)
		}
		if _, _, err := e.B.AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID, PartnerID: e.PartnerA}); code(err) != "OTHER_PARTNER" {
			t.Fatalf("B accepting for A: %v", err)
		}
		// A new required version asks again.
		v2, err := e.Op.CreateAgreementVersion(ctx, a.ID, text+"\nAmended.\n", "amended")
		if err != nil || v2.Number != 2 {
			t.Fatalf("second version %+v, %v", v2, err)
		}
		if _, _, err := e.A.AgreementVersion(ctx, a.ID, v2.ID); code(err) != "AGREEMENT_VERSION_NOT_FOUND" {
			t.Fatalf("a partner reading a draft: %v", err)
		}
		if _, _, err := e.Op.PublishAgreementVersion(ctx, a.ID, v2.ID, &models.AgreementRequirement{AllPartners: true}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.Op.PublishAgreementVersion(ctx, a.ID, v2.ID, nil); code(err) != "AGREEMENT_VERSION_PUBLISHED" {
			t.Fatalf("publishing twice: %v", err)
		}
		if err := e.A.RequireAgreements(ctx, ""); code(err) != "AGREEMENT_REQUIRED" {
			t.Fatalf("a new required version: %v", err)
		}
		// A grace period lets B act; one in the past ends it.
		if _, err := e.Op.GrantAgreementGrace(ctx, e.PartnerB, time.Now().Add(24*time.Hour), "legal is reviewing"); err != nil {
			t.Fatal(err)
		}
		if err := e.B.RequireAgreements(ctx, ""); err != nil {
			t.Fatalf("during grace: %v", err)
		}
		if _, err := e.Op.GrantAgreementGrace(ctx, e.PartnerB, time.Now().Add(-time.Minute), "review done"); err != nil {
			t.Fatal(err)
		}
		if err := e.B.RequireAgreements(ctx, ""); code(err) != "AGREEMENT_REQUIRED" {
			t.Fatalf("after grace: %v", err)
		}
		// A requirement that starts later lists the agreement without refusing yet.
		if _, err := e.Op.SetAgreementRequirement(ctx, a.ID, &models.AgreementRequirement{VersionID: v2.ID, AllPartners: true,
			From: time.Now().Add(48 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		pending, err = e.B.PendingAgreements(ctx, "")
		if err != nil || len(pending) != 1 || pending[0].Blocking {
			t.Fatalf("a future requirement %+v, %v", pending, err)
		}
		if err := e.B.RequireAgreements(ctx, ""); err != nil {
			t.Fatalf("before the requirement starts: %v", err)
		}

		// Every change was audited and emitted; acceptances and grace grants name the partner.
		for action, want := range map[string]int{"agreement.created": 1, "agreement.version_created": 2, "agreement.version_published": 2,
			"agreement.requirement_changed": 3, "agreement.accepted": 1, "agreement.grace_granted": 2} {
			entries, _, err := e.Op.ListAudit(ctx, models.AuditFilter{Action: action}, models.Page{Limit: 10})
			if err != nil || len(entries) != want {
				t.Errorf("audit %s: %d entries, want %d (%v)", action, len(entries), want, err)
			}
		}
		var accepted []models.Event
		if err := s.Core().DB(ctx).Where("tenant_id = ? AND type = ?", e.TenantID, models.EventAgreementAccepted).Find(&accepted).Error; err != nil ||
			len(accepted) != 1 || accepted[0].PartnerID == nil || *accepted[0].PartnerID != e.PartnerA {
			t.Fatalf("agreement.accepted events %+v, %v", accepted, err)
		}
		for typ, want := range map[string]int{models.EventAgreementPublished: 2, models.EventAgreementRequirementChanged: 1,
			models.EventAgreementGraceGranted: 2, models.EventAgreementCreated: 1, models.EventAgreementVersionCreated: 2} {
			var n int64
			if err := s.Core().DB(ctx).Model(&models.Event{}).Where("tenant_id = ? AND type = ?", e.TenantID, typ).Count(&n).Error; err != nil || n != int64(want) {
				t.Errorf("%s events: %d, want %d (%v)", typ, n, want, err)
			}
		}
	})
}

func TestALevelRequirementAppliesToThatLevelOnly(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		silver := &models.Partner{Name: "Gamma", Type: "agency", Level: "silver", Status: "active"}
		if err := e.Op.CreatePartner(e.Ctx, silver); err != nil {
			t.Fatal(err)
		}
		c := s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: e.TenantID, UserID: models.NewID(), PartnerID: silver.ID})
		a, _ := published(t, e, "Gold NDA", "NDA text", &models.AgreementRequirement{Levels: []string{"gold"}})
		if err := c.RequireAgreements(e.Ctx, ""); err != nil {
			t.Fatalf("silver is not concerned: %v", err)
		}
		if _, err := c.Agreement(e.Ctx, a.ID); code(err) != "AGREEMENT_NOT_FOUND" {
			t.Fatalf("silver reading gold's agreement: %v", err)
		}
		if err := e.A.RequireAgreements(e.Ctx, ""); code(err) != "AGREEMENT_REQUIRED" {
			t.Fatalf("gold: %v", err)
		}
		list, _, err := e.A.ListAgreements(e.Ctx, models.Page{})
		if err != nil || len(list) != 1 || list[0].RequiredVersionNumber != 1 || len(list[0].RequiredLevels) != 1 {
			t.Fatalf("gold's agreements %+v, %v", list, err)
		}
		if _, err := e.Op.SetAgreementRequirement(e.Ctx, a.ID, &models.AgreementRequirement{VersionID: models.NewID(), AllPartners: true}); code(err) != "AGREEMENT_VERSION_NOT_FOUND" {
			t.Fatalf("requiring an unknown version: %v", err)
		}
		draft, _ := e.Op.CreateAgreementVersion(e.Ctx, a.ID, "draft", "")
		if _, err := e.Op.SetAgreementRequirement(e.Ctx, a.ID, &models.AgreementRequirement{VersionID: draft.ID, AllPartners: true}); code(err) != "AGREEMENT_VERSION_NOT_PUBLISHED" {
			t.Fatalf("requiring a draft: %v", err)
		}
		// The draft exists for the operators only: the partner's view names the required version.
		if list, _, err := e.A.ListAgreements(e.Ctx, models.Page{}); err != nil || len(list) != 1 || list[0].LatestVersion != 1 {
			t.Fatalf("gold learns of the draft: %+v, %v", list, err)
		}
		if _, err := e.Op.SetAgreementRequirement(e.Ctx, a.ID, nil); err != nil {
			t.Fatal(err)
		}
		if err := e.A.RequireAgreements(e.Ctx, ""); err != nil {
			t.Fatalf("no requirement any more: %v", err)
		}
	})
}

func TestAcceptancesAndPublishedVersionsCannotBeChangedInTheDatabase(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		a, v := published(t, e, "Terms", "Terms text", &models.AgreementRequirement{AllPartners: true})
		acc, _, err := e.A.AcceptAgreementVersion(e.Ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.GrantAgreementGrace(e.Ctx, e.PartnerB, time.Now().Add(time.Hour), "pending signature"); err != nil {
			t.Fatal(err)
		}
		draft, _ := e.Op.CreateAgreementVersion(e.Ctx, a.ID, "draft text", "")
		db := s.Core().DB(e.Ctx)
		for _, stmt := range []string{
			"UPDATE agreement_acceptances SET sha256 = 'forged' WHERE id = '" + acc.ID + "'",
			"DELETE FROM agreement_acceptances WHERE id = '" + acc.ID + "'",
			"UPDATE agreement_graces SET reason = 'forged'",
			"DELETE FROM agreement_graces",
			"UPDATE agreement_versions SET body = 'forged' WHERE id = '" + v.ID + "'",
			"DELETE FROM agreement_versions WHERE id = '" + v.ID + "'",
		} {
			if err := db.Exec(stmt).Error; err == nil {
				t.Errorf("the database allowed %s", stmt)
			}
		}
		if err := db.Exec("UPDATE agreement_versions SET summary = 'still a draft' WHERE id = ?", draft.ID).Error; err != nil {
			t.Errorf("a draft could not change: %v", err)
		}
		_, got, err := e.A.AgreementVersion(e.Ctx, a.ID, v.ID)
		if err != nil || got.Body != "Terms text" || got.SHA256 != models.SHA256Hex([]byte(got.Body)) {
			t.Fatalf("version after the attempts %+v, %v", got, err)
		}
		var n int
		if err := e.Op.EachAcceptance(e.Ctx, models.AcceptanceFilter{}, func(b []models.AgreementAcceptance) error { n += len(b); return nil }); err != nil || n != 1 {
			t.Fatalf("acceptances after the attempts: %d, %v", n, err)
		}
	})
}

func TestOperatorsRecordAcceptancesForAPartnerAndReadCertificates(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		a, v := published(t, e, "NDA", "NDA text", &models.AgreementRequirement{AllPartners: true})
		if _, _, err := e.Op.AcceptAgreementVersion(e.Ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID}); code(err) != "PARTNER_REQUIRED" {
			t.Fatalf("an operator naming no partner: %v", err)
		}
		acc, _, err := e.Op.AcceptAgreementVersion(e.Ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v.ID, PartnerID: e.PartnerB})
		if err != nil || !acc.OnBehalf || acc.UserID != e.OpUserID {
			t.Fatalf("on behalf %+v, %v", acc, err)
		}
		cert, err := e.Op.AcceptanceCertificate(e.Ctx, acc.ID)
		if err != nil || cert.Partner != "Beta Partners" || cert.Agreement != "NDA" || cert.SHA256 != v.SHA256 || !cert.OnBehalf {
			t.Fatalf("certificate %+v, %v", cert, err)
		}
		if cert.UserEmail == "" {
			t.Fatalf("the operator's certificate names no recorder: %+v", cert)
		}
		// The partner's copy of an acceptance an operator recorded names no operator's address.
		if mine, err := e.B.AcceptanceCertificate(e.Ctx, acc.ID); err != nil || mine.UserEmail != "" || !mine.OnBehalf || mine.UserID != e.OpUserID {
			t.Fatalf("B reading its own certificate: %+v, %v", mine, err)
		}
	})
}

func TestARequiredVersionIsNoticedToTheActiveUsersOfPartnersThatHaveNotAccepted(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		user := func(email string, partner *string, status string) {
			t.Helper()
			if err := e.Op.CreateUser(ctx, &models.User{Email: email, Name: email, PartnerID: partner, Status: status}, []string{"partner_user"}); err != nil {
				t.Fatal(err)
			}
		}
		user("ada@alpha.test", &e.PartnerA, models.UserStatusActive)
		user("bob@beta.test", &e.PartnerB, models.UserStatusActive)
		user("gone@beta.test", &e.PartnerB, "deactivated")
		if _, err := e.Op.CreateAgreement(ctx, models.NewAgreement{Kind: models.AgreementProgramTerms, Title: "Program\nterms"}); storetest.Code(err) != "INVALID_TITLE" {
			t.Fatalf("a title of two lines (the notices' subject) = %v", err)
		}
		a, err := e.Op.CreateAgreement(ctx, models.NewAgreement{Kind: models.AgreementProgramTerms, Title: "Program terms"})
		if err != nil {
			t.Fatal(err)
		}
		v1, _ := e.Op.CreateAgreementVersion(ctx, a.ID, "Terms v1", "")
		if _, _, err := e.Op.PublishAgreementVersion(ctx, a.ID, v1.ID, nil); err != nil {
			t.Fatal(err)
		}
		v2, _ := e.Op.CreateAgreementVersion(ctx, a.ID, "Terms v2", "")
		if _, _, err := e.Op.PublishAgreementVersion(ctx, a.ID, v2.ID, &models.AgreementRequirement{AllPartners: true}); err != nil {
			t.Fatal(err)
		}
		// Alpha accepted already: only Beta's active user is asked.
		if _, _, err := e.A.AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: a.ID, VersionID: v2.ID}); err != nil {
			t.Fatal(err)
		}
		var events []models.Event
		if err := s.Core().DB(ctx).Where("tenant_id = ? AND type = ?", e.TenantID, models.EventAgreementPublished).Order("id").Find(&events).Error; err != nil || len(events) != 2 {
			t.Fatalf("agreement.published events %d, %v", len(events), err)
		}
		for i, want := range []bool{false, true} {
			var r models.EventRoutes
			if err := s.Agreements.RouteEvent(ctx, &events[i], &r); err != nil || r.AgreementNotices != want {
				t.Fatalf("routes of publication %d: %+v, %v", i+1, r, err)
			}
		}
		notices, err := s.AgreementNotices(ctx, models.System(e.TenantID), events[1].ID)
		if err != nil || len(notices) != 1 || notices[0].To != "bob@beta.test" || notices[0].Subject != "Please accept: Program terms (version 2)" {
			t.Fatalf("notices %+v, %v", notices, err)
		}
		// The first publication required nothing: nobody is asked.
		if notices, err := s.AgreementNotices(ctx, models.System(e.TenantID), events[0].ID); err != nil || len(notices) != 0 {
			t.Fatalf("an unrequired version's notices %+v, %v", notices, err)
		}
		// Another tenant's event is not found.
		if _, err := s.AgreementNotices(ctx, models.System(models.NewID()), events[1].ID); code(err) != "EVENT_NOT_FOUND" {
			t.Fatalf("another tenant's event: %v", err)
		}
	})
}

func TestRequiringAVersionLaterAsksPartnersToAcceptItToo(t *testing.T) {
	for _, c := range []struct {
		typ      string
		required bool
		want     bool
	}{
		{models.EventAgreementPublished, true, true},
		{models.EventAgreementRequirementChanged, true, true},
		{models.EventAgreementRequirementChanged, false, false},
		{models.EventAgreementAccepted, true, false},
	} {
		var r models.EventRoutes
		payload := store.MustJSON(models.AgreementEventPayload{AgreementID: models.NewID(), Required: c.required, VersionID: models.NewID()})
		if err := (&agreements.Store{}).RouteEvent(context.Background(), &models.Event{Type: c.typ, Payload: payload}, &r); err != nil {
			t.Fatal(err)
		}
		if r.AgreementNotices != c.want {
			t.Fatalf("%s (required %v) asks for notices: %v, want %v", c.typ, c.required, r.AgreementNotices, c.want)
		}
	}
}
