package money

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Market development funds (ADR 33): funds, requests that commit part of a fund, claims that spend
// what a request committed and are reimbursed into the partner's MDF balance in the ledger.
// 0 ≤ spent ≤ committed ≤ allocated holds for every fund and request: it is checked under the
// fund's row lock, written with conditional updates, and guarded by CHECK constraints in the
// database. Lock order: the partner (for ledger movements), then the fund.

func (sc *Scoped) operatorsOnly(what string) error {
	if sc.Scope.PartnerID() != "" {
		return models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "%s are managed by operators", what)
	}
	return nil
}

func mdfNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// partnerLevel is the level of a partner of the tenant.
func partnerLevel(tx *gorm.DB, sc store.Scope, partnerID string) (string, error) {
	var p models.Partner
	err := tx.Where(sc.Tenant()).Where("id = ?", partnerID).Take(&p).Error
	return p.Level, err
}

// mdfFundRows limits q to the funds the caller may see: operators every fund of the tenant, a
// partner its own funds and those of its current level.
func (sc *Scoped) mdfFundRows(tx *gorm.DB) (*gorm.DB, error) {
	q := sc.Scope.Rows(tx.Model(&models.MDFFund{}))
	if pid := sc.Scope.PartnerID(); pid != "" {
		level, err := partnerLevel(tx, sc.Scope, pid)
		if err != nil {
			return nil, store.NotFoundAs(err, "PARTNER_NOT_FOUND", "partner")
		}
		q = q.Where("(partner_id = ? OR (level <> '' AND level = ?))", pid, level)
	}
	return q, nil
}

// fundFor reports whether partner (at level) may draw on fund f.
func fundFor(f *models.MDFFund, partnerID, level string) bool {
	return (f.PartnerID != nil && *f.PartnerID == partnerID) || (f.Level != "" && f.Level == level)
}

func fundEvent(typ string, f *models.MDFFund) models.NewEvent {
	id := f.ID
	return models.NewEvent{Type: typ, PartnerID: f.PartnerID, SubjectID: &id, Payload: store.MustJSON(models.MDFFundEventPayload{
		FundID: f.ID, Name: f.Name, PartnerID: store.Deref(f.PartnerID), Level: f.Level, Currency: f.Currency, Allocated: f.Allocated,
		Committed: f.Committed, Spent: f.Spent, Released: f.Released, ExpiresAt: f.ExpiresAt, Status: f.Status})}
}

func requestEvent(typ string, r *models.MDFRequest) models.NewEvent {
	id, partner := r.ID, r.PartnerID
	return models.NewEvent{Type: typ, PartnerID: &partner, SubjectID: &id, Payload: store.MustJSON(models.MDFRequestEventPayload{
		RequestID: r.ID, FundID: r.FundID, PartnerID: r.PartnerID, Activity: r.Activity, Currency: r.Currency, Budget: r.Budget,
		Approved: r.Approved, ExpectedPipeline: r.ExpectedPipeline, Status: r.Status, Reason: r.Reason})}
}

func claimEvent(typ string, c *models.MDFClaim) models.NewEvent {
	id, partner := c.ID, c.PartnerID
	deals := c.DealIDs
	if deals == nil {
		deals = []string{}
	}
	return models.NewEvent{Type: typ, PartnerID: &partner, SubjectID: &id, Payload: store.MustJSON(models.MDFClaimEventPayload{
		ClaimID: c.ID, RequestID: c.RequestID, FundID: c.FundID, PartnerID: c.PartnerID, Amount: c.Amount, Currency: c.Currency,
		Leads: c.Leads, DealIDs: deals, Status: c.Status, Reason: c.Reason, MovementID: store.Deref(c.MovementID)})}
}

