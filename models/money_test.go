package models

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestApplyRateRoundsHalfAwayFromZero(t *testing.T) {
	cases := []struct {
		name        string
		amount, bps int64
		want        int64
		ok          bool
	}{
		{"ten percent of 1000.00 is 100.00", 100000, 1000, 10000, true},
		{"ten percent of 0.05 is 0.005, which rounds up to 0.01", 5, 1000, 1, true},
		{"ten percent of 0.04 is 0.004, which rounds down to 0", 4, 1000, 0, true},
		{"a negative half rounds away from zero", -5, 1000, -1, true},
		{"12.5 % of 0.03 is 0.00375, which rounds to 0", 3, 1250, 0, true},
		{"1 basis point of 0.50 is 0.00005, which rounds to 0", 50, 1, 0, true},
		{"1 basis point of 5000.00 is 0.50", 500000, 1, 50, true},
		{"100 % of the largest amount is itself", math.MaxInt64, 10000, math.MaxInt64, true},
		{"100 % of the smallest amount is itself", math.MinInt64 + 1, 10000, math.MinInt64 + 1, true},
		{"a rate above 100 % that overflows is refused", math.MaxInt64, 20000, 0, false},
		{"a negative rate is refused", 100, -1, 0, false},
		{"a huge amount at 33.33 % needs 128-bit intermediates", 9_000_000_000_000_000_000, 3333, 2_999_700_000_000_000_000, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ApplyRate(c.amount, c.bps)
			if got != c.want || ok != c.ok {
				t.Fatalf("ApplyRate(%d, %d) = %d, %v; want %d, %v", c.amount, c.bps, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestValidCurrencyAcceptsOnlyISOCodes(t *testing.T) {
	for _, c := range []string{"EUR", "USD", "JPY", "ZWG", "AED"} {
		if !ValidCurrency(c) {
			t.Errorf("%s refused", c)
		}
	}
	for _, c := range []string{"eur", "EU", "EURO", "", "ABC", "UR ", "D A", "R AE"} {
		if ValidCurrency(c) {
			t.Errorf("%q accepted", c)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestPlanQuote(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	won := func(amount int64) AccrualSubject {
		return AccrualSubject{EventType: EventDealWon, PartnerID: "p1", PartnerType: "reseller", Level: "gold",
			OccurredAt: at, Payload: `{"dealId":"d1","amountMinor":` + json.Number(itoaI64(amount)).String() + `,"currency":"EUR"}`}
	}
	pct := PlanDefinition{Trigger: EventDealWon, HoldingDays: 14, Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 1000}}
	cases := []struct {
		name   string
		def    PlanDefinition
		sub    AccrualSubject
		match  bool
		amount int64
		rate   int64
	}{
		{"ten percent of a won deal", pct, won(1234567), true, 123457, 1000},
		{"another event type does not match", pct, AccrualSubject{EventType: "deal.lost", PartnerID: "p1", Payload: `{}`}, false, 0, 0},
		{"an event without a partner does not match", pct, AccrualSubject{EventType: EventDealWon, Payload: `{"amountMinor":1,"currency":"EUR"}`}, false, 0, 0},
		{"a level condition excludes other levels", withCond(pct, PlanConditions{PartnerLevels: []string{"silver"}}), won(1000), false, 0, 0},
		{"a type condition admits the partner's type", withCond(pct, PlanConditions{PartnerTypes: []string{"reseller"}}), won(1000), true, 100, 1000},
		{"a minimum amount excludes smaller deals", withCond(pct, PlanConditions{MinAmount: ptr[int64](5000)}), won(4999), false, 0, 0},
		{"a maximum amount is inclusive", withCond(pct, PlanConditions{MaxAmount: ptr[int64](5000)}), won(5000), true, 500, 1000},
		{"a payload condition compares numbers by value", withCond(pct, PlanConditions{PayloadEquals: []PayloadEquals{{Path: "currency", Value: json.RawMessage(`"EUR"`)}}}), won(100), true, 10, 1000},
		{"a payload condition that differs excludes", withCond(pct, PlanConditions{PayloadEquals: []PayloadEquals{{Path: "currency", Value: json.RawMessage(`"USD"`)}}}), won(100), false, 0, 0},
		{"a flat plan pays its amount", PlanDefinition{Trigger: EventDealWon, Calculation: PlanCalculation{Kind: CalcFlat, FlatAmount: 2500}}, won(1), true, 2500, 0},
		{"tiers pick the rate of the volume reached including this source",
			PlanDefinition{Trigger: EventDealWon, Calculation: PlanCalculation{Kind: CalcTiered, TierPeriod: PeriodMonth,
				Tiers: []PlanTier{{0, 500}, {100000, 1000}, {500000, 1500}}}},
			withVolume(won(50000), 60000), true, 5000, 1000},
		{"below the second tier the first rate applies",
			PlanDefinition{Trigger: EventDealWon, Calculation: PlanCalculation{Kind: CalcTiered, TierPeriod: PeriodMonth,
				Tiers: []PlanTier{{0, 500}, {100000, 1000}}}},
			won(99999), true, 5000, 500},
		{"the recurrence limit stops accruals after its months",
			PlanDefinition{Trigger: EventDealWon, RecurrenceMonths: 12, Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 1000}},
			withFirst(won(1000), at.AddDate(-1, 0, 0)), false, 0, 0},
		{"within the recurrence limit it accrues",
			PlanDefinition{Trigger: EventDealWon, RecurrenceMonths: 12, Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 1000}},
			withFirst(won(1000), at.AddDate(0, -11, 0)), true, 100, 1000},
		{"an ingested event reads amount and currency from its paths",
			PlanDefinition{Trigger: "invoice.paid", AmountPath: "invoice.total", Currency: "USD", Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 2000}},
			AccrualSubject{EventType: "invoice.paid", PartnerID: "p1", OccurredAt: at, Payload: `{"invoice":{"total":1005}}`}, true, 201, 2000},
		{"a fractional amount is not an amount",
			PlanDefinition{Trigger: "invoice.paid", AmountPath: "total", Currency: "USD", Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 2000}},
			AccrualSubject{EventType: "invoice.paid", PartnerID: "p1", OccurredAt: at, Payload: `{"total":10.5}`}, false, 0, 0},
		{"a rate that rounds to nothing accrues nothing", pct, won(4), false, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := c.def.Quote(c.sub)
			if q.Match != c.match || q.Amount != c.amount || q.RateBps != c.rate {
				t.Fatalf("quote = %+v; want match %v amount %d rate %d", q, c.match, c.amount, c.rate)
			}
			if q.Match && !q.AvailableAt.Equal(c.sub.OccurredAt.AddDate(0, 0, c.def.HoldingDays)) {
				t.Fatalf("available at %v", q.AvailableAt)
			}
			if !q.Match && q.Reason == "" {
				t.Fatal("a non-match carries no reason")
			}
		})
	}
}

func withCond(d PlanDefinition, c PlanConditions) PlanDefinition { d.Conditions = c; return d }
func withVolume(s AccrualSubject, v int64) AccrualSubject        { s.PeriodVolume = v; return s }
func withFirst(s AccrualSubject, t time.Time) AccrualSubject     { s.FirstAccrualAt = &t; return s }
func itoaI64(v int64) string                                     { b, _ := json.Marshal(v); return string(b) }

func TestValidatePlanReportsEveryProblem(t *testing.T) {
	err := ValidatePlan("", PlanDefinition{Trigger: "Bad Type", Currency: "eur", HoldingDays: -1, ClawbackTrigger: "x",
		Calculation: PlanCalculation{Kind: CalcTiered, Tiers: []PlanTier{{5, 0}, {1, 100}}}})
	if err == nil {
		t.Fatal("an invalid plan passed")
	}
	want := []string{"body.name", "body.definition.trigger", "body.definition.clawbackTrigger", "body.definition.referencePath",
		"body.definition.currency", "body.definition.holdingDays", "body.definition.calculation.tiers[0].rateBps",
		"body.definition.calculation.tiers[0].fromVolume", "body.definition.calculation.tiers[1].fromVolume",
		"body.definition.calculation.tierPeriod", "body.definition.amountPath"}
	got := map[string]bool{}
	for _, f := range err.Fields {
		got[f.Location] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no problem reported at %s (got %v)", w, err.Fields)
		}
	}
	for _, trigger := range []string{EventCommissionAccrued, EventLedgerAdjusted, EventWithdrawalRequested, EventPayoutPaid} {
		err := ValidatePlan("Loop", PlanDefinition{Trigger: trigger, Calculation: PlanCalculation{Kind: CalcFlat, FlatAmount: 500}})
		if err == nil || err.Fields[0].Location != "body.definition.trigger" {
			t.Errorf("a plan on the service's own %s was accepted: it could pay on its own accruals", trigger)
		}
	}
	ok := PlanDefinition{Trigger: EventDealWon, HoldingDays: 14, Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 1000}}.WithDefaults()
	if err := ValidatePlan("Resellers 10 %", ok); err != nil {
		t.Fatalf("a valid plan was refused: %v", err.Fields)
	}
}

