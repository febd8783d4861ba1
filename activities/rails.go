package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/rails"
)

// RailStore is what the payout rails' activities need of storage beyond MoneyStore.
type RailStore interface {
	RailCredentials(ctx context.Context, sys models.Scope, provider string) (models.Sealed, string, error)
	RecordPayoutSubmission(ctx context.Context, sys models.Scope, payoutID, reference, status string) error
	OpenPayoutBatch(ctx context.Context, sys models.Scope, provider, day string) (models.PayoutBatch, []string, error)
	SetBatchReference(ctx context.Context, sys models.Scope, batchID, reference string) error
	CloseBatch(ctx context.Context, sys models.Scope, batchID string) error
	DuePayoutBatches(ctx context.Context) ([]models.PayoutBatchDue, error)
}

// PayoutRail is a payout provider whose payments may settle after the call (the http
// provider's interface grown an outcome): Submit pays a set of orders of one tenant (one
// payout, or a day's batch) and Track asks how submitted ones stand. Both key every payment by
// its payout id, so a retry never pays twice. A provider's refusal of one order is that
// order's failed outcome; an error is retried for the whole set.
type PayoutRail interface {
	Submit(ctx context.Context, creds RailCredentials, batchID string, orders []models.PayoutOrder) (batchRef string, outcomes map[string]rails.Outcome, err error)
	Track(ctx context.Context, creds RailCredentials, batchRef string, orders []models.PayoutOrder) (map[string]rails.Outcome, error)
}

// RailCredentials are a tenant's opened credentials of one rail.
type RailCredentials struct {
	Secret  models.Secret
	Account string
}

// DefaultPayoutPollEvery is how often a submitted rail payout is asked about.
const DefaultPayoutPollEvery = time.Hour

// RailInput names the payouts (by withdrawal) of one tenant and rail that a run pays or asks
// about; BatchID is their daily batch ("" for a single payout).
type RailInput struct {
	TenantID      string
	Provider      string
	BatchID       string
	WithdrawalIDs []string
}

// RailResult is what a run of RailPayouts left: the withdrawals still waiting for their rail,
// and how many were paid or failed.
type RailResult struct {
	Pending []string
	Paid    int
	Failed  int
}

// detailsOf opens a payout method's details.
func (a *Money) detailsOf(tenantID, methodID string, sealed models.Sealed) (map[string]string, error) {
	plain, err := a.Keyring.Open(sealed, models.SealContext{TenantID: tenantID, Table: "payout_methods", RowID: methodID, Field: "details"})
	if err != nil {
		return nil, err
	}
	var d map[string]string
	if err := json.Unmarshal([]byte(plain.Reveal()), &d); err != nil {
		return nil, err
	}
	return d, nil
}

