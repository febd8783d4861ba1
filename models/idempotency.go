package models

import "time"

// IdempotencyStatus says whether the request that claimed an idempotency key has answered.
type IdempotencyStatus string

// The states of an idempotency key.
const (
	// IdempotencyInFlight: the first request with the key is still being processed.
	IdempotencyInFlight IdempotencyStatus = "in_flight"
	// IdempotencyDone: the first request answered; its response is kept for replays.
	IdempotencyDone IdempotencyStatus = "done"
)

// Lifetimes of idempotency keys.
const (
	// IdempotencyKeyLifetime is how long a key and its response are kept after the first use.
	IdempotencyKeyLifetime = 24 * time.Hour
	// IdempotencyClaimTimeout is how long a key may stay in flight before it counts as
	// abandoned (its process crashed) and another request may take it over.
	IdempotencyClaimTimeout = 5 * time.Minute
)

// IdempotencyKey is a client's Idempotency-Key in one tenant and what became of the first
// request that carried it.
type IdempotencyKey struct {
	TenantID string `gorm:"primaryKey;size:36"`
	Key      string `gorm:"primaryKey;size:255"`
	// Fingerprint identifies the first request: operation, path, caller and body.
	Fingerprint string
	// ClaimID names one claim of the key, so that a claim taken over as abandoned cannot
	// be finished or released by its former holder.
	ClaimID string
	Status  IdempotencyStatus
	// The stored response, set once Status is IdempotencyDone.
	ResponseStatus      int
	ResponseContentType string
	ResponseBody        []byte
	CreatedAt           time.Time
	ExpiresAt           time.Time
}

// IdempotentResponse is the response stored for replays of a key.
type IdempotentResponse struct {
	Status      int
	ContentType string
	Body        []byte
}
