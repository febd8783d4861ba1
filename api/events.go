package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagEvents = "Events"

// Ingest limits (CONVENTIONS.md): per event, per batch body, events per batch.
const (
	MaxEventBytes      = 32 << 10
	MaxBatchBytes      = 1 << 20
	MaxBatchEvents     = 500
	maxFutureTimestamp = 24 * time.Hour
)

// JSONObject is a JSON object passed through unchanged: numbers keep every digit.
type JSONObject json.RawMessage

// Schema declares JSONObject as an object with any properties.
func (JSONObject) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true}
}

// MarshalJSON writes the object as it is.
func (o JSONObject) MarshalJSON() ([]byte, error) {
	if len(o) == 0 {
		return []byte("{}"), nil
	}
	return o, nil
}

// UnmarshalJSON keeps the raw object.
func (o *JSONObject) UnmarshalJSON(b []byte) error {
	*o = append((*o)[:0], b...)
	return nil
}

// EventsStore is what the event operations need of storage, as the caller sees it.
type EventsStore interface {
	Ingest(ctx context.Context, in []models.IngestEvent) ([]models.IngestResult, error)
	ListEvents(ctx context.Context, f models.EventFilter, pg models.Page) ([]models.Event, string, error)
	Event(ctx context.Context, id string) (*models.Event, error)
}

// events is the event store as the caller sees it.
func (s *Server) events(ctx context.Context) EventsStore {
	return s.deps.Modules.Events(models.PrincipalFrom(ctx))
}

// IngestEventBody is one customer event as an integration sends it.
type IngestEventBody struct {
	CustomerEmail string     `json:"customerEmail,omitempty" maxLength:"320" doc:"The customer's email; required unless customerId is given. An unknown email creates an unattributed customer unless the tenant turned that off."`
	CustomerID    string     `json:"customerId,omitempty" maxLength:"36" doc:"The id partnerd gave the customer; required unless customerEmail is given. With both, they must name the same customer."`
	Type          string     `json:"type" minLength:"3" maxLength:"128" pattern:"^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$" doc:"Dot-separated lower-case words, e.g. feature.used. Types of the service's own namespaces (deal., customer., ...) are refused." example:"feature.used"`
	Payload       JSONObject `json:"payload,omitempty" doc:"Any JSON object; numbers are kept exactly."`
	EventID       string     `json:"eventId,omitempty" minLength:"1" maxLength:"200" doc:"Your idempotency key, unique per tenant: an event sent again with the same eventId is stored once."`
	Timestamp     *time.Time `json:"timestamp,omitempty" doc:"When the event happened (RFC 3339), at most 24 h in the future; default now."`
}

// IngestEventInput is the single-event ingest request.
type IngestEventInput struct {
	Body IngestEventBody
}

// IngestedEvent says what happened to one event.
type IngestedEvent struct {
	ID         string `json:"id" doc:"The event's id; for a duplicate, the id of the event stored first"`
	Status     string `json:"status" enum:"stored,duplicate"`
	CustomerID string `json:"customerId"`
}

// IngestEventOutput is the answer to a single-event ingest.
type IngestEventOutput struct {
	Body IngestedEvent
}

// IngestBatchInput is a batch of events.
type IngestBatchInput struct {
	Body struct {
		Events []IngestEventBody `json:"events" minItems:"1" maxItems:"500" doc:"At most 500 events and 1 MiB in all, each at most 32 KiB; more is refused with 413."`
	}
}

// IngestBatchResult is the outcome of one event of a batch.
type IngestBatchResult struct {
	Index      int           `json:"index"`
	Status     string        `json:"status" enum:"stored,duplicate,rejected"`
	ID         string        `json:"id,omitempty"`
	CustomerID string        `json:"customerId,omitempty"`
	Error      *EventProblem `json:"error,omitempty"`
}

// EventProblem says why one event of a batch was rejected.
type EventProblem struct {
	Code   string              `json:"code"`
	Detail string              `json:"detail"`
	Errors []*huma.ErrorDetail `json:"errors,omitempty"`
}

// IngestBatchOutput reports every event of a batch.
type IngestBatchOutput struct {
	Body struct {
		Stored     int                 `json:"stored"`
		Duplicates int                 `json:"duplicates"`
		Rejected   int                 `json:"rejected"`
		Results    []IngestBatchResult `json:"results"`
	}
}

