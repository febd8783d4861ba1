package stores

import (
	"context"
	"fmt"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/money"
)

// DemoPartnerLogin is a partner user the demo seed created.
type DemoPartnerLogin struct {
	Partner, Email string
}

// SeedDemo fills a freshly bootstrapped tenant with a program to explore: two levels, two
// partners at different levels, each with a partner admin who signs in with passwordHash, and deals in
// several stages (submitted, under conflict review, approved and progressing, won, lost); a
// 10 % commission plan on won deals with a 14-day holding period and the accruals of the won
// deals; when keys can seal payout details, an opening balance and one withdrawal awaiting
// approval; and two enabled playbooks, onboarding and deal won.
func (s *Set) SeedDemo(ctx context.Context, tenantID, ownerUserID, passwordHash string, keys *models.Keyring) ([]DemoPartnerLogin, error) {
	op := s.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: ownerUserID})
	if _, err := op.CreateCommissionPlan(ctx, "Resellers 10 % on won deals", "Ten percent of every won deal, available after 14 days.",
		models.PlanDefinition{Trigger: models.EventDealWon, HoldingDays: 14,
			Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 1000}}); err != nil {
		return nil, fmt.Errorf("demo plan: %w", err)
	}
	pipes, _, err := op.ListPipelines(ctx, models.Page{})
	if err != nil || len(pipes) == 0 {
		return nil, fmt.Errorf("demo: the default pipeline: %w", err)
	}
	stage := map[string]string{}
	for _, st := range pipes[0].Stages {
		stage[st.Name] = st.ID
	}
	for _, l := range []struct {
		name, benefits string
		rank           int
		def            bool
		req            models.LevelRequirements
	}{
		{"silver", "Deal registration, partner portal, sales training", 1, true, models.LevelRequirements{}},
		{"gold", "Everything in silver, co-marketing funds, a partner manager", 2, false,
			models.LevelRequirements{MinWonDeals: 1, MinWonAmountMinor: 5_000_000, Currency: "EUR", PeriodDays: 365}},
	} {
		if err := op.CreateLevel(ctx, &models.Level{Name: l.name, Benefits: l.benefits, Rank: l.rank, IsDefault: l.def}, l.req); err != nil {
			return nil, err
		}
	}
	partners := []struct {
		name, typ, level, email string
	}{
		{"Northwind Resellers", models.PartnerReseller, "gold", "alice@northwind.demo"},
		{"Contoso Agency", models.PartnerAgency, "silver", "bob@contoso.demo"},
	}
	var logins []DemoPartnerLogin
	scopes := make([]*Scoped, len(partners))
	for i, p := range partners {
		rec := &models.Partner{Name: p.name, Type: p.typ, Level: p.level, Status: models.PartnerActive}
		if err := op.CreatePartner(ctx, rec); err != nil {
			return nil, err
		}
		pid := rec.ID
		u := &models.User{Email: p.email, Name: "Demo " + p.name, PartnerID: &pid, PasswordHash: passwordHash}
		if err := op.CreateUser(ctx, u, []string{"partner_admin"}); err != nil {
			return nil, err
		}
		scopes[i] = s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: tenantID, UserID: u.ID, PartnerID: pid})
		logins = append(logins, DemoPartnerLogin{Partner: p.name, Email: p.email})
	}
	type step struct {
		approve bool
		stage   string
		reason  string
	}
	deals := []struct {
		by                     int
		company, domain, email string
		amount                 int64
		steps                  []step
	}{
		{0, "Initech", "initech.com", "bill@initech.com", 4_800_000, []step{{approve: true}, {stage: "Qualified"}, {stage: "Proposal"}}},
		{0, "Hooli", "hooli.com", "gavin@hooli.com", 12_500_000, []step{{approve: true}, {stage: "Negotiation"}, {stage: "Closed won"}}},
		{0, "Umbrella Corp", "umbrella.example", "", 950_000, nil},
		{1, "Globex", "globex.com", "hank@globex.com", 2_200_000, []step{{approve: true}, {stage: "Qualified"}, {stage: "Closed won"}}},
		{1, "Soylent", "soylent.example", "", 600_000, []step{{approve: true}, {stage: "Closed lost", reason: "Chose an in-house build"}}},
		{1, "Initech Labs", "initech.com", "", 1_100_000, nil}, // overlaps Northwind's Initech: under review
	}
	for _, d := range deals {
		rec := &models.Deal{CustomerCompany: d.company, CustomerDomain: d.domain, ContactEmail: d.email, AmountMinor: d.amount, Currency: "EUR"}
		if err := scopes[d.by].RegisterDeal(ctx, rec); err != nil {
			return nil, err
		}
		for _, st := range d.steps {
			var err error
			if st.approve {
				_, err = op.ApproveDeal(ctx, rec.ID, ownerUserID)
			} else {
				_, err = scopes[d.by].MoveDeal(ctx, rec.ID, models.DealMove{StageID: stage[st.stage], Reason: st.reason})
			}
			if err != nil {
				return nil, fmt.Errorf("demo deal %s: %w", d.company, err)
			}
		}
	}
	// Accrue now rather than when the fan-out gets to it (it finds the accruals and books
	// nothing more).
	won, _, err := op.ListEvents(ctx, models.EventFilter{Type: models.EventDealWon}, models.Page{Limit: 100})
	if err != nil {
		return nil, err
	}
	for _, e := range won {
		if _, err := s.AccrueCommissions(ctx, models.System(tenantID), e.ID); err != nil {
			return nil, fmt.Errorf("demo accrual: %w", err)
		}
	}
	if keys != nil {
		if err := s.seedDemoWithdrawal(ctx, op, scopes[0], keys); err != nil {
			return nil, fmt.Errorf("demo withdrawal: %w", err)
		}
	}
	if _, err := op.PutHealthModel(ctx, models.DemoHealthModel()); err != nil {
		return nil, fmt.Errorf("demo health model: %w", err)
	}
	// The playbooks come last, so that the seed's own events start no runs.
	for _, p := range []*models.Playbook{
		{Name: "Onboarding", Description: "Welcome email, a first task, and a reminder after three days unless the partner accepted its agreement.", Graph: models.DemoOnboardingGraph()},
		{Name: "Deal won", Description: "Kick-off task and certificate for wins of 10 000 and more; every win announced.", Graph: models.DemoDealWonGraph()},
		{Name: "Critical health", Description: "A task for the partner managers to call a partner whose health tier became critical.", Graph: models.DemoHealthCriticalGraph()},
	} {
		if err := op.CreatePlaybook(ctx, p); err != nil {
			return nil, fmt.Errorf("demo playbook: %w", err)
		}
		if _, err := op.PublishPlaybook(ctx, p.ID); err != nil {
			return nil, fmt.Errorf("demo playbook: %w", err)
		}
		if _, err := op.SetPlaybookStatus(ctx, p.ID, models.PlaybookEnabled); err != nil {
			return nil, fmt.Errorf("demo playbook: %w", err)
		}
	}
	return logins, nil
}

