package money

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// AddPayoutMethod stores where a partner wants to be paid; the details arrive sealed.
// Partners add their own; operators name the partner.
func (sc *Scoped) AddPayoutMethod(ctx context.Context, m *models.PayoutMethod) error {
	if sc.P.PartnerID != "" && m.PartnerID == "" {
		m.PartnerID = sc.P.PartnerID
	}
	m.TenantID, m.CreatedBy, m.CreatedAt = sc.P.TenantID, store.ActorOf(ctx), time.Now().UTC()
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := sc.Scope.CheckPartner(tx, m.PartnerID, "body.partnerId"); err != nil {
			return err
		}
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, m.TenantID, "payout_method.added", "payout_method", m.ID, "partnerId", "kind", "label", "details")
	})
}

// NewPayoutMethodID is the id a payout method gets; sealing binds the details to it.
func NewPayoutMethodID() string { return models.NewID() }

// ListPayoutMethods lists the payout methods the principal may see, without removed ones.
func (sc *Scoped) ListPayoutMethods(ctx context.Context, partnerID string, pg models.Page) ([]models.PayoutMethod, string, error) {
	q := sc.PartnerRows(ctx, &models.PayoutMethod{}, "partner_id").Where("removed_at IS NULL")
	if partnerID != "" {
		q = q.Where("partner_id = ?", partnerID)
	}
	return store.Page(q, pg, func(m models.PayoutMethod) string { return m.ID })
}

// PayoutMethod finds one payout method the principal may see.
func (sc *Scoped) PayoutMethod(ctx context.Context, id string) (*models.PayoutMethod, error) {
	var m models.PayoutMethod
	err := sc.PartnerRows(ctx, &models.PayoutMethod{}, "partner_id").Where("id = ?", id).Take(&m).Error
	return &m, store.NotFoundAs(err, "PAYOUT_METHOD_NOT_FOUND", "payout method")
}

// RemovePayoutMethod retires a payout method; withdrawals already made keep it.
func (sc *Scoped) RemovePayoutMethod(ctx context.Context, id string) error {
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var m models.PayoutMethod
		q := tx.Where(sc.Scope.Tenant()).Where("id = ? AND removed_at IS NULL", id)
		if sc.P.PartnerID != "" {
			q = q.Where("partner_id = ?", sc.P.PartnerID)
		}
		if err := q.Take(&m).Error; err != nil {
			return store.NotFoundAs(err, "PAYOUT_METHOD_NOT_FOUND", "payout method")
		}
		now := time.Now().UTC()
		if err := tx.Model(&m).Update("removed_at", now).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "payout_method.removed", "payout_method", m.ID)
	})
}

// defaultPayoutSettings are a tenant's settings until finance changes them.
func defaultPayoutSettings(tenantID string) models.PayoutSettings {
	return models.PayoutSettings{TenantID: tenantID, Provider: models.ProviderManual, Minimums: "{}", ConfirmDays: models.DefaultPayoutConfirmDays}
}

func payoutSettingsIn(tx *gorm.DB, tenantID string) (models.PayoutSettings, error) {
	var st models.PayoutSettings
	err := tx.Where(store.System(tenantID).Tenant()).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return defaultPayoutSettings(tenantID), nil
	}
	return st, err
}

// PayoutSettings reads the tenant's withdrawal and payout rules (operators only).
func (sc *Scoped) PayoutSettings(ctx context.Context) (models.PayoutSettings, error) {
	return payoutSettingsIn(sc.s.core.DB(ctx), sc.P.TenantID)
}