// CreateMDFFund allocates a fund to a partner or a level (operators only). Audited; emits
// mdf.fund_allocated, which starts the fund's expiry timer.
func (sc *Scoped) CreateMDFFund(ctx context.Context, n models.NewMDFFund) (*models.MDFFund, error) {
	if err := sc.operatorsOnly("funds"); err != nil {
		return nil, err
	}
	n.Name, n.Level = strings.TrimSpace(n.Name), strings.TrimSpace(n.Level)
	now := mdfNow()
	if err := n.Check(now); err != nil {
		return nil, err
	}
	if n.Name == "" {
		n.Name = "MDF " + n.PeriodStart + " – " + n.PeriodEnd
	}
	f := &models.MDFFund{ID: models.NewID(), TenantID: sc.P.TenantID, Name: n.Name, Level: n.Level, Currency: n.Currency, Allocated: n.Amount,
		PeriodStart: n.PeriodStart, PeriodEnd: n.PeriodEnd, ExpiresAt: n.ExpiresAt.UTC().Truncate(time.Microsecond), Status: models.MDFFundOpen, CreatedBy: sc.P.ActorRef(),
		CreatedAt: now, UpdatedAt: now}
	if n.PartnerID != "" {
		pid := n.PartnerID
		f.PartnerID = &pid
	}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if f.PartnerID != nil {
			if err := sc.Scope.CheckPartner(tx, *f.PartnerID, "body.partnerId"); err != nil {
				return err
			}
		}
		if err := tx.Create(f).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_fund.allocated", "mdf_fund", f.ID, "name", "partnerId", "level", "currency", "amount", "period", "expiresAt"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, sc.P.TenantID, fundEvent(models.EventMDFFundAllocated, f))
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ListMDFFunds lists the funds the caller may see, oldest first, with their influenced revenue.
func (sc *Scoped) ListMDFFunds(ctx context.Context, f models.MDFFundFilter, pg models.Page) ([]models.MDFFund, string, error) {
	db := sc.s.core.DB(ctx)
	q, err := sc.mdfFundRows(db)
	if err != nil {
		return nil, "", err
	}
	for col, v := range map[string]string{"partner_id": f.PartnerID, "level": f.Level, "status": f.Status, "currency": f.Currency} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	funds, next, err := store.Page(q, pg, func(f models.MDFFund) string { return f.ID })
	if err != nil {
		return nil, "", err
	}
	for i := range funds {
		if funds[i].InfluencedRevenue, err = influencedRevenue(db, &funds[i]); err != nil {
			return nil, "", err
		}
	}
	return funds, next, nil
}

// MDFFund finds one fund the caller may see, with its influenced revenue.
func (sc *Scoped) MDFFund(ctx context.Context, id string) (*models.MDFFund, error) {
	db := sc.s.core.DB(ctx)
	q, err := sc.mdfFundRows(db)
	if err != nil {
		return nil, err
	}
	var f models.MDFFund
	if err := q.Where("id = ?", id).Take(&f).Error; err != nil {
		return nil, store.NotFoundAs(err, "MDF_FUND_NOT_FOUND", "fund")
	}
	f.InfluencedRevenue, err = influencedRevenue(db, &f)
	return &f, err
}

// influencedRevenue sums the amounts of the won deals, in the fund's currency, that approved
// claims of the fund influenced; each deal counts once. Deals in other currencies are left out:
// nothing is converted.
func influencedRevenue(db *gorm.DB, f *models.MDFFund) (int64, error) {
	sys := store.System(f.TenantID)
	deals := db.Table("mdf_claim_deals AS cd").Joins("JOIN mdf_claims c ON c.id = cd.claim_id").
		Where(sys.TenantOf("cd")).Where(sys.TenantOf("c")).Where("cd.fund_id = ? AND c.status = ?", f.ID, models.MDFClaimApproved).
		Select("cd.deal_id")
	var total int64
	err := db.Table("deals AS d").Where(sys.TenantOf("d")).Where("d.status = ? AND d.currency = ? AND d.id IN (?)", models.DealWon, f.Currency, deals).
		Select("COALESCE(SUM(d.amount_minor), 0)").Scan(&total).Error
	return total, err
}

// lockFund locks a fund of the tenant for the rest of tx.
func (s *Store) lockFund(tx *gorm.DB, tenantID, id string) (*models.MDFFund, error) {
	var f models.MDFFund
	if err := store.LockRow(s.core, tx, &f, store.System(tenantID), id); err != nil {
		return nil, store.NotFoundAs(err, "MDF_FUND_NOT_FOUND", "fund")
	}
	return &f, nil
}

// fundOpenAt refuses a fund that no longer takes requests at now.
func fundOpenAt(f *models.MDFFund, now time.Time) error {
	if f.Status != models.MDFFundOpen || !now.Before(f.ExpiresAt) {
		return models.Conflict("MDF_FUND_EXPIRED", "the fund expired on "+f.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

func exhausted(f *models.MDFFund, amount int64) error {
	return models.Conflict("MDF_FUND_EXHAUSTED", "the fund has "+strconv.FormatInt(f.Allocated-f.Committed, 10)+" minor units left to commit, less than "+strconv.FormatInt(amount, 10))
}

// requestPartner is the partner a request or claim is for: a partner caller's own, or the one an
// operator names.
func (sc *Scoped) requestPartner(named, location string) (string, error) {
	if pid := sc.Scope.PartnerID(); pid != "" {
		if named != "" && named != pid {
			return "", models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only act for your own partner organisation")
		}
		return pid, nil
	}
	if named == "" {
		return "", models.Invalid("INVALID_MDF_REQUEST", "the request is not valid", models.FieldError{Location: location, Message: "operators name the partner"})
	}
	return named, nil
}

// SubmitMDFRequest records a partner's request for part of a fund it may draw on. A budget above
// what the fund has left to commit is refused (409 MDF_FUND_EXHAUSTED), as is an expired fund
// (409 MDF_FUND_EXPIRED); approval checks again under the fund's lock. Audited; emits
// mdf.request_submitted.
func (sc *Scoped) SubmitMDFRequest(ctx context.Context, n models.NewMDFRequest) (*models.MDFRequest, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	partnerID, err := sc.requestPartner(n.PartnerID, "body.partnerId")
	if err != nil {
		return nil, err
	}
	var r *models.MDFRequest
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := sc.Scope.CheckPartner(tx, partnerID, "body.partnerId"); err != nil {
			return err
		}
		f, err := sc.drawableFund(tx, n.FundID, partnerID)
		if err != nil {
			return err
		}
		now := mdfNow()
		if err := fundOpenAt(f, now); err != nil {
			return err
		}
		if n.Budget > f.Uncommitted() {
			return exhausted(f, n.Budget)
		}
		r = &models.MDFRequest{ID: models.NewID(), TenantID: sc.P.TenantID, FundID: f.ID, PartnerID: partnerID, Activity: strings.TrimSpace(n.Activity),
			Description: n.Description, PlannedStart: n.PlannedStart, PlannedEnd: n.PlannedEnd, Currency: f.Currency, Budget: n.Budget,
			ExpectedPipeline: n.ExpectedPipeline, Status: models.MDFRequestSubmitted, SubmittedBy: sc.P.ActorRef(), SubmittedAt: now,
			CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(r).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_request.submitted", "mdf_request", r.ID, "fundId", "activity", "plannedDates", "budget", "expectedPipeline"); err != nil {
			return err
		}
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, requestEvent(models.EventMDFRequestSubmitted, r))
		return err
	})
	return r, err
}

// drawableFund reads a fund partnerID may draw on; another partner's or level's fund is not
// found (422 for the field that named it).
func (sc *Scoped) drawableFund(tx *gorm.DB, fundID, partnerID string) (*models.MDFFund, error) {
	var f models.MDFFund
	err := tx.Where(sc.Scope.Tenant()).Where("id = ?", fundID).Take(&f).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	level, lerr := partnerLevel(tx, sc.Scope, partnerID)
	if lerr != nil {
		return nil, lerr
	}
	if err != nil || !fundFor(&f, partnerID, level) {
		return nil, models.Invalid("MDF_FUND_NOT_FOUND", "no such fund for the partner", models.FieldError{Location: "body.fundId", Message: "no fund the partner may draw on", Value: fundID})
	}
	return &f, nil
}

func (sc *Scoped) requestRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.MDFRequest{}, "partner_id")
}

