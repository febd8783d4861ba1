package health_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// benchModel uses every source.
func benchModel() models.HealthModel {
	return models.HealthModel{
		Components: []models.HealthComponent{
			{Source: models.HealthWonRevenue, Weight: 3, ZeroAt: 0, FullAt: 1_000_000, Currency: "EUR"},
			{Source: models.HealthWonDeals, Weight: 1, ZeroAt: 0, FullAt: 5},
			{Source: models.HealthNPS, Weight: 2, ZeroAt: -50, FullAt: 50},
			{Source: models.HealthCSAT, Weight: 2, ZeroAt: 40, FullAt: 90},
			{Source: models.HealthOpenTickets, Weight: 1, ZeroAt: 5, FullAt: 0},
			{Source: models.HealthSLABreaches, Weight: 2, ZeroAt: 3, FullAt: 0},
			{Source: models.HealthOnboarding, Weight: 1, ZeroAt: 0, FullAt: 100},
			{Source: models.HealthDaysSinceSignIn, Weight: 1, ZeroAt: 30, FullAt: 0},
		},
		Tiers: []models.HealthTier{{Name: "healthy", MinScore: 70}, {Name: "at_risk", MinScore: 40}, {Name: "critical", MinScore: 0}},
		Hour:  3,
	}
}

// seedHealth makes a tenant of n partners, each with a user who signed in, two won deals, a
// CSAT and an NPS answer, an onboarding task, and every fifth with an open, breached ticket.
func seedHealth(b *testing.B, st *stores.Set, n int) *models.Principal {
	ctx := context.Background()
	owner := storetest.Tenant(b, st.Core(), fmt.Sprintf("health%d", n))
	db := st.Core().DB(ctx)
	at := time.Now().UTC().Add(-48 * time.Hour)
	var partners []models.Partner
	var users []models.User
	var tokens []models.RefreshToken
	var deals []models.Deal
	var surveys []models.Survey
	var tickets []models.Ticket
	var tasks []models.Task
	for i := range n {
		p := models.Partner{ID: models.NewID(), TenantID: owner.TenantID, Name: fmt.Sprintf("Partner %d", i), Type: "reseller", Status: "active", CreatedAt: at, UpdatedAt: at}
		partners = append(partners, p)
		pid := p.ID
		u := models.User{ID: models.NewID(), TenantID: owner.TenantID, PartnerID: &pid, Email: fmt.Sprintf("u%d@p.test", i), Status: models.UserStatusActive, CreatedAt: at, UpdatedAt: at}
		users = append(users, u)
		signIn := at.Add(-time.Duration(i%40) * 24 * time.Hour)
		tokens = append(tokens, models.RefreshToken{ID: models.NewID(), TenantID: owner.TenantID, UserID: u.ID, FamilyID: models.NewID(), Hash: models.NewID(),
			CreatedAt: signIn, ExpiresAt: signIn.Add(720 * time.Hour)})
		for k := range 2 {
			deals = append(deals, models.Deal{ID: models.NewID(), TenantID: owner.TenantID, PartnerID: pid, PipelineID: "p", StageID: "s", Status: models.DealWon,
				CustomerCompany: "Acme", AmountMinor: int64(100_000 * (i%10 + k)), Currency: "EUR", ConflictStatus: "none", ClosedAt: &at, CreatedAt: at, UpdatedAt: at})
		}
		for _, kind := range []string{models.SurveyCSAT, models.SurveyNPS} {
			score := 1 + i%5
			if kind == models.SurveyNPS {
				score = i % 11
			}
			surveys = append(surveys, models.Survey{ID: models.NewID(), TenantID: owner.TenantID, PartnerID: pid, UserID: u.ID, Kind: kind, Source: models.SurveySourceBulk,
				BatchID: "b", ExpiresAt: at.Add(240 * time.Hour), AnsweredAt: &at, Score: &score, CreatedAt: at})
		}
		if i%5 == 0 {
			tickets = append(tickets, models.Ticket{ID: models.NewID(), TenantID: owner.TenantID, PartnerID: pid, Subject: "Help", Priority: "high", Status: models.TicketOpen,
				RequesterID: u.ID, Tags: "[]", CreatedBy: u.ID, CreatedAt: at, UpdatedAt: at, FirstResponseBreachedAt: &at})
		}
		status := models.TaskOpen
		if i%2 == 0 {
			status = models.TaskDone
		}
		tasks = append(tasks, models.Task{ID: models.NewID(), TenantID: owner.TenantID, PartnerID: &pid, Title: "Profile", Status: status, Source: models.TaskOnboarding, CreatedAt: at, UpdatedAt: at})
	}
	for _, rows := range []any{partners, users, tokens, deals, surveys, tickets, tasks} {
		if err := db.CreateInBatches(rows, 500).Error; err != nil {
			b.Fatal(err)
		}
	}
	if _, err := st.For(owner).PutHealthModel(ctx, benchModel()); err != nil {
		b.Fatal(err)
	}
	return owner
}

// BenchmarkHealthRun scores every partner of a tenant of 10 000 partners (issue 16, point 8:
// under 60 s) and of 1 000 as the reference, on each database; one op is one whole run (pages
// of 1 000, eight sources), as the health workflow's activities run it.
func BenchmarkHealthRun(b *testing.B) {
	for _, e := range storetest.Engines(b) {
		st := storetest.Open(b, e)
		for _, n := range []int{1000, 10000} {
			owner := seedHealth(b, st, n)
			op := st.For(owner)
			b.Run(fmt.Sprintf("%s/%d", e.Name, n), func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					run, err := op.RequestHealthRun(ctx)
					if err != nil {
						b.Fatal(err)
					}
					scored, _, err := st.ScoreHealthRun(ctx, models.System(owner.TenantID), run.ID, 1000)
					if err != nil || scored != n {
						b.Fatalf("scored %d of %d: %v", scored, n, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
			})
		}
	}
}
