package models

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Webhook is an endpoint of a tenant that receives signed event deliveries (Standard Webhooks).
type Webhook struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	URL         string `gorm:"size:2048;not null"`
	Description string `gorm:"size:500"`
	// EventTypes is a JSON array of event types and patterns with `*` wildcards.
	EventTypes string `gorm:"type:text;not null"`
	Enabled    bool   `gorm:"not null"`
	// Secret is the sealed signing secret; SecretHint shows its last characters.
	Secret     Sealed `gorm:"type:text;not null"`
	SecretHint string `gorm:"size:32"`
	// PreviousSecret still signs, next to Secret, until PreviousSecretExpiresAt.
	PreviousSecret          Sealed `gorm:"type:text"`
	PreviousSecretExpiresAt *time.Time
	// FailingSince is the first failed attempt of the current run of failures; nil while the
	// endpoint answers.
	FailingSince *time.Time
	// DisabledReason says why the service disabled the endpoint (WebhookDisabledGone or
	// WebhookDisabledFailing); empty when enabled or disabled by a person.
	DisabledReason string `gorm:"size:32"`
	DisabledAt     *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Patterns is the list of event types and patterns the endpoint subscribes to.
func (w *Webhook) Patterns() []string {
	var out []string
	_ = json.Unmarshal([]byte(w.EventTypes), &out)
	return out
}

// Reasons for which the service disables an endpoint.
const (
	WebhookDisabledGone    = "gone"
	WebhookDisabledFailing = "failing"
)

// WebhookChanges are the fields an update sets; nil fields stay.
type WebhookChanges struct {
	URL         *string
	Description *string
	EventTypes  []string
	Enabled     *bool
}

// WebhookSecretRotation replaces an endpoint's secret: Expect is the sealed secret the caller
// read, so that two rotations at once cannot both win.
type WebhookSecretRotation struct {
	Expect            Sealed
	Secret            Sealed
	SecretHint        string
	PreviousSecret    Sealed
	PreviousExpiresAt time.Time
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
	// DeliveryCancelled marks a delivery stopped because its endpoint was disabled or deleted.
	DeliveryCancelled = "cancelled"
)

// DeliveryStatuses lists the delivery statuses.
var DeliveryStatuses = []string{DeliveryPending, DeliverySucceeded, DeliveryFailed, DeliveryCancelled}

// WebhookDelivery is one message on its way to one endpoint, with all its attempts.
type WebhookDelivery struct {
	ID        string  `gorm:"primaryKey;size:36"`
	TenantID  string  `gorm:"size:36;not null"`
	WebhookID string  `gorm:"size:36;not null"`
	EventID   *string `gorm:"size:36"`
	EventType string  `gorm:"size:128;not null"`
	// MessageID is the webhook-id header, the same on every attempt and replay.
	MessageID string `gorm:"size:64;not null"`
	Status    string `gorm:"size:16;not null"`
	// Test marks a test-send; Body holds its synthetic message.
	Test           bool    `gorm:"not null;default:false"`
	Body           *string `gorm:"type:text"`
	Attempts       int     `gorm:"not null;default:0"`
	LastStatusCode int     `gorm:"not null;default:0"`
	Replays        int     `gorm:"not null;default:0"`
	CreatedAt      time.Time
	UpdatedAt      time.Time
	CompletedAt    *time.Time
}

// WebhookAttempt is one HTTP request of a delivery.
type WebhookAttempt struct {
	ID         string `gorm:"primaryKey;size:36"`
	TenantID   string `gorm:"size:36;not null"`
	WebhookID  string `gorm:"size:36;not null"`
	DeliveryID string `gorm:"size:36;not null"`
	Number     int    `gorm:"not null"`
	// StatusCode is 0 when no response came.
	StatusCode   int    `gorm:"not null;default:0"`
	LatencyMS    int64  `gorm:"column:latency_ms;not null;default:0"`
	ResponseBody string `gorm:"type:text"`
	Error        string `gorm:"size:1000"`
	AttemptedAt  time.Time
}

// DeliveryFilter selects deliveries in a list.
type DeliveryFilter struct {
	Status string
}

// DeliveryStart names what a delivery workflow delivers: a new delivery of an event, or an
// existing delivery (a replay or a test-send).
type DeliveryStart struct {
	TenantID   string
	WebhookID  string
	EventID    string
	DeliveryID string
}

// WebhookDispatch is what one attempt needs: the endpoint, the delivery and the message body.
type WebhookDispatch struct {
	Webhook  Webhook
	Delivery WebhookDelivery
	Body     []byte
}

// AttemptRecord is the outcome of one attempt to record.
type AttemptRecord struct {
	TenantID   string
	WebhookID  string
	DeliveryID string
	// AttemptID makes recording idempotent.
	AttemptID    string
	StatusCode   int
	LatencyMS    int64
	ResponseBody string
	Error        string
	At           time.Time
	// Final marks the last attempt of the schedule: a failure ends the delivery.
	Final bool
	// DisableAfter is how long an endpoint may fail before it is disabled.
	DisableAfter time.Duration
}

// AttemptOutcome is what recording an attempt decided.
type AttemptOutcome struct {
	// Status is the delivery's status afterwards; anything but pending ends the delivery.
	Status string
	// Disabled reports that this attempt disabled the endpoint, with the reason.
	Disabled       bool
	DisabledReason string
}