// ListMDFRequests lists the requests the caller may see (a partner its own), oldest first.
func (sc *Scoped) ListMDFRequests(ctx context.Context, f models.MDFRequestFilter, pg models.Page) ([]models.MDFRequest, string, error) {
	q := sc.requestRows(ctx)
	for col, v := range map[string]string{"fund_id": f.FundID, "partner_id": f.PartnerID, "status": f.Status} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	return store.Page(q, pg, func(r models.MDFRequest) string { return r.ID })
}

// MDFRequest finds one request the caller may see.
func (sc *Scoped) MDFRequest(ctx context.Context, id string) (*models.MDFRequest, error) {
	var r models.MDFRequest
	err := sc.requestRows(ctx).Where("id = ?", id).Take(&r).Error
	return &r, store.NotFoundAs(err, "MDF_REQUEST_NOT_FOUND", "fund request")
}

// ResubmitMDFRequest changes a request an operator asked changes of and submits it again (its
// partner, or an operator). Audited; emits mdf.request_submitted.
func (sc *Scoped) ResubmitMDFRequest(ctx context.Context, id string, n models.NewMDFRequest) (*models.MDFRequest, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	var r models.MDFRequest
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := sc.Scope.PartnerRows(tx.Model(&models.MDFRequest{}), "partner_id").Where("id = ?", id).Take(&r).Error; err != nil {
			return store.NotFoundAs(err, "MDF_REQUEST_NOT_FOUND", "fund request")
		}
		if err := models.CheckMDFRequestTransition(r.Status, models.MDFRequestSubmitted); err != nil {
			return err
		}
		f, err := sc.s.lockFund(tx, sc.P.TenantID, r.FundID)
		if err != nil {
			return err
		}
		now := mdfNow()
		if err := fundOpenAt(f, now); err != nil {
			return err
		}
		if n.Budget > f.Uncommitted() {
			return exhausted(f, n.Budget)
		}
		prior := r.Status
		r.Activity, r.Description, r.PlannedStart, r.PlannedEnd = strings.TrimSpace(n.Activity), n.Description, n.PlannedStart, n.PlannedEnd
		r.Budget, r.ExpectedPipeline, r.Status, r.Reason = n.Budget, n.ExpectedPipeline, models.MDFRequestSubmitted, ""
		r.SubmittedBy, r.SubmittedAt, r.UpdatedAt = sc.P.ActorRef(), now, now
		res := tx.Model(&r).Where("status = ?", prior).Select("activity", "description", "planned_start", "planned_end", "budget", "expected_pipeline",
			"status", "reason", "submitted_by", "submitted_at", "updated_at").Updates(&r)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return models.CheckMDFRequestTransition(models.MDFRequestSubmitted, models.MDFRequestSubmitted)
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_request.resubmitted", "mdf_request", r.ID, "activity", "plannedDates", "budget", "expectedPipeline"); err != nil {
			return err
		}
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, requestEvent(models.EventMDFRequestSubmitted, &r))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// ApproveMDFRequest commits amount of the request's fund to it (operators only): the whole budget
// when amount is 0, or a lesser amount. Under the fund's lock the fund must be open and have the
// amount left to commit (409 MDF_FUND_EXHAUSTED, MDF_FUND_EXPIRED). Audited; emits
// mdf.request_approved.
func (sc *Scoped) ApproveMDFRequest(ctx context.Context, id string, amount int64) (*models.MDFRequest, error) {
	return sc.decideRequest(ctx, id, models.MDFRequestApproved, amount, "")
}

