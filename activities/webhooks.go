package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/partnerd/partnerd/models"
)

// WebhookStore is what the webhook activities need of storage.
type WebhookStore interface {
	BeginWebhookDelivery(ctx context.Context, in models.DeliveryStart) (*models.WebhookDelivery, error)
	WebhookDispatch(ctx context.Context, sys models.Scope, webhookID, deliveryID string) (*models.WebhookDispatch, error)
	RecordWebhookAttempt(ctx context.Context, rec models.AttemptRecord) (models.AttemptOutcome, error)
	EndWebhookDelivery(ctx context.Context, sys models.Scope, deliveryID, status string) error
}

// Defaults of the delivery settings.
const (
	DefaultWebhookTimeout       = 15 * time.Second
	DefaultWebhookMaxRetryAfter = 24 * time.Hour
	// MaxWebhookResponseBody is how much of a response an attempt keeps.
	MaxWebhookResponseBody = 1 << 10
)

// Webhooks holds the webhook delivery activities.
type Webhooks struct {
	Store WebhookStore
	// Keyring opens the endpoints' sealed signing secrets.
	Keyring *models.Keyring
	// Schedule is the wait before each attempt (the first is usually 0); default
	// models.DefaultWebhookSchedule.
	Schedule []time.Duration
	// DisableAfter is how long an endpoint may fail continuously before it is disabled;
	// default models.DefaultWebhookDisableAfter.
	DisableAfter time.Duration
	// MaxRetryAfter caps the wait a Retry-After header can ask for; default 24 h.
	MaxRetryAfter time.Duration
	// Timeout bounds one attempt; default 15 s.
	Timeout time.Duration
	// AllowedNetworks are addresses deliveries may reach although they are loopback, private,
	// link-local or otherwise internal. Empty in production.
	AllowedNetworks []netip.Prefix
	// Observer is told of every attempt; nil records nothing.
	Observer Observer

	clientOnce sync.Once
	client     *http.Client
}

// DeliverySettings are the delivery parameters a workflow reads once, at its start, so that
// they are recorded in its history.
type DeliverySettings struct {
	Schedule      []time.Duration
	DisableAfter  time.Duration
	MaxRetryAfter time.Duration
	Timeout       time.Duration
}

// WebhookSettings reports the configured schedule and limits.
func (a *Webhooks) WebhookSettings(context.Context) (DeliverySettings, error) {
	s := DeliverySettings{Schedule: a.Schedule, DisableAfter: a.DisableAfter, MaxRetryAfter: a.MaxRetryAfter, Timeout: a.Timeout}
	if len(s.Schedule) == 0 {
		s.Schedule = models.DefaultWebhookSchedule
	}
	if s.DisableAfter <= 0 {
		s.DisableAfter = models.DefaultWebhookDisableAfter
	}
	if s.MaxRetryAfter <= 0 {
		s.MaxRetryAfter = DefaultWebhookMaxRetryAfter
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultWebhookTimeout
	}
	return s, nil
}

// BeginResult says whether and what a delivery workflow delivers.
type BeginResult struct {
	// Proceed is false when the endpoint, event or delivery is gone or the endpoint disabled.
	Proceed    bool
	Reason     string
	DeliveryID string
	MessageID  string
	Test       bool
}

// BeginWebhookDelivery creates (or, for replays and test-sends, reopens) the delivery a workflow works on.
func (a *Webhooks) BeginWebhookDelivery(ctx context.Context, in models.DeliveryStart) (BeginResult, error) {
	d, err := a.Store.BeginWebhookDelivery(ctx, in)
	switch k := models.ErrorKind(err); {
	case err == nil:
		return BeginResult{Proceed: true, DeliveryID: d.ID, MessageID: d.MessageID, Test: d.Test}, nil
	case k == models.KindNotFound || k == models.KindConflict:
		return BeginResult{Reason: err.Error()}, nil
	default:
		return BeginResult{}, err
	}
}

