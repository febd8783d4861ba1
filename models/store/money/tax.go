package money

import (
	"context"
	"errors"
	"slices"
	"sort"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

func (sc *Scoped) taxRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.TaxRecord{}, "partner_id")
}

// TaxRecord finds the tax record of a partner the principal may see (a partner only its own).
func (sc *Scoped) TaxRecord(ctx context.Context, partnerID string) (*models.TaxRecord, error) {
	var r models.TaxRecord
	err := sc.taxRows(ctx).Where("partner_id = ?", partnerID).Take(&r).Error
	return &r, store.NotFoundAs(err, "TAX_RECORD_NOT_FOUND", "tax record")
}

// ListTaxRecords lists the tax records the principal may see, oldest first.
func (sc *Scoped) ListTaxRecords(ctx context.Context, f models.TaxRecordFilter, pg models.Page) ([]models.TaxRecord, string, error) {
	q := sc.taxRows(ctx)
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	return store.Page(q, pg, func(r models.TaxRecord) string { return r.ID })
}

func taxEvent(typ string, r *models.TaxRecord) models.NewEvent {
	partner, id := r.PartnerID, r.ID
	return models.NewEvent{Type: typ, PartnerID: &partner, SubjectID: &id, Payload: store.MustJSON(models.TaxRecordEventPayload{
		PartnerID: r.PartnerID, FormKind: r.FormKind, Country: r.Country, Status: r.Status, Reason: r.Reason})}
}

// takeTaxRecord reads the partner's record in tx, or nil when it has none.
func takeTaxRecord(tx *gorm.DB, sc store.Scope, partnerID string) (*models.TaxRecord, error) {
	var r models.TaxRecord
	err := tx.Where(sc.Tenant()).Where("partner_id = ?", partnerID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	return &r, err
}

// SubmitTaxDetails records a partner's tax details (checked by models.CheckTaxDetails; the tax
// id arrives sealed with its masked hint), replacing earlier ones: the record is submitted for
// review again and a signed form uploaded before no longer counts, since it names the earlier
// details. Partners submit their own; operators name the partner. Audited; emits
// tax.record_submitted.
func (sc *Scoped) SubmitTaxDetails(ctx context.Context, partnerID string, d models.TaxDetails, taxID models.Sealed, masked string) (*models.TaxRecord, error) {
	var out *models.TaxRecord
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := sc.Scope.CheckPartner(tx, partnerID, "path.partnerId"); err != nil {
			return err
		}
		r, err := takeTaxRecord(tx, sc.Scope, partnerID)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		if r == nil {
			r = &models.TaxRecord{ID: models.NewID(), TenantID: sc.P.TenantID, PartnerID: partnerID, CreatedAt: now}
		}
		r.LegalName, r.Country, r.FormKind, r.TaxID, r.TaxIDMasked = d.LegalName, d.Country, d.FormKind, taxID, masked
		r.Status, r.Reason, r.ReviewedBy, r.ReviewedAt = models.TaxRecordSubmitted, "", "", nil
		r.FormBlobKey, r.FormFileName, r.FormContentType, r.FormSize, r.FormSHA256, r.FormUploadedAt = "", "", "", 0, "", nil
		r.SubmittedBy, r.SubmittedAt, r.UpdatedAt = sc.P.ActorRef(), now, now
		if err := tx.Save(r).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "tax_record.submitted", "tax_record", r.ID, "legalName", "country", "formKind", "taxId"); err != nil {
			return err
		}
		out = r
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, taxEvent(models.EventTaxRecordSubmitted, r))
		return err
	})
	return out, err
}