// RejectMDFRequest refuses a request with a reason (operators only). Audited; emits
// mdf.request_rejected.
func (sc *Scoped) RejectMDFRequest(ctx context.Context, id, reason string) (*models.MDFRequest, error) {
	return sc.decideRequest(ctx, id, models.MDFRequestRejected, 0, reason)
}

// RequestMDFChanges sends a request back to its partner with what to change (operators only).
// Audited; emits mdf.request_changes_requested.
func (sc *Scoped) RequestMDFChanges(ctx context.Context, id, reason string) (*models.MDFRequest, error) {
	return sc.decideRequest(ctx, id, models.MDFRequestChangesRequested, 0, reason)
}

var requestEventType = map[string]string{
	models.MDFRequestApproved:         models.EventMDFRequestApproved,
	models.MDFRequestRejected:         models.EventMDFRequestRejected,
	models.MDFRequestChangesRequested: models.EventMDFRequestChangesRequested,
}

func (sc *Scoped) decideRequest(ctx context.Context, id, status string, amount int64, reason string) (*models.MDFRequest, error) {
	if err := sc.operatorsOnly("fund requests"); err != nil {
		return nil, err
	}
	var r models.MDFRequest
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := tx.Where(sc.Scope.Tenant()).Where("id = ?", id).Take(&r).Error; err != nil {
			return store.NotFoundAs(err, "MDF_REQUEST_NOT_FOUND", "fund request")
		}
		f, err := sc.s.lockFund(tx, sc.P.TenantID, r.FundID)
		if err != nil {
			return err
		}
		// Read again under the fund's lock: every decision on the fund's requests takes it.
		if err := tx.Where(sc.Scope.Tenant()).Where("id = ?", id).Take(&r).Error; err != nil {
			return err
		}
		if err := models.CheckMDFRequestTransition(r.Status, status); err != nil {
			return err
		}
		now := mdfNow()
		prior := r.Status
		if status == models.MDFRequestApproved {
			if amount == 0 {
				amount = r.Budget
			}
			if amount < 0 || amount > r.Budget {
				return models.Invalid("INVALID_MDF_APPROVAL", "the approved amount is not valid",
					models.FieldError{Location: "body.amount", Message: "1 to the request's budget of " + strconv.FormatInt(r.Budget, 10), Value: amount})
			}
			if err := fundOpenAt(f, now); err != nil {
				return err
			}
			if f.Committed+amount > f.Allocated {
				return exhausted(f, amount)
			}
			res := tx.Model(&models.MDFFund{}).Where(sc.Scope.Tenant()).Where("id = ? AND status = ? AND committed + ? <= allocated", f.ID, models.MDFFundOpen, amount).
				Updates(map[string]any{"committed": gorm.Expr("committed + ?", amount), "updated_at": now})
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected != 1 {
				return exhausted(f, amount)
			}
			r.Approved = amount
		}
		reviewer := sc.P.ActorRef()
		r.Status, r.Reason, r.ReviewedBy, r.ReviewedAt, r.UpdatedAt = status, reason, reviewer, &now, now
		res := tx.Model(&r).Where("status = ?", prior).Select("status", "reason", "approved", "reviewed_by", "reviewed_at", "updated_at").Updates(&r)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return models.CheckMDFRequestTransition(status, status)
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_request."+status, "mdf_request", r.ID, "status", "approved", "reason"); err != nil {
			return err
		}
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, requestEvent(requestEventType[status], &r))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (sc *Scoped) claimRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.MDFClaim{}, "partner_id")
}