func TestWithdrawalTransitions(t *testing.T) {
	legal := map[[2]string]bool{
		{WithdrawalRequested, WithdrawalApproved}: true, {WithdrawalRequested, WithdrawalRejected}: true,
		{WithdrawalRequested, WithdrawalCancelled}: true, {WithdrawalApproved, WithdrawalPaid}: true,
		{WithdrawalApproved, WithdrawalFailed}: true,
	}
	for _, from := range WithdrawalStatuses() {
		for _, to := range WithdrawalStatuses() {
			err := CheckWithdrawalTransition(from, to)
			if legal[[2]string{from, to}] != (err == nil) {
				t.Errorf("%s → %s: error %v", from, to, err)
			}
			if err != nil && (err.Kind != KindConflict || err.Code != "ILLEGAL_WITHDRAWAL_TRANSITION") {
				t.Errorf("%s → %s: %v", from, to, err)
			}
		}
	}
}

func TestMovementsMustBalance(t *testing.T) {
	ok := NewMovement{Currency: "EUR", Kind: MoveAccrual, Postings: Transfer(AccountEarned, AccountPending, 100)}
	if err := ok.CheckBalanced(); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]NewMovement{
		"unbalanced":      {Currency: "EUR", Postings: []Posting{{AccountEarned, -100}, {AccountPending, 99}}},
		"one posting":     {Currency: "EUR", Postings: []Posting{{AccountEarned, 0}}},
		"unknown account": {Currency: "EUR", Postings: Transfer(AccountEarned, "cash", 100)},
		"zero amount":     {Currency: "EUR", Postings: Transfer(AccountEarned, AccountPending, 0)},
		"bad currency":    {Currency: "XXX", Postings: Transfer(AccountEarned, AccountPending, 1)},
		"overflow":        {Currency: "EUR", Postings: []Posting{{AccountEarned, math.MaxInt64}, {AccountPending, 1}, {AccountHeld, -1}}},
	} {
		if err := m.CheckBalanced(); err == nil {
			t.Errorf("%s movement accepted", name)
		}
	}
}