// AttachTaxForm records the signed form of a partner's tax record (the file already in the blob
// store) and submits the record for review again. It returns the record and the key of the form
// it replaced, if any. Audited; emits tax.record_submitted.
func (sc *Scoped) AttachTaxForm(ctx context.Context, partnerID string, f models.TaxFormFile) (*models.TaxRecord, string, error) {
	var out *models.TaxRecord
	var replaced string
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := sc.Scope.CheckPartner(tx, partnerID, "path.partnerId"); err != nil {
			return err
		}
		r, err := takeTaxRecord(tx, sc.Scope, partnerID)
		if err != nil {
			return err
		}
		if r == nil {
			return models.NotFound("TAX_RECORD_NOT_FOUND", "tax record")
		}
		now := time.Now().UTC()
		replaced = r.FormBlobKey
		r.FormBlobKey, r.FormFileName, r.FormContentType, r.FormSize, r.FormSHA256, r.FormUploadedAt = f.BlobKey, f.FileName, f.ContentType, f.Size, f.SHA256, &now
		r.Status, r.Reason, r.ReviewedBy, r.ReviewedAt = models.TaxRecordSubmitted, "", "", nil
		r.SubmittedBy, r.SubmittedAt, r.UpdatedAt = sc.P.ActorRef(), now, now
		if err := tx.Save(r).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "tax_record.form_uploaded", "tax_record", r.ID, "form"); err != nil {
			return err
		}
		out = r
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, taxEvent(models.EventTaxRecordSubmitted, r))
		return err
	})
	return out, replaced, err
}

// ReviewTaxRecord is finance's decision on a partner's tax record (operators only): approve a
// submitted record (a W-9 or W-8 needs its signed form first, else 409 TAX_FORM_REQUIRED), or
// reject a submitted or approved one with a reason. Whoever submitted a record cannot approve
// it (403 FOUR_EYES). Audited; emits tax.record_approved or tax.record_rejected.
func (sc *Scoped) ReviewTaxRecord(ctx context.Context, partnerID string, approve bool, reason string) (*models.TaxRecord, error) {
	var out *models.TaxRecord
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		r, err := takeTaxRecord(tx, sc.Scope, partnerID)
		if err != nil {
			return err
		}
		if r == nil || sc.P.PartnerID != "" {
			return models.NotFound("TAX_RECORD_NOT_FOUND", "tax record")
		}
		to, from := models.TaxRecordRejected, []string{models.TaxRecordSubmitted, models.TaxRecordApproved}
		if approve {
			to, from = models.TaxRecordApproved, []string{models.TaxRecordSubmitted}
		}
		if !slices.Contains(from, r.Status) {
			return models.Conflict("ILLEGAL_TAX_RECORD_TRANSITION", "a "+r.Status+" tax record cannot become "+to)
		}
		if approve {
			if r.SubmittedBy == sc.P.ActorRef() {
				return models.Errorf(models.KindForbidden, "FOUR_EYES", "a tax record is approved by someone other than who submitted it")
			}
			if r.FormKind != models.TaxFormEUVAT && !r.HasForm() {
				return models.Conflict("TAX_FORM_REQUIRED", "the signed form is uploaded before the record is approved")
			}
			reason = ""
		}
		now := time.Now().UTC()
		r.Status, r.Reason, r.ReviewedBy, r.ReviewedAt, r.UpdatedAt = to, reason, sc.P.ActorRef(), &now, now
		if err := tx.Model(r).Select("status", "reason", "reviewed_by", "reviewed_at", "updated_at").Updates(r).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "tax_record."+to, "tax_record", r.ID, "status", "reason"); err != nil {
			return err
		}
		out = r
		typ := models.EventTaxRecordRejected
		if approve {
			typ = models.EventTaxRecordApproved
		}
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, taxEvent(typ, r))
		return err
	})
	return out, err
}

func taxSettingsIn(tx *gorm.DB, tenantID string) (models.TaxSettings, error) {
	var st models.TaxSettings
	err := tx.Where(store.System(tenantID).Tenant()).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return models.TaxSettings{TenantID: tenantID, Requirement: models.TaxRequirementOff}, nil
	}
	return st, err
}

