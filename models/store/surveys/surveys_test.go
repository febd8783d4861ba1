package surveys_test

import (
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

// addUser adds an active user to a partner organisation.
func addUser(t *testing.T, s *stores.Set, e *storetest.Partners, partnerID, email string) string {
	t.Helper()
	u := &models.User{ID: models.NewID(), TenantID: e.TenantID, PartnerID: &partnerID, Email: email, Name: email, Status: models.UserStatusActive,
		CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := s.Core().DB(e.Ctx).Create(u).Error; err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// invite sends a survey of kind to partner A's users and issues the link of the first one.
func invite(t *testing.T, s *stores.Set, e *storetest.Partners, kind string) (models.Survey, string) {
	t.Helper()
	batch, _, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: kind, PartnerIDs: []string{e.PartnerA}})
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := e.Op.ListSurveys(e.Ctx, models.SurveyFilter{}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, sv := range list {
		if sv.BatchID == batch {
			token, err := s.IssueSurveyLink(e.Ctx, models.System(e.TenantID), sv.ID)
			if err != nil {
				t.Fatal(err)
			}
			return sv, token
		}
	}
	t.Fatal("no invitation in the batch")
	return models.Survey{}, ""
}

func TestSurveysGoToThePartnersUsersAndPartnersSeeOnlyTheirOwn(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		addUser(t, s, e, e.PartnerA, "a1@alpha.example")
		addUser(t, s, e, e.PartnerA, "a2@alpha.example")
		addUser(t, s, e, e.PartnerB, "b1@beta.example")
		if _, _, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: "ces", PartnerIDs: []string{e.PartnerA}}); code(err) != "INVALID_KIND" {
			t.Fatalf("unknown kind: %v", err)
		}
		if _, _, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: models.SurveyNPS}); code(err) != "AUDIENCE_REQUIRED" {
			t.Fatalf("no audience: %v", err)
		}
		batch, n, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: models.SurveyNPS, Levels: []string{"gold"}})
		if err != nil || n != 3 || batch == "" {
			t.Fatalf("by level: %v, %d, %v", batch, n, err)
		}
		if _, n, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: models.SurveyCSAT, PartnerIDs: []string{e.PartnerB}}); err != nil || n != 1 {
			t.Fatalf("by partner: %d, %v", n, err)
		}
		if _, _, err := e.A.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: models.SurveyCSAT, PartnerIDs: []string{e.PartnerB}}); code(err) != "OTHER_PARTNER" {
			t.Fatalf("a partner sending to another: %v", err)
		}
		all, _, err := e.Op.ListSurveys(e.Ctx, models.SurveyFilter{}, models.Page{})
		if err != nil || len(all) != 4 {
			t.Fatalf("operator sees %d, %v", len(all), err)
		}
		mine, _, err := e.A.ListSurveys(e.Ctx, models.SurveyFilter{}, models.Page{})
		if err != nil || len(mine) != 2 {
			t.Fatalf("partner A sees %d, %v", len(mine), err)
		}
		for _, sv := range mine {
			if sv.PartnerID != e.PartnerA || sv.Level != "gold" || sv.Source != models.SurveySourceBulk || sv.TokenHash != nil {
				t.Fatalf("partner A's invitation %+v", sv)
			}
		}
		csat, _, err := e.Op.ListSurveys(e.Ctx, models.SurveyFilter{Kind: models.SurveyCSAT}, models.Page{})
		if err != nil || len(csat) != 1 || csat[0].PartnerID != e.PartnerB {
			t.Fatalf("csat filter %+v, %v", csat, err)
		}
		mails, err := s.SurveyInvitations(e.Ctx, models.System(e.TenantID), eventOf(t, s, e, batch))
		if err != nil || len(mails) != 3 || mails[0].Kind != models.SurveyNPS || mails[0].To == "" {
			t.Fatalf("invitation mails %+v, %v", mails, err)
		}
	})
}

// eventOf is the id of the survey.requested event of a batch.
func eventOf(t *testing.T, s *stores.Set, e *storetest.Partners, batch string) string {
	t.Helper()
	var ev models.Event
	if err := s.Core().DB(e.Ctx).Model(&models.Event{}).Where("type = ? AND subject_id = ?", models.EventSurveyRequested, batch).Take(&ev).Error; err != nil {
		t.Fatal(err)
	}
	return ev.ID
}