// loadClaimParts loads the deals and proofs of claims.
func (s *Store) loadClaimParts(db *gorm.DB, claims []models.MDFClaim) error {
	if len(claims) == 0 {
		return nil
	}
	ids := make([]string, len(claims))
	at := map[string]int{}
	for i := range claims {
		ids[i], at[claims[i].ID] = claims[i].ID, i
		claims[i].DealIDs, claims[i].Proofs = []string{}, []models.MDFProof{}
	}
	sys := store.System(claims[0].TenantID)
	var links []models.MDFClaimDeal
	if err := db.Where(sys.Tenant()).Where("claim_id IN ?", ids).Order("deal_id").Find(&links).Error; err != nil {
		return err
	}
	for _, l := range links {
		c := &claims[at[l.ClaimID]]
		c.DealIDs = append(c.DealIDs, l.DealID)
	}
	var proofs []models.MDFProof
	if err := db.Where(sys.Tenant()).Where("claim_id IN ?", ids).Order("id").Find(&proofs).Error; err != nil {
		return err
	}
	for _, p := range proofs {
		c := &claims[at[p.ClaimID]]
		c.Proofs = append(c.Proofs, p)
	}
	return nil
}

// ListMDFClaims lists the claims the caller may see (a partner its own), oldest first.
func (sc *Scoped) ListMDFClaims(ctx context.Context, f models.MDFClaimFilter, pg models.Page) ([]models.MDFClaim, string, error) {
	q := sc.claimRows(ctx)
	for col, v := range map[string]string{"fund_id": f.FundID, "request_id": f.RequestID, "partner_id": f.PartnerID, "status": f.Status} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	claims, next, err := store.Page(q, pg, func(c models.MDFClaim) string { return c.ID })
	if err != nil {
		return nil, "", err
	}
	return claims, next, sc.s.loadClaimParts(sc.s.core.DB(ctx), claims)
}

// MDFClaim finds one claim the caller may see, with its deals and proofs.
func (sc *Scoped) MDFClaim(ctx context.Context, id string) (*models.MDFClaim, error) {
	var c models.MDFClaim
	if err := sc.claimRows(ctx).Where("id = ?", id).Take(&c).Error; err != nil {
		return nil, store.NotFoundAs(err, "MDF_CLAIM_NOT_FOUND", "claim")
	}
	claims := []models.MDFClaim{c}
	if err := sc.s.loadClaimParts(sc.s.core.DB(ctx), claims); err != nil {
		return nil, err
	}
	return &claims[0], nil
}

// SubmitMDFClaim files a claim against an approved request of the caller's (a partner its own):
// its amount fits what the request has left after its approved and waiting claims (409
// MDF_CLAIM_EXCEEDS_REQUEST), and the deals it influenced are the partner's own registrations
// (422 DEAL_NOT_FOUND otherwise). Audited; emits mdf.claim_submitted.
func (sc *Scoped) SubmitMDFClaim(ctx context.Context, n models.NewMDFClaim) (*models.MDFClaim, error) {
	if err := n.Check(); err != nil {
		return nil, err
	}
	deals := cleanIDs(n.DealIDs)
	links := cleanIDs(n.Links)
	var c *models.MDFClaim
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var r models.MDFRequest
		if err := sc.Scope.PartnerRows(tx.Model(&models.MDFRequest{}), "partner_id").Where("id = ?", n.RequestID).Take(&r).Error; err != nil {
			return store.NotFoundAs(err, "MDF_REQUEST_NOT_FOUND", "fund request")
		}
		// The partner's lock orders this claim among its others and their approvals.
		if _, err := sc.s.LockPartner(tx, sc.Scope, r.PartnerID); err != nil {
			return err
		}
		if r.Status != models.MDFRequestApproved {
			return models.Conflict("MDF_REQUEST_NOT_APPROVED", "claims are filed against approved requests; this one is "+r.Status)
		}
		var waiting int64
		if err := tx.Model(&models.MDFClaim{}).Where(sc.Scope.Tenant()).Where("request_id = ? AND status IN ?", r.ID, []string{models.MDFClaimSubmitted, models.MDFClaimAwaitingSecond}).
			Select("COALESCE(SUM(amount), 0)").Scan(&waiting).Error; err != nil {
			return err
		}
		if left := r.Approved - r.Spent - waiting; n.Amount > left {
			return models.Conflict("MDF_CLAIM_EXCEEDS_REQUEST", "the request has "+strconv.FormatInt(left, 10)+" minor units left to claim")
		}
		if len(deals) > 0 {
			var found int64
			if err := tx.Model(&models.Deal{}).Where(sc.Scope.Tenant()).Where("partner_id = ? AND id IN ?", r.PartnerID, deals).Count(&found).Error; err != nil {
				return err
			}
			if int(found) != len(deals) {
				return models.Invalid("DEAL_NOT_FOUND", "a deal is not a registration of the partner", models.FieldError{Location: "body.dealIds", Message: "the partner's own deal registrations only"})
			}
		}
		now := mdfNow()
		c = &models.MDFClaim{ID: models.NewID(), TenantID: sc.P.TenantID, RequestID: r.ID, FundID: r.FundID, PartnerID: r.PartnerID, Amount: n.Amount,
			Currency: r.Currency, Description: n.Description, Leads: n.Leads, Links: store.MustJSON(links), Status: models.MDFClaimSubmitted,
			SubmittedBy: sc.P.ActorRef(), CreatedAt: now, UpdatedAt: now, DealIDs: deals, Proofs: []models.MDFProof{}}
		if err := tx.Create(c).Error; err != nil {
			return err
		}
		for _, d := range deals {
			if err := tx.Create(&models.MDFClaimDeal{TenantID: sc.P.TenantID, ClaimID: c.ID, DealID: d, FundID: r.FundID}).Error; err != nil {
				return err
			}
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_claim.submitted", "mdf_claim", c.ID, "requestId", "amount", "leads", "dealIds", "links"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, sc.P.TenantID, claimEvent(models.EventMDFClaimSubmitted, c))
		return err
	})
	return c, err
}