// SavePayoutSettings replaces the tenant's withdrawal and payout rules; audited. A nil
// HTTPSecret keeps the stored one.
func (sc *Scoped) SavePayoutSettings(ctx context.Context, st models.PayoutSettings, keepSecret bool) (models.PayoutSettings, error) {
	st.TenantID, st.UpdatedAt = sc.P.TenantID, time.Now().UTC()
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if keepSecret {
			prior, err := payoutSettingsIn(tx, sc.P.TenantID)
			if err != nil {
				return err
			}
			st.HTTPSecret = prior.HTTPSecret
		}
		if st.Provider == models.ProviderHTTP && st.HTTPSecret == "" {
			return models.Invalid("INVALID_PAYOUT_SETTINGS", "the http provider needs a signing secret",
				models.FieldError{Location: "body.httpSecret", Message: "required for the http provider"})
		}
		if err := tx.Save(&st).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "payout_settings.updated", "tenant", sc.P.TenantID, "provider", "httpUrl", "httpSecret", "minimums", "confirmDays",
			"stripeSecretKey", "stripeWebhookSecret", "paypalClientId", "paypalSecret", "wiseProfileId", "wiseToken", "batchDaily")
	})
	return st, err
}

func (sc *Scoped) withdrawalRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Withdrawal{}, "partner_id")
}

// ListWithdrawals lists the withdrawals the principal may see, oldest first.
func (sc *Scoped) ListWithdrawals(ctx context.Context, f models.WithdrawalFilter, pg models.Page) ([]models.Withdrawal, string, error) {
	q := sc.withdrawalRows(ctx)
	for col, v := range map[string]string{"partner_id": f.PartnerID, "status": f.Status, "currency": f.Currency, "account": f.Account} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	return store.Page(q, pg, func(w models.Withdrawal) string { return w.ID })
}

// Withdrawal finds one withdrawal the principal may see, with its payout if one started.
func (sc *Scoped) Withdrawal(ctx context.Context, id string) (*models.Withdrawal, *models.Payout, error) {
	var w models.Withdrawal
	if err := sc.withdrawalRows(ctx).Where("id = ?", id).Take(&w).Error; err != nil {
		return nil, nil, store.NotFoundAs(err, "WITHDRAWAL_NOT_FOUND", "withdrawal")
	}
	var p models.Payout
	err := sc.s.core.DB(ctx).Where(store.System(w.TenantID).Tenant()).Where("withdrawal_id = ?", w.ID).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return &w, nil, nil
	}
	return &w, &p, err
}

func withdrawalEvent(typ string, w *models.Withdrawal, p *models.Payout) models.NewEvent {
	partner, id := w.PartnerID, w.ID
	payload := models.WithdrawalEventPayload{WithdrawalID: w.ID, PartnerID: w.PartnerID, Amount: w.Amount, Currency: w.Currency,
		Status: w.Status, Provider: w.Provider, Reference: w.Reference, Reason: w.Reason, Account: w.Account}
	if p != nil {
		payload.PayoutID = p.ID
		if p.BatchID != nil {
			payload.BatchID = *p.BatchID
		}
	}
	return models.NewEvent{Type: typ, PartnerID: &partner, SubjectID: &id, Payload: store.MustJSON(payload)}
}

