package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/partnerd/partnerd/models"
)

// MoneyStore is what the commission and payout activities need of storage.
type MoneyStore interface {
	AccrueCommissions(ctx context.Context, sys models.Scope, eventID string) ([]models.AccrualResult, error)
	ClawbackCommissions(ctx context.Context, sys models.Scope, eventID string) ([]string, error)
	ReleaseAccrual(ctx context.Context, sys models.Scope, accrualID string, at time.Time) (models.AccrualRelease, error)
	PayoutOrder(ctx context.Context, sys models.Scope, withdrawalID string) (models.PayoutOrder, models.Sealed, models.Sealed, bool, error)
	CountPayoutAttempt(ctx context.Context, sys models.Scope, payoutID string) error
	CompletePayout(ctx context.Context, sys models.Scope, withdrawalID, reference string) (*models.Withdrawal, error)
	FailPayout(ctx context.Context, sys models.Scope, withdrawalID, reason string) (*models.Withdrawal, error)
}

// HTTPDoer sends one HTTP request.
type HTTPDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// Defaults of the payout retry schedule of the http provider: exponential backoff from 10 s,
// doubling up to an hour apart, 40 attempts (about a day and a half).
const (
	DefaultPayoutRetryInitial = 10 * time.Second
	DefaultPayoutRetryMax     = time.Hour
	DefaultPayoutMaxAttempts  = 40
)

// Money holds the activities of commissions and payouts.
type Money struct {
	Store MoneyStore
	// Keyring opens payout details and the provider's signing secret.
	Keyring *models.Keyring
	// Providers pay approved withdrawals by provider name (http); manual payouts wait for
	// finance instead.
	Providers map[string]PayoutProvider
	// Rails pay the partners' stripe, paypal and wise methods, by provider name.
	Rails map[string]PayoutRail
	// PollEvery is how often a submitted rail payout is asked about; zero is an hour.
	PollEvery time.Duration
	// RetryInitial, RetryMax and MaxAttempts shape the http provider's retries; zero values
	// take the defaults (tests shorten them).
	RetryInitial time.Duration
	RetryMax     time.Duration
	MaxAttempts  int32
	// Observer is told of every provider call and settled payout; nil records nothing.
	Observer Observer
}

// EventRef names one event of a tenant.
type EventRef struct {
	TenantID string
	EventID  string
}

// Accrue runs the commission plans an event triggers. A refusal of the domain (an amount out
// of range) is final: retrying cannot change it.
func (a *Money) Accrue(ctx context.Context, in EventRef) ([]models.AccrualResult, error) {
	res, err := a.Store.AccrueCommissions(ctx, models.System(in.TenantID), in.EventID)
	return res, final(err)
}

// Clawback reverses the accruals an event undoes and returns their ids.
func (a *Money) Clawback(ctx context.Context, in EventRef) ([]string, error) {
	res, err := a.Store.ClawbackCommissions(ctx, models.System(in.TenantID), in.EventID)
	return res, final(err)
}

// final makes a domain error non-retryable; infrastructure errors stay retryable.
func final(err error) error {
	if d, ok := models.AsError(err); ok && d.Kind != models.KindInternal && d.Kind != models.KindUnavailable {
		return temporal.NewNonRetryableApplicationError(d.Error(), d.Code, err)
	}
	return err
}

// AccrualRef names one accrual of a tenant, and the workflow's time.
type AccrualRef struct {
	TenantID  string
	AccrualID string
	// At is the workflow's clock, so that a timer and its test agree on what is due.
	At time.Time
}

// ReleaseAccrual makes an accrual available once its holding period ended.
func (a *Money) ReleaseAccrual(ctx context.Context, in AccrualRef) (models.AccrualRelease, error) {
	return a.Store.ReleaseAccrual(ctx, models.System(in.TenantID), in.AccrualID, in.At)
}

// WithdrawalRef names one withdrawal of a tenant.
type WithdrawalRef struct {
	TenantID     string
	WithdrawalID string
}

