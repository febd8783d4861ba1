package rails

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// WiseLive is Wise's API; WiseSandbox its sandbox.
const (
	WiseLive    = "https://api.wise.com"
	WiseSandbox = "https://api.sandbox.transferwise.tech"
)

// Wise pays by Wise transfers from the tenant's Wise balance: a quote for the exact target
// amount (no conversion: source and target currency are the payout's), the recipient (one the
// partner named, or one made from its IBAN and holder), the transfer with the payout id as
// customerTransactionId (Wise's idempotency key), and its funding from the balance. Wise
// settles the transfer on its own time, asked with GET.
type Wise struct {
	// URL is Wise's API address (WiseLive, WiseSandbox, or a test server).
	URL  string
	HTTP *http.Client
}

// WiseRecipient is a partner's Wise destination: an existing recipient account id, or the IBAN
// and account holder to create one from.
type WiseRecipient struct {
	RecipientID   string `json:"recipientId,omitempty"`
	IBAN          string `json:"iban,omitempty"`
	AccountHolder string `json:"accountHolder,omitempty"`
}

// WiseOrder is one Wise payout.
type WiseOrder struct {
	PayoutID  string
	ProfileID string
	Recipient WiseRecipient
	Amount    int64
	Currency  string
}

func (w *Wise) url(path string) string { return strings.TrimRight(w.URL, "/") + path }

// wiseStatus reads a Wise transfer status as an outcome.
func wiseStatus(id int64, status string) Outcome {
	o := Outcome{Reference: strconv.FormatInt(id, 10), Status: status}
	switch status {
	case "outgoing_payment_sent":
		o.Settled, o.Paid = true, true
	case "cancelled", "funds_refunded", "bounced_back", "charged_back":
		o.Settled, o.Reason = true, "Wise: the transfer was "+strings.ReplaceAll(status, "_", " ")
	}
	return o
}

// Pay quotes, creates and funds the transfer of one payout; a retry finds the transfer it made
// before by its customerTransactionId and funds it only if it still waits for money.
func (w *Wise) Pay(ctx context.Context, token string, o WiseOrder) (Outcome, error) {
	h := http.Header{"Authorization": {"Bearer " + token}}
	var quote struct {
		ID string `json:"id"`
	}
	cur := strings.ToUpper(o.Currency)
	if err := restCall(ctx, w.HTTP, "wise", http.MethodPost, w.url("/v3/profiles/"+o.ProfileID+"/quotes"), h, map[string]any{
		"sourceCurrency": cur, "targetCurrency": cur, "targetAmount": json.Number(Decimal(o.Amount, cur)), "payOut": "BANK_TRANSFER",
	}, &quote); err != nil {
		return Outcome{}, err
	}
	target, err := strconv.ParseInt(o.Recipient.RecipientID, 10, 64)
	if o.Recipient.RecipientID == "" {
		if o.Recipient.IBAN == "" || o.Recipient.AccountHolder == "" {
			return Outcome{}, &Rejection{Provider: "wise", Code: "invalid_recipient", Reason: "the payout method names no Wise recipient"}
		}
		profile, _ := strconv.ParseInt(o.ProfileID, 10, 64)
		var acct struct {
			ID int64 `json:"id"`
		}
		if err := restCall(ctx, w.HTTP, "wise", http.MethodPost, w.url("/v1/accounts"), h, map[string]any{
			"currency": cur, "type": "iban", "profile": profile, "accountHolderName": o.Recipient.AccountHolder,
			"details": map[string]string{"legalType": "BUSINESS", "iban": o.Recipient.IBAN},
		}, &acct); err != nil {
			return Outcome{}, err
		}
		target = acct.ID
	} else if err != nil {
		return Outcome{}, &Rejection{Provider: "wise", Code: "invalid_recipient", Reason: "the Wise recipient id is not a number"}
	}
	var tr struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
	}
	if err := restCall(ctx, w.HTTP, "wise", http.MethodPost, w.url("/v1/transfers"), h, map[string]any{
		"targetAccount": target, "quoteUuid": quote.ID, "customerTransactionId": o.PayoutID,
		"details": map[string]string{"reference": "Partner payout"},
	}, &tr); err != nil {
		return Outcome{}, err
	}
	if tr.Status == "incoming_payment_waiting" || tr.Status == "" {
		var pay struct {
			Status    string `json:"status"`
			ErrorCode string `json:"errorCode"`
		}
		if err := restCall(ctx, w.HTTP, "wise", http.MethodPost, w.url("/v3/profiles/"+o.ProfileID+"/transfers/"+strconv.FormatInt(tr.ID, 10)+"/payments"), h,
			map[string]string{"type": "BALANCE"}, &pay); err != nil {
			return Outcome{}, err
		}
		if pay.Status == "REJECTED" {
			return Outcome{}, &Rejection{Provider: "wise", Code: pay.ErrorCode, Reason: "Wise refused to fund the transfer from the balance"}
		}
		tr.Status = "processing"
	}
	return wiseStatus(tr.ID, tr.Status), nil
}

// Transfer asks Wise how a transfer stands.
func (w *Wise) Transfer(ctx context.Context, token, reference string) (Outcome, error) {
	var tr struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
	}
	if _, err := strconv.ParseInt(reference, 10, 64); err != nil {
		return Outcome{}, &Rejection{Provider: "wise", Code: "invalid_reference", Reason: "not a Wise transfer id"}
	}
	if err := restCall(ctx, w.HTTP, "wise", http.MethodGet, w.url("/v1/transfers/"+reference), http.Header{"Authorization": {"Bearer " + token}}, nil, &tr); err != nil {
		return Outcome{}, err
	}
	return wiseStatus(tr.ID, tr.Status), nil
}
