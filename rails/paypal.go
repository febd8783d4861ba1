package rails

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// PayPalLive is PayPal's REST API; PayPalSandbox its sandbox.
const (
	PayPalLive    = "https://api-m.paypal.com"
	PayPalSandbox = "https://api-m.sandbox.paypal.com"
)

// PayPal pays through PayPal Payouts (POST /v1/payments/payouts), which is a batch API by
// nature: one request carries every item of a batch, each named by our payout id
// (sender_item_id), and PayPal settles the items on its own time (asked with GET).
type PayPal struct {
	// URL is PayPal's API address (PayPalLive, PayPalSandbox, or a test server).
	URL  string
	HTTP *http.Client
}

// PayPalItem is one payout of a PayPal batch.
type PayPalItem struct {
	PayoutID string
	Email    string
	Amount   int64
	Currency string
}

// PayPalBatch is PayPal's answer about a batch: its id and each item's outcome by payout id.
type PayPalBatch struct {
	BatchID string
	Status  string
	Items   map[string]Outcome
}

// token gets an OAuth 2 access token with the tenant's client credentials.
func (p *PayPal) token(ctx context.Context, clientID, secret string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(p.URL, "/")+"/v1/oauth2/token",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	if err != nil {
		return "", &Rejection{Provider: "paypal", Code: "invalid_request", Reason: "PayPal's address is not valid"}
	}
	req.SetBasicAuth(clientID, secret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	hc := p.HTTP
	if hc == nil {
		hc = defaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("paypal unreachable: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &tok) != nil || tok.AccessToken == "" {
		// Wrong credentials are for finance to fix: the payout retries meanwhile.
		return "", fmt.Errorf("paypal refused the client credentials (%d)", resp.StatusCode)
	}
	return tok.AccessToken, nil
}

func (p *PayPal) auth(ctx context.Context, clientID, secret string) (http.Header, error) {
	tok, err := p.token(ctx, clientID, secret)
	if err != nil {
		return nil, err
	}
	return http.Header{"Authorization": {"Bearer " + tok}}, nil
}

type paypalAmount struct {
	Value    string `json:"value"`
	Currency string `json:"currency"`
}

type paypalItem struct {
	RecipientType string       `json:"recipient_type"`
	Amount        paypalAmount `json:"amount"`
	Receiver      string       `json:"receiver"`
	SenderItemID  string       `json:"sender_item_id"`
	Note          string       `json:"note,omitempty"`
}

type paypalBatchAnswer struct {
	BatchHeader struct {
		PayoutBatchID string `json:"payout_batch_id"`
		BatchStatus   string `json:"batch_status"`
	} `json:"batch_header"`
	Items []struct {
		PayoutItemID      string `json:"payout_item_id"`
		TransactionID     string `json:"transaction_id"`
		TransactionStatus string `json:"transaction_status"`
		PayoutItem        struct {
			SenderItemID string `json:"sender_item_id"`
		} `json:"payout_item"`
		Errors *struct {
			Name    string `json:"name"`
			Message string `json:"message"`
		} `json:"errors"`
	} `json:"items"`
}

// Send creates a PayPal payout batch of items. batchID is both PayPal's sender_batch_id and
// the PayPal-Request-Id, so a retry after a lost answer gets the same batch back.
func (p *PayPal) Send(ctx context.Context, clientID, secret, batchID string, items []PayPalItem) (PayPalBatch, error) {
	h, err := p.auth(ctx, clientID, secret)
	if err != nil {
		return PayPalBatch{}, err
	}
	h.Set("PayPal-Request-Id", batchID)
	body := struct {
		Header struct {
			SenderBatchID string `json:"sender_batch_id"`
			EmailSubject  string `json:"email_subject"`
		} `json:"sender_batch_header"`
		Items []paypalItem `json:"items"`
	}{}
	body.Header.SenderBatchID, body.Header.EmailSubject = batchID, "You have a payout"
	for _, it := range items {
		body.Items = append(body.Items, paypalItem{RecipientType: "EMAIL", Receiver: it.Email, SenderItemID: it.PayoutID,
			Amount: paypalAmount{Value: Decimal(it.Amount, it.Currency), Currency: strings.ToUpper(it.Currency)}, Note: "Partner payout"})
	}
	var ans paypalBatchAnswer
	if err := restCall(ctx, p.HTTP, "paypal", http.MethodPost, strings.TrimRight(p.URL, "/")+"/v1/payments/payouts", h, body, &ans); err != nil {
		return PayPalBatch{}, err
	}
	return PayPalBatch{BatchID: ans.BatchHeader.PayoutBatchID, Status: ans.BatchHeader.BatchStatus, Items: map[string]Outcome{}}, nil
}

// Batch asks PayPal how a batch and each of its items stand.
func (p *PayPal) Batch(ctx context.Context, clientID, secret, payPalBatchID string) (PayPalBatch, error) {
	h, err := p.auth(ctx, clientID, secret)
	if err != nil {
		return PayPalBatch{}, err
	}
	var ans paypalBatchAnswer
	u := strings.TrimRight(p.URL, "/") + "/v1/payments/payouts/" + url.PathEscape(payPalBatchID) + "?page_size=1000"
	if err := restCall(ctx, p.HTTP, "paypal", http.MethodGet, u, h, nil, &ans); err != nil {
		return PayPalBatch{}, err
	}
	out := PayPalBatch{BatchID: ans.BatchHeader.PayoutBatchID, Status: ans.BatchHeader.BatchStatus, Items: map[string]Outcome{}}
	for _, it := range ans.Items {
		o := Outcome{Reference: it.PayoutItemID, Status: it.TransactionStatus}
		switch it.TransactionStatus {
		case "SUCCESS":
			o.Settled, o.Paid = true, true
		case "FAILED", "RETURNED", "BLOCKED", "REFUNDED", "REVERSED", "DENIED":
			o.Settled, o.Reason = true, "PayPal: the item is "+strings.ToLower(it.TransactionStatus)
			if it.Errors != nil && it.Errors.Message != "" {
				o.Reason = "PayPal: " + clip(it.Errors.Message, 400) + " (" + it.Errors.Name + ")"
			}
		}
		out.Items[it.PayoutItem.SenderItemID] = o
	}
	return out, nil
}
