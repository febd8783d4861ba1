package models

import (
	"strconv"
	"time"
)

// Ledger accounts of a partner, per currency. Earned is the source of every commission: its
// balance is minus the total ever earned; pending, available, held and paid hold the money on
// its way to the partner. Every movement's postings sum to zero, so the five balances of a
// partner and currency always sum to zero too.
const (
	AccountEarned    = "earned"
	AccountPending   = "pending"
	AccountAvailable = "available"
	AccountHeld      = "held"
	AccountPaid      = "paid"
)

// Ledger accounts of a partner's market development funds (ADR 33), per currency, kept apart from
// commissions: MDFReimbursed is the source of every reimbursement (its balance is minus the total
// reimbursed); the others hold the money on its way to the partner like their commission twins.
const (
	AccountMDFReimbursed = "mdf_reimbursed"
	AccountMDFAvailable  = "mdf_available"
	AccountMDFHeld       = "mdf_held"
	AccountMDFPaid       = "mdf_paid"
)

// LedgerAccounts lists the accounts in display order.
func LedgerAccounts() []string {
	return []string{AccountEarned, AccountPending, AccountAvailable, AccountHeld, AccountPaid,
		AccountMDFReimbursed, AccountMDFAvailable, AccountMDFHeld, AccountMDFPaid}
}

// Movement kinds: what a balanced set of ledger entries records.
const (
	MoveAccrual           = "accrual"            // earned → pending (or available without holding)
	MoveRelease           = "release"            // pending → available when the holding period ends
	MoveClawback          = "clawback"           // reverses an accrual: pending or available → earned
	MoveAdjustment        = "adjustment"         // finance's manual correction: earned ↔ available
	MoveWithdrawalHold    = "withdrawal_hold"    // available → held at request
	MoveWithdrawalRelease = "withdrawal_release" // held → available on rejection, cancellation, failure
	MovePayout            = "payout"             // held → paid when the payout is confirmed
	MoveMDFReimbursement  = "mdf_reimbursement"  // mdf_reimbursed → mdf_available when a claim is approved
)

// Source types of ledger entries.
const (
	SourceEvent      = "event"
	SourceAccrual    = "accrual"
	SourceWithdrawal = "withdrawal"
	SourcePayout     = "payout"
	SourceAdjustment = "adjustment"
	SourceMDFClaim   = "mdf_claim"
)

// Posting is one leg of a movement: a signed amount on one account.
type Posting struct {
	Account string
	Amount  int64
}

// LedgerMovement is one balanced change of a partner's balances: its entries sum to zero.
// Key makes it idempotent: a second movement with the same key in a tenant is a no-op.
type LedgerMovement struct {
	ID         string `gorm:"primaryKey;size:36"`
	TenantID   string `gorm:"size:36;not null"`
	PartnerID  string `gorm:"size:36;not null"`
	Currency   string `gorm:"size:3;not null"`
	Kind       string `gorm:"size:32;not null"`
	Key        string `gorm:"size:300;not null"`
	SourceType string `gorm:"size:32;not null"`
	SourceID   string `gorm:"size:300;not null"`
	// ReversesID is the movement this one reverses (clawbacks).
	ReversesID *string `gorm:"size:36"`
	Reason     string  `gorm:"size:1000"`
	CreatedBy  string  `gorm:"size:64"`
	CreatedAt  time.Time
	// Entries are the movement's legs; loaded with it.
	Entries []LedgerEntry `gorm:"-"`
}

// LedgerEntry is one immutable line of the append-only ledger.
type LedgerEntry struct {
	ID         string `gorm:"primaryKey;size:36"`
	TenantID   string `gorm:"size:36;not null"`
	PartnerID  string `gorm:"size:36;not null"`
	MovementID string `gorm:"size:36;not null"`
	Account    string `gorm:"size:16;not null"`
	// Amount is signed, in minor units of Currency.
	Amount     int64  `gorm:"not null"`
	Currency   string `gorm:"size:3;not null"`
	Kind       string `gorm:"size:32;not null"`
	SourceType string `gorm:"size:32;not null"`
	SourceID   string `gorm:"size:300;not null"`
	// ReversesEntryID is the entry this one reverses.
	ReversesEntryID *string `gorm:"size:36"`
	CreatedBy       string  `gorm:"size:64"`
	CreatedAt       time.Time
}