// RequestWithdrawal holds amount of the partner's available balance for a payout. It refuses
// amounts above the available balance (409 INSUFFICIENT_BALANCE; BALANCE_NEGATIVE while a
// clawback left the balance below zero) and below the tenant's minimum (422). The partner's
// lock makes concurrent requests see each other's holds, so they can never overdraw. A
// request key that was used before returns the withdrawal it made. The tenant's rule on tax
// records applies: without an approved record the request is refused (403 TAX_RECORD_REQUIRED)
// or carries a warning. Only the currency's own balance counts: nothing is ever converted.
func (sc *Scoped) RequestWithdrawal(ctx context.Context, nw models.NewWithdrawal, key string) (*models.Withdrawal, error) {
	partnerID := nw.PartnerID
	if sc.P.PartnerID != "" {
		if partnerID != "" && partnerID != sc.P.PartnerID {
			return nil, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only withdraw for your own partner organisation")
		}
		partnerID = sc.P.PartnerID
	}
	if partnerID == "" {
		return nil, models.Invalid("INVALID_WITHDRAWAL", "the withdrawal is not valid", models.FieldError{Location: "body.partnerId", Message: "operators name the partner"})
	}
	var fs []models.FieldError
	if nw.Amount <= 0 {
		fs = append(fs, models.FieldError{Location: "body.amount", Message: "a positive amount in minor units", Value: nw.Amount})
	}
	if !models.ValidCurrency(nw.Currency) {
		fs = append(fs, models.FieldError{Location: "body.currency", Message: "an ISO 4217 code such as EUR", Value: nw.Currency})
	}
	switch nw.Account {
	case "":
		nw.Account = models.WithdrawFromCommission
	case models.WithdrawFromCommission, models.WithdrawFromMDF:
	default:
		fs = append(fs, models.FieldError{Location: "body.account", Message: "commission or mdf", Value: nw.Account})
	}
	if len(fs) > 0 {
		return nil, models.Invalid("INVALID_WITHDRAWAL", "the withdrawal is not valid", fs...)
	}
	var w *models.Withdrawal
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if sc.P.PartnerID == "" {
			if err := sc.Scope.CheckPartner(tx, partnerID, "body.partnerId"); err != nil {
				return err
			}
		}
		if _, err := sc.s.LockPartner(tx, sc.Scope, partnerID); err != nil {
			return err
		}
		if key != "" {
			var prior models.Withdrawal
			err := tx.Where(sc.Scope.Tenant()).Where("request_key = ?", key).Take(&prior).Error
			if err == nil {
				if prior.PartnerID != partnerID || prior.Amount != nw.Amount || prior.Currency != nw.Currency || prior.PayoutMethodID != nw.PayoutMethodID || prior.Account != nw.Account {
					return models.Invalid("IDEMPOTENCY_KEY_REUSED", "the Idempotency-Key was used for another withdrawal")
				}
				w = &prior
				return nil
			} else if !errors.Is(err, gorm.ErrRecordNotFound) {
				return err
			}
		}
		warning, err := checkTaxRecord(tx, sc.P.TenantID, partnerID)
		if err != nil {
			return err
		}
		var m models.PayoutMethod
		if err := tx.Where(sc.Scope.Tenant()).Where("partner_id = ? AND id = ? AND removed_at IS NULL", partnerID, nw.PayoutMethodID).Take(&m).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return models.Invalid("PAYOUT_METHOD_NOT_FOUND", "no such payout method", models.FieldError{Location: "body.payoutMethodId", Message: "no payout method of the partner", Value: nw.PayoutMethodID})
			}
			return err
		}
		st, err := payoutSettingsIn(tx, sc.P.TenantID)
		if err != nil {
			return err
		}
		var minimums map[string]int64
		_ = json.Unmarshal([]byte(st.Minimums), &minimums)
		if min := minimums[nw.Currency]; nw.Amount < min {
			return models.Invalid("BELOW_MINIMUM_WITHDRAWAL", "the smallest withdrawal in "+nw.Currency+" is "+strconv.FormatInt(min, 10)+" minor units",
				models.FieldError{Location: "body.amount", Message: "below the minimum of " + strconv.FormatInt(min, 10), Value: nw.Amount})
		}
		bal, err := balanceIn(tx, sc.P.TenantID, partnerID, nw.Currency)
		if err != nil {
			return err
		}
		available := bal.Available
		if nw.Account == models.WithdrawFromMDF {
			available = bal.MDFAvailable
		}
		switch {
		case available < 0:
			return models.Conflict("BALANCE_NEGATIVE", "the available balance is negative after a clawback; withdrawals resume once it is recovered")
		case nw.Amount > available:
			return models.Conflict("INSUFFICIENT_BALANCE", "the amount exceeds the available "+nw.Account+" balance of "+strconv.FormatInt(available, 10)+" minor units")
		}
		now := time.Now().UTC()
		w = &models.Withdrawal{ID: models.NewID(), TenantID: sc.P.TenantID, PartnerID: partnerID, Amount: nw.Amount, Currency: nw.Currency,
			PayoutMethodID: m.ID, Account: nw.Account, Status: models.WithdrawalRequested, RequestedBy: sc.P.ActorID(), CreatedAt: now, UpdatedAt: now, Warning: warning}
		if key != "" {
			k := key
			w.RequestKey = &k
		}
		if err := tx.Create(w).Error; err != nil {
			return err
		}
		availableAccount, heldAccount, _ := models.WithdrawalLedgerAccounts(w.Account)
		if _, _, err := sc.s.post(ctx, tx, sc.P.TenantID, models.NewMovement{
			PartnerID: partnerID, Currency: w.Currency, Kind: models.MoveWithdrawalHold, Key: "withdrawal_hold:" + w.ID,
			SourceType: models.SourceWithdrawal, SourceID: w.ID,
			Postings: models.Transfer(availableAccount, heldAccount, w.Amount),
		}); err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, sc.P.TenantID, "withdrawal.requested", "withdrawal", w.ID, "amount", "currency", "payoutMethodId", "account"); err != nil {
			return err
		}
		_, err = ev.Emit(ctx, tx, sc.P.TenantID, withdrawalEvent(models.EventWithdrawalRequested, w, nil))
		return err
	})
	return w, err
}

