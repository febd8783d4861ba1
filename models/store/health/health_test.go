package health_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

// testModel scores won revenue in EUR (0 at nothing, 100 at 10 000.00), NPS (0 at -100, 100
// at 100) and SLA breaches (100 at none, 0 at 2), healthy from 70, at risk from 40.
func testModel() models.HealthModel {
	return models.HealthModel{
		Components: []models.HealthComponent{
			{Source: models.HealthWonRevenue, Weight: 2, ZeroAt: 0, FullAt: 1_000_000, Currency: "EUR"},
			{Source: models.HealthNPS, Weight: 1, ZeroAt: -100, FullAt: 100},
			{Source: models.HealthSLABreaches, Weight: 1, ZeroAt: 2, FullAt: 0},
		},
		Tiers: []models.HealthTier{{Name: "healthy", MinScore: 70}, {Name: "at_risk", MinScore: 40}, {Name: "critical", MinScore: 0}},
		Hour:  3,
	}
}

// fill writes the raw data of the scores: a won deal of amount for partner, an NPS answer of
// score (when >= 0), and breaches SLA-breached tickets.
func fill(t *testing.T, s *stores.Set, e *storetest.Partners, partner string, amount int64, nps, breaches int) {
	t.Helper()
	db := s.Core().DB(e.Ctx)
	at := time.Now().UTC().Add(-24 * time.Hour)
	if amount > 0 {
		d := &models.Deal{ID: models.NewID(), TenantID: e.TenantID, PartnerID: partner, PipelineID: "p", StageID: e.WonID, Status: models.DealWon,
			CustomerCompany: "Acme", AmountMinor: amount, Currency: "EUR", ConflictStatus: "none", ClosedAt: &at, CreatedAt: at, UpdatedAt: at}
		if err := db.Create(d).Error; err != nil {
			t.Fatal(err)
		}
	}
	if nps >= 0 {
		sv := &models.Survey{ID: models.NewID(), TenantID: e.TenantID, PartnerID: partner, UserID: models.NewID(), Kind: models.SurveyNPS,
			Source: models.SurveySourceBulk, BatchID: models.NewID(), ExpiresAt: at.Add(time.Hour * 240), AnsweredAt: &at, Score: &nps, CreatedAt: at}
		if err := db.Create(sv).Error; err != nil {
			t.Fatal(err)
		}
	}
	for range breaches {
		tk := &models.Ticket{ID: models.NewID(), TenantID: e.TenantID, PartnerID: partner, Subject: "Help", Priority: "high", Status: models.TicketOpen,
			RequesterID: models.NewID(), Tags: "[]", CreatedBy: "x", CreatedAt: at, UpdatedAt: at, ResolutionBreachedAt: &at}
		if err := db.Create(tk).Error; err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, s *stores.Set, e *storetest.Partners) (models.HealthRun, int, int) {
	t.Helper()
	r, err := e.Op.RequestHealthRun(e.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, changes, err := s.ScoreHealthRun(e.Ctx, models.System(e.TenantID), r.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	return *r, n, changes
}

func TestAHealthModelIsValidatedAndVersioned(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		if _, err := e.Op.HealthModel(e.Ctx); code(err) != "HEALTH_MODEL_NOT_FOUND" {
			t.Fatalf("no model yet: %v", err)
		}
		bad := testModel()
		bad.Components[0].Currency = ""
		bad.Components[1].FullAt = -100
		bad.Components[2].WindowDays = 400
		bad.Tiers = []models.HealthTier{{Name: "Good", MinScore: 50}, {Name: "bad", MinScore: 60}}
		bad.Hour = 24
		_, err := e.Op.PutHealthModel(e.Ctx, bad)
		var me *models.Error
		if code(err) != "INVALID_HEALTH_MODEL" || !asError(err, &me) || len(me.Fields) != 7 {
			t.Fatalf("a bad model: %v %+v", err, me)
		}
		m, err := e.Op.PutHealthModel(e.Ctx, testModel())
		if err != nil || m.Version != 1 || m.Components[1].WindowDays != models.DefaultHealthWindow {
			t.Fatalf("first model %+v, %v", m, err)
		}
		m, err = e.Op.PutHealthModel(e.Ctx, testModel())
		if err != nil || m.Version != 2 {
			t.Fatalf("second model %+v, %v", m, err)
		}
		got, err := e.Op.HealthModel(e.Ctx)
		if err != nil || got.Version != 2 || len(got.Tiers) != 3 || got.Components[0].Currency != "EUR" {
			t.Fatalf("stored model %+v, %v", got, err)
		}
	})
}

func asError(err error, me **models.Error) bool {
	return errors.As(err, me)
}

func TestHealthRunsScoreEveryPartnerOnceAndEmitTierChanges(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		if _, err := e.Op.RequestHealthRun(e.Ctx); code(err) != "HEALTH_MODEL_NOT_FOUND" {
			t.Fatalf("a run without a model: %v", err)
		}
		if _, err := e.Op.PutHealthModel(e.Ctx, testModel()); err != nil {
			t.Fatal(err)
		}
		// A: 10 000.00 won, a promoter, no breach: 100. B: nothing won, a detractor (NPS -100), one breach.
		fill(t, s, e, e.PartnerA, 1_000_000, 10, 0)
		fill(t, s, e, e.PartnerB, 0, 3, 1)
		r1, n, changes := run(t, s, e)
		if n != 2 || changes != 0 {
			t.Fatalf("first run scored %d, changed %d", n, changes)
		}
		list, _, err := e.Op.ListPartnerHealth(e.Ctx, models.HealthFilter{}, models.Page{})
		if err != nil || len(list) != 2 {
			t.Fatalf("current %+v, %v", list, err)
		}
		byID := map[string]models.PartnerHealth{}
		for _, h := range list {
			byID[h.PartnerID] = h
		}
		if a := byID[e.PartnerA]; a.Score != 100 || a.Tier != "healthy" {
			t.Fatalf("A %+v", a)
		}
		// B: revenue 0 (weight 2), NPS 0 (weight 1), breaches 1 of 2 → 50 (weight 1): 12.5.
		if b := byID[e.PartnerB]; b.Score != 12.5 || b.Tier != "critical" {
			t.Fatalf("B %+v", b)
		}
		if crit, _, _ := e.Op.ListPartnerHealth(e.Ctx, models.HealthFilter{Tier: "critical"}, models.Page{}); len(crit) != 1 || crit[0].PartnerID != e.PartnerB {
			t.Fatalf("critical %+v", crit)
		}
		cur, comps, err := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerB)
		if err != nil || cur.Tier != "critical" || len(comps) != 3 || *comps[2].Value != 1 || *comps[2].Score != 50 || comps[2].Contribution != 12.5 ||
			*comps[1].Value != -100 || comps[0].Weight != 2 {
			t.Fatalf("explain B %+v %s, %v", cur, mustJSON(comps), err)
		}

		// A retried page writes nothing twice.
		pg, err := s.ScoreHealthPage(e.Ctx, models.System(e.TenantID), r1.ID, "", 10)
		if err != nil || pg.Scored != 0 {
			t.Fatalf("a retried page scored %+v, %v", pg, err)
		}

		// B wins 8 000.00: 2×80 + 0 + 50 = 210/4 = 52.5, at risk; the change is an event.
		fill(t, s, e, e.PartnerB, 800_000, -1, 0)
		_, n, changes = run(t, s, e)
		if n != 2 || changes != 1 {
			t.Fatalf("second run scored %d, changed %d", n, changes)
		}
		var events []models.Event
		if err := s.Core().DB(e.Ctx).Where("tenant_id = ? AND type = ?", e.TenantID, models.EventPartnerHealthChanged).Find(&events).Error; err != nil || len(events) != 1 {
			t.Fatalf("events %+v, %v", events, err)
		}
		var p models.HealthEventPayload
		if err := json.Unmarshal([]byte(events[0].Payload), &p); err != nil || p.PartnerID != e.PartnerB || p.FromTier != "critical" || p.ToTier != "at_risk" ||
			p.Score != 52.5 || p.ModelVersion != 1 || events[0].PartnerID == nil || *events[0].PartnerID != e.PartnerB {
			t.Fatalf("payload %+v, %v", p, err)
		}
		hist, next, err := e.Op.PartnerHealthHistory(e.Ctx, e.PartnerB, models.Page{Limit: 1})
		if err != nil || len(hist) != 1 || hist[0].Tier != "at_risk" || next == "" {
			t.Fatalf("history %+v %q, %v", hist, next, err)
		}
		older, next, err := e.Op.PartnerHealthHistory(e.Ctx, e.PartnerB, models.Page{Limit: 1, After: next})
		if err != nil || len(older) != 1 || older[0].Tier != "critical" || next != "" {
			t.Fatalf("older history %+v %q, %v", older, next, err)
		}
		if _, _, err := e.A.PartnerHealthHistory(e.Ctx, e.PartnerB, models.Page{}); code(err) != "PARTNER_NOT_FOUND" {
			t.Fatalf("another partner's history: %v", err)
		}
		runs, _, err := e.Op.ListHealthRuns(e.Ctx, models.Page{})
		if err != nil || len(runs) != 2 || runs[0].Status != models.HealthRunDone || runs[0].Changes != 1 || runs[1].ID != r1.ID {
			t.Fatalf("runs %+v, %v", runs, err)
		}
	})
}

