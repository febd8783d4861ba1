package activities

import "time"

// Outcomes of a webhook attempt, as Observer.WebhookAttempt takes them.
const (
	WebhookSucceeded    = "succeeded"
	WebhookHTTPError    = "http_error"
	WebhookNetworkError = "network_error"
	WebhookSkipped      = "skipped"
)

// Outcomes of a payout provider call and of a settled payout, as Observer takes them.
const (
	PayoutSucceeded = "succeeded"
	// PayoutFailed is a call the workflow retries.
	PayoutFailed = "failed"
	// PayoutRejected is a call that is not retried.
	PayoutRejected = "rejected"
	PayoutPaid     = "paid"
)

// Observer is told what the activities did, for the operators' metrics (telemetry.Metrics).
// Its methods take values from fixed sets only: never a tenant id or a caller's text.
type Observer interface {
	// WebhookAttempt records one attempt: its outcome, its number (from 1) and the duration of
	// its HTTP call.
	WebhookAttempt(outcome string, attempt int, elapsed time.Duration)
	// PayoutAttempt records one call of a payout provider.
	PayoutAttempt(provider, outcome string)
	// PayoutSettled records a payout settled for good (PayoutPaid or PayoutFailed).
	PayoutSettled(provider, outcome string)
	// PlaybookRunsStarted records n new runs.
	PlaybookRunsStarted(n int)
	// PlaybookRunFinished records a run that ended with status.
	PlaybookRunFinished(status string)
}

// nopObserver records nothing.
type nopObserver struct{}

func (nopObserver) WebhookAttempt(string, int, time.Duration) {}
func (nopObserver) PayoutAttempt(string, string)              {}
func (nopObserver) PayoutSettled(string, string)              {}
func (nopObserver) PlaybookRunsStarted(int)                   {}
func (nopObserver) PlaybookRunFinished(string)                {}

// observer is o, or one that records nothing.
func observer(o Observer) Observer {
	if o == nil {
		return nopObserver{}
	}
	return o
}