// changeWithdrawal moves a withdrawal the principal may see to status under the partner's
// lock, releasing the hold when the status gives the money back; audited and evented.
func (s *Store) changeWithdrawal(ctx context.Context, tenantID, partnerScope, id, status, reason string,
	fn func(tx *gorm.DB, w *models.Withdrawal) error) (*models.Withdrawal, error) {
	var w models.Withdrawal
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		read := func() *gorm.DB {
			q := tx.Where(store.System(tenantID).Tenant()).Where("id = ?", id)
			if partnerScope != "" {
				q = q.Where("partner_id = ?", partnerScope)
			}
			return q
		}
		if err := lockedRead(s, tx, tenantID, read, &w, withdrawalPartner); err != nil {
			return store.NotFoundAs(err, "WITHDRAWAL_NOT_FOUND", "withdrawal")
		}
		if err := models.CheckWithdrawalTransition(w.Status, status); err != nil {
			return err
		}
		now := time.Now().UTC()
		w.Status, w.UpdatedAt = status, now
		if reason != "" {
			w.Reason = reason
		}
		if fn != nil {
			if err := fn(tx, &w); err != nil {
				return err
			}
		}
		if err := tx.Model(&w).Select("status", "reason", "reviewed_by", "reviewed_at", "provider", "reference", "paid_at", "failed_at", "updated_at").Updates(&w).Error; err != nil {
			return err
		}
		availableAccount, heldAccount, paidAccount := models.WithdrawalLedgerAccounts(w.Account)
		if models.WithdrawalReleasesHold(status) {
			if _, _, err := s.post(ctx, tx, tenantID, models.NewMovement{
				PartnerID: w.PartnerID, Currency: w.Currency, Kind: models.MoveWithdrawalRelease, Key: "withdrawal_release:" + w.ID,
				SourceType: models.SourceWithdrawal, SourceID: w.ID, Reason: reason,
				Postings: models.Transfer(heldAccount, availableAccount, w.Amount),
			}); err != nil {
				return err
			}
		}
		var payout *models.Payout
		switch status {
		case models.WithdrawalApproved:
			payout = &models.Payout{ID: models.NewID(), TenantID: tenantID, PartnerID: w.PartnerID, WithdrawalID: w.ID, Provider: w.Provider,
				Amount: w.Amount, Currency: w.Currency, Status: models.PayoutPending, CreatedAt: now, UpdatedAt: now}
			st, err := payoutSettingsIn(tx, tenantID)
			if err != nil {
				return err
			}
			if st.Batched(w.Provider) {
				payout.ProviderStatus = ProviderStatusBatched // the daily batch pays it
			}
			if err := tx.Create(payout).Error; err != nil {
				return err
			}
		case models.WithdrawalPaid, models.WithdrawalFailed:
			payout = &models.Payout{}
			if err := tx.Where(store.System(tenantID).Tenant()).Where("withdrawal_id = ?", w.ID).Take(payout).Error; err != nil {
				return err
			}
			payout.Status, payout.Reference, payout.Failure, payout.UpdatedAt, payout.CompletedAt = models.PayoutPaid, w.Reference, "", now, &now
			if status == models.WithdrawalFailed {
				payout.Status, payout.Failure = models.PayoutFailed, reason
			}
			if err := tx.Model(payout).Select("status", "reference", "failure", "updated_at", "completed_at").Updates(payout).Error; err != nil {
				return err
			}
			if status == models.WithdrawalPaid {
				if _, _, err := s.post(ctx, tx, tenantID, models.NewMovement{
					PartnerID: w.PartnerID, Currency: w.Currency, Kind: models.MovePayout, Key: "payout:" + w.ID,
					SourceType: models.SourcePayout, SourceID: payout.ID, Reason: w.Reference,
					Postings: models.Transfer(heldAccount, paidAccount, w.Amount),
				}); err != nil {
					return err
				}
			}
		}
		if err := store.WriteAudit(ctx, tx, tenantID, "withdrawal."+status, "withdrawal", w.ID, "status", "reason"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, tenantID, withdrawalEvent(withdrawalEventType[status], &w, payout))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

var withdrawalEventType = map[string]string{
	models.WithdrawalApproved:  models.EventWithdrawalApproved,
	models.WithdrawalRejected:  models.EventWithdrawalRejected,
	models.WithdrawalCancelled: models.EventWithdrawalCancelled,
	models.WithdrawalPaid:      models.EventPayoutPaid,
	models.WithdrawalFailed:    models.EventPayoutFailed,
}

// CancelWithdrawal withdraws a request before finance reviews it; the hold is released.
func (sc *Scoped) CancelWithdrawal(ctx context.Context, id, reason string) (*models.Withdrawal, error) {
	if sc.P.TenantID == "" {
		return nil, models.NotFound("WITHDRAWAL_NOT_FOUND", "withdrawal")
	}
	return sc.s.changeWithdrawal(ctx, sc.P.TenantID, sc.P.PartnerID, id, models.WithdrawalCancelled, reason, nil)
}

// ApproveWithdrawal is finance's approval: the withdrawal's payout starts with the tenant's
// provider (through withdrawal.approved). The tenant's rule on tax records applies again, since
// a record may have been rejected since the request.
func (sc *Scoped) ApproveWithdrawal(ctx context.Context, id string) (*models.Withdrawal, error) {
	return sc.s.changeWithdrawal(ctx, sc.P.TenantID, "", id, models.WithdrawalApproved, "", func(tx *gorm.DB, w *models.Withdrawal) error {
		st, err := payoutSettingsIn(tx, sc.P.TenantID)
		if err != nil {
			return err
		}
		if w.RequestedBy == sc.P.ActorID() {
			return models.Errorf(models.KindForbidden, "FOUR_EYES", "a withdrawal is approved by someone other than who requested it")
		}
		bal, err := balanceIn(tx, sc.P.TenantID, w.PartnerID, w.Currency)
		if err != nil {
			return err
		}
		if bal.Available < 0 && w.Account != models.WithdrawFromMDF {
			return models.Conflict("BALANCE_NEGATIVE", "the partner's available balance is negative after a clawback; recover it before paying out")
		}
		if w.Warning, err = checkTaxRecord(tx, sc.P.TenantID, w.PartnerID); err != nil {
			return err
		}
		var m models.PayoutMethod
		if err := tx.Where(sc.Scope.Tenant()).Where("id = ?", w.PayoutMethodID).Take(&m).Error; err != nil {
			return err
		}
		provider := st.Provider
		rail, ok := st.Rail(m.Kind)
		switch {
		case !ok:
			return models.Conflict("PAYOUT_RAIL_NOT_CONFIGURED", "the partner's payout method is paid through "+rail+", which the tenant has not set up")
		case rail != "":
			provider = rail
		}
		now := time.Now().UTC()
		reviewer := sc.P.ActorID()
		w.Provider, w.ReviewedBy, w.ReviewedAt = provider, &reviewer, &now
		return nil
	})
}

// RejectWithdrawal is finance's rejection with a reason; the hold is released.
func (sc *Scoped) RejectWithdrawal(ctx context.Context, id, reason string) (*models.Withdrawal, error) {
	return sc.s.changeWithdrawal(ctx, sc.P.TenantID, "", id, models.WithdrawalRejected, reason, func(_ *gorm.DB, w *models.Withdrawal) error {
		now := time.Now().UTC()
		reviewer := sc.P.ActorID()
		w.ReviewedBy, w.ReviewedAt = &reviewer, &now
		return nil
	})
}

// Decisions on manual payouts.
const (
	decisionPaid   = "paid"
	decisionFailed = "failed"
)

// RecordPayoutDecision records finance's word on a manual payout that waits for it, once
// (operators only): paid with the bank's reference, or failed with a reason. From then on the
// payout settles that way, even when its deadline passes before the decision reaches it.
func (sc *Scoped) RecordPayoutDecision(ctx context.Context, id string, paid bool, referenceOrReason string) (*models.Withdrawal, error) {
	var w models.Withdrawal
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		read := func() *gorm.DB { return tx.Where(sc.Scope.Tenant()).Where("id = ?", id) }
		if err := lockedRead(sc.s, tx, sc.P.TenantID, read, &w, withdrawalPartner); err != nil {
			return store.NotFoundAs(err, "WITHDRAWAL_NOT_FOUND", "withdrawal")
		}
		var p models.Payout
		err := tx.Where(sc.Scope.Tenant()).Where("withdrawal_id = ?", id).Take(&p).Error
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if err != nil || w.Status != models.WithdrawalApproved || p.Status != models.PayoutPending || p.Provider != models.ProviderManual || p.Decision != "" {
			return models.Conflict("PAYOUT_NOT_AWAITING_CONFIRMATION", "the withdrawal has no manual payout waiting for confirmation")
		}
		p.Decision, p.DecisionReference, p.DecisionBy, p.UpdatedAt = decisionFailed, referenceOrReason, sc.P.ActorRef(), time.Now().UTC()
		action := "payout.failure_reported"
		if paid {
			p.Decision, action = decisionPaid, "payout.confirmed"
		}
		if err := tx.Model(&p).Select("decision", "decision_reference", "decision_by", "updated_at").Updates(&p).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, action, "withdrawal", w.ID, "decision", "reference")
	})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// errDecidedPaid stops a payout's failure when finance recorded it as paid.
