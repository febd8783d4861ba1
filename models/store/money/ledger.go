// Package money keeps commission plans and their accruals, the append-only double-entry ledger,
// payout methods, withdrawals and payouts: the money module's persistence and transactions on
// the core store (ADR 14).
package money

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/partners"
)

// Store keeps commission plans, accruals, the append-only ledger, withdrawals and payouts of every
// tenant.
type Store struct {
	core     *store.Store
	partners *partners.Store
}

// New is the money store on core's database; its partners are those of partners.
func New(core *store.Store, partners *partners.Store) *Store {
	return &Store{core: core, partners: partners}
}

// Scoped is the money store as one principal sees it: operators and finance manage it; a partner
// sees its own balances, movements and withdrawals.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the money store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// LockPartner serialises the money movements of one partner: it locks the partner's row for
// the rest of tx on Postgres (SQLite transactions are immediate and serialised anyway). Every
// transaction that books ledger movements takes this lock first, so balances read after it
// cannot change before commit.
func (s *Store) LockPartner(tx *gorm.DB, sc store.Scope, partnerID string) (*models.Partner, error) {
	q := tx.Model(&models.Partner{}).Where(sc.Tenant()).Where("id = ?", partnerID)
	if s.core.Dialect() == store.Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var p models.Partner
	if err := q.Take(&p).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PARTNER_NOT_FOUND", "partner")
	} else if err != nil {
		return nil, err
	}
	return &p, nil
}

// lockedRead reads a row through read, locks the partner organisation partnerID names in it, and
// reads the row again under that lock, so what it holds cannot change before commit. The first
// read's error is returned as it is (gorm.ErrRecordNotFound for a missing row).
func lockedRead[T any](s *Store, tx *gorm.DB, tenantID string, read func() *gorm.DB, dest *T, partnerID func(*T) string) error {
	if err := read().Take(dest).Error; err != nil {
		return err
	}
	if _, err := s.LockPartner(tx, store.System(tenantID), partnerID(dest)); err != nil {
		return err
	}
	return read().Take(dest).Error
}

func accrualPartner(a *models.Accrual) string       { return a.PartnerID }
func withdrawalPartner(w *models.Withdrawal) string { return w.PartnerID }

// post books a balanced movement in tx, which must hold the partner's lock. A movement whose
// key the tenant booked before is not booked again: post returns the earlier one and false.
func (s *Store) post(ctx context.Context, tx *gorm.DB, tenantID string, m models.NewMovement) (*models.LedgerMovement, bool, error) {
	if err := m.CheckBalanced(); err != nil {
		return nil, false, err
	}
	now := time.Now().UTC()
	mv := &models.LedgerMovement{
		ID: models.NewID(), TenantID: tenantID, PartnerID: m.PartnerID, Currency: m.Currency, Kind: m.Kind, Key: m.Key,
		SourceType: m.SourceType, SourceID: m.SourceID, ReversesID: m.ReversesID, Reason: m.Reason,
		CreatedBy: store.ActorOf(ctx), CreatedAt: now,
	}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(mv)
	if res.Error != nil {
		return nil, false, res.Error
	}
	if res.RowsAffected == 0 {
		var prior models.LedgerMovement
		if err := tx.Where(store.System(tenantID).Tenant()).Where("key = ?", m.Key).Take(&prior).Error; err != nil {
			return nil, false, err
		}
		return &prior, false, nil
	}
	var reversed []models.LedgerEntry
	if m.ReversesID != nil {
		if err := tx.Where(store.System(tenantID).Tenant()).Where("movement_id = ?", *m.ReversesID).Find(&reversed).Error; err != nil {
			return nil, false, err
		}
	}
	var current []models.LedgerBalance
	if err := tx.Where(store.System(tenantID).Tenant()).Where("partner_id = ? AND currency = ?", m.PartnerID, m.Currency).Find(&current).Error; err != nil {
		return nil, false, err
	}
	balances := map[string]int64{}
	for _, b := range current {
		balances[b.Account] = b.Balance
	}
	for _, p := range m.Postings {
		e := models.LedgerEntry{
			ID: models.NewID(), TenantID: tenantID, PartnerID: m.PartnerID, MovementID: mv.ID, Account: p.Account,
			Amount: p.Amount, Currency: m.Currency, Kind: m.Kind, SourceType: m.SourceType, SourceID: m.SourceID,
			CreatedBy: mv.CreatedBy, CreatedAt: now,
		}
		for _, r := range reversed {
			if r.Account == p.Account && r.Amount == -p.Amount {
				id := r.ID
				e.ReversesEntryID = &id
			}
		}
		mv.Entries = append(mv.Entries, e)
		next, ok := models.AddMinor(balances[p.Account], p.Amount)
		if !ok {
			return nil, false, models.Errorf(models.KindConflict, "BALANCE_OUT_OF_RANGE", "the %s balance would leave the range of 64-bit minor units", p.Account)
		}
		balances[p.Account] = next
	}
	if err := tx.Create(&mv.Entries).Error; err != nil {
		return nil, false, err
	}
	for _, p := range m.Postings {
		b := models.LedgerBalance{TenantID: tenantID, PartnerID: m.PartnerID, Currency: m.Currency, Account: p.Account, Balance: balances[p.Account], UpdatedAt: now}
		if err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "tenant_id"}, {Name: "partner_id"}, {Name: "currency"}, {Name: "account"}},
			DoUpdates: clause.AssignmentColumns([]string{"balance", "updated_at"}),
		}).Create(&b).Error; err != nil {
			return nil, false, err
		}
	}
	return mv, true, nil
}

