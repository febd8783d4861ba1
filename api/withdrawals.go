package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/rails"
)

const tagWithdrawals = "Withdrawals"

// WithdrawalStore is what the payout method, payout settings and withdrawal operations need of storage, as the caller sees it.
type WithdrawalStore interface {
	AddPayoutMethod(ctx context.Context, m *models.PayoutMethod) error
	ListPayoutMethods(ctx context.Context, partnerID string, pg models.Page) ([]models.PayoutMethod, string, error)
	PayoutMethod(ctx context.Context, id string) (*models.PayoutMethod, error)
	RemovePayoutMethod(ctx context.Context, id string) error
	PayoutSettings(ctx context.Context) (models.PayoutSettings, error)
	SavePayoutSettings(ctx context.Context, st models.PayoutSettings, keepSecret bool) (models.PayoutSettings, error)
	ListWithdrawals(ctx context.Context, f models.WithdrawalFilter, pg models.Page) ([]models.Withdrawal, string, error)
	Withdrawal(ctx context.Context, id string) (*models.Withdrawal, *models.Payout, error)
	RequestWithdrawal(ctx context.Context, nw models.NewWithdrawal, key string) (*models.Withdrawal, error)
	CancelWithdrawal(ctx context.Context, id, reason string) (*models.Withdrawal, error)
	ApproveWithdrawal(ctx context.Context, id string) (*models.Withdrawal, error)
	RejectWithdrawal(ctx context.Context, id, reason string) (*models.Withdrawal, error)
	RecordPayoutDecision(ctx context.Context, id string, paid bool, referenceOrReason string) (*models.Withdrawal, error)
}

// withdrawals is the payout and withdrawal store as the caller sees it.
func (s *Server) withdrawals(ctx context.Context) WithdrawalStore {
	return s.deps.Modules.Withdrawals(models.PrincipalFrom(ctx))
}

// PayoutSignaler hands finance's decision on a manual payout to the payout waiting for it.
// Both methods return once the decision is delivered; the payout settles the withdrawal
// shortly after.
type PayoutSignaler interface {
	// ConfirmPayout reports that the withdrawal was paid, with the bank's reference.
	ConfirmPayout(ctx context.Context, tenantID, withdrawalID, reference, byUserID string) error
	// FailPayout reports that the withdrawal could not be paid; its funds return to the
	// partner's available balance.
	FailPayout(ctx context.Context, tenantID, withdrawalID, reason, byUserID string) error
}

// Limits of payout details.
const (
	maxPayoutDetails     = 20
	maxPayoutDetailChars = 200
)