// Event is an event as the API shows it.
type Event struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Source      string     `json:"source" enum:"internal,ingest"`
	CustomerID  string     `json:"customerId,omitempty"`
	PartnerID   string     `json:"partnerId,omitempty"`
	ActorKind   string     `json:"actorKind"`
	ActorID     string     `json:"actorId,omitempty"`
	CausationID string     `json:"causationId,omitempty"`
	EventID     string     `json:"eventId,omitempty" doc:"The client's idempotency key of an ingested event"`
	Payload     JSONObject `json:"payload"`
	OccurredAt  time.Time  `json:"occurredAt"`
	ReceivedAt  time.Time  `json:"receivedAt"`
}

func eventOf(e *models.Event) Event {
	return Event{ID: e.ID, Type: e.Type, Source: e.Source, CustomerID: str(e.CustomerID), PartnerID: str(e.PartnerID),
		ActorKind: e.ActorKind, ActorID: e.ActorID, CausationID: str(e.CausationID), EventID: str(e.ExternalID),
		Payload: JSONObject(e.Payload), OccurredAt: e.OccurredAt, ReceivedAt: e.ReceivedAt}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// ListEventsInput filters the event list.
type ListEventsInput struct {
	ListParams
	Type       string    `query:"type" maxLength:"128" doc:"An event type, or a pattern with * wildcards (deal.*)"`
	CustomerID string    `query:"customerId" maxLength:"36"`
	PartnerID  string    `query:"partnerId" maxLength:"36"`
	From       time.Time `query:"from" doc:"Events that occurred at or after this time (RFC 3339)"`
	To         time.Time `query:"to" doc:"Events that occurred before this time (RFC 3339)"`
	Order      string    `query:"order" enum:"oldest,newest" default:"oldest" doc:"oldest: in the order they were received; newest: the most recently received first"`
}

// EventListOutput is a page of events.
type EventListOutput struct {
	Body ListBody[Event]
}

// EventOutput is one event.
type EventOutput struct {
	Body Event
}

// EventTypeInfo describes one event type the service emits.
type EventTypeInfo struct {
	Name          string        `json:"name"`
	Description   string        `json:"description"`
	PayloadSchema PayloadSchema `json:"payloadSchema"`
}

// PayloadSchema is the JSON Schema (draft 2020-12) of an event type's payload.
type PayloadSchema struct{ schema *huma.Schema }

// Schema declares PayloadSchema as a JSON Schema document.
func (PayloadSchema) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true,
		Description: "JSON Schema (draft 2020-12) of the payload."}
}

// MarshalJSON writes the schema document.
func (p PayloadSchema) MarshalJSON() ([]byte, error) { return json.Marshal(p.schema) }

// EventTypeListOutput is a page of the event type catalogue.
type EventTypeListOutput struct {
	Body ListBody[EventTypeInfo]
}

