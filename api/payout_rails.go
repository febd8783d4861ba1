package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/rails"
)

// RailStore is what the payout rails' webhooks need of storage, for a tenant they name.
type RailStore interface {
	StripeWebhookSecret(ctx context.Context, sys models.Scope) (models.Sealed, error)
	SettleRailPayout(ctx context.Context, sys models.Scope, r models.RailSettlement) (bool, *models.Withdrawal, error)
}

// RailDeps are the payout rails the API talks to: Stripe for connected-account onboarding,
// and the store its webhooks settle payouts in. Without them those operations answer 503.
type RailDeps struct {
	Store  RailStore
	Stripe *rails.Stripe
}

// PayoutBatchStore lists payout batches.
type PayoutBatchStore interface {
	ListPayoutBatches(ctx context.Context, pg models.Page) ([]models.PayoutBatch, string, error)
}

// StripeOnboardingInput asks for a Stripe Connect onboarding link.
type StripeOnboardingInput struct {
	Body struct {
		PartnerID  string `json:"partnerId,omitempty" maxLength:"36" doc:"Operators onboard this partner; partners always onboard themselves"`
		Email      string `json:"email,omitempty" maxLength:"320" format:"email" doc:"The email Stripe prefills for a new connected account"`
		Country    string `json:"country,omitempty" maxLength:"2" pattern:"^[A-Z]{2}$" doc:"ISO 3166-1 alpha-2 country of a new connected account"`
		RefreshURL string `json:"refreshUrl" minLength:"1" maxLength:"2000" doc:"Where Stripe sends the partner when the link expired (an absolute http(s) URL, usually the portal's payout page)"`
		ReturnURL  string `json:"returnUrl" minLength:"1" maxLength:"2000" doc:"Where Stripe sends the partner after onboarding"`
	}
}

// StripeOnboarding is a connected account's payout method and its onboarding link.
type StripeOnboarding struct {
	Method    PayoutMethod `json:"method" doc:"The partner's stripe payout method (made with the connected account if the partner had none)"`
	URL       string       `json:"url" doc:"Stripe's onboarding page for the partner, valid for a few minutes"`
	ExpiresAt time.Time    `json:"expiresAt"`
}

// StripeOnboardingOutput answers an onboarding link.
type StripeOnboardingOutput struct{ Body StripeOnboarding }

// StripeWebhookInput is one of Stripe's webhooks for a tenant.
type StripeWebhookInput struct {
	TenantID  string `path:"tenantId" maxLength:"36"`
	Signature string `header:"Stripe-Signature" maxLength:"4000" doc:"Stripe's signature of the body"`
	// Body is Stripe's event, whatever its shape; RawBody its bytes, which the signature covers.
	Body    map[string]any `maxProperties:"50"`
	RawBody []byte
}

// StripeWebhookOutput acknowledges a webhook.
type StripeWebhookOutput struct {
	Body struct {
		Received bool `json:"received"`
		Settled  bool `json:"settled" doc:"Whether the event settled one of the tenant's payouts"`
	}
}