// balanceIn reads a partner's balance in one currency inside tx.
func balanceIn(tx *gorm.DB, tenantID, partnerID, currency string) (models.Balance, error) {
	var rows []models.LedgerBalance
	err := tx.Where(store.System(tenantID).Tenant()).Where("partner_id = ? AND currency = ?", partnerID, currency).Find(&rows).Error
	b := models.Balance{PartnerID: partnerID, Currency: currency}
	for _, r := range rows {
		b = addToBalance(b, r.Account, r.Balance)
	}
	return b, err
}

func addToBalance(b models.Balance, account string, amount int64) models.Balance {
	switch account {
	case models.AccountEarned:
		b.TotalEarned -= amount
	case models.AccountPending:
		b.Pending += amount
	case models.AccountAvailable:
		b.Available += amount
	case models.AccountHeld:
		b.Held += amount
	case models.AccountPaid:
		b.Paid += amount
	case models.AccountMDFReimbursed:
		b.MDFReimbursed -= amount
	case models.AccountMDFAvailable:
		b.MDFAvailable += amount
	case models.AccountMDFHeld:
		b.MDFHeld += amount
	case models.AccountMDFPaid:
		b.MDFPaid += amount
	}
	return b
}

// Balances lists the balances the principal may see, per partner and currency.
func (sc *Scoped) Balances(ctx context.Context, partnerID, currency string) ([]models.Balance, error) {
	q := sc.PartnerRows(ctx, &models.LedgerBalance{}, "partner_id")
	if partnerID != "" {
		q = q.Where("partner_id = ?", partnerID)
	}
	if currency != "" {
		q = q.Where("currency = ?", currency)
	}
	var rows []models.LedgerBalance
	if err := q.Order("partner_id, currency").Limit(10_000).Find(&rows).Error; err != nil {
		return nil, err
	}
	var out []models.Balance
	for _, r := range rows {
		if n := len(out); n == 0 || out[n-1].PartnerID != r.PartnerID || out[n-1].Currency != r.Currency {
			out = append(out, models.Balance{PartnerID: r.PartnerID, Currency: r.Currency})
		}
		out[len(out)-1] = addToBalance(out[len(out)-1], r.Account, r.Balance)
	}
	return out, nil
}

func (sc *Scoped) entryRows(ctx context.Context, f models.EntryFilter) *gorm.DB {
	q := sc.PartnerRows(ctx, &models.LedgerEntry{}, "partner_id")
	for col, v := range map[string]string{"partner_id": f.PartnerID, "currency": f.Currency, "account": f.Account, "kind": f.Kind, "source_type": f.SourceType, "source_id": f.SourceID} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", f.To)
	}
	return q
}