// SendInput names the delivery one attempt sends.
type SendInput struct {
	TenantID   string
	WebhookID  string
	DeliveryID string
	Timeout    time.Duration
	// Attempt is the attempt's number in the delivery's schedule, from 1 (for the metrics).
	Attempt int
}

// SendResult is what one attempt got.
type SendResult struct {
	// Skipped is set when the endpoint is disabled or gone: nothing was sent.
	Skipped    bool
	StatusCode int
	LatencyMS  int64
	// ResponseBody is the start of the response, at most 1 KiB.
	ResponseBody string
	Error        string
	// RetryAfter is what a Retry-After header asked for.
	RetryAfter time.Duration
}

// SendWebhook makes one signed HTTP attempt of a delivery. Failures to reach the endpoint are results,
// not errors; the workflow never retries this activity by itself.
func (a *Webhooks) SendWebhook(ctx context.Context, in SendInput) (SendResult, error) {
	res, err := a.sendWebhook(ctx, in)
	if err == nil {
		outcome := WebhookSucceeded
		switch {
		case res.Skipped:
			outcome = WebhookSkipped
		case res.StatusCode == 0:
			outcome = WebhookNetworkError
		case !models.Succeeded(res.StatusCode):
			outcome = WebhookHTTPError
		}
		observer(a.Observer).WebhookAttempt(outcome, in.Attempt, time.Duration(res.LatencyMS)*time.Millisecond)
	}
	return res, err
}

func (a *Webhooks) sendWebhook(ctx context.Context, in SendInput) (SendResult, error) {
	disp, err := a.Store.WebhookDispatch(ctx, models.System(in.TenantID), in.WebhookID, in.DeliveryID)
	if models.ErrorKind(err) == models.KindNotFound {
		return SendResult{Skipped: true, Error: err.Error()}, nil
	}
	if err != nil {
		return SendResult{}, err
	}
	if !disp.Webhook.Enabled && !disp.Delivery.Test {
		return SendResult{Skipped: true, Error: "the webhook is disabled"}, nil
	}
	sig, err := a.signatures(disp, time.Now())
	if err != nil {
		return SendResult{}, err
	}
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = DefaultWebhookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := signedPost(ctx, disp.Webhook.URL, "partnerd-webhooks/1", disp.Delivery.MessageID, sig.timestamp, sig.header, disp.Body)
	if err != nil {
		return SendResult{Error: "invalid URL"}, nil
	}
	started := time.Now()
	resp, err := a.httpClient().Do(req)
	res := SendResult{LatencyMS: time.Since(started).Milliseconds()}
	if err != nil {
		res.Error = describeSendError(err, timeout)
		return res, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxWebhookResponseBody))
	res.StatusCode = resp.StatusCode
	res.ResponseBody = strings.ReplaceAll(string(bytes.ToValidUTF8(body, nil)), "\x00", "")
	if !models.Succeeded(resp.StatusCode) {
		res.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		res.Error = "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	return res, nil
}

type signature struct{ timestamp, header string }

// signatures signs the message with the current secret and, during a rotation's grace period,
// with the previous one as well.
func (a *Webhooks) signatures(d *models.WebhookDispatch, now time.Time) (signature, error) {
	w := &d.Webhook
	secrets := []struct {
		sealed models.Sealed
		field  string
	}{{w.Secret, "secret"}}
	if w.PreviousSecret != "" && w.PreviousSecretExpiresAt != nil && now.Before(*w.PreviousSecretExpiresAt) {
		secrets = append(secrets, struct {
			sealed models.Sealed
			field  string
		}{w.PreviousSecret, "previous_secret"})
	}
	var sigs []string
	for _, s := range secrets {
		plain, err := a.Keyring.Open(s.sealed, models.SealContext{TenantID: w.TenantID, Table: "webhooks", RowID: w.ID, Field: s.field})
		if err != nil {
			return signature{}, fmt.Errorf("open the %s of webhook %s: %w", s.field, w.ID, err)
		}
		sig, err := models.SignWebhook(plain, d.Delivery.MessageID, now, d.Body)
		if err != nil {
			return signature{}, err
		}
		sigs = append(sigs, sig)
	}
	return signature{timestamp: strconv.FormatInt(now.Unix(), 10), header: strings.Join(sigs, " ")}, nil
}

