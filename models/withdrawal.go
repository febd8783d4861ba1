package models

import (
	"slices"
	"time"
)

// Withdrawal statuses. A partner requests; finance approves or rejects; the partner may cancel
// before review; an approved withdrawal is paid or fails through its payout.
const (
	WithdrawalRequested = "requested"
	WithdrawalApproved  = "approved"
	WithdrawalRejected  = "rejected"
	WithdrawalCancelled = "cancelled"
	WithdrawalPaid      = "paid"
	WithdrawalFailed    = "failed"
)

// withdrawalTransitions are the legal status changes.
var withdrawalTransitions = map[string][]string{
	WithdrawalRequested: {WithdrawalApproved, WithdrawalRejected, WithdrawalCancelled},
	WithdrawalApproved:  {WithdrawalPaid, WithdrawalFailed},
}

// WithdrawalStatuses lists every status.
func WithdrawalStatuses() []string {
	return []string{WithdrawalRequested, WithdrawalApproved, WithdrawalRejected, WithdrawalCancelled, WithdrawalPaid, WithdrawalFailed}
}

// CheckWithdrawalTransition refuses a status change the withdrawal lifecycle does not allow,
// with 409 ILLEGAL_WITHDRAWAL_TRANSITION.
func CheckWithdrawalTransition(from, to string) *Error {
	if slices.Contains(withdrawalTransitions[from], to) {
		return nil
	}
	return Errorf(KindConflict, "ILLEGAL_WITHDRAWAL_TRANSITION", "a %s withdrawal cannot become %s", from, to)
}

// WithdrawalReleasesHold reports whether moving to status gives the held funds back.
func WithdrawalReleasesHold(status string) bool {
	return status == WithdrawalRejected || status == WithdrawalCancelled || status == WithdrawalFailed
}

// Withdrawal is a partner's request to be paid out of its available balance.
type Withdrawal struct {
	ID             string `gorm:"primaryKey;size:36"`
	TenantID       string `gorm:"size:36;not null"`
	PartnerID      string `gorm:"size:36;not null"`
	Amount         int64  `gorm:"not null"`
	Currency       string `gorm:"size:3;not null"`
	PayoutMethodID string `gorm:"size:36;not null"`
	// Account is what it draws on: commission (the default) or mdf.
	Account string `gorm:"size:16;not null;default:'commission'"`
	Status  string `gorm:"size:16;not null"`
	// Reason explains a rejection, cancellation or failure.
	Reason string `gorm:"size:1000"`
	// RequestKey is the Idempotency-Key of the request, unique per tenant.
	RequestKey  *string `gorm:"size:255"`
	RequestedBy string  `gorm:"size:64"`
	ReviewedBy  *string `gorm:"size:36"`
	ReviewedAt  *time.Time
	// Provider is the payout provider chosen at approval; Reference is its payment reference.
	Provider  string `gorm:"size:16"`
	Reference string `gorm:"size:200"`
	PaidAt    *time.Time
	FailedAt  *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	// Warning is what the request or approval that returned the withdrawal warns about (the
	// tenant warns on partners without an approved tax record); it is not stored.
	Warning string `gorm:"-"`
}

// Withdrawal accounts: what a withdrawal draws on. A partner's commission balance and its MDF
// balance (ADR 33) are withdrawn separately, never together.
const (
	WithdrawFromCommission = "commission"
	WithdrawFromMDF        = "mdf"
)

// WithdrawalLedgerAccounts are the available, held and paid accounts of what a withdrawal
// draws on.
func WithdrawalLedgerAccounts(from string) (available, held, paid string) {
	if from == WithdrawFromMDF {
		return AccountMDFAvailable, AccountMDFHeld, AccountMDFPaid
	}
	return AccountAvailable, AccountHeld, AccountPaid
}

// WithdrawalFilter selects withdrawals.
type WithdrawalFilter struct {
	PartnerID, Status, Currency, Account string
}

// NewWithdrawal is a partner's request.
type NewWithdrawal struct {
	// PartnerID is the operator's choice of partner; partners always withdraw for themselves.
	PartnerID      string
	Amount         int64
	Currency       string
	PayoutMethodID string
	// Account is what it draws on: commission ("" too) or mdf.
	Account string
}

// Payout method kinds. A stripe method is a Stripe Connect connected account, a wise method a
// Wise recipient (IBAN and account holder); paypal methods are paid through PayPal Payouts when
// the tenant set PayPal up, else like bank methods through the tenant's provider.
const (
	PayoutBank   = "bank"
	PayoutPayPal = "paypal"
	PayoutStripe = "stripe"
	PayoutWise   = "wise"
	PayoutOther  = "other"
)

