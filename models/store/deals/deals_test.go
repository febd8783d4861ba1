package deals_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

func TestDealRegistrationFindsConflictsWithoutShowingThemToPartners(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		first := e.Register(t, e.A, "Initech", "https://www.Initech.com/about", "Bill@Initech.com", 500_000)
		if first.CustomerDomain != "initech.com" || first.ContactEmail != "bill@initech.com" || first.PartnerID != e.PartnerA ||
			first.Status != models.DealSubmitted || first.ConflictStatus != models.ConflictNone || first.StageID != e.DefaultStageID {
			t.Fatalf("first registration = %+v", first)
		}
		// The same partner registering again is not a conflict with itself.
		if again := e.Register(t, e.A, "Initech", "initech.com", "", 1); again.ConflictStatus != models.ConflictNone {
			t.Fatalf("a partner's second deal conflicts with its first: %+v", again)
		}
		// Another partner, same domain: review.
		clash := e.Register(t, e.B, "Initech Corp", "initech.com", "peter@initech.com", 700_000)
		if clash.ConflictStatus != models.ConflictReview {
			t.Fatalf("another partner's deal for the same domain = %+v", clash)
		}
		// Only by contact email.
		byEmail := e.Register(t, e.B, "Other name", "", "BILL@initech.com", 1)
		conflicts, err := e.Op.DealConflicts(e.Ctx, byEmail.ID)
		if err != nil || len(conflicts) == 0 || conflicts[0].Kind != models.ConflictContactEmail || *conflicts[0].OtherDealID != first.ID {
			t.Fatalf("conflicts by contact = %+v, %v", conflicts, err)
		}
		conflicts, err = e.Op.DealConflicts(e.Ctx, clash.ID)
		if err != nil || len(conflicts) != 2 || !strings.Contains(conflicts[0].Explanation, "Alpha Resellers") {
			t.Fatalf("conflicts = %+v, %v", conflicts, err)
		}
		// The partner sees that a review is needed, never the other partner's data.
		if _, err := e.B.Deal(e.Ctx, first.ID); code(err) != "DEAL_NOT_FOUND" {
			t.Fatalf("partner B reads A's deal: %v", err)
		}
		evs, _, err := e.B.ListEvents(e.Ctx, models.EventFilter{Type: models.EventDealRegistered}, models.Page{})
		if err != nil || len(evs) != 2 {
			t.Fatalf("partner B's deal events = %d, %v", len(evs), err)
		}
		for _, ev := range evs {
			if strings.Contains(ev.Payload, e.PartnerA) || strings.Contains(ev.Payload, first.ID) {
				t.Fatalf("partner B's event shows partner A: %s", ev.Payload)
			}
		}
		// A customer attributed to partner A conflicts with B's registration for its domain.
		if err := e.A.CreateCustomer(e.Ctx, &models.Customer{Email: ptr("ceo@globex.com"), Name: "Globex"}); err != nil {
			t.Fatal(err)
		}
		glob := e.Register(t, e.B, "Globex", "globex.com", "", 1)
		conflicts, _ = e.Op.DealConflicts(e.Ctx, glob.ID)
		if len(conflicts) != 1 || conflicts[0].Kind != models.ConflictCustomer || *conflicts[0].OtherPartnerID != e.PartnerA {
			t.Fatalf("customer conflicts = %+v", conflicts)
		}
		// Approving waits for the review; resolving it lets the approval through.
		if _, err := e.Op.ApproveDeal(e.Ctx, clash.ID, ""); code(err) != "CONFLICT_REVIEW_PENDING" {
			t.Fatalf("approving under review: %v", err)
		}
		if _, err := e.Op.ResolveDealConflicts(e.Ctx, clash.ID, "B brought the CFO; A's deal is a different unit"); err != nil {
			t.Fatal(err)
		}
		if d, err := e.Op.ApproveDeal(e.Ctx, clash.ID, e.OpUserID); err != nil || d.Status != models.DealApproved || d.ProtectedUntil == nil || *d.OwnerUserID != e.OpUserID {
			t.Fatalf("approve after resolution = %+v, %v", d, err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestDealLifecycleIsAStateMachine(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		d := e.Register(t, e.A, "Hooli", "hooli.com", "gavin@hooli.com", 1_250_000)
		if _, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.OpenIDs[1]}); code(err) != "DEAL_NOT_APPROVED" {
			t.Fatalf("moving a submitted deal: %v", err)
		}
		if _, err := e.Op.ApproveDeal(e.Ctx, d.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveDeal(e.Ctx, d.ID, ""); code(err) != "ILLEGAL_DEAL_TRANSITION" {
			t.Fatalf("approving twice: %v", err)
		}
		if _, err := e.Op.RejectDeal(e.Ctx, d.ID, "late"); code(err) != "ILLEGAL_DEAL_TRANSITION" {
			t.Fatalf("rejecting an approved deal: %v", err)
		}
		moved, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.OpenIDs[2]})
		if err != nil || moved.StageID != e.OpenIDs[2] {
			t.Fatalf("stage move = %+v, %v", moved, err)
		}
		if _, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.LostID}); code(err) != "REASON_REQUIRED" {
			t.Fatalf("lost without reason: %v", err)
		}
		if _, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: models.NewID()}); code(err) != "STAGE_NOT_FOUND" {
			t.Fatalf("unknown stage: %v", err)
		}
		won, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.WonID})
		if err != nil || won.Status != models.DealWon || won.CustomerID == nil || won.ClosedAt == nil {
			t.Fatalf("won = %+v, %v", won, err)
		}
		c, err := e.A.Customer(e.Ctx, *won.CustomerID)
		if err != nil || *c.PartnerID != e.PartnerA || *c.Email != "gavin@hooli.com" {
			t.Fatalf("the won deal's customer = %+v, %v", c, err)
		}
		if _, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.OpenIDs[0]}); code(err) != "DEAL_CLOSED" {
			t.Fatalf("moving a won deal: %v", err)
		}
		if _, err := e.A.UpdateDeal(e.Ctx, d.ID, models.DealChanges{Notes: ptr("x")}); code(err) != "DEAL_CLOSED" {
			t.Fatalf("editing a won deal: %v", err)
		}
		evs, _, _ := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: models.EventDealWon}, models.Page{})
		if len(evs) != 1 || !strings.Contains(evs[0].Payload, `"amountMinor":1250000`) || !strings.Contains(evs[0].Payload, `"currency":"EUR"`) ||
			!strings.Contains(evs[0].Payload, *won.CustomerID) || *evs[0].PartnerID != e.PartnerA {
			t.Fatalf("deal.won = %+v", evs)
		}
		// A won deal whose contact is another partner's customer waits for an operator.
		if err := e.B.CreateCustomer(e.Ctx, &models.Customer{Email: ptr("buyer@piedpiper.com")}); err != nil {
			t.Fatal(err)
		}
		d2 := e.Register(t, e.A, "Pied Piper", "", "buyer@piedpiper.com", 10)
		if _, err := e.Op.ResolveDealConflicts(e.Ctx, d2.ID, "ok"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ApproveDeal(e.Ctx, d2.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := e.A.MoveDeal(e.Ctx, d2.ID, models.DealMove{StageID: e.WonID}); code(err) != "CUSTOMER_ATTRIBUTED_ELSEWHERE" {
			t.Fatalf("winning another partner's customer: %v", err)
		}
		lost, err := e.A.MoveDeal(e.Ctx, d2.ID, models.DealMove{StageID: e.LostID, Reason: "went with a competitor"})
		if err != nil || lost.Status != models.DealLost || lost.Reason != "went with a competitor" {
			t.Fatalf("lost = %+v, %v", lost, err)
		}

		// The timeline interleaves events and notes in order, paged.
		if _, err := e.A.AddDealNote(e.Ctx, d.ID, "signed!"); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		pg := models.Page{Limit: 2}
		for {
			items, next, err := e.A.DealTimeline(e.Ctx, d.ID, pg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if it.Event != nil {
					kinds = append(kinds, it.Event.Type)
				} else {
					kinds = append(kinds, "note")
				}
			}
			if next == "" {
				break
			}
			pg.After = next
		}
		want := []string{models.EventDealRegistered, models.EventDealApproved, models.EventDealStageChanged, models.EventDealWon, "note"}
		if strings.Join(kinds, ",") != strings.Join(want, ",") {
			t.Fatalf("timeline = %v, want %v", kinds, want)
		}
		if _, _, err := e.B.DealTimeline(e.Ctx, d.ID, models.Page{}); code(err) != "DEAL_NOT_FOUND" {
			t.Fatalf("partner B reads A's timeline: %v", err)
		}
	})
}