// PayoutPlan is what a payout workflow does: which provider, until when a manual payout waits,
// and how the http provider retries. It carries no secret.
type PayoutPlan struct {
	// Pending is false when the payout was settled before (paid, failed) or never approved.
	Pending      bool
	PayoutID     string
	Provider     string
	ConfirmBy    time.Time
	RetryInitial time.Duration
	RetryMax     time.Duration
	MaxAttempts  int32
	// Batched is true when the tenant's daily batch pays the payout (its workflow leaves it
	// to the batch); PollEvery is how often a rail payout is asked about.
	Batched   bool
	PollEvery time.Duration
}

// PreparePayout reads what the payout of a withdrawal needs.
func (a *Money) PreparePayout(ctx context.Context, in WithdrawalRef) (PayoutPlan, error) {
	order, _, _, ok, err := a.Store.PayoutOrder(ctx, models.System(in.TenantID), in.WithdrawalID)
	if err != nil || !ok {
		return PayoutPlan{}, err
	}
	plan := PayoutPlan{Pending: true, PayoutID: order.PayoutID, Provider: order.Provider, ConfirmBy: order.ConfirmBy,
		RetryInitial: a.RetryInitial, RetryMax: a.RetryMax, MaxAttempts: a.MaxAttempts,
		Batched: order.Batched || order.BatchID != "", PollEvery: a.PollEvery}
	if plan.PollEvery <= 0 {
		plan.PollEvery = DefaultPayoutPollEvery
	}
	if plan.RetryInitial <= 0 {
		plan.RetryInitial = DefaultPayoutRetryInitial
	}
	if plan.RetryMax <= 0 {
		plan.RetryMax = DefaultPayoutRetryMax
	}
	if plan.MaxAttempts <= 0 {
		plan.MaxAttempts = DefaultPayoutMaxAttempts
	}
	return plan, nil
}

// payoutRequest is the body the http provider receives.
type payoutRequest struct {
	PayoutID     string          `json:"payoutId"`
	WithdrawalID string          `json:"withdrawalId"`
	PartnerID    string          `json:"partnerId"`
	Amount       int64           `json:"amount"`
	Currency     string          `json:"currency"`
	Method       string          `json:"method"`
	Details      json.RawMessage `json:"details"`
}

// PayoutProvider pays one payout order and returns the payment's reference. Its errors are
// retried by the payout workflow with backoff, unless they are non-retryable. (The manual
// provider is not called: finance pays and confirms through the API.)
type PayoutProvider interface {
	Pay(ctx context.Context, order models.PayoutOrder) (string, error)
}

// SendPayout pays a withdrawal through the tenant's provider: it reads the order, opens the
// payout details and the provider's secret, counts the attempt and calls the provider.
func (a *Money) SendPayout(ctx context.Context, in WithdrawalRef) (string, error) {
	order, sealedDetails, sealedSecret, ok, err := a.Store.PayoutOrder(ctx, models.System(in.TenantID), in.WithdrawalID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", nil // settled meanwhile: completing again is a no-op
	}
	provider := a.Providers[order.Provider]
	if provider == nil {
		return "", temporal.NewNonRetryableApplicationError("no payout provider "+order.Provider+" is configured", "PayoutNotConfigured", nil)
	}
	if order.Details, err = a.Keyring.Open(sealedDetails, models.SealContext{TenantID: in.TenantID, Table: "payout_methods", RowID: order.MethodID, Field: "details"}); err != nil {
		return "", temporal.NewNonRetryableApplicationError("the payout details cannot be opened", "PayoutDetailsSealed", err)
	}
	if sealedSecret != "" {
		if order.HTTPSecret, err = a.Keyring.Open(sealedSecret, models.SealContext{TenantID: in.TenantID, Table: "payout_settings", RowID: in.TenantID, Field: "http_secret"}); err != nil {
			return "", temporal.NewNonRetryableApplicationError("the provider's signing secret cannot be opened", "PayoutSecretSealed", err)
		}
	}
	if err := a.Store.CountPayoutAttempt(ctx, models.System(in.TenantID), order.PayoutID); err != nil {
		return "", err
	}
	ref, err := provider.Pay(ctx, order)
	outcome := PayoutSucceeded
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &app) && app.NonRetryable():
		outcome = PayoutRejected
	case err != nil:
		outcome = PayoutFailed
	}
	observer(a.Observer).PayoutAttempt(order.Provider, outcome)
	return ref, err
}

