package models

// Types of the events the service emits about its own changes.
const (
	EventCustomerCreated    = "customer.created"
	EventCustomerUpdated    = "customer.updated"
	EventCustomerAttributed = "customer.attributed"
	EventCustomerDeleted    = "customer.deleted"
	EventWebhookDisabled    = "webhook.disabled"
	EventWebhookTested      = "webhook.tested"
)

// CustomerEventPayload is the payload of customer.* events.
type CustomerEventPayload struct {
	CustomerID string `json:"customerId"`
	Email      string `json:"email,omitempty"`
	ExternalID string `json:"externalId,omitempty"`
	Name       string `json:"name,omitempty"`
	PartnerID  string `json:"partnerId,omitempty" doc:"The partner the customer is attributed to; empty while unattributed"`
}

// WebhookDisabledPayload is the payload of webhook.disabled, an operational event.
type WebhookDisabledPayload struct {
	WebhookID string `json:"webhookId"`
	URL       string `json:"url"`
	Reason    string `json:"reason" doc:"gone (the endpoint answered 410) or failing (it failed for the configured period)"`
}

// WebhookTestedPayload is the payload of webhook.tested, sent by the test-send operation.
type WebhookTestedPayload struct {
	WebhookID string `json:"webhookId"`
	Message   string `json:"message"`
}

// EventType describes one type the service emits.
type EventType struct {
	Name        string
	Description string
	// Payload is a value of the payload's Go type, from which the API derives its JSON schema.
	Payload any
}

// EventCatalogue lists every type the service emits, in display order. Every module adds its
// own here.
func EventCatalogue() []EventType {
	return []EventType{
		{EventCustomerCreated, "A customer was created, by an operator, a partner or an ingested event for an unknown email.", CustomerEventPayload{}},
		{EventCustomerUpdated, "A customer's email, external id or name changed.", CustomerEventPayload{}},
		{EventCustomerAttributed, "A customer was attributed to another partner, or its attribution was removed.", CustomerEventPayload{}},
		{EventCustomerDeleted, "A customer was deleted; its events stay.", CustomerEventPayload{}},
		{EventWebhookDisabled, "A webhook endpoint was disabled because it answered 410 or kept failing.", WebhookDisabledPayload{}},
		{EventWebhookTested, "An operator sent a test event to a webhook endpoint.", WebhookTestedPayload{}},
	}
}
