package rails

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"
)

// StripeAccountID is the shape of a Stripe connected account id.
var StripeAccountID = regexp.MustCompile(`^acct_[A-Za-z0-9]{1,64}$`)

// Stripe pays through Stripe Connect transfers and onboards connected accounts, with Stripe's
// official Go client. Every call carries the tenant's own secret key.
type Stripe struct {
	// URL replaces Stripe's API address (tests point it at stripe-mock); "" is Stripe's.
	URL string
	// HTTP sends the requests; nil is a client with a 30 s timeout.
	HTTP *http.Client
}

// client is a Stripe client with the tenant's key. It does not retry by itself: the payout
// workflow retries, with the same idempotency key.
func (s *Stripe) client(key string) *stripe.Client {
	hc := s.HTTP
	if hc == nil {
		hc = defaultClient
	}
	cfg := &stripe.BackendConfig{HTTPClient: hc, MaxNetworkRetries: stripe.Int64(0), LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	if s.URL != "" {
		cfg.URL = stripe.String(s.URL)
	}
	api := stripe.GetBackendWithConfig(stripe.APIBackend, cfg)
	return stripe.NewClient(key, stripe.WithBackends(&stripe.Backends{API: api, Connect: api, Uploads: api}))
}

// TransferOrder is one transfer to a connected account.
type TransferOrder struct {
	// PayoutID is the idempotency key: a retry after a lost answer never pays twice.
	PayoutID     string
	WithdrawalID string
	TenantID     string
	// BatchID groups the transfers of a daily batch (Stripe's transfer_group batch_<id>; a
	// single payout's group is payout_<id>).
	BatchID  string
	Account  string
	Amount   int64
	Currency string
}

// Transfer moves the amount from the platform's balance to the connected account. A Stripe
// transfer is final when it is created, so the outcome is paid with the transfer's id; a
// refusal Stripe gives for the request itself (4xx but rate limits and conflicts) is a
// Rejection carrying Stripe's message.
func (s *Stripe) Transfer(ctx context.Context, key string, t TransferOrder) (Outcome, error) {
	if !StripeAccountID.MatchString(t.Account) {
		return Outcome{}, &Rejection{Provider: "stripe", Code: "invalid_destination", Reason: "the payout method names no Stripe connected account"}
	}
	p := &stripe.TransferCreateParams{
		Amount:      stripe.Int64(t.Amount),
		Currency:    stripe.String(strings.ToLower(t.Currency)),
		Destination: stripe.String(t.Account),
		Description: stripe.String("Partner payout " + t.PayoutID),
	}
	group := "payout_" + t.PayoutID
	if t.BatchID != "" {
		group = "batch_" + t.BatchID
	}
	p.TransferGroup = stripe.String(group)
	p.SetIdempotencyKey(t.PayoutID)
	p.AddMetadata("payout_id", t.PayoutID)
	p.AddMetadata("withdrawal_id", t.WithdrawalID)
	p.AddMetadata("tenant_id", t.TenantID)
	c := s.client(key)
	// A transfer made before for this payout (its answer lost, and Stripe's idempotency key
	// forgotten after 24 hours while the payout still retried) is found by its group and
	// metadata, never made twice.
	for tr, err := range c.V1Transfers.List(ctx, &stripe.TransferListParams{TransferGroup: stripe.String(group), Destination: stripe.String(t.Account)}) {
		if err != nil {
			return Outcome{}, stripeError(err)
		}
		if tr.Metadata["payout_id"] == t.PayoutID {
			return Outcome{Reference: tr.ID, Settled: true, Paid: true, Status: "created"}, nil
		}
	}
	tr, err := c.V1Transfers.Create(ctx, p)
	if err != nil {
		return Outcome{}, stripeError(err)
	}
	return Outcome{Reference: tr.ID, Settled: true, Paid: true, Status: "created"}, nil
}

// Onboarding is a connected account and the link where its owner completes Stripe's onboarding.
type Onboarding struct {
	AccountID string
	URL       string
	ExpiresAt int64
}

// OnboardOrder asks for an onboarding link; AccountID "" creates an Express account first.
type OnboardOrder struct {
	AccountID string
	PartnerID string
	TenantID  string
	Email     string
	Country   string
	// RefreshURL is where Stripe sends an expired link; ReturnURL where the owner returns.
	RefreshURL string
	ReturnURL  string
}

// Onboard creates the partner's Express connected account unless it has one (idempotent per
// partner), and an account link to onboard it.
func (s *Stripe) Onboard(ctx context.Context, key string, o OnboardOrder) (Onboarding, error) {
	c := s.client(key)
	if o.AccountID == "" {
		p := &stripe.AccountCreateParams{
			Type: stripe.String(string(stripe.AccountTypeExpress)),
			Capabilities: &stripe.AccountCreateCapabilitiesParams{
				Transfers: &stripe.AccountCreateCapabilitiesTransfersParams{Requested: stripe.Bool(true)},
			},
		}
		if o.Email != "" {
			p.Email = stripe.String(o.Email)
		}
		if o.Country != "" {
			p.Country = stripe.String(o.Country)
		}
		p.AddMetadata("partner_id", o.PartnerID)
		p.AddMetadata("tenant_id", o.TenantID)
		p.SetIdempotencyKey("partnerd-account-" + o.TenantID + "-" + o.PartnerID)
		a, err := c.V1Accounts.Create(ctx, p)
		if err != nil {
			return Onboarding{}, stripeError(err)
		}
		o.AccountID = a.ID
	}
	l, err := c.V1AccountLinks.Create(ctx, &stripe.AccountLinkCreateParams{
		Account:    stripe.String(o.AccountID),
		RefreshURL: stripe.String(o.RefreshURL),
		ReturnURL:  stripe.String(o.ReturnURL),
		Type:       stripe.String("account_onboarding"),
	})
	if err != nil {
		return Onboarding{}, stripeError(err)
	}
	return Onboarding{AccountID: o.AccountID, URL: l.URL, ExpiresAt: l.ExpiresAt}, nil
}

// StripeEvent is what a verified Stripe webhook says of one of our transfers.
type StripeEvent struct {
	ID   string
	Type string
	// TransferID and the metadata we put on the transfer.
	TransferID   string
	PayoutID     string
	WithdrawalID string
	TenantID     string
	Amount       int64
	Currency     string
	Reversed     bool
}

// VerifyWebhook checks a Stripe webhook's Stripe-Signature header with stripe-go's own check
// (HMAC-SHA256 with the endpoint's secret, five minutes' tolerance) and reads the transfer it
// carries. Events are read whatever API version the endpoint was created with: only the
// transfer's id, amount, currency, reversal and metadata are used, which every version has.
func VerifyWebhook(payload []byte, signature, secret string) (StripeEvent, error) {
	ev, err := webhook.ConstructEventWithOptions(payload, signature, secret, webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
	if err != nil {
		return StripeEvent{}, err
	}
	out := StripeEvent{ID: ev.ID, Type: string(ev.Type)}
	if !strings.HasPrefix(out.Type, "transfer.") || ev.Data == nil {
		return out, nil
	}
	var tr stripe.Transfer
	if err := tr.UnmarshalJSON(ev.Data.Raw); err != nil {
		return out, err
	}
	out.TransferID, out.Amount, out.Currency, out.Reversed = tr.ID, tr.Amount, strings.ToUpper(string(tr.Currency)), tr.Reversed
	out.PayoutID, out.WithdrawalID, out.TenantID = tr.Metadata["payout_id"], tr.Metadata["withdrawal_id"], tr.Metadata["tenant_id"]
	return out, nil
}

// stripeError turns Stripe's refusals of the request into Rejections; network errors, rate
// limits, idempotency conflicts (a concurrent retry) and Stripe's own failures stay retryable.
func stripeError(err error) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return err
	}
	code := se.HTTPStatusCode
	if code >= 400 && code < 500 && code != http.StatusTooManyRequests && code != http.StatusConflict && code != http.StatusUnauthorized {
		reason := se.Msg
		if reason == "" {
			reason = http.StatusText(code)
		}
		return &Rejection{Provider: "stripe", Code: string(se.Code), Reason: reason}
	}
	return err
}