// Succeeded reports whether an HTTP status counts as a successful delivery: only 2xx does.
func Succeeded(status int) bool { return status >= 200 && status < 300 }

// WebhookSecretPrefix starts every webhook signing secret.
const WebhookSecretPrefix = "whsec_"

// NewWebhookSecret returns a new signing secret: whsec_ and the base64 of 32 random bytes.
func NewWebhookSecret() (Secret, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return Secret(WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)), nil
}

// SignWebhook returns the Standard Webhooks signature of a message, "v1," and the base64 of
// HMAC-SHA256 over "{id}.{timestamp}.{body}" keyed with the decoded secret.
func SignWebhook(secret Secret, msgID string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret.Reveal(), WebhookSecretPrefix))
	if err != nil {
		return "", errors.New("webhook secret is not base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// WebhookEnvelope is the JSON body of every delivery.
type WebhookEnvelope struct {
	Type      string           `json:"type"`
	Timestamp time.Time        `json:"timestamp"`
	Data      WebhookEventData `json:"data"`
}

// WebhookEventData is the event inside a delivery.
type WebhookEventData struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	CustomerID string          `json:"customerId,omitempty"`
	PartnerID  string          `json:"partnerId,omitempty"`
	Payload    json.RawMessage `json:"payload"`
	OccurredAt time.Time       `json:"occurredAt"`
}

// WebhookBody is the delivery body of an event.
func WebhookBody(e *Event) ([]byte, error) {
	d := WebhookEventData{ID: e.ID, Type: e.Type, Payload: json.RawMessage(e.Payload), OccurredAt: e.OccurredAt.UTC()}
	if e.CustomerID != nil {
		d.CustomerID = *e.CustomerID
	}
	if e.PartnerID != nil {
		d.PartnerID = *e.PartnerID
	}
	if len(d.Payload) == 0 {
		d.Payload = json.RawMessage("{}")
	}
	return json.Marshal(WebhookEnvelope{Type: e.Type, Timestamp: d.OccurredAt, Data: d})
}

// DefaultWebhookSchedule is when attempts are made, each wait counted from the previous
// attempt: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
var DefaultWebhookSchedule = []time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// DefaultWebhookDisableAfter is how long an endpoint may fail continuously before it is disabled.
const DefaultWebhookDisableAfter = 5 * 24 * time.Hour

// blockedNetworks are the addresses deliveries refuse unless allowed explicitly.
var blockedNetworks = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("fc00::/7"), "private"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// metadataAddresses are cloud instance-metadata services.
var metadataAddresses = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}

// WebhookAddressBlocked says why deliveries may not go to ip (loopback, private, link-local,
// CGNAT, unspecified, multicast, metadata), or "" when they may. An address inside one of
// allowed is not blocked, except a cloud metadata service, which never is reachable.
func WebhookAddressBlocked(ip netip.Addr, allowed []netip.Prefix) string {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return "invalid"
	}
	for _, m := range metadataAddresses {
		if ip == m {
			return "metadata service"
		}
	}
	for _, p := range allowed {
		if p.Contains(ip) {
			return ""
		}
	}
	if ip.Is6() {
		b := ip.As16()
		// NAT64 and 6to4 embed an IPv4 address: judge that one.
		if netip.MustParsePrefix("64:ff9b::/96").Contains(ip) {
			return WebhookAddressBlocked(netip.AddrFrom4([4]byte(b[12:16])), allowed)
		}
		if netip.MustParsePrefix("2002::/16").Contains(ip) {
			return WebhookAddressBlocked(netip.AddrFrom4([4]byte(b[2:6])), allowed)
		}
	}
	for _, n := range blockedNetworks {
		if n.prefix.Contains(ip) {
			return n.reason
		}
	}
	return ""
}

// CheckWebhookURL validates an endpoint URL: http or https, a host, no user info, and no
// literal address that deliveries refuse (unless inside allowed). Host names are checked again
// at every connection, against the address they resolve to.
func CheckWebhookURL(raw string, allowed []netip.Prefix, location string) *Error {
	bad := func(code, msg string) *Error {
		return Invalid(code, "the webhook URL is not allowed: "+msg, FieldError{Location: location, Message: msg})
	}
	if len(raw) > 2048 {
		return bad("INVALID_WEBHOOK_URL", "at most 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("INVALID_WEBHOOK_URL", "not a URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("INVALID_WEBHOOK_URL", "the scheme must be http or https")
	case u.User != nil:
		return bad("INVALID_WEBHOOK_URL", "user info (user:password@) is not allowed; use the signature to authenticate")
	case u.Hostname() == "":
		return bad("INVALID_WEBHOOK_URL", "a host is required")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		if reason := WebhookAddressBlocked(ip, allowed); reason != "" {
			return bad("WEBHOOK_URL_NOT_ALLOWED", "the address is "+reason)
		}
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		if WebhookAddressBlocked(netip.MustParseAddr("127.0.0.1"), allowed) != "" {
			return bad("WEBHOOK_URL_NOT_ALLOWED", "the address is loopback")
		}
	}
	return nil
}
