package railstest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// stripeFixtures are Stripe's answers as its API reference records them, for tests that need a
// Stripe that answers but test something else (the authorization matrix).
var stripeFixtures = map[string]string{
	"/v1/accounts": `{"id": "acct_1Nv0FGQ9RKHgCVdK", "object": "account", "type": "express", "country": "DE", "email": null,
		"capabilities": {"transfers": "inactive"}, "charges_enabled": false, "payouts_enabled": false, "details_submitted": false,
		"metadata": {}, "created": 1764300000}`,
	"/v1/account_links": `{"object": "account_link", "created": 1764300000, "expires_at": 1764300300,
		"url": "https://connect.stripe.com/setup/e/acct_1Nv0FGQ9RKHgCVdK/Lq5iFZ5Lc3j8"}`,
	"/v1/transfers": `{"id": "tr_1MiN3gLkdIwHu7ixNCZvFdgA", "object": "transfer", "amount": 400, "amount_reversed": 0, "currency": "eur",
		"destination": "acct_1Nv0FGQ9RKHgCVdK", "livemode": false, "metadata": {}, "reversed": false, "source_type": "card", "created": 1764300000}`,
}

// PaidStripePayout is a payout StripeFixture has a transfer for already (tr_1KnownTransfer).
const PaidStripePayout = "01936f3b-0000-7000-8000-00000000dead"

// MissingStripeAccount is a connected account StripeFixture does not know: a transfer to it is
// refused as Stripe refuses one to a deleted account.
const MissingStripeAccount = "acct_1Missing"

// StripeFixture serves Stripe's recorded answers to creating accounts, account links and
// transfers and to listing transfers, as often as asked; a transfer to MissingStripeAccount
// is refused with Stripe's recorded error, and PaidStripePayout has a transfer already.
func StripeFixture(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/transfers" && r.Header.Get("Authorization") != "" {
			w.Header().Set("Content-Type", "application/json")
			data := "[]"
			if r.URL.Query().Get("transfer_group") == "payout_"+PaidStripePayout {
				data = `[{"id": "tr_1KnownTransfer", "object": "transfer", "amount": 400, "currency": "eur", "destination": "acct_1Nv0FGQ9RKHgCVdK",
					"transfer_group": "payout_` + PaidStripePayout + `", "metadata": {"payout_id": "` + PaidStripePayout + `"}}]`
			}
			_, _ = w.Write([]byte(`{"object": "list", "url": "/v1/transfers", "has_more": false, "data": ` + data + `}`))
			return
		}
		body, ok := stripeFixtures[r.URL.Path]
		if !ok || r.Method != http.MethodPost || r.Header.Get("Authorization") == "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error": {"type": "invalid_request_error", "message": "Unrecognized request URL"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/transfers" && r.ParseForm() == nil && r.PostForm.Get("destination") == MissingStripeAccount {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error": {"code": "resource_missing", "doc_url": "https://stripe.com/docs/error-codes/resource-missing",
				"message": "No such destination: 'acct_1Missing'", "param": "destination", "type": "invalid_request_error"}}`))
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