// cleanIDs trims and de-duplicates values, keeping their order.
func cleanIDs(in []string) []string {
	out := []string{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// AttachMDFProof records a proof file (already in the blob store) on a claim waiting for review
// (a partner its own). Audited; emits mdf.claim_proof_added.
func (sc *Scoped) AttachMDFProof(ctx context.Context, claimID string, p models.MDFProof) (*models.MDFClaim, error) {
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var c models.MDFClaim
		if err := sc.Scope.PartnerRows(tx.Model(&models.MDFClaim{}), "partner_id").Where("id = ?", claimID).Take(&c).Error; err != nil {
			return store.NotFoundAs(err, "MDF_CLAIM_NOT_FOUND", "claim")
		}
		if _, err := sc.s.LockPartner(tx, sc.Scope, c.PartnerID); err != nil {
			return err
		}
		if err := tx.Where(sc.Scope.Tenant()).Where("id = ?", claimID).Take(&c).Error; err != nil {
			return err
		}
		if c.Status != models.MDFClaimSubmitted && c.Status != models.MDFClaimAwaitingSecond {
			return models.Conflict("MDF_CLAIM_DECIDED", "the claim was "+c.Status+"; proof is added before the decision")
		}
		var n int64
		if err := tx.Model(&models.MDFProof{}).Where(sc.Scope.Tenant()).Where("claim_id = ?", c.ID).Count(&n).Error; err != nil {
			return err
		}
		if n >= models.MaxMDFProofs {
			return models.Conflict("TOO_MANY_PROOFS", "a claim holds at most 20 proof files")
		}
		p.ID, p.TenantID, p.ClaimID, p.PartnerID, p.UploadedBy, p.CreatedAt = models.NewID(), sc.P.TenantID, c.ID, c.PartnerID, sc.P.ActorRef(), mdfNow()
		if err := tx.Create(&p).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_claim.proof_added", "mdf_claim", c.ID, "proof"); err != nil {
			return err
		}
		c.DealIDs = nil
		_, err := ev.Emit(ctx, tx, sc.P.TenantID, claimEvent(models.EventMDFClaimProofAdded, &c))
		return err
	})
	if err != nil {
		return nil, err
	}
	return sc.MDFClaim(ctx, claimID)
}

// MDFProof finds one proof of a claim the caller may see.
func (sc *Scoped) MDFProof(ctx context.Context, claimID, proofID string) (*models.MDFProof, error) {
	if _, err := sc.MDFClaim(ctx, claimID); err != nil {
		return nil, err
	}
	var p models.MDFProof
	err := sc.Rows(ctx, &models.MDFProof{}).Where("claim_id = ? AND id = ?", claimID, proofID).Take(&p).Error
	return &p, store.NotFoundAs(err, "MDF_PROOF_NOT_FOUND", "proof")
}

// ApproveMDFClaim is finance's approval of a claim (operators only; never by whoever filed it,
// 403 FOUR_EYES). A claim above the tenant's four-eyes amount needs two approvers: the first
// leaves it awaiting the second, who must be someone else. The final approval needs proof (a
// file or a link, else 409 MDF_PROOF_REQUIRED), spends the amount of the request and the fund
// (never beyond what the request committed: 409 MDF_CLAIM_EXCEEDS_REQUEST) and reimburses it into
// the partner's MDF balance (mdf_reimbursed → mdf_available, once per claim). Audited; emits
// mdf.claim_first_approved or mdf.claim_approved.
func (sc *Scoped) ApproveMDFClaim(ctx context.Context, id string) (*models.MDFClaim, error) {
	return sc.decideClaim(ctx, id, true, "")
}