// TaxSettings reads the tenant's rule on tax records (operators only).
func (sc *Scoped) TaxSettings(ctx context.Context) (models.TaxSettings, error) {
	if sc.P.PartnerID != "" {
		return models.TaxSettings{}, models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "tax settings are for operators")
	}
	return taxSettingsIn(sc.s.core.DB(ctx), sc.P.TenantID)
}

// SaveTaxSettings replaces the tenant's rule on tax records; audited.
func (sc *Scoped) SaveTaxSettings(ctx context.Context, requirement string) (models.TaxSettings, error) {
	if sc.P.PartnerID != "" {
		return models.TaxSettings{}, models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "tax settings are for operators")
	}
	if err := models.CheckTaxRequirement(requirement); err != nil {
		return models.TaxSettings{}, err
	}
	st := models.TaxSettings{TenantID: sc.P.TenantID, Requirement: requirement, UpdatedAt: time.Now().UTC()}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Save(&st).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "tax_settings.updated", "tenant", sc.P.TenantID, "requirement")
	})
	return st, err
}

// checkTaxRecord applies the tenant's rule on tax records to a withdrawal of partnerID in tx:
// with block, a partner without an approved record is refused (403 TAX_RECORD_REQUIRED); with
// warn, the warning is returned.
func checkTaxRecord(tx *gorm.DB, tenantID, partnerID string) (string, error) {
	st, err := taxSettingsIn(tx, tenantID)
	if err != nil || st.Requirement == models.TaxRequirementOff || st.Requirement == "" {
		return "", err
	}
	r, err := takeTaxRecord(tx, store.System(tenantID), partnerID)
	if err != nil || r.Valid() {
		return "", err
	}
	if st.Requirement == models.TaxRequirementBlock {
		return "", models.TaxRecordRequired()
	}
	return models.TaxWarningMissing, nil
}

// PayoutTotals sums, per partner and currency, the payouts paid in the calendar year (UTC):
// the basis of a 1099 (operators only). Currencies are never added together.
func (sc *Scoped) PayoutTotals(ctx context.Context, year int) ([]models.PayoutTotal, error) {
	if sc.P.PartnerID != "" {
		return nil, models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "payout reports are for operators")
	}
	from := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(1, 0, 0)
	var rows []struct {
		PartnerID string
		Currency  string
		Amount    int64
		Payouts   int64
	}
	db := sc.s.core.DB(ctx)
	if err := sc.Scope.Rows(db.Model(&models.Payout{})).
		Select("partner_id, currency, CAST(SUM(amount) AS BIGINT) AS amount, COUNT(*) AS payouts").
		Where("status = ? AND completed_at >= ? AND completed_at < ?", models.PayoutPaid, from, to).
		Group("partner_id, currency").Scan(&rows).Error; err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.PartnerID)
	}
	names := map[string]string{}
	records := map[string]*models.TaxRecord{}
	if len(ids) > 0 {
		var ps []models.Partner
		if err := sc.Scope.Rows(db.Model(&models.Partner{})).Select("id", "name").Where("id IN ?", ids).Find(&ps).Error; err != nil {
			return nil, err
		}
		for _, p := range ps {
			names[p.ID] = p.Name
		}
		var rs []models.TaxRecord
		if err := sc.Scope.Rows(db.Model(&models.TaxRecord{})).Where("partner_id IN ?", ids).Find(&rs).Error; err != nil {
			return nil, err
		}
		for i := range rs {
			records[rs[i].PartnerID] = &rs[i]
		}
	}
	out := make([]models.PayoutTotal, 0, len(rows))
	for _, r := range rows {
		out = append(out, models.PayoutTotal{PartnerID: r.PartnerID, PartnerName: names[r.PartnerID], Currency: r.Currency,
			Amount: r.Amount, Payouts: r.Payouts, Record: records[r.PartnerID]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PartnerName != out[j].PartnerName {
			return out[i].PartnerName < out[j].PartnerName
		}
		if out[i].PartnerID != out[j].PartnerID {
			return out[i].PartnerID < out[j].PartnerID
		}
		return out[i].Currency < out[j].Currency
	})
	return out, nil
}