func TestAmountsWithinTheBoundNeverOverflowARateOrASum(t *testing.T) {
	for _, a := range []int64{MaxAmountMinor, -MaxAmountMinor} {
		if !ValidAmount(a) {
			t.Fatalf("%d is the bound itself and must be valid", a)
		}
		if _, ok := ApplyRate(a, MaxBasisPoints); !ok {
			t.Fatalf("100 %% of %d overflowed", a)
		}
		if _, ok := AddMinor(a, a); !ok {
			t.Fatalf("%d + %d overflowed", a, a)
		}
	}
	for _, a := range []int64{MaxAmountMinor + 1, -MaxAmountMinor - 1, math.MaxInt64, math.MinInt64} {
		if ValidAmount(a) {
			t.Fatalf("%d is beyond the bound and must be refused", a)
		}
	}
}

func TestPlansRefuseAmountsBeyondTheBoundAndQuotesIgnoreThem(t *testing.T) {
	over := MaxAmountMinor + 1
	flat := PlanDefinition{Trigger: "invoice.paid", AmountPath: "amount", Currency: "EUR",
		Calculation: PlanCalculation{Kind: CalcFlat, FlatAmount: math.MaxInt64}}
	if err := ValidatePlan("flat", flat); err == nil || !hasField(err, "body.definition.calculation.flatAmount") {
		t.Fatalf("a flat amount of 2^63-1 = %v, want a problem at flatAmount", err)
	}
	tiered := PlanDefinition{Trigger: "invoice.paid", AmountPath: "amount", Currency: "EUR",
		Conditions: PlanConditions{MinAmount: &over},
		Calculation: PlanCalculation{Kind: CalcTiered, TierPeriod: PeriodMonth,
			Tiers: []PlanTier{{FromVolume: 0, RateBps: 100}, {FromVolume: math.MaxInt64, RateBps: 200}}}}
	err := ValidatePlan("tiered", tiered)
	if err == nil || !hasField(err, "body.definition.calculation.tiers[1].fromVolume") || !hasField(err, "body.definition.conditions.minAmount") {
		t.Fatalf("a tier volume of 2^63-1 and a minimum beyond the bound = %v, want both refused", err)
	}
	percent := PlanDefinition{Trigger: "invoice.paid", AmountPath: "amount", Currency: "EUR",
		Calculation: PlanCalculation{Kind: CalcPercentage, RateBps: 1000}}
	s := AccrualSubject{EventType: "invoice.paid", PartnerID: "p", Payload: `{"amount": 9223372036854775807}`}
	if q := percent.Quote(s); q.Match {
		t.Fatalf("an event amount of 2^63-1 accrued %d", q.Amount)
	}
	s.Payload = `{"amount": 1000000000000000}`
	if q := percent.Quote(s); !q.Match || q.Amount != 100_000_000_000_000 {
		t.Fatalf("an event amount at the bound = %+v, want 10 %% of it", q)
	}
}

func hasField(e *Error, loc string) bool {
	for _, f := range e.Fields {
		if f.Location == loc {
			return true
		}
	}
	return false
}