func registerEventRoutes(s *Server) {
	tags := []string{tagEvents}
	register(s, huma.Operation{
		OperationID: "ingest-event", Method: http.MethodPost, Path: "/api/events/ingest", Tags: tags,
		RequestBody: requestExample(`{"customerEmail": "billing@initech.example", "type": "invoice.paid", "eventId": "inv-2026-1184", "timestamp": "2026-11-20T14:05:00Z", "payload": {"invoiceId": "inv-2026-1184", "amount": 129900, "currency": "EUR"}}`),
		Summary:     "Ingest one customer event",
		Description: "Stores one event of a customer (named by email or id) sent by an integration with a machine key holding events:write. Answers 200 for a stored event and for a duplicate eventId.",
		Security:    KeysOnly, MaxBodyBytes: MaxEventBytes,
		Errors: []int{http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
	}, Requires(authz.EventsWrite), s.ingestEvent)

	register(s, huma.Operation{
		OperationID: "ingest-events", Method: http.MethodPost, Path: "/api/events/batch", Tags: tags,
		RequestBody: requestExample(`{"events": [{"customerEmail": "billing@initech.example", "type": "invoice.paid", "eventId": "inv-2026-1184", "timestamp": "2026-11-20T14:05:00Z", "payload": {"invoiceId": "inv-2026-1184", "amount": 129900, "currency": "EUR"}}, {"customerEmail": "ops@globex.example", "type": "feature.used", "payload": {"feature": "reports"}}]}`),
		Summary:     "Ingest a batch of customer events",
		Description: "Up to 500 events and 1 MiB per request, each at most 32 KiB. Every event is reported: stored, duplicate or rejected with its problem; rejected events do not stop the others.",
		Security:    KeysOnly, MaxBodyBytes: MaxBatchBytes,
		Metadata: map[string]any{metaTooManyItems: "BATCH_TOO_LARGE"},
		Errors:   []int{http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
	}, Requires(authz.EventsWrite), s.ingestBatch)

	register(s, huma.Operation{
		OperationID: "list-events", Method: http.MethodGet, Path: "/api/events", Tags: tags,
		Summary: "List events", Description: "In the order they were received, newest last (order=newest: newest first). Partners see only events of their own customers.",
		Security: UsersOrKeys,
	}, Requires(authz.EventsRead), s.listEvents)

	register(s, huma.Operation{
		OperationID: "get-event", Method: http.MethodGet, Path: "/api/events/{id}", Tags: tags,
		Summary: "Get an event", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.EventsRead), s.getEvent)

	register(s, huma.Operation{
		OperationID: "list-event-types", Method: http.MethodGet, Path: "/api/event-types", Tags: tags,
		Summary:  "The event types the service emits, with the JSON schema of each payload",
		Security: UsersOrKeys,
	}, Requires(authz.EventsRead), s.listEventTypes)
}

// listEvents lists events.
func (s *Server) listEvents(ctx context.Context, in *ListEventsInput) (*EventListOutput, error) {
	if in.Type != "" && !models.ValidEventPattern(in.Type) {
		return nil, models.Invalid("INVALID_EVENT_PATTERN", "type is neither an event type nor a pattern",
			models.FieldError{Location: "query.type", Message: "use dot-separated words, * for any", Value: in.Type})
	}
	f := models.EventFilter{Type: in.Type, CustomerID: in.CustomerID, PartnerID: in.PartnerID, From: in.From, To: in.To,
		Newest: in.Order == "newest"}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Event, string, error) {
		return s.events(ctx).ListEvents(ctx, f, pg)
	}, eventOf)
	return &EventListOutput{Body: body}, err
}

// getEvent answers one event.
func (s *Server) getEvent(ctx context.Context, in *IDPath) (*EventOutput, error) {
	e, err := s.events(ctx).Event(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &EventOutput{Body: eventOf(e)}, nil
}

// listEventTypes lists the event types the service emits, with the JSON schema of each payload.
func (s *Server) listEventTypes(ctx context.Context, in *struct{ ListParams }) (*EventTypeListOutput, error) {
	catalogue := models.EventCatalogue()
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.EventType, string, error) {
		start := 0
		if pg.After != "" {
			n, err := strconv.Atoi(pg.After)
			if err != nil {
				return nil, "", err
			}
			start = min(n, len(catalogue))
		}
		end := min(start+pg.Limit, len(catalogue))
		next := ""
		if end < len(catalogue) {
			next = strconv.Itoa(end)
		}
		return catalogue[start:end], next, nil
	}, func(t *models.EventType) EventTypeInfo {
		return EventTypeInfo{Name: t.Name, Description: t.Description, PayloadSchema: s.payloadSchema(t.Payload)}
	})
	return &EventTypeListOutput{Body: body}, err
}

// payloadSchema is the inline JSON schema of a payload type.
func (s *Server) payloadSchema(v any) PayloadSchema {
	reg := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	return PayloadSchema{schema: reg.Schema(reflect.TypeOf(v), false, "")}
}