// RejectMDFClaim is finance's rejection of a claim with a reason (operators only). Audited; emits
// mdf.claim_rejected.
func (sc *Scoped) RejectMDFClaim(ctx context.Context, id, reason string) (*models.MDFClaim, error) {
	return sc.decideClaim(ctx, id, false, reason)
}

func (sc *Scoped) decideClaim(ctx context.Context, id string, approve bool, reason string) (*models.MDFClaim, error) {
	if err := sc.operatorsOnly("claims"); err != nil {
		return nil, err
	}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var c models.MDFClaim
		read := func() *gorm.DB { return tx.Where(sc.Scope.Tenant()).Where("id = ?", id) }
		if err := lockedRead(sc.s, tx, sc.P.TenantID, read, &c, func(c *models.MDFClaim) string { return c.PartnerID }); err != nil {
			return store.NotFoundAs(err, "MDF_CLAIM_NOT_FOUND", "claim")
		}
		actor := sc.P.ActorRef()
		now := mdfNow()
		prior := c.Status
		status := models.MDFClaimRejected
		if approve {
			if c.SubmittedBy == actor {
				return models.Errorf(models.KindForbidden, "FOUR_EYES", "a claim is approved by someone other than who filed it")
			}
			st, err := mdfSettingsIn(tx, sc.P.TenantID)
			if err != nil {
				return err
			}
			status = models.MDFClaimApproved
			switch {
			case c.Status == models.MDFClaimAwaitingSecond && c.FirstApprovedBy == actor:
				return models.Errorf(models.KindForbidden, "FOUR_EYES", "the second approval of a claim is given by someone other than the first approver")
			case c.Status == models.MDFClaimSubmitted && st.NeedsSecondApproval(c.Amount):
				status = models.MDFClaimAwaitingSecond
			}
		}
		if err := models.CheckMDFClaimTransition(c.Status, status); err != nil {
			return err
		}
		switch status {
		case models.MDFClaimAwaitingSecond:
			c.FirstApprovedBy = actor
		case models.MDFClaimApproved:
			if err := sc.s.spendClaim(ctx, tx, &c, now); err != nil {
				return err
			}
		}
		if status != models.MDFClaimAwaitingSecond {
			c.ReviewedBy, c.ReviewedAt = actor, &now
		}
		c.Status, c.Reason, c.UpdatedAt = status, reason, now
		res := tx.Model(&c).Where("status = ?", prior).Select("status", "reason", "first_approved_by", "reviewed_by", "reviewed_at", "movement_id", "updated_at").Updates(&c)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return models.CheckMDFClaimTransition(status, status)
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_claim."+status, "mdf_claim", c.ID, "status", "reason"); err != nil {
			return err
		}
		claims := []models.MDFClaim{c}
		if err := sc.s.loadClaimParts(tx, claims); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, sc.P.TenantID, claimEvent(claimEventType[status], &claims[0]))
		return err
	})
	if err != nil {
		return nil, err
	}
	return sc.MDFClaim(ctx, id)
}

var claimEventType = map[string]string{
	models.MDFClaimAwaitingSecond: models.EventMDFClaimFirstApproved,
	models.MDFClaimApproved:       models.EventMDFClaimApproved,
	models.MDFClaimRejected:       models.EventMDFClaimRejected,
}

// spendClaim spends an approved claim's amount from its request and fund and books its
// reimbursement; tx holds the partner's lock.
func (s *Store) spendClaim(ctx context.Context, tx *gorm.DB, c *models.MDFClaim, now time.Time) error {
	sys := store.System(c.TenantID)
	var files int64
	if err := tx.Model(&models.MDFProof{}).Where(sys.Tenant()).Where("claim_id = ?", c.ID).Count(&files).Error; err != nil {
		return err
	}
	if files == 0 && len(c.LinkList()) == 0 {
		return models.Conflict("MDF_PROOF_REQUIRED", "a claim is approved with proof: upload a file or give a link")
	}
	if _, err := s.lockFund(tx, c.TenantID, c.FundID); err != nil {
		return err
	}
	res := tx.Model(&models.MDFRequest{}).Where(sys.Tenant()).Where("id = ? AND status = ? AND spent + ? <= approved", c.RequestID, models.MDFRequestApproved, c.Amount).
		Updates(map[string]any{"spent": gorm.Expr("spent + ?", c.Amount), "updated_at": now})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != 1 {
		return models.Conflict("MDF_CLAIM_EXCEEDS_REQUEST", "the claim exceeds what its request has left to spend")
	}
	res = tx.Model(&models.MDFFund{}).Where(sys.Tenant()).Where("id = ? AND spent + ? <= committed", c.FundID, c.Amount).
		Updates(map[string]any{"spent": gorm.Expr("spent + ?", c.Amount), "updated_at": now})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != 1 {
		return models.Conflict("MDF_FUND_OVERSPENT", "the claim exceeds what the fund committed")
	}
	mv, _, err := s.post(ctx, tx, c.TenantID, models.NewMovement{
		PartnerID: c.PartnerID, Currency: c.Currency, Kind: models.MoveMDFReimbursement, Key: "mdf_reimbursement:" + c.ID,
		SourceType: models.SourceMDFClaim, SourceID: c.ID, Reason: "MDF claim",
		Postings: models.Transfer(models.AccountMDFReimbursed, models.AccountMDFAvailable, c.Amount),
	})
	if err != nil {
		return err
	}
	c.MovementID = &mv.ID
	return nil
}