// HTTPProvider pays by a POST to the tenant's endpoint, signed like our webhooks (Standard
// Webhooks headers, the payout id as message id), with the payout id as Idempotency-Key so that
// a retry after a lost answer never pays twice. A 2xx answer is paid (its JSON `reference`, if
// any, is the reference); anything else is an error the workflow retries.
type HTTPProvider struct {
	HTTP HTTPDoer
}

// Pay posts the order to the provider.
func (p *HTTPProvider) Pay(ctx context.Context, order models.PayoutOrder) (string, error) {
	if order.HTTPURL == "" || order.HTTPSecret == "" || p.HTTP == nil {
		return "", temporal.NewNonRetryableApplicationError("the http payout provider is not configured", "PayoutNotConfigured", nil)
	}
	body, err := json.Marshal(payoutRequest{PayoutID: order.PayoutID, WithdrawalID: order.WithdrawalID, PartnerID: order.PartnerID,
		Amount: order.Amount, Currency: order.Currency, Method: order.MethodKind, Details: json.RawMessage(order.Details.Reveal())})
	if err != nil {
		return "", err
	}
	req, err := signedPostWith(ctx, order.HTTPURL, "partnerd-payouts/1", order.PayoutID, order.HTTPSecret, body)
	if err != nil {
		return "", temporal.NewNonRetryableApplicationError("the provider's URL or signing secret is not valid", "PayoutRequestInvalid", err)
	}
	req.Header.Set("Idempotency-Key", order.PayoutID)
	resp, err := p.HTTP.Do(req)
	if err != nil {
		return "", fmt.Errorf("payout provider unreachable: %s", describeSendError(err, 30*time.Second))
	}
	defer func() { _ = resp.Body.Close() }()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("payout provider answered %d", resp.StatusCode)
	}
	var reply struct {
		Reference string `json:"reference"`
	}
	if json.Unmarshal(answer, &reply) == nil && reply.Reference != "" && len(reply.Reference) <= 200 {
		return reply.Reference, nil
	}
	return order.PayoutID, nil
}

// SettleInput completes or fails a payout; By is the operator who confirmed it by hand.
type SettleInput struct {
	TenantID     string
	WithdrawalID string
	Reference    string
	Reason       string
	By           string
	// Provider is the payout's provider (for the metrics).
	Provider string
}

func settleContext(ctx context.Context, in SettleInput) context.Context {
	if in.By == "" {
		return ctx
	}
	return models.WithPrincipal(ctx, &models.Principal{Kind: models.PrincipalOperator, TenantID: in.TenantID, UserID: in.By})
}

// CompletePayout records a payout as paid and moves the held money to paid.
func (a *Money) CompletePayout(ctx context.Context, in SettleInput) (string, error) {
	w, err := a.Store.CompletePayout(settleContext(ctx, in), models.System(in.TenantID), in.WithdrawalID, in.Reference)
	if err != nil {
		return "", err
	}
	observer(a.Observer).PayoutSettled(in.Provider, PayoutPaid)
	return w.Status, nil
}

// FailPayout records a payout as failed for good and releases the held money.
func (a *Money) FailPayout(ctx context.Context, in SettleInput) (string, error) {
	w, err := a.Store.FailPayout(settleContext(ctx, in), models.System(in.TenantID), in.WithdrawalID, in.Reason)
	if err != nil {
		return "", err
	}
	observer(a.Observer).PayoutSettled(in.Provider, PayoutFailed)
	return w.Status, nil
}