func TestDealListFiltersForOperatorsAndScopeForPartners(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		for i := range 5 {
			e.Register(t, e.A, "A"+string(rune('a'+i)), "", "", int64(i+1)*1000)
		}
		e.Register(t, e.B, "B", "", "", 9000)
		all, _, err := e.Op.ListDeals(e.Ctx, models.DealFilter{}, models.Page{Limit: 100})
		if err != nil || len(all) != 6 {
			t.Fatalf("operator list = %d, %v", len(all), err)
		}
		mine, _, _ := e.B.ListDeals(e.Ctx, models.DealFilter{}, models.Page{})
		if len(mine) != 1 || mine[0].PartnerID != e.PartnerB {
			t.Fatalf("partner B sees %+v", mine)
		}
		other, _, _ := e.B.ListDeals(e.Ctx, models.DealFilter{PartnerID: e.PartnerA}, models.Page{})
		if len(other) != 0 {
			t.Fatalf("partner B filtering on A sees %d", len(other))
		}
		ranged, _, _ := e.Op.ListDeals(e.Ctx, models.DealFilter{MinAmount: ptr[int64](2000), MaxAmount: ptr[int64](4000)}, models.Page{})
		if len(ranged) != 3 {
			t.Fatalf("amount range = %d", len(ranged))
		}
		for q, want := range map[string]int{"AB": 1, "a": 5, "%": 0, "_": 0, "zz": 0} {
			if found, _, err := e.Op.ListDeals(e.Ctx, models.DealFilter{Q: q}, models.Page{Limit: 100}); err != nil || len(found) != want {
				t.Fatalf("q=%q finds %d, want %d (%v)", q, len(found), want, err)
			}
		}
		if found, _, _ := e.B.ListDeals(e.Ctx, models.DealFilter{Q: "a"}, models.Page{}); len(found) != 0 {
			t.Fatalf("partner B's search finds A's deals: %d", len(found))
		}
		gold, _, _ := e.Op.ListDeals(e.Ctx, models.DealFilter{Level: "gold", Status: models.DealSubmitted, StageID: e.DefaultStageID}, models.Page{Limit: 100})
		if len(gold) != 6 {
			t.Fatalf("level filter = %d", len(gold))
		}
		var seen int
		pg := models.Page{Limit: 4}
		for {
			rows, next, err := e.Op.ListDeals(e.Ctx, models.DealFilter{PartnerID: e.PartnerA}, pg)
			if err != nil {
				t.Fatal(err)
			}
			seen += len(rows)
			if next == "" {
				break
			}
			pg.After = next
		}
		if seen != 5 {
			t.Fatalf("paged %d of partner A's 5 deals", seen)
		}
	})
}