// RailPayouts pays the given withdrawals through their rail, or asks about those paid before
// (they carry the rail's reference), and settles each one the rail settled: paid with the
// rail's reference, or failed with the rail's reason (the hold is released and payout.failed
// emitted). Withdrawals settled meanwhile are skipped.
func (a *Money) RailPayouts(ctx context.Context, in RailInput) (RailResult, error) {
	sys := models.System(in.TenantID)
	rail := a.Rails[in.Provider]
	store, ok := a.Store.(RailStore)
	if rail == nil || !ok {
		return RailResult{}, temporal.NewNonRetryableApplicationError("no payout rail "+in.Provider+" is configured", "PayoutNotConfigured", nil)
	}
	sealed, account, err := store.RailCredentials(ctx, sys, in.Provider)
	if err != nil {
		return RailResult{}, err
	}
	if sealed == "" {
		return RailResult{}, temporal.NewNonRetryableApplicationError("the tenant has no "+in.Provider+" credentials", "PayoutNotConfigured", nil)
	}
	secret, err := a.Keyring.Open(sealed, models.SealContext{TenantID: in.TenantID, Table: "payout_settings", RowID: in.TenantID, Field: railField[in.Provider]})
	if err != nil {
		return RailResult{}, temporal.NewNonRetryableApplicationError("the rail's credentials cannot be opened", "PayoutSecretSealed", err)
	}
	creds := RailCredentials{Secret: secret, Account: account}
	var fresh, submitted []models.PayoutOrder
	for _, id := range in.WithdrawalIDs {
		order, sealedDetails, _, ok, err := a.Store.PayoutOrder(ctx, sys, id)
		if err != nil {
			return RailResult{}, err
		}
		if !ok {
			continue
		}
		d, err := a.detailsOf(in.TenantID, order.MethodID, sealedDetails)
		if err != nil {
			return RailResult{}, temporal.NewNonRetryableApplicationError("the payout details cannot be opened", "PayoutDetailsSealed", err)
		}
		raw, _ := json.Marshal(d)
		order.Details = models.Secret(raw)
		if order.Reference != "" {
			submitted = append(submitted, order)
		} else {
			fresh = append(fresh, order)
		}
	}
	outcomes := map[string]rails.Outcome{}
	if len(fresh) > 0 {
		for _, o := range fresh {
			if err := a.Store.CountPayoutAttempt(ctx, sys, o.PayoutID); err != nil {
				return RailResult{}, err
			}
		}
		batchKey := in.BatchID
		if batchKey == "" {
			batchKey = fresh[0].PayoutID
		}
		batchRef, got, err := rail.Submit(ctx, creds, batchKey, fresh)
		outcome := PayoutSucceeded
		if err != nil {
			outcome = PayoutFailed
		}
		observer(a.Observer).PayoutAttempt(in.Provider, outcome)
		if err != nil {
			// What the rail settled before the error stays settled; the rest is retried.
			if _, serr := a.settle(ctx, in, fresh, got); serr != nil {
				return RailResult{}, serr
			}
			return RailResult{}, err
		}
		if batchRef != "" && in.BatchID != "" {
			if err := store.SetBatchReference(ctx, sys, in.BatchID, batchRef); err != nil {
				return RailResult{}, err
			}
		}
		for _, o := range fresh {
			res, ok := got[o.PayoutID]
			if !ok {
				continue
			}
			outcomes[o.PayoutID] = res
			if !res.Settled {
				ref := res.Reference
				if ref == "" {
					ref = batchRef
				}
				if err := store.RecordPayoutSubmission(ctx, sys, o.PayoutID, ref, res.Status); err != nil {
					return RailResult{}, err
				}
			}
		}
	}
	if len(submitted) > 0 {
		got, err := rail.Track(ctx, creds, submitted[0].Reference, submitted)
		if err != nil {
			return RailResult{}, err
		}
		for id, res := range got {
			outcomes[id] = res
		}
	}
	return a.settle(ctx, in, append(fresh, submitted...), outcomes)
}

// settle completes or fails each order its rail settled and lists the others as pending.
func (a *Money) settle(ctx context.Context, in RailInput, orders []models.PayoutOrder, outcomes map[string]rails.Outcome) (RailResult, error) {
	var out RailResult
	for _, o := range orders {
		res, ok := outcomes[o.PayoutID]
		if !ok || !res.Settled {
			out.Pending = append(out.Pending, o.WithdrawalID)
			continue
		}
		settle := SettleInput{TenantID: in.TenantID, WithdrawalID: o.WithdrawalID, Provider: in.Provider}
		var status string
		var err error
		if res.Paid {
			settle.Reference = res.Reference
			status, err = a.CompletePayout(ctx, settle)
		} else {
			settle.Reason = res.Reason
			status, err = a.FailPayout(ctx, settle)
		}
		if err != nil {
			return out, err
		}
		if status == models.WithdrawalPaid {
			out.Paid++
		} else {
			out.Failed++
		}
	}
	return out, nil
}

// railField names the sealed column of each rail's credentials.
var railField = map[string]string{
	models.ProviderStripe: "stripe_secret_key",
	models.ProviderPayPal: "paypal_secret",
	models.ProviderWise:   "wise_token",
}

// RailField is the sealed column of a rail's credentials, for sealing them.
func RailField(provider string) string { return railField[provider] }

// FailRailInput fails the payouts a rail never accepted, with the reason.
type FailRailInput struct {
	TenantID      string
	Provider      string
	WithdrawalIDs []string
	Reason        string
}