// PayoutMethod is where a partner is paid, as the API shows it: never its details.
type PayoutMethod struct {
	ID        string    `json:"id"`
	PartnerID string    `json:"partnerId"`
	Kind      string    `json:"kind" enum:"bank,paypal,stripe,wise,other"`
	Label     string    `json:"label,omitempty"`
	Masked    string    `json:"masked" doc:"A hint to recognise the method, e.g. IBAN ••••1234; the details themselves are never shown" example:"IBAN ••••1234"`
	CreatedBy string    `json:"createdBy,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

func payoutMethodOf(m *models.PayoutMethod) PayoutMethod {
	return PayoutMethod{ID: m.ID, PartnerID: m.PartnerID, Kind: m.Kind, Label: m.Label, Masked: m.Masked, CreatedBy: m.CreatedBy, CreatedAt: m.CreatedAt}
}

// PayoutSettings are the tenant's rules for withdrawals and payouts.
type PayoutSettings struct {
	Provider      string           `json:"provider" enum:"manual,http" doc:"manual: finance confirms each payout with a bank reference; http: a signed POST to httpUrl pays it"`
	HTTPURL       string           `json:"httpUrl,omitempty" doc:"The endpoint of the http provider"`
	HTTPSecretSet bool             `json:"httpSecretSet" doc:"Whether a signing secret for the http provider is stored; it is never shown"`
	Minimums      map[string]int64 `json:"minimums" nullable:"false" doc:"The smallest withdrawal per currency, in minor units" example:"{\"EUR\":5000}"`
	ConfirmDays   int              `json:"confirmDays" doc:"Days a manual payout waits for confirmation before it fails"`
	// The payout rails: a partner's stripe, paypal or wise method is paid through its rail once
	// the tenant set the rail's credentials; no secret is ever shown.
	StripeSecretKeySet     bool       `json:"stripeSecretKeySet" doc:"Whether a Stripe secret key is stored (stripe methods are paid by Connect transfers)"`
	StripeWebhookSecretSet bool       `json:"stripeWebhookSecretSet" doc:"Whether the signing secret of Stripe's webhook endpoint is stored"`
	StripeWebhookPath      string     `json:"stripeWebhookPath" doc:"The path of the tenant's Stripe webhook endpoint, to register at Stripe (events transfer.created and transfer.reversed)"`
	PayPalClientID         string     `json:"paypalClientId,omitempty" doc:"The PayPal REST app's client id (paypal methods are paid through PayPal Payouts once the secret is set too)"`
	PayPalSecretSet        bool       `json:"paypalSecretSet"`
	WiseProfileID          string     `json:"wiseProfileId,omitempty" doc:"The Wise business profile that pays"`
	WiseTokenSet           bool       `json:"wiseTokenSet"`
	BatchDaily             bool       `json:"batchDaily" doc:"Whether the rails' payouts wait for one batch per provider per day"`
	UpdatedAt              *time.Time `json:"updatedAt,omitempty"`
}

func payoutSettingsOf(st *models.PayoutSettings) PayoutSettings {
	out := PayoutSettings{Provider: st.Provider, HTTPURL: st.HTTPURL, HTTPSecretSet: st.HTTPSecret != "", Minimums: map[string]int64{}, ConfirmDays: st.ConfirmDays,
		StripeSecretKeySet: st.StripeSecretKey != "", StripeWebhookSecretSet: st.StripeWebhookSecret != "", StripeWebhookPath: "/api/payout-webhooks/stripe/" + st.TenantID,
		PayPalClientID: st.PayPalClientID, PayPalSecretSet: st.PayPalSecret != "", WiseProfileID: st.WiseProfileID, WiseTokenSet: st.WiseToken != "", BatchDaily: st.BatchDaily}
	_ = json.Unmarshal([]byte(st.Minimums), &out.Minimums)
	if out.Minimums == nil {
		out.Minimums = map[string]int64{}
	}
	if !st.UpdatedAt.IsZero() {
		at := st.UpdatedAt
		out.UpdatedAt = &at
	}
	return out
}

// Payout is the execution of an approved withdrawal through the payout provider.
type Payout struct {
	ID        string `json:"id"`
	Provider  string `json:"provider" enum:"manual,http,stripe,paypal,wise"`
	Status    string `json:"status" enum:"pending,paid,failed"`
	Attempts  int    `json:"attempts" doc:"Calls of the provider so far"`
	Reference string `json:"reference,omitempty" doc:"The payment reference of a paid payout"`
	Failure   string `json:"failure,omitempty" doc:"Why the payout failed"`
}

// Withdrawal is a partner's request to be paid out.
type Withdrawal struct {
	ID             string     `json:"id"`
	PartnerID      string     `json:"partnerId"`
	Amount         int64      `json:"amount" doc:"In minor units of currency"`
	Currency       string     `json:"currency"`
	PayoutMethodID string     `json:"payoutMethodId"`
	Account        string     `json:"account" enum:"commission,mdf" doc:"What it draws on: the commission balance or the MDF balance"`
	Status         string     `json:"status" enum:"requested,approved,rejected,cancelled,paid,failed"`
	Reason         string     `json:"reason,omitempty" doc:"Why it was rejected, cancelled or failed"`
	RequestedBy    string     `json:"requestedBy,omitempty"`
	ReviewedBy     string     `json:"reviewedBy,omitempty"`
	ReviewedAt     *time.Time `json:"reviewedAt,omitempty"`
	Provider       string     `json:"provider,omitempty" doc:"The payout provider chosen at approval"`
	Reference      string     `json:"reference,omitempty" doc:"The payment reference once paid"`
	PaidAt         *time.Time `json:"paidAt,omitempty"`
	FailedAt       *time.Time `json:"failedAt,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	Payout         *Payout    `json:"payout,omitempty" doc:"The payout of an approved withdrawal (single withdrawals only)"`
	Warning        string     `json:"warning,omitempty" doc:"What the request or approval that answered warns about, e.g. a partner without an approved tax record while the tenant warns on them; not stored"`
}

func withdrawalOf(w *models.Withdrawal) Withdrawal {
	return Withdrawal{ID: w.ID, PartnerID: w.PartnerID, Amount: w.Amount, Currency: w.Currency, PayoutMethodID: w.PayoutMethodID, Account: w.Account,
		Status: w.Status, Reason: w.Reason, RequestedBy: w.RequestedBy, ReviewedBy: str(w.ReviewedBy), ReviewedAt: w.ReviewedAt,
		Provider: w.Provider, Reference: w.Reference, PaidAt: w.PaidAt, FailedAt: w.FailedAt, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
		Warning: w.Warning}
}

func withdrawalWithPayout(w *models.Withdrawal, p *models.Payout) Withdrawal {
	out := withdrawalOf(w)
	if p != nil {
		out.Payout = &Payout{ID: p.ID, Provider: p.Provider, Status: p.Status, Attempts: p.Attempts, Reference: p.Reference, Failure: p.Failure}
	}
	return out
}

// AddPayoutMethodInput adds a payout method.
type AddPayoutMethodInput struct {
	Body struct {
		PartnerID string        `json:"partnerId,omitempty" maxLength:"36" doc:"Operators add for this partner; partners always add for themselves"`
		Kind      string        `json:"kind" enum:"bank,paypal,stripe,wise,other"`
		Label     string        `json:"label,omitempty" maxLength:"200" doc:"A name the partner recognises, e.g. Main account"`
		Details   PayoutDetails `json:"details" minProperties:"1" maxProperties:"20" doc:"The method's fields, at most 200 characters each: bank needs iban (or accountNumber), e.g. {\"iban\":\"…\",\"bic\":\"…\",\"accountHolder\":\"…\"}; paypal needs email; stripe needs accountId (a Stripe connected account, acct_…; POST /api/payout-methods/stripe-onboarding makes one); wise needs recipientId (a Wise recipient account) or iban and accountHolder. Stored sealed and never shown again."`
	}
}