// signedPost is a JSON POST carrying the Standard Webhooks headers: the message id, the
// timestamp and the signature header (one or more space-separated signatures).
func signedPost(ctx context.Context, url, userAgent, msgID, timestamp, signature string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("webhook-id", msgID)
	req.Header.Set("webhook-timestamp", timestamp)
	req.Header.Set("webhook-signature", signature)
	return req, nil
}

// signedPostWith signs body with secret now and builds its signedPost.
func signedPostWith(ctx context.Context, url, userAgent, msgID string, secret models.Secret, body []byte) (*http.Request, error) {
	now := time.Now()
	sig, err := models.SignWebhook(secret, msgID, now, body)
	if err != nil {
		return nil, err
	}
	return signedPost(ctx, url, userAgent, msgID, strconv.FormatInt(now.Unix(), 10), sig, body)
}

// GuardedClient is the HTTP client a's deliveries use, behind the address guard; payouts to an
// http provider share it. (A function, not a method: methods of activity structs are
// activities.)
func GuardedClient(a *Webhooks) *http.Client { return a.httpClient() }

// errBlockedAddress reports a connection refused by the SSRF guard.
var errBlockedAddress = errors.New("address not allowed")

func (a *Webhooks) httpClient() *http.Client {
	a.clientOnce.Do(func() {
		allowed := a.AllowedNetworks
		dialer := &net.Dialer{
			Timeout: 10 * time.Second,
			// The guard runs on the address actually dialled, after resolution, so that a name
			// that resolves to an internal address (DNS rebinding included) is refused.
			Control: func(_, address string, _ syscall.RawConn) error {
				host, _, err := net.SplitHostPort(address)
				if err != nil {
					return err
				}
				ip, err := netip.ParseAddr(host)
				if err != nil {
					return err
				}
				if reason := models.WebhookAddressBlocked(ip, allowed); reason != "" {
					return fmt.Errorf("%w: %s is %s", errBlockedAddress, ip, reason)
				}
				return nil
			},
		}
		a.client = &http.Client{
			Transport: &http.Transport{
				Proxy:                 nil, // a proxy would dial for us, past the guard
				DialContext:           dialer.DialContext,
				ForceAttemptHTTP2:     true,
				MaxIdleConns:          100,
				IdleConnTimeout:       90 * time.Second,
				TLSHandshakeTimeout:   10 * time.Second,
				ResponseHeaderTimeout: DefaultWebhookTimeout,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return a.client
}

// describeSendError says why no response came, without the URL (it may hold a token).
func describeSendError(err error, timeout time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, errBlockedAddress):
		return "refused: " + err.Error()
	case errors.Is(err, context.DeadlineExceeded) || (ue != nil && ue.Timeout()):
		return "timed out after " + timeout.String()
	}
	return err.Error()
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, 365*24*3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Truncate(time.Second)
	}
	return 0
}

// RecordInput is one attempt's outcome to record.
type RecordInput struct {
	Record models.AttemptRecord
}

// RecordWebhookAttempt stores an attempt and reports what follows (see the store's rules).
func (a *Webhooks) RecordWebhookAttempt(ctx context.Context, in RecordInput) (models.AttemptOutcome, error) {
	return a.Store.RecordWebhookAttempt(ctx, in.Record)
}

// EndInput ends a delivery that stops without an attempt.
type EndInput struct {
	TenantID   string
	DeliveryID string
	Status     string
}

// EndWebhookDelivery sets a delivery's final status.
func (a *Webhooks) EndWebhookDelivery(ctx context.Context, in EndInput) error {
	return a.Store.EndWebhookDelivery(ctx, models.System(in.TenantID), in.DeliveryID, in.Status)
}