// FailRailPayouts fails each payout of the list that its rail never accepted, with the
// reason: the holds are released and payout.failed emitted for each. Payouts the rail accepted
// before (they carry its reference) may still be paid, so they stay pending and are returned
// to be asked about again.
func (a *Money) FailRailPayouts(ctx context.Context, in FailRailInput) (RailResult, error) {
	var out RailResult
	for _, id := range in.WithdrawalIDs {
		order, _, _, ok, err := a.Store.PayoutOrder(ctx, models.System(in.TenantID), id)
		if err != nil {
			return out, err
		}
		if !ok {
			continue
		}
		if order.Reference != "" {
			out.Pending = append(out.Pending, id)
			continue
		}
		status, err := a.FailPayout(ctx, SettleInput{TenantID: in.TenantID, WithdrawalID: id, Reason: in.Reason, Provider: in.Provider})
		if err != nil {
			return out, err
		}
		if status == models.WithdrawalFailed {
			out.Failed++
		}
	}
	return out, nil
}

// BatchRef names a tenant's daily batch of one rail.
type BatchRef struct {
	TenantID string
	Provider string
	// Day is the UTC date of the batch, 2006-01-02.
	Day string
}

// OpenedBatch is a day's batch and the withdrawals it pays.
type OpenedBatch struct {
	BatchID       string
	WithdrawalIDs []string
}

// OpenPayoutBatch opens (or finds) a tenant's batch of a rail for a day, with its payouts.
func (a *Money) OpenPayoutBatch(ctx context.Context, in BatchRef) (OpenedBatch, error) {
	store, ok := a.Store.(RailStore)
	if !ok {
		return OpenedBatch{}, temporal.NewNonRetryableApplicationError("payout batches are not available", "PayoutNotConfigured", nil)
	}
	b, ids, err := store.OpenPayoutBatch(ctx, models.System(in.TenantID), in.Provider, in.Day)
	return OpenedBatch{BatchID: b.ID, WithdrawalIDs: ids}, err
}

// CloseBatchInput names a batch to close.
type CloseBatchInput struct {
	TenantID string
	BatchID  string
}

// ClosePayoutBatch marks a batch settled once none of its payouts is pending.
func (a *Money) ClosePayoutBatch(ctx context.Context, in CloseBatchInput) error {
	store, ok := a.Store.(RailStore)
	if !ok {
		return nil
	}
	return store.CloseBatch(ctx, models.System(in.TenantID), in.BatchID)
}

// DuePayoutBatches lists the tenants' rails with payouts waiting for the daily batch.
func (a *Money) DuePayoutBatches(ctx context.Context) ([]models.PayoutBatchDue, error) {
	store, ok := a.Store.(RailStore)
	if !ok {
		return nil, nil
	}
	return store.DuePayoutBatches(ctx)
}

// StripeRail pays stripe methods by Stripe Connect transfers, one per payout (a batch is a
// transfer group): Stripe has no batch transfer, and a transfer is final once created.
type StripeRail struct{ Client *rails.Stripe }

// Submit creates one transfer per order.
func (r *StripeRail) Submit(ctx context.Context, creds RailCredentials, batchID string, orders []models.PayoutOrder) (string, map[string]rails.Outcome, error) {
	out := map[string]rails.Outcome{}
	for _, o := range orders {
		var d struct {
			AccountID string `json:"accountId"`
		}
		_ = json.Unmarshal([]byte(o.Details.Reveal()), &d)
		group := o.BatchID
		res, err := r.Client.Transfer(ctx, creds.Secret.Reveal(), rails.TransferOrder{PayoutID: o.PayoutID, WithdrawalID: o.WithdrawalID, TenantID: o.TenantID,
			BatchID: group, Account: d.AccountID, Amount: o.Amount, Currency: o.Currency})
		if err != nil {
			if rej := rejection(err); rej != nil {
				out[o.PayoutID] = rails.Outcome{Settled: true, Reason: rej.Error()}
				continue
			}
			return "", out, err
		}
		out[o.PayoutID] = res
	}
	return "", out, nil
}

// Track is never needed: Stripe transfers settle when created.
func (r *StripeRail) Track(context.Context, RailCredentials, string, []models.PayoutOrder) (map[string]rails.Outcome, error) {
	return map[string]rails.Outcome{}, nil
}