// PayoutMethod is where a partner wants to be paid. Its details (IBAN, account, PayPal
// email) are a sealed secret; only a masked hint is ever shown.
type PayoutMethod struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	PartnerID string `gorm:"size:36;not null"`
	Kind      string `gorm:"size:16;not null"`
	Label     string `gorm:"size:200"`
	// Details is the sealed JSON of the method's fields.
	Details Sealed `gorm:"type:text;not null"`
	// Masked is the hint shown instead of the details, e.g. "IBAN ••••1234".
	Masked    string `gorm:"size:200;not null"`
	CreatedBy string `gorm:"size:64"`
	CreatedAt time.Time
	// RemovedAt marks a method the partner removed; past withdrawals keep pointing at it.
	RemovedAt *time.Time
}

// Payout providers. manual and http are the tenant's default provider; stripe, paypal and wise
// are rails chosen by the partner's payout method.
const (
	ProviderManual = "manual"
	ProviderHTTP   = "http"
	ProviderStripe = "stripe"
	ProviderPayPal = "paypal"
	ProviderWise   = "wise"
)

// Rail is the payout rail that pays a method of kind under the tenant's settings, "" when the
// tenant's default provider pays it. ok is false when the method needs a rail the tenant has
// not set up (a stripe or wise method without the tenant's credentials).
func (st PayoutSettings) Rail(kind string) (provider string, ok bool) {
	switch kind {
	case PayoutStripe:
		return ProviderStripe, st.StripeSecretKey != ""
	case PayoutWise:
		return ProviderWise, st.WiseToken != "" && st.WiseProfileID != ""
	case PayoutPayPal:
		if st.PayPalClientID != "" && st.PayPalSecret != "" {
			return ProviderPayPal, true
		}
	}
	return "", true
}

// Batched reports whether payouts of provider wait for the tenant's daily batch: only rails
// batch, and only when the tenant asks for it.
func (st PayoutSettings) Batched(provider string) bool {
	return st.BatchDaily && IsRail(provider)
}

// IsRail reports whether provider is one of the payout rails (Stripe, PayPal, Wise).
func IsRail(provider string) bool {
	return provider == ProviderStripe || provider == ProviderPayPal || provider == ProviderWise
}

// PayoutSettings are a tenant's rules for withdrawals and payouts.
type PayoutSettings struct {
	TenantID string `gorm:"primaryKey;size:36"`
	// Provider pays approved withdrawals: manual (finance confirms with a bank reference) or
	// http (a POST to HTTPURL, signed like webhooks).
	Provider string `gorm:"size:16;not null"`
	HTTPURL  string `gorm:"column:http_url;size:2000"`
	// HTTPSecret signs the provider's requests (whsec_...), sealed.
	HTTPSecret Sealed `gorm:"column:http_secret;type:text"`
	// Minimums are the smallest withdrawals per currency, as JSON {"EUR":5000}.
	Minimums string `gorm:"type:text;not null"`
	// ConfirmDays is how long a manual payout waits for finance's confirmation before it fails.
	ConfirmDays int `gorm:"not null"`
	// StripeSecretKey (sk_… or rk_…) pays stripe methods by Connect transfers and onboards
	// connected accounts; StripeWebhookSecret (whsec_…) verifies Stripe's webhooks. Sealed.
	StripeSecretKey     Sealed `gorm:"type:text;not null;default:''"`
	StripeWebhookSecret Sealed `gorm:"type:text;not null;default:''"`
	// PayPalClientID and the sealed PayPalSecret pay paypal methods through PayPal Payouts.
	PayPalClientID string `gorm:"column:paypal_client_id;size:200;not null;default:''"`
	PayPalSecret   Sealed `gorm:"column:paypal_secret;type:text;not null;default:''"`
	// WiseToken (sealed) and WiseProfileID pay wise methods by Wise transfers.
	WiseToken     Sealed `gorm:"type:text;not null;default:''"`
	WiseProfileID string `gorm:"size:40;not null;default:''"`
	// BatchDaily gathers the rails' payouts into one batch per provider per day.
	BatchDaily bool `gorm:"not null;default:false"`
	UpdatedAt  time.Time
}

// DefaultPayoutConfirmDays is how long a manual payout waits for confirmation by default.
const DefaultPayoutConfirmDays = 14

// Payout statuses.
const (
	PayoutPending = "pending"
	PayoutPaid    = "paid"
	PayoutFailed  = "failed"
)

