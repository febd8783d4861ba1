package money

import (
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// MDFSpends reads the approved claims of sc's tenant that f selects, ordered by claim, each with
// the deals it influenced that are won now and in its currency: what the metrics module's
// mdf_roi metric divides. A partner scope reads its own claims only, whatever f names. One
// statement, so the claims and their deals are read at one point in time.
func MDFSpends(tx *gorm.DB, sc store.Scope, f models.MDFSpendFilter) ([]models.MDFSpend, error) {
	if f.PartnerIDs != nil && len(f.PartnerIDs) == 0 {
		return nil, nil
	}
	q := tx.Table("mdf_claims AS c").
		Joins("LEFT JOIN mdf_claim_deals AS cd ON cd.tenant_id = c.tenant_id AND cd.claim_id = c.id").
		Joins("LEFT JOIN deals AS d ON d.tenant_id = cd.tenant_id AND d.id = cd.deal_id AND d.status = ? AND d.currency = c.currency", models.DealWon).
		Where(sc.TenantOf("c")).
		Where("c.status = ? AND c.currency = ? AND c.reviewed_at >= ? AND c.reviewed_at < ?", models.MDFClaimApproved, f.Currency, f.From.UTC(), f.To.UTC())
	if f.FundID != "" {
		q = q.Where("c.fund_id = ?", f.FundID)
	}
	if f.PartnerIDs != nil {
		q = q.Where("c.partner_id IN ?", f.PartnerIDs)
	}
	if pid := sc.PartnerID(); pid != "" {
		q = q.Where("c.partner_id = ?", pid)
	}
	var rows []struct {
		ID         string
		PartnerID  string
		ReviewedAt time.Time
		Amount     int64
		DealID     *string
		DealAmount *int64
	}
	err := q.Select("c.id AS id, c.partner_id AS partner_id, c.reviewed_at AS reviewed_at, c.amount AS amount, d.id AS deal_id, d.amount_minor AS deal_amount").
		Order("c.id").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	var out []models.MDFSpend
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ClaimID != r.ID {
			out = append(out, models.MDFSpend{ClaimID: r.ID, PartnerID: r.PartnerID, ApprovedAt: r.ReviewedAt.UTC(), Amount: r.Amount})
		}
		if r.DealID != nil && r.DealAmount != nil {
			s := &out[len(out)-1]
			s.Deals = append(s.Deals, models.MDFWonDeal{ID: *r.DealID, Amount: *r.DealAmount})
		}
	}
	return out, nil
}

// MDFFundOf finds a fund of sc's tenant (any fund: operators define metrics over them), without
// its influenced revenue; a fund of another tenant is not found.
func MDFFundOf(tx *gorm.DB, sc store.Scope, id string) (*models.MDFFund, error) {
	var f models.MDFFund
	err := tx.Where(sc.Tenant()).Where("id = ?", id).Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("MDF_FUND_NOT_FOUND", "fund")
	}
	return &f, err
}