var errDecidedPaid = errors.New("finance recorded the payout as paid")

// CompletePayout marks a withdrawal's payout paid with the provider's reference and moves the
// held money to paid. A payout completed before is left alone, so retries change nothing.
func (s *Store) CompletePayout(ctx context.Context, sys models.Scope, withdrawalID, reference string) (*models.Withdrawal, error) {
	w, err := s.changeWithdrawal(ctx, sys.TenantID(), "", withdrawalID, models.WithdrawalPaid, "", func(_ *gorm.DB, w *models.Withdrawal) error {
		now := time.Now().UTC()
		w.Reference, w.PaidAt = reference, &now
		return nil
	})
	return settledAlready(ctx, s, sys.TenantID(), withdrawalID, w, err)
}

// FailPayout marks a withdrawal's payout failed for good and releases the held money, unless
// finance recorded it as paid (then it completes with finance's reference).
func (s *Store) FailPayout(ctx context.Context, sys models.Scope, withdrawalID, reason string) (*models.Withdrawal, error) {
	var decided models.Payout
	w, err := s.changeWithdrawal(ctx, sys.TenantID(), "", withdrawalID, models.WithdrawalFailed, reason, func(tx *gorm.DB, w *models.Withdrawal) error {
		if err := tx.Where(store.Of(sys).Tenant()).Where("withdrawal_id = ?", withdrawalID).Take(&decided).Error; err != nil {
			return err
		}
		if decided.Decision == decisionPaid {
			return errDecidedPaid
		}
		now := time.Now().UTC()
		w.FailedAt = &now
		return nil
	})
	if errors.Is(err, errDecidedPaid) {
		return s.CompletePayout(ctx, sys, withdrawalID, decided.DecisionReference)
	}
	return settledAlready(ctx, s, sys.TenantID(), withdrawalID, w, err)
}