func TestASurveyLinkAnswersOnceEvenUnderConcurrency(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		addUser(t, s, e, e.PartnerA, "a1@alpha.example")
		sv, token := invite(t, s, e, models.SurveyCSAT)
		pub, err := s.PublicSurvey(e.Ctx, token)
		if err != nil || pub.Kind != models.SurveyCSAT || pub.Question == "" || pub.Program == "" {
			t.Fatalf("public survey %+v, %v", pub, err)
		}
		if _, err := s.PublicSurvey(e.Ctx, "not-a-token"); code(err) != "SURVEY_NOT_FOUND" {
			t.Fatalf("unknown token: %v", err)
		}
		if err := s.AnswerSurvey(e.Ctx, token, 6, ""); code(err) != "SCORE_OUT_OF_RANGE" {
			t.Fatalf("csat 6: %v", err)
		}
		if err := s.AnswerSurvey(e.Ctx, token, 0, ""); code(err) != "SCORE_OUT_OF_RANGE" {
			t.Fatalf("csat 0: %v", err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.AnswerSurvey(e.Ctx, token, 4, "  Quick and kind.  ")
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch code(err) {
			case "":
				won++
			case "SURVEY_ANSWERED":
			default:
				t.Fatalf("a concurrent answer: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d answers won", won)
		}
		list, _, err := e.A.ListSurveys(e.Ctx, models.SurveyFilter{Answered: ptr(true)}, models.Page{})
		if err != nil || len(list) != 1 || list[0].ID != sv.ID || *list[0].Score != 4 || list[0].Comment != "Quick and kind." || list[0].AnsweredAt == nil {
			t.Fatalf("answered %+v, %v", list, err)
		}
		var n int64
		s.Core().DB(e.Ctx).Model(&models.Event{}).Where("type = ? AND subject_id = ?", models.EventSurveyResponded, sv.ID).Count(&n)
		if n != 1 {
			t.Fatalf("%d survey.responded events", n)
		}
		if _, err := s.PublicSurvey(e.Ctx, token); code(err) != "SURVEY_ANSWERED" {
			t.Fatalf("an answered link: %v", err)
		}
		if _, err := s.IssueSurveyLink(e.Ctx, models.System(e.TenantID), sv.ID); code(err) != "SURVEY_NOT_FOUND" {
			t.Fatalf("a new link for an answered survey: %v", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestAnExpiredSurveyLinkNoLongerAnswers(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		addUser(t, s, e, e.PartnerA, "a1@alpha.example")
		sv, token := invite(t, s, e, models.SurveyNPS)
		if err := s.Core().DB(e.Ctx).Model(&models.Survey{}).Where("id = ?", sv.ID).Update("expires_at", time.Now().Add(-time.Second)).Error; err != nil {
			t.Fatal(err)
		}
		if _, err := s.PublicSurvey(e.Ctx, token); code(err) != "SURVEY_EXPIRED" {
			t.Fatalf("expired: %v", err)
		}
		if err := s.AnswerSurvey(e.Ctx, token, 9, ""); code(err) != "SURVEY_EXPIRED" {
			t.Fatalf("answering expired: %v", err)
		}
		// A second link replaces the first.
		if err := s.Core().DB(e.Ctx).Model(&models.Survey{}).Where("id = ?", sv.ID).Update("expires_at", time.Now().Add(time.Hour)).Error; err != nil {
			t.Fatal(err)
		}
		second, err := s.IssueSurveyLink(e.Ctx, models.System(e.TenantID), sv.ID)
		if err != nil || second == token || len(second) != 43 {
			t.Fatalf("second link %q, %v", second, err)
		}
		if err := s.AnswerSurvey(e.Ctx, token, 9, ""); code(err) != "SURVEY_NOT_FOUND" {
			t.Fatalf("the first link after a second: %v", err)
		}
	})
}

func TestSurveyScoresPerPartnerAndLevel(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		addUser(t, s, e, e.PartnerA, "a1@alpha.example")
		// NPS: 4 promoters (9, 10, 10, 9), 3 passives (7, 8, 8), 3 detractors (0, 6, 5):
		// (4 - 3) * 100 / 10 = 10.
		for _, score := range []int{9, 10, 10, 9, 7, 8, 8, 0, 6, 5} {
			_, token := invite(t, s, e, models.SurveyNPS)
			if err := s.AnswerSurvey(e.Ctx, token, score, ""); err != nil {
				t.Fatal(err)
			}
		}
		// CSAT: 2 of 3 satisfied: 66.
		for _, score := range []int{5, 4, 2} {
			_, token := invite(t, s, e, models.SurveyCSAT)
			if err := s.AnswerSurvey(e.Ctx, token, score, ""); err != nil {
				t.Fatal(err)
			}
		}
		invite(t, s, e, models.SurveyNPS) // unanswered: not counted
		nps, err := e.Op.SurveyScores(e.Ctx, models.SurveyScoreQuery{Kind: models.SurveyNPS})
		if err != nil || len(nps) != 1 {
			t.Fatalf("nps %+v, %v", nps, err)
		}
		if g := nps[0]; g.Group != e.PartnerA || g.Responses != 10 || g.Promoters != 4 || g.Passives != 3 || g.Detractors != 3 || *g.Score != 10 {
			t.Fatalf("nps of partner A %+v", g)
		}
		csat, err := e.Op.SurveyScores(e.Ctx, models.SurveyScoreQuery{Kind: models.SurveyCSAT, GroupBy: "level"})
		if err != nil || len(csat) != 1 || csat[0].Group != "gold" || csat[0].Responses != 3 || csat[0].Satisfied != 2 || *csat[0].Score != 66 {
			t.Fatalf("csat per level %+v, %v", csat, err)
		}
		later, err := e.Op.SurveyScores(e.Ctx, models.SurveyScoreQuery{Kind: models.SurveyNPS, From: time.Now().Add(time.Hour)})
		if err != nil || len(later) != 0 {
			t.Fatalf("a period without answers %+v, %v", later, err)
		}
		theirs, err := e.B.SurveyScores(e.Ctx, models.SurveyScoreQuery{Kind: models.SurveyNPS})
		if err != nil || len(theirs) != 0 {
			t.Fatalf("partner B sees partner A's scores: %+v, %v", theirs, err)
		}
	})
}

func TestAResolvedTicketSurveysItsRequesterOnceWhenTheTenantAsks(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		uid := addUser(t, s, e, e.PartnerA, "a1@alpha.example")
		requester := s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: e.TenantID, UserID: uid, PartnerID: e.PartnerA})
		open := func() string {
			tk, err := requester.OpenTicket(e.Ctx, models.NewTicket{Ticket: models.Ticket{Subject: "Payout missing"}, Body: "Where is it?"})
			if err != nil {
				t.Fatal(err)
			}
			return tk.ID
		}
		resolve := func(id string) {
			if _, err := e.Op.ChangeTicketStatus(e.Ctx, id, models.TicketResolved); err != nil {
				t.Fatal(err)
			}
		}
		resolve(open())
		if list, _, _ := e.Op.ListSurveys(e.Ctx, models.SurveyFilter{}, models.Page{}); len(list) != 0 {
			t.Fatalf("surveyed without the setting: %+v", list)
		}
		on := true
		if _, err := e.Op.UpdateTenant(e.Ctx, models.TenantChanges{SurveyOnResolve: &on}); err != nil {
			t.Fatal(err)
		}
		id := open()
		resolve(id)
		if _, err := e.Op.ChangeTicketStatus(e.Ctx, id, models.TicketOpen); err != nil {
			t.Fatal(err)
		}
		resolve(id) // resolved again: no second survey
		list, _, err := e.Op.ListSurveys(e.Ctx, models.SurveyFilter{}, models.Page{})
		if err != nil || len(list) != 1 || list[0].Source != models.SurveySourceTicket || *list[0].TicketID != id || list[0].UserID != uid ||
			list[0].Kind != models.SurveyCSAT || list[0].PartnerID != e.PartnerA {
			t.Fatalf("ticket surveys %+v, %v", list, err)
		}
		mails, err := s.SurveyInvitations(e.Ctx, models.System(e.TenantID), eventOf(t, s, e, list[0].BatchID))
		if err != nil || len(mails) != 1 || mails[0].To != "a1@alpha.example" {
			t.Fatalf("invitation %+v, %v", mails, err)
		}
	})
}

