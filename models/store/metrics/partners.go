package metrics

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/money"
)

// PartnerResults are one metric computed apart for each partner of a range of partner ids.
type PartnerResults struct {
	// Metric is the metric computed.
	Metric  *models.Metric
	values  map[string]int64
	noValue map[string]bool
}

// Value is the partner's value: what ComputeMetric answers for that partner alone over the
// same period. ok is false without a value: a csat or nps metric without answers, or a sum
// beyond 64 bits.
func (r *PartnerResults) Value(partnerID string) (v int64, ok bool) {
	if r.noValue[partnerID] {
		return 0, false
	}
	if v, ok := r.values[partnerID]; ok {
		return v, true
	}
	// Nothing read for the partner: zero, or no score without answers (no ROI without spend).
	return 0, models.AlwaysValued(r.Metric.Kind)
}

// CatchUpMetric folds a few batches of the metric's settled events into its rollup when it
// lags, as a compute does before reading, so that a computation in a caller's transaction
// reads few raw events. A metric that does not exist is left alone.
func (s *Store) CatchUpMetric(ctx context.Context, sys models.Scope, metricID string) error {
	var m models.Metric
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("id = ?", metricID).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.catchUp(ctx, &m, time.Now().UTC())
}

// ComputeForPartners computes the tenant's metric over [from, to) for each of partnerIDs (at
// most a few thousand), in tx, exactly as ComputeMetric computes it for one partner: the range
// widened to whole hours (days for unique metrics), the rollup plus the events not rolled up
// yet. It reads the rollup in one statement grouped by partner and the events not rolled up
// yet in another, whatever the number of partners. The metric's row is share-locked until tx ends,
// so that no catch-up commits between reading the watermark and the rows (which would count an
// event twice). A metric that does not exist gives nil results and no error.
func (s *Store) ComputeForPartners(tx *gorm.DB, sys models.Scope, metricID string, from, to time.Time, partnerIDs []string) (*PartnerResults, error) {
	var m models.Metric
	err := tx.Clauses(clause.Locking{Strength: "SHARE"}).Where(store.Of(sys).Tenant()).Where("id = ?", metricID).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.core.Dialect() == store.Postgres {
		// The statements below repeat page after page with other partners and ranges: a generic
		// plan (which Postgres adopts after five) does not know that a page names few partners.
		if err := tx.Exec("SET LOCAL plan_cache_mode = force_custom_plan").Error; err != nil {
			return nil, err
		}
	}
	out := &PartnerResults{Metric: &m, values: map[string]int64{}, noValue: map[string]bool{}}
	c := &computation{dialect: s.core.Dialect(), m: &m, res: newResult(&m, from, to), byPartner: true, partners: partnerIDs}
	if m.Kind == models.MetricMDFROI {
		return out, c.roiForPartners(tx, store.Of(sys), out)
	}
	parts, err := c.gather(tx)
	if err != nil {
		return nil, err
	}
	for partner, p := range parts {
		pc := *c
		pc.res = newResult(&m, from, to)
		switch err := pc.fill(p.sums, p.sets); {
		case errors.Is(err, errOverflow):
			// A sum beyond 64 bits, which ComputeMetric answers with a conflict: no value.
			out.noValue[partner] = true
		case err != nil:
			return nil, err
		case pc.res.HasValue():
			out.values[partner] = pc.res.Value
		default:
			out.noValue[partner] = true
		}
	}
	return out, nil
}

// roiForPartners computes an mdf_roi metric for each of the computation's partners from one read
// of their approved claims, as ComputeMetric computes it for one partner.
func (c *computation) roiForPartners(tx *gorm.DB, sc store.Scope, out *PartnerResults) error {
	spends, err := money.MDFSpends(tx, sc, c.spendFilter())
	if err != nil {
		return err
	}
	byPartner := map[string][]models.MDFSpend{}
	for _, sp := range spends {
		byPartner[sp.PartnerID] = append(byPartner[sp.PartnerID], sp)
	}
	for partner, sp := range byPartner {
		pc := *c
		pc.res = newResult(c.m, c.res.From, c.res.To)
		switch err := pc.fillROI(sp); {
		case errors.Is(err, errOverflow):
			out.noValue[partner] = true
		case err != nil:
			return err
		case pc.res.HasValue():
			out.values[partner] = pc.res.Value
		default:
			out.noValue[partner] = true
		}
	}
	return nil
}