func TestDealProtectionRemindsThenExpiresUnlessExtended(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		d := e.Register(t, e.A, "Umbrella", "umbrella.com", "", 1)
		d, err := e.Op.ApproveDeal(e.Ctx, d.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		end := *d.ProtectedUntil
		if days := time.Until(end).Hours() / 24; days < 89.9 || days > 90.1 {
			t.Fatalf("protected for %.1f days, want the default 90", days)
		}
		step := func(at time.Time) models.DealProtection {
			t.Helper()
			p, err := s.AdvanceDealProtection(e.Ctx, models.System(e.TenantID), d.ID, at)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		if p := step(time.Now()); p.Done || !p.WakeAt.Equal(end.Add(-models.DealProtectionReminder)) {
			t.Fatalf("first step = %+v", p)
		}
		remind := end.Add(-models.DealProtectionReminder + time.Minute)
		for range 2 { // a repeated step sends the reminder once
			if p := step(remind); p.Done || !p.WakeAt.Equal(end) {
				t.Fatalf("reminder step = %+v", p)
			}
		}
		count := func(typ string) int {
			evs, _, _ := e.Op.ListEvents(e.Ctx, models.EventFilter{Type: typ}, models.Page{})
			return len(evs)
		}
		if n := count(models.EventDealExpiring); n != 1 {
			t.Fatalf("%d reminders", n)
		}
		// The partner asks for more time and gets 30 days: a new reminder becomes due.
		if _, err := e.A.RequestDealExtension(e.Ctx, d.ID, "legal review"); err != nil {
			t.Fatal(err)
		}
		ext, err := e.Op.ExtendDeal(e.Ctx, d.ID, 30)
		if err != nil || !ext.ProtectedUntil.Equal(end.Add(30*24*time.Hour)) || ext.ExtensionRequestedAt != nil {
			t.Fatalf("extension = %+v, %v", ext, err)
		}
		if p := step(end); p.Done {
			t.Fatal("the old end expired an extended deal")
		}
		newEnd := *ext.ProtectedUntil
		step(newEnd.Add(-time.Hour))
		if n := count(models.EventDealExpiring); n != 2 {
			t.Fatalf("%d reminders after the extension, want 2", n)
		}
		if p := step(newEnd); !p.Done {
			t.Fatalf("the end did not expire the deal: %+v", p)
		}
		got, _ := e.Op.Deal(e.Ctx, d.ID)
		if got.Status != models.DealExpired || count(models.EventDealExpired) != 1 {
			t.Fatalf("after expiry: %+v", got)
		}
		if p := step(newEnd.Add(time.Hour)); !p.Done || count(models.EventDealExpired) != 1 {
			t.Fatal("expired twice")
		}
		if _, err := e.A.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.OpenIDs[1]}); code(err) != "DEAL_CLOSED" {
			t.Fatalf("moving an expired deal: %v", err)
		}
	})
}