func TestOnlyOneHealthRunIsUnderWayAndTheScheduleOpensOnePerDay(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		if _, err := e.Op.PutHealthModel(e.Ctx, testModel()); err != nil {
			t.Fatal(err)
		}
		r, err := e.Op.RequestHealthRun(e.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.RequestHealthRun(e.Ctx); code(err) != "HEALTH_RUN_IN_PROGRESS" {
			t.Fatalf("a second run: %v", err)
		}
		if due, err := s.DueHealthRuns(e.Ctx, time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)); err != nil || len(due) != 0 {
			t.Fatalf("due while one runs: %+v, %v", due, err)
		}
		if _, _, err := s.ScoreHealthRun(e.Ctx, models.System(e.TenantID), r.ID, 100); err != nil {
			t.Fatal(err)
		}
		at := time.Now().UTC()
		at = time.Date(at.Year(), at.Month(), at.Day(), 3, 0, 0, 0, time.UTC)
		if due, err := s.DueHealthRuns(e.Ctx, at.Add(-time.Hour)); err != nil || len(due) != 0 {
			t.Fatalf("due at another hour: %+v, %v", due, err)
		}
		due, err := s.DueHealthRuns(e.Ctx, at)
		if err != nil || len(due) != 1 || due[0].TenantID != e.TenantID || due[0].Trigger != models.HealthTriggerSchedule {
			t.Fatalf("due at 03:00: %+v, %v", due, err)
		}
		if _, _, err := s.ScoreHealthRun(e.Ctx, models.System(e.TenantID), due[0].ID, 100); err != nil {
			t.Fatal(err)
		}
		if again, err := s.DueHealthRuns(e.Ctx, at.Add(30*time.Minute)); err != nil || len(again) != 0 {
			t.Fatalf("due again the same day: %+v, %v", again, err)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDaysSinceASignInCountFromTheNewestSessionOrTheJoiningDay(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		m := models.HealthModel{Components: []models.HealthComponent{
			{Source: models.HealthDaysSinceSignIn, Weight: 1, ZeroAt: 30, FullAt: 0},
			{Source: models.HealthOnboarding, Weight: 1, ZeroAt: 0, FullAt: 100},
		}, Tiers: []models.HealthTier{{Name: "healthy", MinScore: 50}, {Name: "critical", MinScore: 0}}}
		if _, err := e.Op.PutHealthModel(e.Ctx, m); err != nil {
			t.Fatal(err)
		}
		db := s.Core().DB(e.Ctx)
		pid := e.PartnerA
		u := &models.User{ID: models.NewID(), TenantID: e.TenantID, PartnerID: &pid, Email: "a@alpha.test", Status: models.UserStatusActive, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := db.Create(u).Error; err != nil {
			t.Fatal(err)
		}
		for _, days := range []int{40, 10} {
			at := time.Now().UTC().Add(-time.Duration(days)*24*time.Hour - time.Hour)
			if err := db.Create(&models.RefreshToken{ID: models.NewID(), TenantID: e.TenantID, UserID: u.ID, FamilyID: models.NewID(), Hash: models.NewID(),
				CreatedAt: at, ExpiresAt: at.Add(time.Hour)}).Error; err != nil {
				t.Fatal(err)
			}
		}
		for i, status := range []string{models.TaskDone, models.TaskOpen, models.TaskOpen, models.TaskDone} {
			task := &models.Task{ID: models.NewID(), TenantID: e.TenantID, PartnerID: &pid, Title: "Step", Status: status, Source: models.TaskOnboarding,
				CreatedAt: time.Now(), UpdatedAt: time.Now()}
			if i == 3 {
				task.Source = models.TaskManual // not onboarding: not counted
			}
			if err := db.Create(task).Error; err != nil {
				t.Fatal(err)
			}
		}
		run(t, s, e)
		_, a, err := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerA)
		if err != nil || *a[0].Value != 10 || *a[1].Value != 33 {
			t.Fatalf("A %s, %v", mustJSON(a), err)
		}
		_, b, err := e.Op.ExplainPartnerHealth(e.Ctx, e.PartnerB)
		if err != nil || *b[0].Value != 0 || b[1].Value != nil || b[1].Contribution != 0 || b[0].Contribution != 100 {
			t.Fatalf("B (joined today, no onboarding tasks) %s, %v", mustJSON(b), err)
		}
	})
}
