package metrics_test

import (
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// roiEnv is the Partners fixture (A and B at level gold) with MDF funds, deals and claims.
type roiEnv struct {
	*storetest.Partners
	s     *stores.Set
	deals int
}

func (e *roiEnv) fund(t *testing.T, partnerID, level, currency string) *models.MDFFund {
	t.Helper()
	f, err := e.Op.CreateMDFFund(e.Ctx, models.NewMDFFund{Name: "Fund " + currency + " " + level, PartnerID: partnerID, Level: level, Currency: currency,
		Amount: 100_000_00, PeriodStart: "2026-01-01", PeriodEnd: "2026-12-31", ExpiresAt: time.Now().Add(90 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// deal registers a deal of sc's partner and, when won, approves and wins it.
func (e *roiEnv) deal(t *testing.T, sc *stores.Scoped, amount int64, currency string, won bool) string {
	t.Helper()
	e.deals++
	d := &models.Deal{CustomerCompany: fmt.Sprintf("Customer %d", e.deals), CustomerDomain: fmt.Sprintf("customer%d.example", e.deals),
		ContactEmail: fmt.Sprintf("buyer@customer%d.example", e.deals), AmountMinor: amount, Currency: currency}
	if err := sc.RegisterDeal(e.Ctx, d); err != nil {
		t.Fatal(err)
	}
	if won {
		if _, err := e.Op.ApproveDeal(e.Ctx, d.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.MoveDeal(e.Ctx, d.ID, models.DealMove{StageID: e.WonID}); err != nil {
			t.Fatal(err)
		}
	}
	return d.ID
}

// claim has sc's partner request and claim amount from fund with deals, and, unless at is zero,
// approves the claim and moves its approval to at.
func (e *roiEnv) claim(t *testing.T, sc *stores.Scoped, fundID string, amount int64, at time.Time, deals ...string) {
	t.Helper()
	r, err := sc.SubmitMDFRequest(e.Ctx, models.NewMDFRequest{FundID: fundID, Activity: "Roadshow", PlannedStart: "2026-02-01", PlannedEnd: "2026-02-02", Budget: amount})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Op.ApproveMDFRequest(e.Ctx, r.ID, 0); err != nil {
		t.Fatal(err)
	}
	c, err := sc.SubmitMDFClaim(e.Ctx, models.NewMDFClaim{RequestID: r.ID, Amount: amount, DealIDs: deals, Links: []string{"https://example.com/proof"}})
	if err != nil {
		t.Fatal(err)
	}
	if at.IsZero() {
		return
	}
	if _, err := e.Op.ApproveMDFClaim(e.Ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Core().DB(e.Ctx).Model(&models.MDFClaim{}).Where("tenant_id = ? AND id = ?", e.TenantID, c.ID).Update("reviewed_at", at).Error; err != nil {
		t.Fatal(err)
	}
}

func (e *roiEnv) roiMetric(t *testing.T, currency, fundID string) *models.Metric {
	t.Helper()
	m := &models.Metric{Name: "ROI " + currency + " " + fundID, Kind: models.MetricMDFROI, Currency: currency, FundID: fundID}
	if err := e.Op.CreateMetric(e.Ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

func roi(t *testing.T, sc *stores.Scoped, metricID string, q models.MetricQuery) *models.MetricResult {
	t.Helper()
	r, err := sc.ComputeMetric(t.Context(), metricID, q)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMDFROIMetricEqualsTheFundsROIPerPeriodAndScope(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := &roiEnv{Partners: storetest.NewPartners(t, s), s: s}
		fundA := e.fund(t, e.PartnerA, "", "EUR")
		fundGold := e.fund(t, "", "gold", "EUR")
		fundUSD := e.fund(t, e.PartnerA, "", "USD")
		d0 := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -10)
		h := time.Hour
		wonA1 := e.deal(t, e.A, 1_000_00, "EUR", true)
		openA := e.deal(t, e.A, 500_00, "EUR", false)
		wonA3 := e.deal(t, e.A, 250_00, "EUR", true)
		wonB := e.deal(t, e.B, 3_000_00, "EUR", true)
		wonUSD := e.deal(t, e.A, 900_00, "USD", true)
		wonLater := e.deal(t, e.A, 7_000_00, "EUR", true)
		// Day 0: A spends 200.00 of its fund (influencing won 1 000.00 and an open deal), B 400.00
		// of the level's (won 3 000.00), A 100.00 USD (won 900.00 USD). Day 1: A spends 300.00 of
		// its fund, naming the won 1 000.00 deal again and a won 250.00. Day 2: A spends 100.00 of
		// the level's fund with no deal. A claim not yet approved names a won 7 000.00.
		e.claim(t, e.A, fundA.ID, 200_00, d0.Add(1*h), wonA1, openA)
		e.claim(t, e.B, fundGold.ID, 400_00, d0.Add(2*h), wonB)
		e.claim(t, e.A, fundUSD.ID, 100_00, d0.Add(3*h), wonUSD)
		e.claim(t, e.A, fundA.ID, 300_00, d0.Add(26*h), wonA1, wonA3)
		e.claim(t, e.A, fundGold.ID, 100_00, d0.Add(50*h))
		e.claim(t, e.A, fundA.ID, 50_00, time.Time{}, wonLater)

		all := e.roiMetric(t, "EUR", "")
		if all.Unit != models.UnitBasisPoints || all.EventType != models.EventMDFClaimApproved {
			t.Fatalf("an ROI metric = %+v", all)
		}
		byFund := map[string]*models.Metric{fundA.ID: e.roiMetric(t, "EUR", fundA.ID), fundGold.ID: e.roiMetric(t, "", fundGold.ID), fundUSD.ID: e.roiMetric(t, "", fundUSD.ID)}
		if byFund[fundUSD.ID].Currency != "USD" {
			t.Fatalf("a fund's ROI takes its currency: %+v", byFund[fundUSD.ID])
		}
		from, to := d0, d0.Add(72*h)
		span := models.MetricQuery{From: from, To: to}

		// A fund whose spend all falls in the period: the metric is the fund's roiBps.
		for _, f := range []*models.MDFFund{fundA, fundGold, fundUSD} {
			read, err := e.Op.MDFFund(e.Ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := read.ROIBasisPoints()
			r := roi(t, e.Op, byFund[f.ID].ID, span)
			if !ok || !r.HasValue() || r.Value != want || r.Spend != read.Spent || r.Revenue != read.InfluencedRevenue {
				t.Errorf("fund %s: metric %d on %d/%d, fund %d (%v) on %d/%d", f.Name, r.Value, r.Revenue, r.Spend, want, ok, read.InfluencedRevenue, read.Spent)
			}
		}
		if r := roi(t, e.Op, byFund[fundA.ID].ID, span); r.Value != 25_000 {
			t.Fatalf("fund A: 1 250.00 won on 500.00 spent = %d bps", r.Value)
		}

		for _, c := range []struct {
			name           string
			sc             *stores.Scoped
			q              models.MetricQuery
			value          int64
			spend, revenue int64
		}{
			// 4 250.00 won (the 1 000.00 deal once) on 1 000.00: 4.25×.
			{"the tenant", e.Op, span, 42_500, 1_000_00, 4_250_00},
			{"level gold (A and B)", e.Op, models.MetricQuery{From: from, To: to, PartnerLevel: "gold"}, 42_500, 1_000_00, 4_250_00},
			// 1 250.00 on 600.00: 2.08333…×.
			{"A, by an operator", e.Op, models.MetricQuery{From: from, To: to, PartnerID: e.PartnerA}, 20_833, 600_00, 1_250_00},
			{"A itself", e.A, span, 20_833, 600_00, 1_250_00},
			{"B itself", e.B, span, 75_000, 400_00, 3_000_00},
			// Claims approved at [d0+1h, d0+2h): the first only (the period's start is in, its end out).
			{"one hour", e.Op, models.MetricQuery{From: d0.Add(h), To: d0.Add(2 * h)}, 50_000, 200_00, 1_000_00},
		} {
			r := roi(t, c.sc, all.ID, c.q)
			if !r.HasValue() || r.Value != c.value || r.Spend != c.spend || r.Revenue != c.revenue || r.Unit != models.UnitBasisPoints || r.Currency != "EUR" {
				t.Errorf("%s: %d bps on %d/%d, want %d on %d/%d", c.name, r.Value, r.Revenue, r.Spend, c.value, c.revenue, c.spend)
			}
		}

		// Each day over its own claims: the deal named on days 0 and 1 counts on both days.
		r := roi(t, e.Op, all.ID, models.MetricQuery{From: from, To: to, Interval: models.IntervalDay})
		want := []struct{ value, spend, revenue int64 }{{66_667, 600_00, 4_000_00}, {41_667, 300_00, 1_250_00}, {0, 100_00, 0}}
		if len(r.Series) != 3 || r.Value != 42_500 {
			t.Fatalf("series %+v", r)
		}
		for i, w := range want {
			p := r.Series[i]
			if !p.HasValue(r.Kind) || p.Value != w.value || p.Spend != w.spend || p.Revenue != w.revenue {
				t.Errorf("day %d: %+v, want %+v", i, p, w)
			}
		}

		// Without spend there is no ROI, not 0: before the first claim, a level without partners.
		for name, q := range map[string]models.MetricQuery{
			"before":       {From: from.AddDate(0, 0, -3), To: from, Interval: models.IntervalDay},
			"level silver": {From: from, To: to, PartnerLevel: "silver"},
		} {
			r := roi(t, e.Op, all.ID, q)
			if r.HasValue() || r.Spend != 0 {
				t.Errorf("%s: %+v has a value", name, r)
			}
			for _, p := range r.Series {
				if p.HasValue(r.Kind) {
					t.Errorf("%s: point %+v has a value", name, p)
				}
			}
		}
		if _, err := e.A.ComputeMetric(e.Ctx, all.ID, models.MetricQuery{PartnerID: e.PartnerB}); storetest.Code(err) != "OTHER_PARTNER" {
			t.Fatalf("A asking for B's ROI: %v", err)
		}
		// B sees nothing of A's fund.
		if r := roi(t, e.B, byFund[fundA.ID].ID, span); r.HasValue() {
			t.Fatalf("B computes A's fund: %+v", r)
		}

		// Per partner, as the health model's metric source reads it: what each computes itself.
		err := s.Core().DB(e.Ctx).Transaction(func(tx *gorm.DB) error {
			for _, ids := range [][]string{{e.PartnerA, e.PartnerB, models.NewID()}, nil} {
				pr, err := s.ComputeForPartners(tx, models.System(e.TenantID), all.ID, from, to, ids)
				if err != nil {
					return err
				}
				for partner, want := range map[string]int64{e.PartnerA: 20_833, e.PartnerB: 75_000} {
					if v, ok := pr.Value(partner); !ok || v != want {
						t.Errorf("by partner %v: %s = %d %v, want %d", ids, partner, v, ok, want)
					}
				}
				if _, ok := pr.Value(models.NewID()); ok {
					t.Errorf("by partner %v: a partner without spend has a value", ids)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}

		// Nothing is rolled up for an ROI.
		if err := s.RollUpMetric(e.Ctx, models.System(e.TenantID), all.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		var rows int64
		if err := s.Core().DB(e.Ctx).Table("metric_rollups").Where("tenant_id = ? AND metric_id = ?", e.TenantID, all.ID).Count(&rows).Error; err != nil || rows != 0 {
			t.Fatalf("rollup rows %d, %v", rows, err)
		}

		// Definitions: a fund of the tenant in the metric's currency, no filters.
		bad := []struct {
			name string
			m    models.Metric
			f    []models.MetricFilter
			at   string
		}{
			{"a fund in another currency", models.Metric{Kind: models.MetricMDFROI, Currency: "EUR", FundID: fundUSD.ID}, nil, "body.currency"},
			{"no such fund", models.Metric{Kind: models.MetricMDFROI, Currency: "EUR", FundID: models.NewID()}, nil, "body.fundId"},
			{"no currency", models.Metric{Kind: models.MetricMDFROI}, nil, "body.currency"},
			{"payload filters", models.Metric{Kind: models.MetricMDFROI, Currency: "EUR"}, []models.MetricFilter{{Path: "x", Op: "eq", Value: []byte(`1`)}}, "body.filters"},
			{"a count of a fund", models.Metric{Kind: models.MetricCount, EventType: "deal.won", FundID: fundA.ID}, nil, "body.fundId"},
		}
		for _, b := range bad {
			b.m.Name = b.name
			err := e.Op.CreateMetric(e.Ctx, &b.m, b.f)
			de, ok := models.AsError(err)
			if !ok || de.Code != "INVALID_METRIC" || len(de.Fields) == 0 || de.Fields[0].Location != b.at {
				t.Errorf("%s: %+v", b.name, err)
			}
		}
		// A count becomes the ROI of a fund: it reads claims in the fund's currency.
		count := &models.Metric{Name: "Claims", Kind: models.MetricCount, EventType: models.EventMDFClaimApproved}
		if err := e.Op.CreateMetric(e.Ctx, count, nil); err != nil {
			t.Fatal(err)
		}
		kind, fund := models.MetricMDFROI, fundUSD.ID
		changed, err := e.Op.UpdateMetric(e.Ctx, count.ID, models.MetricChanges{Kind: &kind, FundID: &fund})
		if err != nil || changed.Unit != models.UnitBasisPoints || changed.Currency != "USD" || changed.FundID != fundUSD.ID {
			t.Fatalf("count to ROI = %+v, %v", changed, err)
		}
		if r := roi(t, e.Op, count.ID, span); r.Value != 90_000 {
			t.Fatalf("900.00 USD on 100.00 USD = %d", r.Value)
		}

		// Another tenant sees none of it and cannot name this tenant's fund.
		other := s.For(storetest.Tenant(t, s.Core(), "other-roi"))
		if _, err := other.ComputeMetric(e.Ctx, all.ID, span); storetest.Code(err) != "METRIC_NOT_FOUND" {
			t.Fatalf("another tenant's compute: %v", err)
		}
		if err := other.CreateMetric(e.Ctx, &models.Metric{Name: "Theirs", Kind: models.MetricMDFROI, FundID: fundA.ID}, nil); storetest.Code(err) != "INVALID_METRIC" {
			t.Fatalf("naming another tenant's fund: %v", err)
		}
		mine := &models.Metric{Name: "Mine", Kind: models.MetricMDFROI, Currency: "EUR"}
		if err := other.CreateMetric(e.Ctx, mine, nil); err != nil {
			t.Fatal(err)
		}
		if r := roi(t, other, mine.ID, span); r.HasValue() || r.Spend != 0 {
			t.Fatalf("another tenant's ROI counts this tenant's claims: %+v", r)
		}
	})
}