func TestApprovedDealsReachTheDispatcherForTheirTimer(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		rec := &storetest.Recorder{}
		s.SetDispatcher(rec.Dispatch)
		e := storetest.NewPartners(t, s)
		d := e.Register(t, e.A, "Soylent", "", "", 1)
		if _, err := e.Op.ApproveDeal(e.Ctx, d.ID, ""); err != nil {
			t.Fatal(err)
		}
		if got := rec.Types(); len(got) != 1 || got[0] != models.EventDealApproved {
			t.Fatalf("dispatched %v, want only deal.approved", got)
		}
		ev, err := s.EventByID(e.Ctx, models.System(e.TenantID), rec.Refs()[0].EventID)
		if err != nil || ev.SubjectID == nil || *ev.SubjectID != d.ID {
			t.Fatalf("the approval event's subject = %+v, %v", ev, err)
		}
	})
}

func TestTheDemoSeedShowsDealsInEveryState(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		owner := storetest.Tenant(t, s.Core(), "demo")
		logins, err := s.SeedDemo(context.Background(), owner.TenantID, owner.UserID, "x", demoKeys(t))
		if err != nil || len(logins) != 2 {
			t.Fatalf("seed = %v, %v", logins, err)
		}
		op := s.For(owner)
		rows, _, err := op.ListDeals(context.Background(), models.DealFilter{}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		review := 0
		for _, d := range rows {
			seen[d.Status]++
			if d.ConflictStatus == models.ConflictReview {
				review++
			}
		}
		balances, err := op.Balances(context.Background(), "", "EUR")
		if err != nil {
			t.Fatal(err)
		}
		var pending, held int64
		for _, b := range balances {
			pending += b.Pending
			held += b.Held
		}
		// Two won deals of 125 000.00 and 22 000.00 EUR at 10 %, held back for 14 days; one
		// withdrawal of 250.00 EUR waiting for finance.
		if pending != 14_700_00 || held != 250_00 {
			t.Fatalf("demo balances %+v", balances)
		}
		ws, _, err := op.ListWithdrawals(context.Background(), models.WithdrawalFilter{Status: models.WithdrawalRequested}, models.Page{})
		if err != nil || len(ws) != 1 {
			t.Fatalf("demo withdrawals %+v, %v", ws, err)
		}
		pbs, _, err := op.ListPlaybooks(context.Background(), models.PlaybookEnabled, models.Page{})
		if err != nil || len(pbs) != 3 || pbs[0].PublishedVersion != 1 || pbs[1].PublishedVersion != 1 || pbs[2].PublishedVersion != 1 {
			t.Fatalf("demo playbooks %+v, %v", pbs, err)
		}
		if refs, err := s.PlaybooksFor(context.Background(), models.System(owner.TenantID), models.EventPartnerHealthChanged); err != nil || len(refs) != 1 {
			t.Fatalf("playbooks on partner.health_changed %+v, %v", refs, err)
		}
		if m, err := op.HealthModel(context.Background()); err != nil || m.Version != 1 || len(m.Components) != 6 {
			t.Fatalf("demo health model %+v, %v", m, err)
		}
		if refs, err := s.PlaybooksFor(context.Background(), models.System(owner.TenantID), models.EventPartnerApproved); err != nil || len(refs) != 1 {
			t.Fatalf("playbooks on partner.approved %+v, %v", refs, err)
		}
		if seen[models.DealSubmitted] != 2 || seen[models.DealApproved] != 1 || seen[models.DealWon] != 2 || seen[models.DealLost] != 1 || review != 1 {
			t.Fatalf("demo deals by status %v, %d under review", seen, review)
		}
		levels, _, err := op.ListLevels(context.Background(), models.Page{})
		if err != nil || len(levels) != 2 {
			t.Fatalf("demo levels = %d, %v", len(levels), err)
		}
		users, _, err := op.ListUsers(context.Background(), true, "", models.Page{})
		if err != nil || len(users) != 2 {
			t.Fatalf("demo partner users = %d, %v", len(users), err)
		}
	})
}

