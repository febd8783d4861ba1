// Package rails holds the clients of the payout rails: Stripe Connect through Stripe's official
// Go client, and thin clients of the documented REST APIs of PayPal Payouts and Wise (neither
// publishes an official Go client). They know the providers' wire formats and nothing of the
// store or of workflows; activities pay through them and the API onboards and verifies with them.
package rails

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Rejection is a provider's final refusal of a payout: retrying the same request cannot
// succeed (an unknown destination, insufficient platform funds, a closed account). Reason is
// the provider's own words.
type Rejection struct {
	Provider string
	Code     string
	Reason   string
}

// Error names the rail, its reason and its code.
func (r *Rejection) Error() string {
	msg := r.Provider + ": " + r.Reason
	if r.Code != "" {
		msg += " (" + r.Code + ")"
	}
	return msg
}

// IsRejection reports whether err is a provider's final refusal.
func IsRejection(err error) bool {
	var r *Rejection
	return errors.As(err, &r)
}

// Outcome is a provider's word on one payout it was asked to pay.
type Outcome struct {
	// Reference is the provider's id of the payment (a Stripe transfer, a PayPal payout item,
	// a Wise transfer).
	Reference string
	// Settled is true once the provider says the payout is paid or failed for good; Paid says
	// which. A submitted payout that is not settled is asked again later.
	Settled bool
	Paid    bool
	// Status is the provider's own status word; Reason explains a failure.
	Status string
	Reason string
}

// defaultClient is the HTTP client of a rail that was given none.
var defaultClient = &http.Client{Timeout: 30 * time.Second}

// currencyExponents are the ISO 4217 currencies whose minor unit is not a hundredth.
var currencyExponents = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
	"UGX": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
}

// Decimal writes an amount in minor units as the decimal string the REST providers take
// ("1234.50" for 123450 EUR cents, "500" for 500 JPY), without any float.
func Decimal(minor int64, currency string) string {
	exp, ok := currencyExponents[strings.ToUpper(currency)]
	if !ok {
		exp = 2
	}
	neg := minor < 0
	if neg {
		minor = -minor
	}
	s := strconv.FormatInt(minor, 10)
	if exp > 0 {
		for len(s) <= exp {
			s = "0" + s
		}
		s = s[:len(s)-exp] + "." + s[len(s)-exp:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// statusError is an answer of a REST provider outside 2xx.
func statusError(provider string, code int, name, message string) error {
	if message == "" {
		message = http.StatusText(code)
	}
	if code >= 400 && code < 500 && code != http.StatusTooManyRequests && code != http.StatusConflict &&
		code != http.StatusUnauthorized && code != http.StatusRequestTimeout {
		return &Rejection{Provider: provider, Code: name, Reason: message}
	}
	return fmt.Errorf("%s answered %d: %s", provider, code, message)
}