// seedDemoWithdrawal gives the first partner a bank account, an opening balance carried over
// from a previous program, and a withdrawal waiting for finance.
func (s *Set) seedDemoWithdrawal(ctx context.Context, op, partner *Scoped, keys *models.Keyring) error {
	pid := partner.Principal().PartnerID
	m := &models.PayoutMethod{ID: money.NewPayoutMethodID(), Kind: models.PayoutBank, Label: "Main account", Masked: "IBAN ••••3000"}
	sealed, err := keys.Seal(`{"accountHolder":"Northwind Traders","iban":"DE89370400440532013000","bic":"COBADEFFXXX"}`,
		models.SealContext{TenantID: partner.Principal().TenantID, Table: "payout_methods", RowID: m.ID, Field: "details"})
	if err != nil {
		return err
	}
	m.Details = sealed
	if err := partner.AddPayoutMethod(ctx, m); err != nil {
		return err
	}
	if _, err := op.AdjustBalance(ctx, models.Adjustment{PartnerID: pid, Amount: 500_00, Currency: "EUR",
		Reason: "Opening balance carried over from the previous partner program", Key: "demo-opening-balance"}); err != nil {
		return err
	}
	_, err = partner.RequestWithdrawal(ctx, models.NewWithdrawal{Amount: 250_00, Currency: "EUR", PayoutMethodID: m.ID}, "demo-withdrawal")
	return err
}