// AdvanceMDFFundExpiry expires a fund whose expiry is at or before at: what no approved request
// committed is released, requests still waiting for a decision expire, and mdf.fund_expired is
// emitted (audited). Otherwise it says when to look again; an expired or missing fund needs no
// timer.
func (s *Store) AdvanceMDFFundExpiry(ctx context.Context, sys models.Scope, fundID string, at time.Time) (models.MDFFundExpiry, error) {
	next, err := store.AdvanceExpiry(ctx, s.core, store.System(sys.TenantID()), fundID, at,
		func(f *models.MDFFund) (bool, time.Time) { return f.Status == models.MDFFundOpen, f.ExpiresAt },
		func(tx *gorm.DB, ev *store.Outbox, f *models.MDFFund) error {
			t := at.UTC()
			f.Released, f.Status, f.ExpiredAt, f.UpdatedAt = f.Allocated-f.Committed, models.MDFFundExpired, &t, t
			if err := tx.Model(f).Select("released", "status", "expired_at", "updated_at").Updates(f).Error; err != nil {
				return err
			}
			var waiting []models.MDFRequest
			if err := tx.Where(store.Of(sys).Tenant()).Where("fund_id = ? AND status IN ?", f.ID, []string{models.MDFRequestSubmitted, models.MDFRequestChangesRequested}).
				Find(&waiting).Error; err != nil {
				return err
			}
			for i := range waiting {
				r := &waiting[i]
				r.Status, r.Reason, r.UpdatedAt = models.MDFRequestExpired, "the fund expired", t
				if err := tx.Model(r).Select("status", "reason", "updated_at").Updates(r).Error; err != nil {
					return err
				}
				if err := store.WriteAudit(ctx, tx, sys.TenantID(), "mdf_request.expired", "mdf_request", r.ID, "status"); err != nil {
					return err
				}
			}
			if err := store.WriteAudit(ctx, tx, sys.TenantID(), "mdf_fund.expired", "mdf_fund", f.ID, "status", "released"); err != nil {
				return err
			}
			_, err := ev.Emit(ctx, tx, sys.TenantID(), fundEvent(models.EventMDFFundExpired, f))
			return err
		})
	return models.MDFFundExpiry(next), err
}

func mdfSettingsIn(tx *gorm.DB, tenantID string) (models.MDFSettings, error) {
	var st models.MDFSettings
	err := tx.Where(store.System(tenantID).Tenant()).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return models.MDFSettings{TenantID: tenantID}, nil
	}
	return st, err
}

// MDFSettings reads the tenant's MDF rules (operators only).
func (sc *Scoped) MDFSettings(ctx context.Context) (models.MDFSettings, error) {
	if err := sc.operatorsOnly("MDF settings"); err != nil {
		return models.MDFSettings{}, err
	}
	return mdfSettingsIn(sc.s.core.DB(ctx), sc.P.TenantID)
}

// SaveMDFSettings replaces the tenant's MDF rules (operators only): the claim amount above which
// two approvers are needed, or nil for never. Audited.
func (sc *Scoped) SaveMDFSettings(ctx context.Context, fourEyesAbove *int64) (models.MDFSettings, error) {
	if err := sc.operatorsOnly("MDF settings"); err != nil {
		return models.MDFSettings{}, err
	}
	if fourEyesAbove != nil && (*fourEyesAbove < 0 || *fourEyesAbove > models.MaxAmountMinor) {
		return models.MDFSettings{}, models.Invalid("INVALID_MDF_SETTINGS", "the settings are not valid",
			models.FieldError{Location: "body.fourEyesAbove", Message: "zero or more minor units", Value: *fourEyesAbove})
	}
	st := models.MDFSettings{TenantID: sc.P.TenantID, FourEyesAbove: fourEyesAbove, UpdatedAt: mdfNow()}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Save(&st).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "mdf_settings.updated", "tenant", sc.P.TenantID, "fourEyesAbove")
	})
	return st, err
}