// PayoutBatch is one provider's daily batch of payouts.
type PayoutBatch struct {
	ID        string    `json:"id"`
	Provider  string    `json:"provider" enum:"stripe,paypal,wise"`
	Day       string    `json:"day" doc:"The UTC date the batch pays" example:"2026-11-28"`
	Status    string    `json:"status" enum:"open,settled"`
	Reference string    `json:"reference,omitempty" doc:"The provider's id of the batch (PayPal's payout_batch_id)"`
	Payouts   int       `json:"payouts"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func payoutBatchOf(b *models.PayoutBatch) PayoutBatch {
	return PayoutBatch{ID: b.ID, Provider: b.Provider, Day: b.Day, Status: b.Status, Reference: b.Reference, Payouts: b.Payouts,
		CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
}

// PayoutBatchListOutput is a page of payout batches.
type PayoutBatchListOutput struct{ Body ListBody[PayoutBatch] }

func registerPayoutRailRoutes(s *Server) {
	tags := []string{tagWithdrawals}
	register(s, huma.Operation{OperationID: "onboard-stripe-account", Method: http.MethodPost, Path: "/api/payout-methods/stripe-onboarding", Tags: tags,
		RequestBody: requestExample(`{"refreshUrl": "https://partners.example.com/portal/payouts", "returnUrl": "https://partners.example.com/portal/payouts?onboarded=1", "country": "DE"}`),
		Summary:     "Start or resume a partner's Stripe Connect onboarding",
		Description: "Creates the partner's Express connected account and its stripe payout method unless it has one, and answers Stripe's onboarding link for it. Needs the tenant's Stripe secret key (409 PAYOUT_RAIL_NOT_CONFIGURED). Partners onboard themselves; operators name the partner.",
		Security:    UsersOrKeys, Errors: []int{http.StatusForbidden, http.StatusConflict, http.StatusServiceUnavailable}},
		Requires(authz.WithdrawalsWrite), s.onboardStripeAccount)
	register(s, huma.Operation{OperationID: "receive-stripe-webhook", Method: http.MethodPost, Path: "/api/payout-webhooks/stripe/{tenantId}", Tags: tags,
		RequestBody: requestExample(`{"id": "evt_1QJ0", "object": "event", "type": "transfer.created", "data": {"object": {"id": "tr_1QJ0", "object": "transfer", "amount": 25000, "currency": "eur", "destination": "acct_1QJ0", "metadata": {"payout_id": "01936f3b-4e5f-7a6b-9c7d-8e9f0a1b2c3d", "withdrawal_id": "01936f3b-4e5f-7a6b-9c7d-8e9f0a1b2c3e"}}}}`),
		Summary:     "Receive Stripe's webhook for a tenant",
		Description: "Public: Stripe calls it, and it is verified with the tenant's webhook signing secret by stripe-go's own signature check (400 STRIPE_SIGNATURE_INVALID otherwise). transfer.created settles a pending stripe payout as paid, transfer.reversed fails one still pending with Stripe's word; other events are acknowledged and ignored.",
		Errors:      []int{http.StatusNotFound, http.StatusServiceUnavailable}},
		Public(), s.receiveStripeWebhook)
	// The raw bytes are bounded like every body (huma's 1 MiB); the document says so.
	if p := s.api.OpenAPI().Paths["/api/payout-webhooks/stripe/{tenantId}"]; p != nil && p.Post != nil && p.Post.RequestBody != nil {
		for _, mt := range p.Post.RequestBody.Content {
			if mt.Schema != nil && mt.Schema.Type == "string" {
				mt.Schema.MaxLength = ptrInt(1 << 20)
			}
		}
	}
	register(s, huma.Operation{OperationID: "list-payout-batches", Method: http.MethodGet, Path: "/api/payout-batches", Tags: tags,
		Summary: "List the daily payout batches", Description: "Operators only: one batch per provider per day while the tenant batches payouts.", Security: UsersOrKeys},
		Requires(authz.WithdrawalsApprove), s.listPayoutBatches)
}

// errRailsUnavailable answers when the server has no payout rails.
func errRailsUnavailable() error {
	return models.Errorf(models.KindUnavailable, "PAYOUT_RAILS_UNAVAILABLE", "payout rails are not configured on this server")
}

// absoluteHTTPURL reports whether raw is an absolute http(s) URL.
func absoluteHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// onboardStripeAccount answers a Stripe onboarding link for the partner's connected account.
func (s *Server) onboardStripeAccount(ctx context.Context, in *StripeOnboardingInput) (*StripeOnboardingOutput, error) {
	b := in.Body
	var fs []models.FieldError
	for loc, v := range map[string]string{"body.refreshUrl": b.RefreshURL, "body.returnUrl": b.ReturnURL} {
		if !absoluteHTTPURL(v) {
			fs = append(fs, models.FieldError{Location: loc, Message: "an absolute http or https URL"})
		}
	}
	if len(fs) > 0 {
		return nil, models.Invalid("INVALID_ONBOARDING", "the onboarding request is not valid", fs...)
	}
	keys := s.deps.Webhooks.Keyring
	if s.deps.Rails.Stripe == nil || keys == nil {
		return nil, errRailsUnavailable()
	}
	p := models.PrincipalFrom(ctx)
	partnerID := b.PartnerID
	if p.PartnerID != "" {
		if partnerID != "" && partnerID != p.PartnerID {
			return nil, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only onboard your own partner organisation")
		}
		partnerID = p.PartnerID
	}
	if partnerID == "" {
		return nil, models.Invalid("INVALID_ONBOARDING", "the onboarding request is not valid", models.FieldError{Location: "body.partnerId", Message: "operators name the partner"})
	}
	sc := s.withdrawals(ctx)
	st, err := s.payoutSettingsForRails(ctx)
	if err != nil {
		return nil, err
	}
	if st.StripeSecretKey == "" {
		return nil, models.Conflict("PAYOUT_RAIL_NOT_CONFIGURED", "the tenant has not set up Stripe payouts")
	}
	key, err := keys.Open(st.StripeSecretKey, models.SealContext{TenantID: p.TenantID, Table: "payout_settings", RowID: p.TenantID, Field: "stripe_secret_key"})
	if err != nil {
		return nil, err
	}
	// The partner's connected account, if it has a stripe method already.
	var method *models.PayoutMethod
	accountID := ""
	methods, _, err := sc.ListPayoutMethods(ctx, partnerID, models.Page{Limit: 100})
	if err != nil {
		return nil, err
	}
	for i := range methods {
		if methods[i].Kind != models.PayoutStripe {
			continue
		}
		plain, err := keys.Open(methods[i].Details, models.SealContext{TenantID: p.TenantID, Table: "payout_methods", RowID: methods[i].ID, Field: "details"})
		if err != nil {
			continue
		}
		var d map[string]string
		if json.Unmarshal([]byte(plain.Reveal()), &d) == nil && rails.StripeAccountID.MatchString(d["accountId"]) {
			method, accountID = &methods[i], d["accountId"]
			break
		}
	}
	ob, err := s.deps.Rails.Stripe.Onboard(ctx, key.Reveal(), rails.OnboardOrder{AccountID: accountID, PartnerID: partnerID, TenantID: p.TenantID,
		Email: b.Email, Country: b.Country, RefreshURL: b.RefreshURL, ReturnURL: b.ReturnURL})
	if err != nil {
		return nil, railProblem(err)
	}
	if method == nil {
		plain, _ := json.Marshal(map[string]string{"accountId": ob.AccountID})
		method = &models.PayoutMethod{ID: models.NewID(), PartnerID: partnerID, Kind: models.PayoutStripe, Label: "Stripe", Masked: "Stripe " + maskTail(ob.AccountID)}
		if method.Details, err = keys.Seal(models.Secret(plain), models.SealContext{TenantID: p.TenantID, Table: "payout_methods", RowID: method.ID, Field: "details"}); err != nil {
			return nil, err
		}
		if err := sc.AddPayoutMethod(ctx, method); err != nil {
			return nil, err
		}
	}
	out := &StripeOnboardingOutput{Body: StripeOnboarding{Method: payoutMethodOf(method), URL: ob.URL, ExpiresAt: time.Unix(ob.ExpiresAt, 0).UTC()}}
	return out, nil
}

// payoutSettingsForRails reads the tenant's payout settings whatever the caller's audience:
// a partner onboarding itself needs the tenant's Stripe key, never shown to it.
func (s *Server) payoutSettingsForRails(ctx context.Context) (models.PayoutSettings, error) {
	tenant := *models.PrincipalFrom(ctx)
	tenant.PartnerID = ""
	return s.deps.Modules.Withdrawals(&tenant).PayoutSettings(ctx)
}

// railProblem turns a rail's refusal into 409 PAYOUT_RAIL_REFUSED with its words, and the
// rail's unavailability into 503 PAYOUT_RAIL_UNAVAILABLE.
func railProblem(err error) error {
	if rails.IsRejection(err) {
		return models.Conflict("PAYOUT_RAIL_REFUSED", models.Clip(err.Error(), 500))
	}
	return models.Errorf(models.KindUnavailable, "PAYOUT_RAIL_UNAVAILABLE", "the payout rail did not answer; try again")
}

// receiveStripeWebhook verifies one of Stripe's webhooks and settles the payout it names.
func (s *Server) receiveStripeWebhook(ctx context.Context, in *StripeWebhookInput) (*StripeWebhookOutput, error) {
	if s.deps.Rails.Store == nil || s.deps.Webhooks.Keyring == nil {
		return nil, errRailsUnavailable()
	}
	sys := models.System(in.TenantID)
	sealed, err := s.deps.Rails.Store.StripeWebhookSecret(ctx, sys)
	if err != nil {
		return nil, err
	}
	if sealed == "" {
		return nil, models.NotFound("STRIPE_WEBHOOK_NOT_CONFIGURED", "Stripe webhook endpoint")
	}
	secret, err := s.deps.Webhooks.Keyring.Open(sealed, models.SealContext{TenantID: in.TenantID, Table: "payout_settings", RowID: in.TenantID, Field: "stripe_webhook_secret"})
	if err != nil {
		return nil, err
	}
	ev, err := rails.VerifyWebhook(in.RawBody, in.Signature, secret.Reveal())
	if err != nil {
		return nil, codedProblem(ctx, http.StatusBadRequest, "STRIPE_SIGNATURE_INVALID", "the webhook's Stripe-Signature does not verify")
	}
	out := &StripeWebhookOutput{}
	out.Body.Received = true
	if (ev.TenantID != "" && ev.TenantID != in.TenantID) || ev.PayoutID == "" {
		return out, nil
	}
	r := models.RailSettlement{Provider: models.ProviderStripe, PayoutID: ev.PayoutID, WithdrawalID: ev.WithdrawalID, Amount: ev.Amount, Currency: ev.Currency,
		Reference: ev.TransferID}
	switch {
	case ev.Type == "transfer.created" && !ev.Reversed:
		r.Paid = true
	case ev.Type == "transfer.reversed":
		r.Reason = "stripe: the transfer " + ev.TransferID + " was reversed"
	default:
		return out, nil
	}
	settled, _, err := s.deps.Rails.Store.SettleRailPayout(ctx, sys, r)
	if err != nil {
		return nil, err
	}
	out.Body.Settled = settled
	return out, nil
}

// listPayoutBatches lists the tenant's payout batches.
func (s *Server) listPayoutBatches(ctx context.Context, in *ListParams) (*PayoutBatchListOutput, error) {
	store, ok := s.withdrawals(ctx).(PayoutBatchStore)
	if !ok {
		return nil, errRailsUnavailable()
	}
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.PayoutBatch, string, error) {
		return store.ListPayoutBatches(ctx, pg)
	}, payoutBatchOf)
	return &PayoutBatchListOutput{Body: body}, err
}