func TestPartnerLifecycleIsCheckedAndEvented(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "life")
		op := s.For(owner)
		p := &models.Partner{Name: "New", Type: models.PartnerBroker, Status: models.PartnerOnboarding}
		if err := op.CreatePartner(ctx, p); err != nil {
			t.Fatal(err)
		}
		move := func(to string) error {
			_, err := op.UpdatePartner(ctx, p.ID, models.PartnerChanges{Status: &to})
			return err
		}
		if err := move(models.PartnerSuspended); code(err) != "ILLEGAL_PARTNER_TRANSITION" {
			t.Fatalf("onboarding → suspended: %v", err)
		}
		for _, to := range []string{models.PartnerActive, models.PartnerSuspended, models.PartnerActive, models.PartnerOffboarded} {
			if err := move(to); err != nil {
				t.Fatalf("→ %s: %v", to, err)
			}
		}
		if err := move(models.PartnerActive); code(err) != "ILLEGAL_PARTNER_TRANSITION" {
			t.Fatalf("offboarded → active: %v", err)
		}
		level := "platinum"
		if _, err := op.UpdatePartner(ctx, p.ID, models.PartnerChanges{Level: &level}); err != nil {
			t.Fatal(err)
		}
		evs, _, _ := op.ListEvents(ctx, models.EventFilter{Type: "partner.*"}, models.Page{Limit: 100})
		var got []string
		for _, e := range evs {
			got = append(got, e.Type)
		}
		want := "partner.status_changed,partner.status_changed,partner.status_changed,partner.status_changed,partner.level_changed"
		if strings.Join(got, ",") != want || !strings.Contains(evs[4].Payload, `"level":"platinum"`) {
			t.Fatalf("partner events = %v", got)
		}
		if !strings.Contains(evs[3].Payload, `"status":"offboarded"`) || !strings.Contains(evs[3].Payload, `"previousStatus":"active"`) {
			t.Fatalf("offboarding payload = %s", evs[3].Payload)
		}
	})
}

func demoKeys(t *testing.T) *models.Keyring {
	t.Helper()
	k, err := models.NewKeyring(map[int][]byte{1: make([]byte, 32)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