func TestABulkSendIsBoundedTo5000Recipients(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		users := make([]models.User, models.MaxSurveyRecipients+1)
		for i := range users {
			users[i] = models.User{ID: models.NewID(), TenantID: e.TenantID, PartnerID: &e.PartnerA, Email: models.NewID() + "@alpha.example",
				Status: models.UserStatusActive, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		}
		if err := s.Core().DB(e.Ctx).CreateInBatches(users, 500).Error; err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: models.SurveyNPS, PartnerIDs: []string{e.PartnerA}}); code(err) != "TOO_MANY_RECIPIENTS" {
			t.Fatalf("5001 recipients: %v", err)
		}
		if list, _, _ := e.Op.ListSurveys(e.Ctx, models.SurveyFilter{}, models.Page{}); len(list) != 0 {
			t.Fatalf("a refused send left %d invitations", len(list))
		}
		if err := s.Core().DB(e.Ctx).Model(&models.User{}).Where("id = ?", users[0].ID).Update("status", models.UserStatusDeactivated).Error; err != nil {
			t.Fatal(err)
		}
		if _, n, err := e.Op.RequestSurveys(e.Ctx, models.SurveyRequest{Kind: models.SurveyNPS, PartnerIDs: []string{e.PartnerA}}); err != nil || n != models.MaxSurveyRecipients {
			t.Fatalf("5000 recipients: %d, %v", n, err)
		}
	})
}
