package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagWebhooks = "Webhooks"

// DefaultRotationGrace is how long a rotated-out secret keeps signing by default.
const DefaultRotationGrace = 24 * time.Hour

// maxRotationGrace bounds the grace period a rotation may ask for.
const maxRotationGrace = 7 * 24 * time.Hour

// WebhookStore is what the webhook operations need of storage, as the caller sees it.
type WebhookStore interface {
	CreateWebhook(ctx context.Context, w *models.Webhook, eventTypes []string) error
	ListWebhooks(ctx context.Context, pg models.Page) ([]models.Webhook, string, error)
	Webhook(ctx context.Context, id string) (*models.Webhook, error)
	UpdateWebhook(ctx context.Context, id string, ch models.WebhookChanges) (*models.Webhook, error)
	DeleteWebhook(ctx context.Context, id string) error
	RotateWebhookSecret(ctx context.Context, id string, rot models.WebhookSecretRotation) (*models.Webhook, error)
	CreateTestDelivery(ctx context.Context, webhookID string, d *models.WebhookDelivery) error
	ListWebhookDeliveries(ctx context.Context, webhookID string, f models.DeliveryFilter, pg models.Page) ([]models.WebhookDelivery, string, error)
	WebhookDelivery(ctx context.Context, webhookID, deliveryID string) (*models.WebhookDelivery, []models.WebhookAttempt, error)
	ReplayWebhookDelivery(ctx context.Context, webhookID, deliveryID string) (*models.WebhookDelivery, error)
}

// webhooks is the webhook store as the caller sees it.
func (s *Server) webhooks(ctx context.Context) WebhookStore {
	return s.deps.Modules.Webhooks(models.PrincipalFrom(ctx))
}

// WebhookStarter runs deliveries the API asks for through the durable delivery workflow.
type WebhookStarter interface {
	// ReplayDelivery starts the n-th replay of a delivery; starting the same replay twice is
	// a no-op.
	ReplayDelivery(ctx context.Context, tenantID, webhookID, eventID, deliveryID string, n int) error
	// TestSend delivers a recorded test delivery and returns once its one attempt is recorded.
	TestSend(ctx context.Context, tenantID, webhookID, deliveryID string) error
}

// WebhookDeps are what the webhook operations need besides storage.
type WebhookDeps struct {
	// Keyring seals the endpoints' signing secrets.
	Keyring *models.Keyring
	// Starter runs replays and test-sends.
	Starter WebhookStarter
	// AllowedNetworks are internal addresses endpoints may nevertheless use (tests, on-premise
	// receivers); empty in production.
	AllowedNetworks []netip.Prefix
	// RotationGrace is how long a rotated-out secret keeps signing; DefaultRotationGrace when 0.
	RotationGrace time.Duration
}

// Webhook is an endpoint as the API shows it: never its secret.
type Webhook struct {
	ID                      string     `json:"id"`
	URL                     string     `json:"url"`
	Description             string     `json:"description"`
	EventTypes              []string   `json:"eventTypes" doc:"Event types and patterns with * wildcards (deal.*)"`
	Enabled                 bool       `json:"enabled"`
	SecretHint              string     `json:"secretHint" doc:"The last characters of the signing secret, to recognise it"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty" doc:"Until then the previous secret signs too"`
	FailingSince            *time.Time `json:"failingSince,omitempty" doc:"Start of the current run of failed attempts"`
	DisabledReason          string     `json:"disabledReason,omitempty" enum:"gone,failing" doc:"Why the service disabled the endpoint: it answered 410 (gone) or failed for too long (failing)"`
	DisabledAt              *time.Time `json:"disabledAt,omitempty"`
	CreatedAt               time.Time  `json:"createdAt"`
	UpdatedAt               time.Time  `json:"updatedAt"`
}