// ListLedgerEntries lists the ledger entries the principal may see, oldest first.
func (sc *Scoped) ListLedgerEntries(ctx context.Context, f models.EntryFilter, pg models.Page) ([]models.LedgerEntry, string, error) {
	return store.Page(sc.entryRows(ctx, f), pg, func(e models.LedgerEntry) string { return e.ID })
}

// MaxStatementEntries bounds one statement; a longer period must be split.
const MaxStatementEntries = 10_000

// Statement is a partner's ledger in one currency over [from, to): opening and closing balances
// and every entry in between.
func (sc *Scoped) Statement(ctx context.Context, partnerID, currency string, from, to time.Time) (*models.Statement, error) {
	if sc.P.PartnerID != "" && partnerID != sc.P.PartnerID {
		return nil, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only see your own statements")
	}
	if _, err := sc.s.partners.PartnerOf(ctx, models.System(sc.P.TenantID), partnerID); err != nil {
		return nil, err
	}
	st := &models.Statement{PartnerID: partnerID, Currency: currency, From: from, To: to}
	sums := func(before time.Time) (models.Balance, error) {
		type row struct {
			Account string
			Total   int64
		}
		var rows []row
		err := sc.entryRows(ctx, models.EntryFilter{PartnerID: partnerID, Currency: currency}).
			Where("created_at < ?", before).Select("account, SUM(amount) AS total").Group("account").Scan(&rows).Error
		b := models.Balance{PartnerID: partnerID, Currency: currency}
		for _, r := range rows {
			b = addToBalance(b, r.Account, r.Total)
		}
		return b, err
	}
	var err error
	if st.Opening, err = sums(from); err != nil {
		return nil, err
	}
	if st.Closing, err = sums(to); err != nil {
		return nil, err
	}
	q := sc.entryRows(ctx, models.EntryFilter{PartnerID: partnerID, Currency: currency, From: from, To: to})
	if err := q.Order("id").Limit(MaxStatementEntries + 1).Find(&st.Entries).Error; err != nil {
		return nil, err
	}
	if len(st.Entries) > MaxStatementEntries {
		return nil, models.Invalid("STATEMENT_TOO_LONG", "the period holds more than 10000 entries; ask for a shorter one",
			models.FieldError{Location: "query.from", Message: "choose a later start or an earlier end"})
	}
	return st, nil
}

