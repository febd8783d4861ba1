package models

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestRatioBasisPointsIsExactAndRoundsHalfAwayFromZero(t *testing.T) {
	for _, c := range []struct {
		name     string
		num, den int64
		want     int64
		ok       bool
	}{
		{"twelve thousand won on two hundred spent is 60×", 12_000_00, 200_00, 600_000, true},
		{"nothing won is 0", 0, 100, 0, true},
		{"one third rounds down", 1, 3, 3333, true},
		{"two thirds rounds up", 2, 3, 6667, true},
		{"half a basis point rounds up", 1, 20_000, 1, true},
		{"just under half rounds down", 1, 20_001, 0, true},
		{"the largest revenue on one minor unit fits in 128 bits but not int64", math.MaxInt64, 1, 0, false},
		{"the largest amounts on the largest spend", MaxAmountMinor, MaxAmountMinor, 10_000, true},
		{"nothing spent has no ROI", 100, 0, 0, false},
		{"negative revenue has no ROI", -1, 100, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := RatioBasisPoints(c.num, c.den)
			if got != c.want || ok != c.ok {
				t.Fatalf("RatioBasisPoints(%d, %d) = %d, %v; want %d, %v", c.num, c.den, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestMDFStateMachines(t *testing.T) {
	for _, c := range []struct{ from, to string }{
		{MDFRequestSubmitted, MDFRequestApproved}, {MDFRequestSubmitted, MDFRequestChangesRequested},
		{MDFRequestChangesRequested, MDFRequestSubmitted}, {MDFRequestSubmitted, MDFRequestExpired},
	} {
		if err := CheckMDFRequestTransition(c.from, c.to); err != nil {
			t.Errorf("request %s → %s refused: %v", c.from, c.to, err)
		}
	}
	for _, c := range []struct{ from, to string }{
		{MDFRequestApproved, MDFRequestRejected}, {MDFRequestChangesRequested, MDFRequestApproved}, {MDFRequestRejected, MDFRequestSubmitted},
		{MDFRequestExpired, MDFRequestSubmitted},
	} {
		if err := CheckMDFRequestTransition(c.from, c.to); err == nil || err.Code != "ILLEGAL_MDF_REQUEST_TRANSITION" {
			t.Errorf("request %s → %s allowed", c.from, c.to)
		}
	}
	if err := CheckMDFClaimTransition(MDFClaimAwaitingSecond, MDFClaimApproved); err != nil {
		t.Error(err)
	}
	if err := CheckMDFClaimTransition(MDFClaimApproved, MDFClaimRejected); err == nil || err.Code != "ILLEGAL_MDF_CLAIM_TRANSITION" {
		t.Error("an approved claim can be rejected")
	}
	limit := int64(100)
	if s := (MDFSettings{FourEyesAbove: &limit}); s.NeedsSecondApproval(100) || !s.NeedsSecondApproval(101) {
		t.Error("four eyes apply above the amount, not at it")
	}
	if (MDFSettings{}).NeedsSecondApproval(MaxAmountMinor) {
		t.Error("without an amount no claim needs two approvers")
	}
}

func TestMDFInputsListEveryProblem(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	err := NewMDFFund{PartnerID: "p", Level: "gold", Currency: "eur", Amount: 0, PeriodStart: "2026-02-01", PeriodEnd: "2026-01-01", ExpiresAt: now}.Check(now)
	if err == nil || len(err.Fields) != 5 {
		t.Fatalf("fund problems = %+v", err)
	}
	if err := (NewMDFFund{Level: "gold", Currency: "EUR", Amount: 1, PeriodStart: "2026-01-01", PeriodEnd: "2026-01-01", ExpiresAt: now.Add(time.Hour)}).Check(now); err != nil {
		t.Fatalf("a level's fund of one day: %v", err)
	}
	err = NewMDFClaim{Amount: -1, Leads: -1, Links: []string{"javascript:alert(1)", "https://example.com/ok", "ftp://x"}}.Check()
	if err == nil || len(err.Fields) != 4 {
		t.Fatalf("claim problems = %+v", err)
	}
	if err := (NewMDFRequest{Activity: " ", PlannedStart: "x", PlannedEnd: "2026-01-01", Budget: 0}).Check(); err == nil || len(err.Fields) != 3 {
		t.Fatalf("request problems = %+v", err)
	}
}

func TestMDFROIMetricDefinitions(t *testing.T) {
	filter := []MetricFilter{{Path: "amount", Op: FilterEq, Value: []byte("1")}}
	cases := []struct {
		name    string
		m       Metric
		filters []MetricFilter
		want    []string
	}{
		{"an ROI in euros", Metric{Kind: MetricMDFROI, Currency: "eur"}, nil, nil},
		{"an ROI of one fund", Metric{Kind: MetricMDFROI, Currency: "USD", FundID: "f1"}, nil, nil},
		{"an ROI needs a currency", Metric{Kind: MetricMDFROI}, nil, []string{"currency"}},
		{"an ROI takes no payload filters", Metric{Kind: MetricMDFROI, Currency: "EUR"}, filter, []string{"filters"}},
		{"only an ROI names a fund", Metric{Kind: MetricCount, EventType: "deal.won", FundID: "f1"}, nil, []string{"fundId"}},
		{"only an ROI is in basis points", Metric{Kind: MetricSum, EventType: "deal.won", Field: "amountMinor", Unit: UnitBasisPoints, Currency: "EUR"}, nil, []string{"unit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.m.Name = "M"
			NormalizeMetric(&c.m)
			var got []string
			if err := ValidateMetric(&c.m, c.filters, ""); err != nil {
				for _, f := range err.Fields {
					got = append(got, f.Location)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("problems at %v, want %v", got, c.want)
			}
			if c.m.Kind == MetricMDFROI && (c.m.EventType != EventMDFClaimApproved || c.m.Unit != UnitBasisPoints || c.m.Field != "") {
				t.Fatalf("an ROI is normalised to %+v", c.m)
			}
		})
	}
	m := Metric{Name: "M", Kind: MetricMDFROI, Currency: "eur", Unit: UnitMoney, EventType: "deal.won", Field: "amountMinor"}
	NormalizeMetric(&m)
	if m.Currency != "EUR" || m.Unit != UnitBasisPoints || m.EventType != EventMDFClaimApproved || m.Field != "" {
		t.Fatalf("normalised to %+v", m)
	}
}

func TestMDFReturnCountsEachDealOnce(t *testing.T) {
	var r MDFReturn
	if _, ok := r.BasisPoints(); ok {
		t.Fatal("no spend has no ROI")
	}
	won := MDFWonDeal{ID: "d1", Amount: 1_000_00}
	for _, s := range []MDFSpend{
		{ClaimID: "c1", Amount: 300_00, Deals: []MDFWonDeal{won}},
		{ClaimID: "c2", Amount: 125_00, Deals: []MDFWonDeal{won, {ID: "d2", Amount: 62_50}}},
		{ClaimID: "c3", Amount: 0},
	} {
		if !r.Add(s) {
			t.Fatal("overflow")
		}
	}
	// 1 062.50 won on 425.00 spent: 2.5×.
	if bps, ok := r.BasisPoints(); !ok || r.Spend != 425_00 || r.Revenue != 1_062_50 || bps != 25_000 {
		t.Fatalf("return %+v = %d (%v)", r, bps, ok)
	}
	if r.Add(MDFSpend{Amount: math.MaxInt64}) {
		t.Fatal("a spend beyond 64 bits is refused")
	}
}