// toIngest validates one event body beyond its schema; problems are located under prefix.
func toIngest(b *IngestEventBody, prefix string, now time.Time) (models.IngestEvent, *models.Error) {
	var problems []models.FieldError
	if b.CustomerEmail == "" && b.CustomerID == "" {
		problems = append(problems, models.FieldError{Location: prefix + "customerEmail", Message: "customerEmail or customerId is required"})
	}
	if !models.ValidEventType(b.Type) {
		problems = append(problems, models.FieldError{Location: prefix + "type", Message: "must be dot-separated lower-case words", Value: b.Type})
	} else if models.ReservedEventType(b.Type) {
		return models.IngestEvent{}, models.Invalid("RESERVED_EVENT_TYPE", "this event type belongs to the service itself and cannot be ingested",
			models.FieldError{Location: prefix + "type", Message: "reserved namespace", Value: b.Type})
	}
	occurred := now
	if b.Timestamp != nil {
		if b.Timestamp.After(now.Add(maxFutureTimestamp)) {
			return models.IngestEvent{}, models.Invalid("TIMESTAMP_IN_FUTURE", "timestamp is more than 24 hours in the future",
				models.FieldError{Location: prefix + "timestamp", Message: "more than 24 hours ahead", Value: b.Timestamp.Format(time.RFC3339)})
		}
		occurred = b.Timestamp.UTC().Truncate(time.Microsecond)
	}
	payload := string(b.Payload)
	if payload == "" || payload == "null" {
		payload = "{}"
	}
	if len(payload) > 0 && payload[0] != '{' {
		problems = append(problems, models.FieldError{Location: prefix + "payload", Message: "must be a JSON object"})
	}
	if len(problems) > 0 {
		return models.IngestEvent{}, models.Invalid("INVALID_EVENT", "the event is not valid", problems...)
	}
	return models.IngestEvent{CustomerEmail: b.CustomerEmail, CustomerID: b.CustomerID, Type: b.Type, Payload: payload,
		ExternalID: b.EventID, OccurredAt: occurred}, nil
}

// ingestEvent stores one customer event sent by an integration.
func (s *Server) ingestEvent(ctx context.Context, in *IngestEventInput) (*IngestEventOutput, error) {
	e, perr := toIngest(&in.Body, "body.", time.Now().UTC())
	if perr != nil {
		return nil, perr
	}
	res, err := s.events(ctx).Ingest(ctx, []models.IngestEvent{e})
	if err != nil {
		return nil, err
	}
	r := res[0]
	if r.Err != nil {
		return nil, r.Err
	}
	return &IngestEventOutput{Body: IngestedEvent{ID: r.EventID, Status: r.Status, CustomerID: r.CustomerID}}, nil
}

// ingestBatch stores a batch of customer events and reports on each.
func (s *Server) ingestBatch(ctx context.Context, in *IngestBatchInput) (*IngestBatchOutput, error) {
	if n := len(in.Body.Events); n > MaxBatchEvents {
		return nil, models.Errorf(models.KindTooLarge, "BATCH_TOO_LARGE", "a batch holds at most %d events; this one has %d", MaxBatchEvents, n)
	}
	now := time.Now().UTC()
	out := &IngestBatchOutput{}
	out.Body.Results = make([]IngestBatchResult, len(in.Body.Events))
	var valid []models.IngestEvent
	var index []int
	for i := range in.Body.Events {
		b := &in.Body.Events[i]
		if size := len(b.Payload) + len(b.Type) + len(b.CustomerEmail) + len(b.CustomerID) + len(b.EventID); size > MaxEventBytes {
			return nil, models.Errorf(models.KindTooLarge, "EVENT_TOO_LARGE", "event %d is larger than %d bytes; nothing was stored", i, MaxEventBytes)
		}
		prefix := fmt.Sprintf("body.events[%d].", i)
		out.Body.Results[i].Index = i
		e, perr := toIngest(b, prefix, now)
		if perr != nil {
			out.Body.Results[i].Status = models.IngestRejected
			out.Body.Results[i].Error = eventProblem(perr)
			continue
		}
		valid = append(valid, e)
		index = append(index, i)
	}
	if len(valid) > 0 {
		res, err := s.events(ctx).Ingest(ctx, valid)
		if err != nil {
			return nil, err
		}
		for j, r := range res {
			i := index[j]
			out.Body.Results[i].Status = r.Status
			out.Body.Results[i].ID = r.EventID
			out.Body.Results[i].CustomerID = r.CustomerID
			if r.Err != nil {
				p := eventProblem(r.Err)
				for _, d := range p.Errors {
					d.Location = strings.Replace(d.Location, "body.", fmt.Sprintf("body.events[%d].", i), 1)
				}
				out.Body.Results[i].Error = p
			}
		}
	}
	for _, r := range out.Body.Results {
		switch r.Status {
		case models.IngestStored:
			out.Body.Stored++
		case models.IngestDuplicate:
			out.Body.Duplicates++
		default:
			out.Body.Rejected++
		}
	}
	return out, nil
}

func eventProblem(e *models.Error) *EventProblem {
	p := &EventProblem{Code: e.Code, Detail: e.Message}
	for _, f := range e.Fields {
		p.Errors = append(p.Errors, &huma.ErrorDetail{Location: f.Location, Message: f.Message, Value: f.Value})
	}
	return p
}