// LedgerBalance is the running balance of one account, kept in step with the entries.
type LedgerBalance struct {
	TenantID  string `gorm:"primaryKey;size:36"`
	PartnerID string `gorm:"primaryKey;size:36"`
	Currency  string `gorm:"primaryKey;size:3"`
	Account   string `gorm:"primaryKey;size:16"`
	Balance   int64  `gorm:"not null"`
	UpdatedAt time.Time
}

// NewMovement is a movement to book.
type NewMovement struct {
	PartnerID  string
	Currency   string
	Kind       string
	Key        string
	SourceType string
	SourceID   string
	ReversesID *string
	Reason     string
	Postings   []Posting
}

// CheckBalanced refuses a movement whose postings do not sum to zero, name an unknown
// account, carry a zero amount or overflow.
func (m NewMovement) CheckBalanced() *Error {
	if len(m.Postings) < 2 {
		return Errorf(KindInternal, "UNBALANCED_MOVEMENT", "a movement needs at least two postings")
	}
	var sum int64
	for i, p := range m.Postings {
		known := false
		for _, a := range LedgerAccounts() {
			known = known || a == p.Account
		}
		if !known || p.Amount == 0 {
			return Errorf(KindInternal, "UNBALANCED_MOVEMENT", "posting %s of %s is not valid", strconv.Itoa(i), m.Kind)
		}
		var ok bool
		if sum, ok = AddMinor(sum, p.Amount); !ok {
			return Errorf(KindInvalid, "AMOUNT_OUT_OF_RANGE", "the amounts are too large")
		}
	}
	if sum != 0 {
		return Errorf(KindInternal, "UNBALANCED_MOVEMENT", "the postings of %s sum to %d, not zero", m.Kind, sum)
	}
	if !ValidCurrency(m.Currency) {
		return Errorf(KindInvalid, "INVALID_CURRENCY", "%q is not an ISO 4217 currency", m.Currency)
	}
	return nil
}

// Transfer is a movement of amount from one account to another.
func Transfer(from, to string, amount int64) []Posting {
	return []Posting{{Account: from, Amount: -amount}, {Account: to, Amount: amount}}
}

// Balance is a partner's money in one currency.
type Balance struct {
	PartnerID string
	Currency  string
	Pending   int64
	Available int64
	Held      int64
	Paid      int64
	// TotalEarned is everything accrued or adjusted, net of clawbacks.
	TotalEarned int64
	// The MDF balance, apart from commissions: reimbursed claims available for withdrawal, held
	// by an MDF withdrawal, paid, and everything ever reimbursed.
	MDFAvailable  int64
	MDFHeld       int64
	MDFPaid       int64
	MDFReimbursed int64
}

// EntryFilter selects ledger entries.
type EntryFilter struct {
	PartnerID, Currency, Account, Kind, SourceType, SourceID string
	From, To                                                 time.Time
}

// Statement is a partner's ledger in one currency over a period: opening and closing
// balances and every entry in between.
type Statement struct {
	PartnerID string
	Currency  string
	From, To  time.Time
	Opening   Balance
	Closing   Balance
	Entries   []LedgerEntry
}

// Adjustment is a manual correction of a partner's available balance by finance.
type Adjustment struct {
	PartnerID string
	Amount    int64
	Currency  string
	Reason    string
	// Key is the client's Idempotency-Key: a second adjustment with it is a no-op.
	Key string
}

// LedgerMovedPayload is the payload of ledger.adjusted.
type LedgerMovedPayload struct {
	MovementID string `json:"movementId"`
	PartnerID  string `json:"partnerId"`
	Kind       string `json:"kind"`
	Amount     int64  `json:"amount" doc:"The change of the available balance in minor units"`
	Currency   string `json:"currency"`
	Reason     string `json:"reason,omitempty"`
}