// ListPayoutMethodsInput filters payout methods.
type ListPayoutMethodsInput struct {
	ListParams
	PartnerID string `query:"partnerId" maxLength:"36"`
}

// PayoutSettingsInput replaces the tenant's payout settings.
type PayoutSettingsInput struct {
	Body struct {
		Provider    string    `json:"provider" enum:"manual,http"`
		HTTPURL     string    `json:"httpUrl,omitempty" maxLength:"2000" doc:"Required for http: an absolute http or https URL; internal addresses are refused"`
		HTTPSecret  string    `json:"httpSecret,omitempty" maxLength:"200" doc:"The signing secret of the http provider (whsec_ and the base64 of 24 to 64 bytes); omit it to keep the stored one. Never shown again."`
		Minimums    AmountMap `json:"minimums,omitempty" maxProperties:"200" doc:"The smallest withdrawal per ISO 4217 currency, in minor units (0 or more)" example:"{\"EUR\":5000}"`
		ConfirmDays int       `json:"confirmDays,omitempty" minimum:"1" maximum:"90" default:"14" doc:"Days a manual payout waits for confirmation before it fails"`
		// The rails' secrets: omitted keeps the stored one, "" removes it. Never shown again.
		StripeSecretKey     *string `json:"stripeSecretKey,omitempty" maxLength:"255" pattern:"^((sk|rk)_(test|live)_[A-Za-z0-9]{8,240})?$" doc:"A Stripe secret or restricted key (sk_… or rk_…) with Connect transfers and accounts; omit to keep, empty to remove"`
		StripeWebhookSecret *string `json:"stripeWebhookSecret,omitempty" maxLength:"255" pattern:"^(whsec_[A-Za-z0-9+/=]{8,240})?$" doc:"The signing secret of the tenant's Stripe webhook endpoint (whsec_…); omit to keep, empty to remove"`
		PayPalClientID      *string `json:"paypalClientId,omitempty" maxLength:"200" pattern:"^[A-Za-z0-9_-]*$" doc:"The PayPal REST app's client id; omit to keep, empty to remove"`
		PayPalSecret        *string `json:"paypalSecret,omitempty" maxLength:"255" doc:"The PayPal REST app's secret; omit to keep, empty to remove"`
		WiseProfileID       *string `json:"wiseProfileId,omitempty" maxLength:"40" pattern:"^[0-9]*$" doc:"The Wise business profile id that pays; omit to keep, empty to remove"`
		WiseToken           *string `json:"wiseToken,omitempty" maxLength:"255" doc:"A Wise API token of that profile; omit to keep, empty to remove"`
		BatchDaily          *bool   `json:"batchDaily,omitempty" doc:"Gather the rails' payouts into one batch per provider per day (PayPal: one batch payout; Stripe and Wise: one transfer per payout, grouped); omit to keep"`
	}
}

// RequestWithdrawalInput asks for a payout.
type RequestWithdrawalInput struct {
	IdempotencyKey string `header:"Idempotency-Key"`
	Body           struct {
		PartnerID      string `json:"partnerId,omitempty" maxLength:"36" doc:"Operators withdraw for this partner; partners always withdraw for themselves"`
		Amount         int64  `json:"amount" minimum:"1" maximum:"1000000000000000" doc:"In minor units; at most the available balance and at least the tenant's minimum"`
		Currency       string `json:"currency" maxLength:"3" pattern:"^[A-Z]{3}$" example:"EUR"`
		PayoutMethodID string `json:"payoutMethodId" minLength:"1" maxLength:"36"`
		Account        string `json:"account,omitempty" enum:"commission,mdf" doc:"What to draw on: the commission balance (the default) or the MDF balance of reimbursed claims; never both"`
	}
}

// ListWithdrawalsInput filters withdrawals (partners see only their own whatever they pass).
type ListWithdrawalsInput struct {
	ListParams
	PartnerID string `query:"partnerId" maxLength:"36"`
	Status    string `query:"status" enum:"requested,approved,rejected,cancelled,paid,failed"`
	Currency  string `query:"currency" maxLength:"3" pattern:"^[A-Z]{3}$"`
	Account   string `query:"account" enum:"commission,mdf"`
}

// CancelWithdrawalInput cancels a request before review.
type CancelWithdrawalInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body *struct {
		Reason string `json:"reason,omitempty" maxLength:"1000"`
	}
}

// ConfirmPayoutInput confirms a manual payout.
type ConfirmPayoutInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Reference string `json:"reference" minLength:"1" maxLength:"200" doc:"The bank's payment reference"`
	}
}

// PayoutMethodOutput is one payout method.
type PayoutMethodOutput struct{ Body PayoutMethod }

// PayoutMethodListOutput is a page of payout methods.
type PayoutMethodListOutput struct{ Body ListBody[PayoutMethod] }

