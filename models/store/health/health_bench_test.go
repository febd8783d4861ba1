package health_test

import (
	"context"
	"fmt"
	"os"
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
// CSAT and an NPS answer, an onboarding task, eight invoice.paid events over 90 days, and every fifth with an
// open, breached ticket; and a money metric over the invoices, rolled up. It answers the owner and
// the metric.
func seedHealth(b *testing.B, st *stores.Set, n int) (*models.Principal, string) {
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
	var events []models.Event
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
		for k := range 8 {
			// Over 95 days: seven in the component's 90-day window, the last before it.
			when := at.Add(-time.Duration(k*13+i%5) * 24 * time.Hour)
			events = append(events, models.Event{ID: models.NewID(), TenantID: owner.TenantID, Type: "invoice.paid", Source: "ingest", PartnerID: &pid, ActorKind: "system",
				Payload: fmt.Sprintf(`{"amount": %d}`, 1000*(i%7+k)), OccurredAt: when, ReceivedAt: when})
		}
	}
	for _, rows := range []any{partners, users, tokens, deals, surveys, tickets, tasks, events} {
		if err := db.CreateInBatches(rows, 500).Error; err != nil {
			b.Fatal(err)
		}
	}
	invoiced := &models.Metric{Name: "Invoiced", Kind: models.MetricSum, EventType: "invoice.paid", Field: "amount", Unit: models.UnitMoney, Currency: "EUR"}
	if err := st.For(owner).CreateMetric(ctx, invoiced, nil); err != nil {
		b.Fatal(err)
	}
	// The steady state: the events are in the metric's rollup.
	if err := st.RollUpMetric(ctx, models.System(owner.TenantID), invoiced.ID, time.Now()); err != nil {
		b.Fatal(err)
	}
	return owner, invoiced.ID
}

// loadAverage is the one-minute load average of the machine (0 where unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	_, _ = fmt.Sscan(string(b), &l)
	return l
}

// BenchmarkHealthRun scores every partner of a tenant of 10 000 partners (issue 16, point 8:
// under 60 s) and of 1 000 as the reference, on each database; one op is one whole run (pages
// of 1 000), as the health workflow's activities run it: under the eight built-in sources
// (builtin), then the same plus a component over a money metric of 80 000 events, rolled up (metric).
// load1 is the machine's one-minute load average as the variant ends.
func BenchmarkHealthRun(b *testing.B) {
	for _, e := range storetest.Engines(b) {
		st := storetest.Open(b, e)
		for _, n := range []int{1000, 10000} {
			owner, metricID := seedHealth(b, st, n)
			op := st.For(owner)
			withMetric := benchModel()
			withMetric.Components = append(withMetric.Components, models.HealthComponent{Source: models.HealthMetric, MetricID: metricID, Weight: 2,
				ZeroAt: 0, FullAt: 20000, WindowDays: 90})
			for _, v := range []struct {
				name  string
				model models.HealthModel
			}{{"builtin", benchModel()}, {"metric", withMetric}} {
				b.Run(fmt.Sprintf("%s/%d/%s", e.Name, n, v.name), func(b *testing.B) {
					ctx := context.Background()
					if _, err := op.PutHealthModel(ctx, v.model); err != nil {
						b.Fatal(err)
					}
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
					b.ReportMetric(loadAverage(), "load1")
				})
			}
		}
	}
}