// AdjustBalance books finance's manual correction of a partner's available balance: a
// positive amount credits it, a negative one debits it (it may go negative). The same key
// books once; the adjustment is audited and emits ledger.adjusted.
func (sc *Scoped) AdjustBalance(ctx context.Context, a models.Adjustment) (*models.LedgerMovement, error) {
	if a.Amount == 0 || a.Amount == minInt64 {
		return nil, models.Invalid("INVALID_ADJUSTMENT", "the adjustment is not valid", models.FieldError{Location: "body.amount", Message: "a non-zero amount in minor units", Value: a.Amount})
	}
	var mv *models.LedgerMovement
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if _, err := sc.s.LockPartner(tx, sc.Scope, a.PartnerID); err != nil {
			if models.ErrorKind(err) == models.KindNotFound {
				return models.Invalid("PARTNER_NOT_FOUND", "no such partner", models.FieldError{Location: "body.partnerId", Message: "no such partner", Value: a.PartnerID})
			}
			return err
		}
		var created bool
		var err error
		mv, created, err = sc.s.BookAdjustment(ctx, tx, ev, sc.Scope, a.PartnerID, a.Currency, a.Amount, a.Reason,
			"adjustment:"+a.Key, models.SourceAdjustment, a.Key)
		if err != nil || created {
			return err
		}
		// The key booked before: it must have been this same adjustment.
		var amount int64
		if err := tx.Model(&models.LedgerEntry{}).Select("COALESCE(SUM(amount), 0)").
			Where(sc.Scope.Tenant()).Where("movement_id = ? AND account = ?", mv.ID, models.AccountAvailable).Scan(&amount).Error; err != nil {
			return err
		}
		if mv.Kind != models.MoveAdjustment || mv.PartnerID != a.PartnerID || mv.Currency != a.Currency || amount != a.Amount {
			return models.Invalid("IDEMPOTENCY_KEY_REUSED", "the Idempotency-Key was used for another adjustment")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return mv, sc.s.loadEntries(ctx, mv)
}

// BookAdjustment moves amount between a partner's earned and available accounts under the
// movement key (once per key), and when it books it audits it and emits ledger.adjusted. The
// caller holds the partner's lock.
func (s *Store) BookAdjustment(ctx context.Context, tx *gorm.DB, ev *store.Outbox, sc store.Scope, partnerID, currency string, amount int64,
	reason, key, sourceType, sourceID string) (*models.LedgerMovement, bool, error) {
	mv, created, err := s.post(ctx, tx, sc.TenantID(), models.NewMovement{
		PartnerID: partnerID, Currency: currency, Kind: models.MoveAdjustment, Key: key,
		SourceType: sourceType, SourceID: sourceID, Reason: reason,
		Postings: models.Transfer(models.AccountEarned, models.AccountAvailable, amount),
	})
	if err != nil || !created {
		return mv, created, err
	}
	if err := store.WriteAudit(ctx, tx, sc.TenantID(), "ledger.adjusted", "ledger_movement", mv.ID, "partnerId", "amount", "currency", "reason"); err != nil {
		return nil, false, err
	}
	pid := partnerID
	_, err = ev.Emit(ctx, tx, sc.TenantID(), models.NewEvent{Type: models.EventLedgerAdjusted, PartnerID: &pid, SubjectID: &mv.ID,
		Payload: store.MustJSON(models.LedgerMovedPayload{MovementID: mv.ID, PartnerID: partnerID, Kind: mv.Kind, Amount: amount, Currency: currency, Reason: reason})})
	return mv, true, err
}

const minInt64 = -1 << 63

func (s *Store) loadEntries(ctx context.Context, mv *models.LedgerMovement) error {
	if len(mv.Entries) > 0 {
		return nil
	}
	return s.core.DB(ctx).Where(store.System(mv.TenantID).Tenant()).Where("movement_id = ?", mv.ID).Order("id").Find(&mv.Entries).Error
}

// LedgerCheck is a recomputation of one tenant's ledger from its entries, for invariant tests
// and audits.
type LedgerCheck struct {
	// Mismatches lists the accounts whose running balance differs from the sum of entries.
	Mismatches []string
	// Unbalanced lists the movements whose entries do not sum to zero.
	Unbalanced []string
}

// CheckLedger recomputes every balance of a tenant from its entries and checks that every
// movement sums to zero.
func (s *Store) CheckLedger(ctx context.Context, sys models.Scope) (LedgerCheck, error) {
	var out LedgerCheck
	type sum struct {
		PartnerID, Currency, Account string
		Total                        int64
	}
	var sums []sum
	db := s.core.DB(ctx)
	if err := db.Model(&models.LedgerEntry{}).Where(store.Of(sys).Tenant()).
		Select("partner_id, currency, account, SUM(amount) AS total").Group("partner_id, currency, account").Scan(&sums).Error; err != nil {
		return out, err
	}
	var balances []models.LedgerBalance
	if err := db.Where(store.Of(sys).Tenant()).Find(&balances).Error; err != nil {
		return out, err
	}
	have := map[string]int64{}
	for _, b := range balances {
		have[b.PartnerID+"/"+b.Currency+"/"+b.Account] = b.Balance
	}
	for _, x := range sums {
		k := x.PartnerID + "/" + x.Currency + "/" + x.Account
		if have[k] != x.Total {
			out.Mismatches = append(out.Mismatches, k)
		}
		delete(have, k)
	}
	for k, v := range have {
		if v != 0 {
			out.Mismatches = append(out.Mismatches, k)
		}
	}
	var unbalanced []string
	err := db.Model(&models.LedgerEntry{}).Where(store.Of(sys).Tenant()).Group("movement_id").
		Having("SUM(amount) <> 0").Pluck("movement_id", &unbalanced).Error
	out.Unbalanced = unbalanced
	return out, err
}