// Payout is the execution of one approved withdrawal through a provider.
type Payout struct {
	ID           string `gorm:"primaryKey;size:36"`
	TenantID     string `gorm:"size:36;not null"`
	PartnerID    string `gorm:"size:36;not null"`
	WithdrawalID string `gorm:"size:36;not null"`
	Provider     string `gorm:"size:16;not null"`
	Amount       int64  `gorm:"not null"`
	Currency     string `gorm:"size:3;not null"`
	Status       string `gorm:"size:16;not null"`
	Reference    string `gorm:"size:200"`
	Failure      string `gorm:"size:1000"`
	Attempts     int    `gorm:"not null"`
	// Decision is finance's word on a manual payout (paid or failed), recorded once; with it
	// the payout settles that way whichever comes first, the signal or the deadline.
	Decision          string `gorm:"size:16;not null;default:''"`
	DecisionReference string `gorm:"size:1000;not null;default:''"`
	DecisionBy        string `gorm:"size:64;not null;default:''"`
	// BatchID is the daily batch that pays it, when the tenant batches.
	BatchID *string `gorm:"size:36"`
	// ProviderStatus is the provider's own word on a submitted payout (PayPal's
	// transaction_status, Wise's transfer status).
	ProviderStatus string `gorm:"size:40;not null;default:''"`
	CreatedAt      time.Time
	UpdatedAt      time.Time
	CompletedAt    *time.Time
}

// Payout batch statuses: open while payouts are gathered and sent, settled once every payout
// of it is paid or failed.
const (
	BatchOpen    = "open"
	BatchSettled = "settled"
)

// PayoutBatch is one provider's payouts of one day for a tenant.
type PayoutBatch struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	Provider string `gorm:"size:16;not null"`
	// Day is the UTC date the batch pays, 2006-01-02.
	Day    string `gorm:"size:10;not null"`
	Status string `gorm:"size:16;not null"`
	// Reference is the provider's id of the batch (PayPal's payout_batch_id).
	Reference string `gorm:"size:200;not null;default:''"`
	Payouts   int    `gorm:"not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PayoutBatchDue is a tenant's rail with payouts waiting for the daily batch.
type PayoutBatchDue struct {
	TenantID string
	Provider string
}

// RailSettlement is a rail's word on one payout, from its webhook.
type RailSettlement struct {
	Provider, PayoutID, WithdrawalID string
	Amount                           int64
	Currency                         string
	Paid                             bool
	Reference, Reason                string
}

// PayoutOrder is what a provider needs to pay one payout.
type PayoutOrder struct {
	TenantID     string
	PayoutID     string
	WithdrawalID string
	PartnerID    string
	Amount       int64
	Currency     string
	MethodID     string
	MethodKind   string
	// Details are the opened payout details (secret).
	Details Secret
	// Provider and the HTTP endpoint of the tenant's settings.
	Provider   string
	HTTPURL    string
	HTTPSecret Secret
	// Credentials are the opened credentials of the payout's rail: the Stripe secret key, the
	// PayPal client secret or the Wise token; Account is PayPal's client id or Wise's profile.
	Credentials Secret
	Account     string
	// BatchID is the daily batch the payout belongs to, if any; Batched is true while the
	// payout waits for its day's batch.
	BatchID string
	Batched bool
	// Reference is the rail's reference of a payout it accepted and has not settled yet.
	Reference string
	// ConfirmBy is when a manual payout gives up waiting.
	ConfirmBy time.Time
}

// WithdrawalEventPayload is the payload of withdrawal.* and payout.* events.
type WithdrawalEventPayload struct {
	WithdrawalID string `json:"withdrawalId"`
	PayoutID     string `json:"payoutId,omitempty"`
	PartnerID    string `json:"partnerId"`
	Amount       int64  `json:"amount" doc:"In minor units"`
	Currency     string `json:"currency"`
	Status       string `json:"status"`
	Provider     string `json:"provider,omitempty"`
	Reference    string `json:"reference,omitempty"`
	Reason       string `json:"reason,omitempty" doc:"Why it was rejected, cancelled or failed; for a failed payout the provider's own reason"`
	Account      string `json:"account,omitempty" doc:"What the withdrawal draws on: commission or mdf"`
	BatchID      string `json:"batchId,omitempty" doc:"The daily payout batch, when the tenant batches"`
}

// TableName is the settings table: one row per tenant.
func (PayoutSettings) TableName() string { return "payout_settings" }