// settledAlready turns the illegal transition of a payout settled before into its withdrawal.
func settledAlready(ctx context.Context, s *Store, tenantID, id string, w *models.Withdrawal, err error) (*models.Withdrawal, error) {
	if d, ok := models.AsError(err); !ok || d.Code != "ILLEGAL_WITHDRAWAL_TRANSITION" {
		return w, err
	}
	var cur models.Withdrawal
	if e := s.core.DB(ctx).Where(store.System(tenantID).Tenant()).Where("id = ?", id).Take(&cur).Error; e != nil {
		return nil, e
	}
	if cur.Status == models.WithdrawalPaid || cur.Status == models.WithdrawalFailed {
		return &cur, nil
	}
	return nil, err
}

// PayoutOrder gathers what a provider needs to pay a withdrawal: the payout, the sealed
// payout details and the tenant's settings. ok is false when nothing is left to pay.
func (s *Store) PayoutOrder(ctx context.Context, sys models.Scope, withdrawalID string) (order models.PayoutOrder, details, secret models.Sealed, ok bool, err error) {
	db := s.core.DB(ctx)
	var w models.Withdrawal
	if err = db.Where(store.Of(sys).Tenant()).Where("id = ?", withdrawalID).Take(&w).Error; err != nil {
		return order, "", "", false, store.NotFoundAs(err, "WITHDRAWAL_NOT_FOUND", "withdrawal")
	}
	var p models.Payout
	if err = db.Where(store.Of(sys).Tenant()).Where("withdrawal_id = ?", withdrawalID).Take(&p).Error; err != nil {
		return order, "", "", false, store.NotFoundAs(err, "PAYOUT_NOT_FOUND", "payout")
	}
	if w.Status != models.WithdrawalApproved || p.Status != models.PayoutPending {
		return order, "", "", false, nil
	}
	var m models.PayoutMethod
	if err = db.Where(store.Of(sys).Tenant()).Where("id = ?", w.PayoutMethodID).Take(&m).Error; err != nil {
		return order, "", "", false, err
	}
	st, err := payoutSettingsIn(db, sys.TenantID())
	if err != nil {
		return order, "", "", false, err
	}
	confirmDays := st.ConfirmDays
	if confirmDays <= 0 {
		confirmDays = models.DefaultPayoutConfirmDays
	}
	order = models.PayoutOrder{TenantID: sys.TenantID(), PayoutID: p.ID, WithdrawalID: w.ID, PartnerID: w.PartnerID, Amount: w.Amount,
		Currency: w.Currency, MethodID: m.ID, MethodKind: m.Kind, Provider: p.Provider, HTTPURL: st.HTTPURL,
		ConfirmBy: p.CreatedAt.AddDate(0, 0, confirmDays), Reference: p.Reference, Batched: p.ProviderStatus == ProviderStatusBatched}
	if p.BatchID != nil {
		order.BatchID = *p.BatchID
	}
	return order, m.Details, st.HTTPSecret, true, nil
}

// CountPayoutAttempt records one more attempt of a payout's provider call.
func (s *Store) CountPayoutAttempt(ctx context.Context, sys models.Scope, payoutID string) error {
	return s.core.DB(ctx).Model(&models.Payout{}).Where(store.Of(sys).Tenant()).Where("id = ?", payoutID).
		Updates(map[string]any{"attempts": gorm.Expr("attempts + 1"), "updated_at": time.Now().UTC()}).Error
}