func webhookOf(w *models.Webhook) Webhook {
	out := Webhook{ID: w.ID, URL: w.URL, Description: w.Description, EventTypes: w.Patterns(), Enabled: w.Enabled,
		SecretHint: w.SecretHint, FailingSince: w.FailingSince, DisabledReason: w.DisabledReason, DisabledAt: w.DisabledAt,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(time.Now()) {
		out.PreviousSecretExpiresAt = w.PreviousSecretExpiresAt
	}
	if out.EventTypes == nil {
		out.EventTypes = []string{}
	}
	return out
}

// WebhookDelivery is one message to one endpoint.
type WebhookDelivery struct {
	ID             string     `json:"id"`
	WebhookID      string     `json:"webhookId"`
	EventID        string     `json:"eventId,omitempty" doc:"The delivered event; absent for test-sends"`
	EventType      string     `json:"eventType"`
	MessageID      string     `json:"messageId" doc:"The webhook-id header, the same on every attempt and replay"`
	Status         string     `json:"status" enum:"pending,succeeded,failed,cancelled"`
	Test           bool       `json:"test"`
	AttemptCount   int        `json:"attemptCount"`
	LastStatusCode int        `json:"lastStatusCode,omitempty"`
	Replays        int        `json:"replays"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	CompletedAt    *time.Time `json:"completedAt,omitempty"`
}

func deliveryOf(d *models.WebhookDelivery) WebhookDelivery {
	return WebhookDelivery{ID: d.ID, WebhookID: d.WebhookID, EventID: str(d.EventID), EventType: d.EventType, MessageID: d.MessageID,
		Status: d.Status, Test: d.Test, AttemptCount: d.Attempts, LastStatusCode: d.LastStatusCode, Replays: d.Replays,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, CompletedAt: d.CompletedAt}
}

// WebhookAttempt is one HTTP request of a delivery.
type WebhookAttempt struct {
	ID           string    `json:"id"`
	Number       int       `json:"number"`
	StatusCode   int       `json:"statusCode" doc:"0 when no response came"`
	LatencyMs    int64     `json:"latencyMs"`
	ResponseBody string    `json:"responseBody" doc:"The start of the response, at most 1 KiB"`
	Error        string    `json:"error,omitempty"`
	AttemptedAt  time.Time `json:"attemptedAt"`
}

// WebhookDeliveryDetail is a delivery with its attempts.
type WebhookDeliveryDetail struct {
	WebhookDelivery
	Attempts []WebhookAttempt `json:"attempts" nullable:"false"`
}

func deliveryDetailOf(d *models.WebhookDelivery, attempts []models.WebhookAttempt) WebhookDeliveryDetail {
	out := WebhookDeliveryDetail{WebhookDelivery: deliveryOf(d), Attempts: make([]WebhookAttempt, 0, len(attempts))}
	for _, a := range attempts {
		out.Attempts = append(out.Attempts, WebhookAttempt{ID: a.ID, Number: a.Number, StatusCode: a.StatusCode, LatencyMs: a.LatencyMS,
			ResponseBody: a.ResponseBody, Error: a.Error, AttemptedAt: a.AttemptedAt})
	}
	return out
}

// CreateWebhookInput adds an endpoint.
type CreateWebhookInput struct {
	Body struct {
		URL         string   `json:"url" minLength:"1" maxLength:"2048" doc:"http or https; internal addresses are refused" example:"https://example.com/webhooks/partnerd"`
		Description string   `json:"description,omitempty" maxLength:"500"`
		EventTypes  []string `json:"eventTypes" minItems:"1" maxItems:"50" maxLength:"128" doc:"Event types or patterns with * wildcards: deal.*, *.created, *" example:"[\"deal.*\"]"`
		Enabled     *bool    `json:"enabled,omitempty" doc:"Default true"`
	}
}

// UpdateWebhookInput changes an endpoint; absent fields stay. Enabling a disabled endpoint
// clears its failure record.
type UpdateWebhookInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		URL         *string  `json:"url,omitempty" maxLength:"2048"`
		Description *string  `json:"description,omitempty" maxLength:"500"`
		EventTypes  []string `json:"eventTypes,omitempty" maxItems:"50" maxLength:"128"`
		Enabled     *bool    `json:"enabled,omitempty"`
	}
}

// RotateWebhookSecretInput replaces an endpoint's secret.
type RotateWebhookSecretInput struct {
	ID          string `path:"id" maxLength:"36"`
	GracePeriod string `query:"gracePeriod" maxLength:"16" doc:"How long the previous secret keeps signing next to the new one, e.g. 24h (the default) or 0s to stop it at once; at most 168h" example:"24h"`
}

// WebhookOutput is one endpoint.
type WebhookOutput struct {
	Body Webhook
}

// WebhookListOutput is a page of endpoints.
type WebhookListOutput struct {
	Body ListBody[Webhook]
}

// WebhookWithSecretOutput shows the signing secret, this once.
type WebhookWithSecretOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		Webhook
		Secret string `json:"secret" doc:"The signing secret (whsec_…); shown only in this response"`
	}
}

// DeliveryPath names one delivery of an endpoint.
type DeliveryPath struct {
	ID         string `path:"id" maxLength:"36"`
	DeliveryID string `path:"deliveryId" maxLength:"36"`
}

// ListDeliveriesInput filters an endpoint's deliveries.
type ListDeliveriesInput struct {
	ListParams
	ID     string `path:"id" maxLength:"36"`
	Status string `query:"status" enum:"pending,succeeded,failed,cancelled" doc:"Only deliveries in this status"`
}

// DeliveryListOutput is a page of deliveries.
type DeliveryListOutput struct {
	Body ListBody[WebhookDelivery]
}

// DeliveryDetailOutput is one delivery with its attempts.
type DeliveryDetailOutput struct {
	Body WebhookDeliveryDetail
}

// DeliveryOutput is one delivery.
type DeliveryOutput struct {
	Body WebhookDelivery
}

func registerWebhookRoutes(s *Server) {
	tags := []string{tagWebhooks}
	register(s, huma.Operation{
		OperationID: "create-webhook", Method: http.MethodPost, Path: "/api/webhooks", Tags: tags,
		RequestBody: requestExample(`{"url": "https://hooks.acme.example/partnerd", "description": "Deals into our CRM", "eventTypes": ["deal.*", "partner.created"], "enabled": true}`),
		Summary:     "Create a webhook endpoint; its signing secret is returned only here",
		Description: "Deliveries follow Standard Webhooks: headers webhook-id, webhook-timestamp and webhook-signature (v1, HMAC-SHA256).",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusUnprocessableEntity},
	}, Requires(authz.WebhooksWrite), s.createWebhook)

	register(s, huma.Operation{
		OperationID: "list-webhooks", Method: http.MethodGet, Path: "/api/webhooks", Tags: tags,
		Summary: "List webhook endpoints", Security: UsersOrKeys,
	}, Requires(authz.WebhooksRead), s.listWebhooks)

	register(s, huma.Operation{
		OperationID: "get-webhook", Method: http.MethodGet, Path: "/api/webhooks/{id}", Tags: tags,
		Summary: "Get a webhook endpoint", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.WebhooksRead), s.getWebhook)

	register(s, huma.Operation{
		OperationID: "update-webhook", Method: http.MethodPatch, Path: "/api/webhooks/{id}", Tags: tags,
		RequestBody: requestExample(`{"eventTypes": ["deal.*", "partner.*"]}`),
		Summary:     "Change a webhook endpoint", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, Requires(authz.WebhooksWrite), s.updateWebhook)

	register(s, huma.Operation{
		OperationID: "delete-webhook", Method: http.MethodDelete, Path: "/api/webhooks/{id}", Tags: tags,
		Summary: "Delete a webhook endpoint", Description: "Its deliveries go with it; deliveries still retrying stop.",
		Security: UsersOrKeys, DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, Requires(authz.WebhooksWrite), s.deleteWebhook)

	register(s, huma.Operation{
		OperationID: "rotate-webhook-secret", Method: http.MethodPost, Path: "/api/webhooks/{id}/rotate-secret", Tags: tags,
		Summary:     "Replace a webhook endpoint's signing secret; the new one is returned only here",
		Description: "During the grace period every delivery carries two signatures, one per secret, separated by a space.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, Requires(authz.WebhooksWrite), s.rotateWebhookSecret)

	register(s, huma.Operation{
		OperationID: "test-webhook", Method: http.MethodPost, Path: "/api/webhooks/{id}/test", Tags: tags,
		Summary:     "Send a test message to a webhook endpoint and wait for the answer",
		Description: "Delivers one synthetic webhook.tested message, once, without retries, and returns the recorded delivery with its attempt. A failed test does not count against the endpoint.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusServiceUnavailable},
	}, Requires(authz.WebhooksWrite), s.testWebhook)

	register(s, huma.Operation{
		OperationID: "list-webhook-deliveries", Method: http.MethodGet, Path: "/api/webhooks/{id}/deliveries", Tags: tags,
		Summary: "List an endpoint's deliveries, oldest first", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.WebhooksRead), s.listWebhookDeliveries)

	register(s, huma.Operation{
		OperationID: "get-webhook-delivery", Method: http.MethodGet, Path: "/api/webhooks/{id}/deliveries/{deliveryId}", Tags: tags,
		Summary: "Get a delivery with every attempt", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.WebhooksRead), s.getWebhookDelivery)

	register(s, huma.Operation{
		OperationID: "replay-webhook-delivery", Method: http.MethodPost, Path: "/api/webhooks/{id}/deliveries/{deliveryId}/replay", Tags: tags,
		Summary:     "Send a delivery again, with the same webhook-id",
		Description: "Starts the delivery again on the retry schedule; its attempts continue the delivery's list.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusAccepted,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable},
	}, Requires(authz.WebhooksWrite), s.replayDelivery)
}

// listWebhooks lists webhook endpoints.
func (s *Server) listWebhooks(ctx context.Context, in *struct{ ListParams }) (*WebhookListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Webhook, string, error) {
		return s.webhooks(ctx).ListWebhooks(ctx, pg)
	}, webhookOf)
	return &WebhookListOutput{Body: body}, err
}

// getWebhook answers one webhook endpoint.
func (s *Server) getWebhook(ctx context.Context, in *IDPath) (*WebhookOutput, error) {
	w, err := s.webhooks(ctx).Webhook(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &WebhookOutput{Body: webhookOf(w)}, nil
}

// deleteWebhook deletes a webhook endpoint with its deliveries.
func (s *Server) deleteWebhook(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.webhooks(ctx).DeleteWebhook(ctx, in.ID)
}

// listWebhookDeliveries lists an endpoint's deliveries, oldest first.
func (s *Server) listWebhookDeliveries(ctx context.Context, in *ListDeliveriesInput) (*DeliveryListOutput, error) {
	f := models.DeliveryFilter{Status: in.Status}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.WebhookDelivery, string, error) {
		return s.webhooks(ctx).ListWebhookDeliveries(ctx, in.ID, f, pg)
	}, deliveryOf)
	return &DeliveryListOutput{Body: body}, err
}

// getWebhookDelivery answers one delivery with every attempt.
func (s *Server) getWebhookDelivery(ctx context.Context, in *DeliveryPath) (*DeliveryDetailOutput, error) {
	d, attempts, err := s.webhooks(ctx).WebhookDelivery(ctx, in.ID, in.DeliveryID)
	if err != nil {
		return nil, err
	}
	return &DeliveryDetailOutput{Body: deliveryDetailOf(d, attempts)}, nil
}

func errWebhooksUnavailable() error {
	return models.Errorf(models.KindUnavailable, "WEBHOOKS_UNAVAILABLE", "webhook delivery is not configured on this server")
}

// checkEventTypes validates subscription patterns.
func checkEventTypes(patterns []string) []models.FieldError {
	var problems []models.FieldError
	for i, p := range patterns {
		if !models.ValidEventPattern(p) {
			problems = append(problems, models.FieldError{Location: "body.eventTypes[" + strconv.Itoa(i) + "]",
				Message: "use dot-separated lower-case words, * for any", Value: p})
		}
	}
	return problems
}

// sealSecret seals an endpoint's secret for the place it is stored in.
func (s *Server) sealSecret(tenantID, webhookID, field string, secret models.Secret) (models.Sealed, error) {
	if s.deps.Webhooks.Keyring == nil {
		return "", errWebhooksUnavailable()
	}
	return s.deps.Webhooks.Keyring.Seal(secret, models.SealContext{TenantID: tenantID, Table: "webhooks", RowID: webhookID, Field: field})
}

// createWebhook creates a webhook endpoint and shows its signing secret this once.
func (s *Server) createWebhook(ctx context.Context, in *CreateWebhookInput) (*WebhookWithSecretOutput, error) {
	b := in.Body
	if err := models.CheckWebhookURL(b.URL, s.deps.Webhooks.AllowedNetworks, "body.url"); err != nil {
		return nil, err
	}
	if problems := checkEventTypes(b.EventTypes); len(problems) > 0 {
		return nil, models.Invalid("INVALID_EVENT_PATTERN", "an event type is neither a type nor a pattern", problems...)
	}
	secret, err := models.NewWebhookSecret()
	if err != nil {
		return nil, err
	}
	p := models.PrincipalFrom(ctx)
	w := &models.Webhook{ID: models.NewID(), URL: b.URL, Description: b.Description, Enabled: b.Enabled == nil || *b.Enabled, SecretHint: secret.Masked()}
	if w.Secret, err = s.sealSecret(p.TenantID, w.ID, "secret", secret); err != nil {
		return nil, err
	}
	if err := s.webhooks(ctx).CreateWebhook(ctx, w, b.EventTypes); err != nil {
		return nil, err
	}
	out := &WebhookWithSecretOutput{CacheControl: "no-store"}
	out.Body.Webhook = webhookOf(w)
	out.Body.Secret = secret.Reveal()
	return out, nil
}

// updateWebhook changes a webhook endpoint.
func (s *Server) updateWebhook(ctx context.Context, in *UpdateWebhookInput) (*WebhookOutput, error) {
	b := in.Body
	if b.URL != nil {
		if err := models.CheckWebhookURL(*b.URL, s.deps.Webhooks.AllowedNetworks, "body.url"); err != nil {
			return nil, err
		}
	}
	if b.EventTypes != nil {
		if len(b.EventTypes) == 0 {
			return nil, models.Invalid("INVALID_EVENT_PATTERN", "an endpoint subscribes to at least one event type",
				models.FieldError{Location: "body.eventTypes", Message: "at least one type or pattern"})
		}
		if problems := checkEventTypes(b.EventTypes); len(problems) > 0 {
			return nil, models.Invalid("INVALID_EVENT_PATTERN", "an event type is neither a type nor a pattern", problems...)
		}
	}
	w, err := s.webhooks(ctx).UpdateWebhook(ctx, in.ID, models.WebhookChanges{URL: b.URL, Description: b.Description, EventTypes: b.EventTypes, Enabled: b.Enabled})
	if err != nil {
		return nil, err
	}
	return &WebhookOutput{Body: webhookOf(w)}, nil
}

// rotateWebhookSecret replaces a webhook endpoint's signing secret and shows the new one this once.
func (s *Server) rotateWebhookSecret(ctx context.Context, in *RotateWebhookSecretInput) (*WebhookWithSecretOutput, error) {
	grace := s.deps.Webhooks.RotationGrace
	if grace <= 0 {
		grace = DefaultRotationGrace
	}
	if in.GracePeriod != "" {
		d, err := time.ParseDuration(in.GracePeriod)
		if err != nil || d < 0 || d > maxRotationGrace {
			return nil, models.Invalid("INVALID_GRACE_PERIOD", "the grace period must be a duration from 0s to 168h",
				models.FieldError{Location: "query.gracePeriod", Message: "a duration such as 24h, at most 168h", Value: in.GracePeriod})
		}
		grace = d
	}
	if s.deps.Webhooks.Keyring == nil {
		return nil, errWebhooksUnavailable()
	}
	w, err := s.webhooks(ctx).Webhook(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	keys := s.deps.Webhooks.Keyring
	old, err := keys.Open(w.Secret, models.SealContext{TenantID: w.TenantID, Table: "webhooks", RowID: w.ID, Field: "secret"})
	if err != nil {
		return nil, err
	}
	rot := models.WebhookSecretRotation{Expect: w.Secret, PreviousExpiresAt: time.Now().Add(grace)}
	if grace > 0 {
		if rot.PreviousSecret, err = s.sealSecret(w.TenantID, w.ID, "previous_secret", old); err != nil {
			return nil, err
		}
	}
	secret, err := models.NewWebhookSecret()
	if err != nil {
		return nil, err
	}
	rot.SecretHint = secret.Masked()
	if rot.Secret, err = s.sealSecret(w.TenantID, w.ID, "secret", secret); err != nil {
		return nil, err
	}
	if w, err = s.webhooks(ctx).RotateWebhookSecret(ctx, in.ID, rot); err != nil {
		return nil, err
	}
	out := &WebhookWithSecretOutput{CacheControl: "no-store"}
	out.Body.Webhook = webhookOf(w)
	out.Body.Secret = secret.Reveal()
	return out, nil
}

// testDeliveryTimeout bounds how long a test-send waits for its attempt.
const testDeliveryTimeout = 45 * time.Second

// testWebhook sends a test message to a webhook endpoint and answers with the recorded delivery.
func (s *Server) testWebhook(ctx context.Context, in *IDPath) (*DeliveryDetailOutput, error) {
	starter := s.deps.Webhooks.Starter
	if starter == nil {
		return nil, errWebhooksUnavailable()
	}
	p := models.PrincipalFrom(ctx)
	now := time.Now().UTC()
	id := models.NewID()
	payload, _ := json.Marshal(models.WebhookTestedPayload{WebhookID: in.ID, Message: "This is a test message from partnerd."})
	body, err := json.Marshal(models.WebhookEnvelope{Type: models.EventWebhookTested, Timestamp: now, Data: models.WebhookEventData{
		ID: id, Type: models.EventWebhookTested, Payload: payload, OccurredAt: now,
	}})
	if err != nil {
		return nil, err
	}
	msg := string(body)
	d := &models.WebhookDelivery{ID: id, MessageID: id, EventType: models.EventWebhookTested, Body: &msg}
	if err := s.webhooks(ctx).CreateTestDelivery(ctx, in.ID, d); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, testDeliveryTimeout)
	defer cancel()
	if err := starter.TestSend(wctx, p.TenantID, in.ID, d.ID); err != nil {
		return nil, models.Errorf(models.KindUnavailable, "TEST_SEND_FAILED", "the test message could not be sent now; try again")
	}
	got, attempts, err := s.webhooks(ctx).WebhookDelivery(ctx, in.ID, d.ID)
	if err != nil {
		return nil, err
	}
	return &DeliveryDetailOutput{Body: deliveryDetailOf(got, attempts)}, nil
}

// replayDelivery sends a delivery again, with the same webhook-id.
func (s *Server) replayDelivery(ctx context.Context, in *DeliveryPath) (*DeliveryOutput, error) {
	starter := s.deps.Webhooks.Starter
	if starter == nil {
		return nil, errWebhooksUnavailable()
	}
	d, err := s.webhooks(ctx).ReplayWebhookDelivery(ctx, in.ID, in.DeliveryID)
	if err != nil {
		return nil, err
	}
	p := models.PrincipalFrom(ctx)
	if err := starter.ReplayDelivery(ctx, p.TenantID, in.ID, str(d.EventID), d.ID, d.Replays); err != nil {
		return nil, models.Errorf(models.KindUnavailable, "REPLAY_NOT_STARTED", "the replay could not be started now; try again")
	}
	return &DeliveryOutput{Body: deliveryOf(d)}, nil
}