// PayoutSettingsOutput is the tenant's payout settings.
type PayoutSettingsOutput struct{ Body PayoutSettings }

// WithdrawalOutput is one withdrawal.
type WithdrawalOutput struct{ Body Withdrawal }

// WithdrawalListOutput is a page of withdrawals.
type WithdrawalListOutput struct{ Body ListBody[Withdrawal] }

func registerWithdrawalRoutes(s *Server) {
	tags := []string{tagWithdrawals}
	register(s, huma.Operation{OperationID: "add-payout-method", Method: http.MethodPost, Path: "/api/payout-methods", Tags: tags,
		RequestBody: requestExample(`{"partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "kind": "bank", "label": "Main account", "details": {"iban": "DE89370400440532013000", "accountHolder": "Northwind Traders GmbH"}}`),
		Summary:     "Add a payout method",
		Description: "The details are sealed at rest and never shown again; responses carry a masked hint. Partners add their own; operators name the partner.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		Requires(authz.WithdrawalsWrite), s.addPayoutMethod)
	register(s, huma.Operation{OperationID: "list-payout-methods", Method: http.MethodGet, Path: "/api/payout-methods", Tags: tags,
		Summary: "List payout methods", Description: "Partners see only their own.", Security: UsersOrKeys},
		Requires(authz.WithdrawalsRead), s.listPayoutMethods)
	register(s, huma.Operation{OperationID: "get-payout-method", Method: http.MethodGet, Path: "/api/payout-methods/{id}", Tags: tags,
		Summary: "Get a payout method", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.WithdrawalsRead), s.getPayoutMethod)
	register(s, huma.Operation{OperationID: "remove-payout-method", Method: http.MethodDelete, Path: "/api/payout-methods/{id}", Tags: tags,
		Summary: "Remove a payout method", Description: "Withdrawals made with it keep it.",
		Security: UsersOrKeys, DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound}},
		Requires(authz.WithdrawalsWrite), s.removePayoutMethod)

	register(s, huma.Operation{OperationID: "get-payout-settings", Method: http.MethodGet, Path: "/api/payout-settings", Tags: tags,
		Summary: "Get the payout settings", Description: "Operators only; the http provider's secret is never shown.", Security: UsersOrKeys},
		Requires(authz.WithdrawalsApprove), s.getPayoutSettings)
	register(s, huma.Operation{OperationID: "update-payout-settings", Method: http.MethodPut, Path: "/api/payout-settings", Tags: tags,
		RequestBody: requestExample(`{"provider": "manual", "confirmDays": 14, "minimums": {"EUR": 5000, "USD": 5000}}`),
		Summary:     "Replace the payout settings", Description: "Operators only. Audited.",
		Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		Requires(authz.WithdrawalsApprove), s.updatePayoutSettings)

	register(s, idempotent(huma.Operation{OperationID: "request-withdrawal", Method: http.MethodPost, Path: "/api/withdrawals", Tags: tags,
		RequestBody: requestExample(`{"amount": 250000, "currency": "EUR", "payoutMethodId": "01936f3b-4e5f-7a6b-9c7d-8e9f0a1b2c3d"}`),
		Summary:     "Request a withdrawal",
		Description: "Holds the amount of the available balance until finance decides. More than the available balance is 409 INSUFFICIENT_BALANCE (BALANCE_NEGATIVE while a clawback left it below zero); less than the tenant's minimum is 422 BELOW_MINIMUM_WITHDRAWAL; a partner that has not accepted a required agreement version in force is 403 AGREEMENT_REQUIRED, naming the agreement and version. A partner without an approved tax record is 403 TAX_RECORD_REQUIRED while the tenant blocks on it, or answered with a warning while it warns. Only the balance of the requested currency counts: nothing is converted. Requires an Idempotency-Key.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusForbidden, http.StatusConflict, http.StatusUnprocessableEntity}}, true),
		Requires(authz.WithdrawalsWrite), s.requestWithdrawal)
	register(s, huma.Operation{OperationID: "list-withdrawals", Method: http.MethodGet, Path: "/api/withdrawals", Tags: tags,
		Summary: "List withdrawals, oldest first", Description: "Partners see only their own.", Security: UsersOrKeys},
		Requires(authz.WithdrawalsRead), s.listWithdrawals)
	register(s, huma.Operation{OperationID: "get-withdrawal", Method: http.MethodGet, Path: "/api/withdrawals/{id}", Tags: tags,
		Summary: "Get a withdrawal with its payout", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.WithdrawalsRead), s.getWithdrawal)
	register(s, huma.Operation{OperationID: "cancel-withdrawal", Method: http.MethodPost, Path: "/api/withdrawals/{id}/cancel", Tags: tags,
		RequestBody: requestExample(`{"reason": "Requested the wrong amount."}`),
		Summary:     "Cancel a withdrawal before review", Description: "The held funds return to the available balance. Reviewed withdrawals answer 409 ILLEGAL_WITHDRAWAL_TRANSITION.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.WithdrawalsWrite), s.cancelWithdrawal)
	register(s, huma.Operation{OperationID: "approve-withdrawal", Method: http.MethodPost, Path: "/api/withdrawals/{id}/approve", Tags: tags,
		Summary:     "Approve a withdrawal",
		Description: "Starts its payout with the tenant's provider. Whoever requested a withdrawal cannot approve it (403 FOUR_EYES); while the tenant blocks on tax records, a partner without an approved one is 403 TAX_RECORD_REQUIRED.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.WithdrawalsApprove), s.approveWithdrawal)
	register(s, huma.Operation{OperationID: "reject-withdrawal", Method: http.MethodPost, Path: "/api/withdrawals/{id}/reject", Tags: tags,
		RequestBody: requestExample(`{"reason": "The payout method's account holder does not match the partner."}`),
		Summary:     "Reject a withdrawal", Description: "The held funds return to the available balance.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.WithdrawalsApprove), s.rejectWithdrawal)
	register(s, huma.Operation{OperationID: "confirm-payout", Method: http.MethodPost, Path: "/api/withdrawals/{id}/confirm-payout", Tags: tags,
		RequestBody: requestExample(`{"reference": "SEPA-2026-11-20-000412"}`),
		Summary:     "Confirm a manual payout with the bank's reference",
		Description: "Only for an approved withdrawal whose manual payout waits for confirmation (otherwise 409 PAYOUT_NOT_AWAITING_CONFIRMATION). Accepted: the payout marks the withdrawal paid shortly after.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusAccepted, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable}},
		Requires(authz.WithdrawalsApprove), s.confirmPayout)
	register(s, huma.Operation{OperationID: "fail-payout", Method: http.MethodPost, Path: "/api/withdrawals/{id}/fail-payout", Tags: tags,
		RequestBody: requestExample(`{"reason": "The bank returned the transfer: account closed."}`),
		Summary:     "Report that a manual payout failed",
		Description: "Only for an approved withdrawal whose manual payout waits for confirmation (otherwise 409 PAYOUT_NOT_AWAITING_CONFIRMATION). Accepted: the payout fails the withdrawal and releases its funds shortly after.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusAccepted, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable}},
		Requires(authz.WithdrawalsApprove), s.failPayout)
}

// withdrawalOutput answers with the withdrawal w, or with err when there is one.
func withdrawalOutput(w *models.Withdrawal, err error) (*WithdrawalOutput, error) {
	if err != nil {
		return nil, err
	}
	return &WithdrawalOutput{Body: withdrawalOf(w)}, nil
}

// listPayoutMethods lists payout methods.
func (s *Server) listPayoutMethods(ctx context.Context, in *ListPayoutMethodsInput) (*PayoutMethodListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.PayoutMethod, string, error) {
		return s.withdrawals(ctx).ListPayoutMethods(ctx, in.PartnerID, pg)
	}, payoutMethodOf)
	return &PayoutMethodListOutput{Body: body}, err
}

// getPayoutMethod answers one payout method.
func (s *Server) getPayoutMethod(ctx context.Context, in *IDPath) (*PayoutMethodOutput, error) {
	m, err := s.withdrawals(ctx).PayoutMethod(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &PayoutMethodOutput{Body: payoutMethodOf(m)}, nil
}

// removePayoutMethod removes a payout method.
func (s *Server) removePayoutMethod(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.withdrawals(ctx).RemovePayoutMethod(ctx, in.ID)
}

// getPayoutSettings answers the payout settings.
func (s *Server) getPayoutSettings(ctx context.Context, _ *struct{}) (*PayoutSettingsOutput, error) {
	st, err := s.withdrawals(ctx).PayoutSettings(ctx)
	if err != nil {
		return nil, err
	}
	return &PayoutSettingsOutput{Body: payoutSettingsOf(&st)}, nil
}

// requestWithdrawal requests a withdrawal, holding its amount of the available balance.
func (s *Server) requestWithdrawal(ctx context.Context, in *RequestWithdrawalInput) (*WithdrawalOutput, error) {
	if !validIdempotencyKey(in.IdempotencyKey) {
		return nil, codedProblem(ctx, http.StatusBadRequest, CodeIdempotencyKeyRequired, "this operation requires an Idempotency-Key header")
	}
	if err := s.requireAgreements(ctx); err != nil {
		return nil, err
	}
	b := in.Body
	return withdrawalOutput(s.withdrawals(ctx).RequestWithdrawal(ctx, models.NewWithdrawal{PartnerID: b.PartnerID, Amount: b.Amount,
		Currency: b.Currency, PayoutMethodID: b.PayoutMethodID, Account: b.Account}, in.IdempotencyKey))
}

// listWithdrawals lists withdrawals, oldest first.
func (s *Server) listWithdrawals(ctx context.Context, in *ListWithdrawalsInput) (*WithdrawalListOutput, error) {
	f := models.WithdrawalFilter{PartnerID: in.PartnerID, Status: in.Status, Currency: in.Currency, Account: in.Account}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Withdrawal, string, error) {
		return s.withdrawals(ctx).ListWithdrawals(ctx, f, pg)
	}, withdrawalOf)
	return &WithdrawalListOutput{Body: body}, err
}

// getWithdrawal answers one withdrawal with its payout.
func (s *Server) getWithdrawal(ctx context.Context, in *IDPath) (*WithdrawalOutput, error) {
	w, p, err := s.withdrawals(ctx).Withdrawal(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &WithdrawalOutput{Body: withdrawalWithPayout(w, p)}, nil
}

// cancelWithdrawal cancels a withdrawal before review, returning its funds to the available balance.
func (s *Server) cancelWithdrawal(ctx context.Context, in *CancelWithdrawalInput) (*WithdrawalOutput, error) {
	reason := ""
	if in.Body != nil {
		reason = in.Body.Reason
	}
	return withdrawalOutput(s.withdrawals(ctx).CancelWithdrawal(ctx, in.ID, reason))
}

// approveWithdrawal approves a withdrawal, whose payout then starts.
func (s *Server) approveWithdrawal(ctx context.Context, in *IDPath) (*WithdrawalOutput, error) {
	return withdrawalOutput(s.withdrawals(ctx).ApproveWithdrawal(ctx, in.ID))
}

// rejectWithdrawal rejects a withdrawal, returning its funds to the available balance.
func (s *Server) rejectWithdrawal(ctx context.Context, in *ReasonInput) (*WithdrawalOutput, error) {
	return withdrawalOutput(s.withdrawals(ctx).RejectWithdrawal(ctx, in.ID, in.Body.Reason))
}

// confirmPayout confirms a manual payout with the bank's reference.
func (s *Server) confirmPayout(ctx context.Context, in *ConfirmPayoutInput) (*WithdrawalOutput, error) {
	return s.signalPayout(ctx, in.ID, true, in.Body.Reference, func(p PayoutSignaler, tenantID, by string) error {
		return p.ConfirmPayout(ctx, tenantID, in.ID, in.Body.Reference, by)
	})
}

// failPayout reports that a manual payout failed.
func (s *Server) failPayout(ctx context.Context, in *ReasonInput) (*WithdrawalOutput, error) {
	return s.signalPayout(ctx, in.ID, false, in.Body.Reason, func(p PayoutSignaler, tenantID, by string) error {
		return p.FailPayout(ctx, tenantID, in.ID, in.Body.Reason, by)
	})
}

// signalPayout records finance's decision on a manual payout that waits for it (once: the
// decision settles the payout whatever comes first) and hands it to the payout's workflow.
func (s *Server) signalPayout(ctx context.Context, id string, paid bool, referenceOrReason string, send func(p PayoutSignaler, tenantID, by string) error) (*WithdrawalOutput, error) {
	if s.deps.Payouts == nil {
		return nil, models.Errorf(models.KindUnavailable, "PAYOUTS_UNAVAILABLE", "payouts are not configured on this server")
	}
	sc := s.withdrawals(ctx)
	if _, err := sc.RecordPayoutDecision(ctx, id, paid, referenceOrReason); err != nil {
		return nil, err
	}
	p := models.PrincipalFrom(ctx)
	if err := send(s.deps.Payouts, p.TenantID, p.ActorRef()); err != nil {
		if _, ok := models.AsError(err); ok {
			return nil, err
		}
		// The decision is recorded: the payout settles by it at its deadline at the latest.
		s.log.WarnContext(ctx, "signalling a payout failed; it settles by the recorded decision at its deadline", "request_id", RequestID(ctx), "withdrawal_id", id, "error", err.Error())
	}
	w, payout, err := sc.Withdrawal(ctx, id)
	if err != nil {
		return nil, err
	}
	return &WithdrawalOutput{Body: withdrawalWithPayout(w, payout)}, nil
}

func errSealingUnavailable() error {
	return models.Errorf(models.KindUnavailable, "SECRETS_UNAVAILABLE", "secrets cannot be stored on this server")
}

// addPayoutMethod adds a payout method, whose details are sealed.
func (s *Server) addPayoutMethod(ctx context.Context, in *AddPayoutMethodInput) (*PayoutMethodOutput, error) {
	b := in.Body
	details, masked, fields := checkPayoutDetails(b.Kind, b.Details)
	if len(fields) > 0 {
		return nil, models.Invalid("INVALID_PAYOUT_DETAILS", "the payout details are not valid", fields...)
	}
	keys := s.deps.Webhooks.Keyring
	if keys == nil {
		return nil, errSealingUnavailable()
	}
	plain, err := json.Marshal(details)
	if err != nil {
		return nil, err
	}
	p := models.PrincipalFrom(ctx)
	m := &models.PayoutMethod{ID: models.NewID(), PartnerID: b.PartnerID, Kind: b.Kind, Label: b.Label, Masked: masked}
	if m.Details, err = keys.Seal(models.Secret(plain), models.SealContext{TenantID: p.TenantID, Table: "payout_methods", RowID: m.ID, Field: "details"}); err != nil {
		return nil, err
	}
	if err := s.withdrawals(ctx).AddPayoutMethod(ctx, m); err != nil {
		return nil, err
	}
	return &PayoutMethodOutput{Body: payoutMethodOf(m)}, nil
}

var detailKey = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{0,39}$`)

// checkPayoutDetails trims and validates a payout method's details and computes its masked
// hint. Problems never carry the values.
func checkPayoutDetails(kind string, in map[string]string) (map[string]string, string, []models.FieldError) {
	var fs []models.FieldError
	out := make(map[string]string, len(in))
	for k, v := range in {
		v = strings.TrimSpace(v)
		loc := "body.details." + k
		switch {
		case !detailKey.MatchString(k):
			fs = append(fs, models.FieldError{Location: "body.details", Message: "field names are 1 to 40 letters, digits or _, starting with a letter"})
		case v == "":
			fs = append(fs, models.FieldError{Location: loc, Message: "must not be empty"})
		case utf8.RuneCountInString(v) > maxPayoutDetailChars:
			fs = append(fs, models.FieldError{Location: loc, Message: "at most 200 characters"})
		default:
			out[k] = v
		}
	}
	if len(in) > maxPayoutDetails {
		fs = append(fs, models.FieldError{Location: "body.details", Message: "at most 20 fields"})
	}
	var masked string
	switch kind {
	case models.PayoutBank:
		iban, hasIBAN := out["iban"]
		account, hasAccount := out["accountNumber"]
		switch {
		case hasIBAN:
			iban = strings.ToUpper(strings.ReplaceAll(iban, " ", ""))
			if !validIBAN(iban) {
				fs = append(fs, models.FieldError{Location: "body.details.iban", Message: "not a valid IBAN"})
			}
			out["iban"] = iban
			masked = "IBAN " + maskTail(iban)
		case hasAccount:
			masked = "Account " + maskTail(strings.ReplaceAll(account, " ", ""))
		default:
			fs = append(fs, models.FieldError{Location: "body.details.iban", Message: "a bank method needs iban or accountNumber"})
		}
	case models.PayoutStripe:
		acct := out["accountId"]
		if !rails.StripeAccountID.MatchString(acct) {
			fs = append(fs, models.FieldError{Location: "body.details.accountId", Message: "a stripe method needs the connected account's id, acct_…"})
		} else {
			masked = "Stripe " + maskTail(acct)
		}
	case models.PayoutWise:
		recipient, hasRecipient := out["recipientId"]
		iban, hasIBAN := out["iban"]
		switch {
		case hasRecipient:
			if _, err := strconv.ParseInt(recipient, 10, 64); err != nil {
				fs = append(fs, models.FieldError{Location: "body.details.recipientId", Message: "a Wise recipient account id is a number"})
			}
			masked = "Wise recipient ••••" + recipient[max(0, len(recipient)-4):]
		case hasIBAN && out["accountHolder"] != "":
			iban = strings.ToUpper(strings.ReplaceAll(iban, " ", ""))
			if !validIBAN(iban) {
				fs = append(fs, models.FieldError{Location: "body.details.iban", Message: "not a valid IBAN"})
			}
			out["iban"] = iban
			masked = "Wise IBAN " + maskTail(iban)
		default:
			fs = append(fs, models.FieldError{Location: "body.details.recipientId", Message: "a wise method needs recipientId, or iban and accountHolder"})
		}
	case models.PayoutPayPal:
		email, ok := out["email"]
		local, domain, found := strings.Cut(email, "@")
		if !ok || !found || local == "" || !strings.Contains(domain, ".") || strings.ContainsAny(email, " <>") {
			fs = append(fs, models.FieldError{Location: "body.details.email", Message: "a PayPal method needs the account's email address"})
		} else {
			first, _ := utf8.DecodeRuneInString(local)
			masked = "PayPal " + string(first) + "•••@" + domain
		}
	default:
		names := make([]string, 0, len(out))
		for k := range out {
			names = append(names, k)
		}
		sort.Strings(names)
		if len(names) > 0 {
			masked = names[0] + " " + maskTail(out[names[0]])
		}
	}
	return out, masked, fs
}

// maskTail shows the last four characters of a long enough value, e.g. ••••1234.
func maskTail(v string) string { return models.Secret(v).Masked() }

var ibanShape = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$`)

// validIBAN checks an IBAN's shape and its ISO 7064 mod-97 check digits.
func validIBAN(iban string) bool {
	if !ibanShape.MatchString(iban) {
		return false
	}
	var digits strings.Builder
	for _, r := range iban[4:] + iban[:4] {
		if r >= 'A' && r <= 'Z' {
			digits.WriteString(strconv.Itoa(int(r-'A') + 10))
		} else {
			digits.WriteRune(r)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// updatePayoutSettings replaces the payout settings.
func (s *Server) updatePayoutSettings(ctx context.Context, in *PayoutSettingsInput) (*PayoutSettingsOutput, error) {
	b := in.Body
	var fs []models.FieldError
	if b.Provider == models.ProviderHTTP || b.HTTPURL != "" {
		if msg := checkPayoutURL(b.HTTPURL, s.deps.Webhooks.AllowedNetworks); msg != "" {
			fs = append(fs, models.FieldError{Location: "body.httpUrl", Message: msg})
		}
	}
	if b.HTTPSecret != "" && !validSigningSecret(b.HTTPSecret) {
		fs = append(fs, models.FieldError{Location: "body.httpSecret", Message: "whsec_ and the base64 of 24 to 64 random bytes"})
	}
	currencies := make([]string, 0, len(b.Minimums))
	for c := range b.Minimums {
		currencies = append(currencies, c)
	}
	slices.Sort(currencies)
	for _, c := range currencies {
		switch {
		case !models.ValidCurrency(c):
			fs = append(fs, models.FieldError{Location: "body.minimums", Message: "keys are ISO 4217 currencies such as EUR", Value: c})
		case b.Minimums[c] < 0:
			fs = append(fs, models.FieldError{Location: "body.minimums." + c, Message: "must be 0 or more minor units", Value: b.Minimums[c]})
		}
	}
	if len(fs) > 0 {
		return nil, models.Invalid("INVALID_PAYOUT_SETTINGS", "the payout settings are not valid", fs...)
	}
	minimums := b.Minimums
	if minimums == nil {
		minimums = map[string]int64{}
	}
	mb, _ := json.Marshal(minimums)
	confirmDays := b.ConfirmDays
	if confirmDays == 0 {
		confirmDays = models.DefaultPayoutConfirmDays
	}
	p := models.PrincipalFrom(ctx)
	st := models.PayoutSettings{Provider: b.Provider, HTTPURL: b.HTTPURL, Minimums: string(mb), ConfirmDays: confirmDays}
	if err := s.mergeRailSettings(ctx, &st, b.StripeSecretKey, b.StripeWebhookSecret, b.PayPalClientID, b.PayPalSecret, b.WiseProfileID, b.WiseToken, b.BatchDaily); err != nil {
		return nil, err
	}
	keep := b.HTTPSecret == ""
	if !keep {
		keys := s.deps.Webhooks.Keyring
		if keys == nil {
			return nil, errSealingUnavailable()
		}
		var err error
		st.HTTPSecret, err = keys.Seal(models.Secret(b.HTTPSecret), models.SealContext{TenantID: p.TenantID, Table: "payout_settings", RowID: p.TenantID, Field: "http_secret"})
		if err != nil {
			return nil, err
		}
	}
	saved, err := s.withdrawals(ctx).SavePayoutSettings(ctx, st, keep)
	if err != nil {
		return nil, err
	}
	return &PayoutSettingsOutput{Body: payoutSettingsOf(&saved)}, nil
}

// checkPayoutURL says what is wrong with the http provider's endpoint, or "": it is required,
// and held to the rules of webhook endpoints (payouts are signed deliveries too).
func checkPayoutURL(raw string, allowed []netip.Prefix) string {
	if raw == "" {
		return "required for the http provider"
	}
	if err := models.CheckWebhookURL(raw, allowed, "body.httpUrl"); err != nil {
		return err.Fields[0].Message
	}
	return ""
}

// validSigningSecret accepts whsec_ followed by the base64 of 24 to 64 bytes.
func validSigningSecret(v string) bool {
	rest, ok := strings.CutPrefix(v, models.WebhookSecretPrefix)
	if !ok {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	return err == nil && len(raw) >= 24 && len(raw) <= 64
}

// mergeRailSettings fills the rails' part of the tenant's new payout settings: each secret
// given is sealed ("" removes it), each omitted one keeps the stored value.
func (s *Server) mergeRailSettings(ctx context.Context, st *models.PayoutSettings, stripeKey, stripeWebhook, paypalID, paypalSecret, wiseProfile, wiseToken *string, batch *bool) error {
	prior, err := s.withdrawals(ctx).PayoutSettings(ctx)
	if err != nil {
		return err
	}
	st.StripeSecretKey, st.StripeWebhookSecret, st.PayPalClientID, st.PayPalSecret = prior.StripeSecretKey, prior.StripeWebhookSecret, prior.PayPalClientID, prior.PayPalSecret
	st.WiseProfileID, st.WiseToken, st.BatchDaily = prior.WiseProfileID, prior.WiseToken, prior.BatchDaily
	if batch != nil {
		st.BatchDaily = *batch
	}
	if paypalID != nil {
		st.PayPalClientID = *paypalID
	}
	if wiseProfile != nil {
		st.WiseProfileID = *wiseProfile
	}
	p := models.PrincipalFrom(ctx)
	for _, sec := range []struct {
		in    *string
		field string
		to    *models.Sealed
	}{
		{stripeKey, "stripe_secret_key", &st.StripeSecretKey},
		{stripeWebhook, "stripe_webhook_secret", &st.StripeWebhookSecret},
		{paypalSecret, "paypal_secret", &st.PayPalSecret},
		{wiseToken, "wise_token", &st.WiseToken},
	} {
		switch {
		case sec.in == nil:
		case *sec.in == "":
			*sec.to = ""
		default:
			keys := s.deps.Webhooks.Keyring
			if keys == nil {
				return errSealingUnavailable()
			}
			sealed, err := keys.Seal(models.Secret(*sec.in), models.SealContext{TenantID: p.TenantID, Table: "payout_settings", RowID: p.TenantID, Field: sec.field})
			if err != nil {
				return err
			}
			*sec.to = sealed
		}
	}
	return nil
}