// PayPalRail pays paypal methods through PayPal Payouts: a whole batch in one request.
type PayPalRail struct{ Client *rails.PayPal }

// Submit sends every order in one PayPal batch; PayPal settles the items later.
func (r *PayPalRail) Submit(ctx context.Context, creds RailCredentials, batchID string, orders []models.PayoutOrder) (string, map[string]rails.Outcome, error) {
	out := map[string]rails.Outcome{}
	items := make([]rails.PayPalItem, 0, len(orders))
	for _, o := range orders {
		var d struct {
			Email string `json:"email"`
		}
		_ = json.Unmarshal([]byte(o.Details.Reveal()), &d)
		if d.Email == "" {
			out[o.PayoutID] = rails.Outcome{Settled: true, Reason: "paypal: the payout method names no PayPal account"}
			continue
		}
		items = append(items, rails.PayPalItem{PayoutID: o.PayoutID, Email: d.Email, Amount: o.Amount, Currency: o.Currency})
	}
	if len(items) == 0 {
		return "", out, nil
	}
	b, err := r.Client.Send(ctx, creds.Account, creds.Secret.Reveal(), batchID, items)
	if err != nil {
		if rej := rejection(err); rej != nil {
			for _, it := range items {
				out[it.PayoutID] = rails.Outcome{Settled: true, Reason: rej.Error()}
			}
			return "", out, nil
		}
		return "", out, err
	}
	for _, it := range items {
		out[it.PayoutID] = rails.Outcome{Reference: b.BatchID, Status: b.Status}
	}
	return b.BatchID, out, nil
}

// Track asks PayPal about the batches of the orders (each carries its batch's id).
func (r *PayPalRail) Track(ctx context.Context, creds RailCredentials, _ string, orders []models.PayoutOrder) (map[string]rails.Outcome, error) {
	out := map[string]rails.Outcome{}
	seen := map[string]bool{}
	for _, o := range orders {
		if seen[o.Reference] {
			continue
		}
		seen[o.Reference] = true
		b, err := r.Client.Batch(ctx, creds.Account, creds.Secret.Reveal(), o.Reference)
		if err != nil {
			return out, err
		}
		for id, res := range b.Items {
			out[id] = res
		}
	}
	return out, nil
}

// WiseRail pays wise methods by Wise transfers funded from the tenant's balance, one per
// payout.
type WiseRail struct{ Client *rails.Wise }

// Submit quotes, creates and funds a transfer per order.
func (r *WiseRail) Submit(ctx context.Context, creds RailCredentials, _ string, orders []models.PayoutOrder) (string, map[string]rails.Outcome, error) {
	out := map[string]rails.Outcome{}
	for _, o := range orders {
		var rcp rails.WiseRecipient
		_ = json.Unmarshal([]byte(o.Details.Reveal()), &rcp)
		res, err := r.Client.Pay(ctx, creds.Secret.Reveal(), rails.WiseOrder{PayoutID: o.PayoutID, ProfileID: creds.Account, Recipient: rcp, Amount: o.Amount, Currency: o.Currency})
		if err != nil {
			if rej := rejection(err); rej != nil {
				out[o.PayoutID] = rails.Outcome{Settled: true, Reason: rej.Error()}
				continue
			}
			return "", out, err
		}
		out[o.PayoutID] = res
	}
	return "", out, nil
}

// Track asks Wise about each transfer.
func (r *WiseRail) Track(ctx context.Context, creds RailCredentials, _ string, orders []models.PayoutOrder) (map[string]rails.Outcome, error) {
	out := map[string]rails.Outcome{}
	for _, o := range orders {
		res, err := r.Client.Transfer(ctx, creds.Secret.Reveal(), o.Reference)
		if err != nil {
			if rej := rejection(err); rej != nil {
				return out, fmt.Errorf("wise transfer %s: %w", o.Reference, rej)
			}
			return out, err
		}
		out[o.PayoutID] = res
	}
	return out, nil
}

func rejection(err error) *rails.Rejection {
	var r *rails.Rejection
	if errors.As(err, &r) {
		return r
	}
	return nil
}
