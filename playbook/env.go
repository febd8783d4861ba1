package playbook

import (
	"time"
)

// Env is the data expressions and templates read: the run's event, its partner, the outputs of
// the steps done so far and the current time. In expressions the fields are event, partner,
// steps and now; templates name them the same way ({{.event.payload.amount}}).
type Env struct {
	Event   EventEnv   `expr:"event" json:"event"`
	Partner PartnerEnv `expr:"partner" json:"partner"`
	// Steps holds the output of each finished step by node id.
	Steps map[string]map[string]any `expr:"steps" json:"steps"`
	// Now is the run's current time, given by the caller (the workflow clock).
	Now time.Time `expr:"now" json:"now"`
}

// EventEnv is an event as expressions see it.
type EventEnv struct {
	ID   string `expr:"id" json:"id"`
	Type string `expr:"type" json:"type"`
	// Payload is the event's JSON payload; JSON numbers are float64.
	Payload    map[string]any `expr:"payload" json:"payload"`
	CustomerID string         `expr:"customerId" json:"customerId"`
	PartnerID  string         `expr:"partnerId" json:"partnerId"`
	OccurredAt time.Time      `expr:"occurredAt" json:"occurredAt"`
}

// PartnerEnv is a partner organisation as expressions see it.
type PartnerEnv struct {
	ID     string `expr:"id" json:"id"`
	Name   string `expr:"name" json:"name"`
	Type   string `expr:"type" json:"type"`
	Level  string `expr:"level" json:"level"`
	Status string `expr:"status" json:"status"`
	// Custom holds the partner's custom fields.
	Custom map[string]any `expr:"custom" json:"custom"`
}

// waitEnv is Env plus the event a wait_for_event node is considering, named received.
type waitEnv struct {
	Event    EventEnv                  `expr:"event"`
	Partner  PartnerEnv                `expr:"partner"`
	Steps    map[string]map[string]any `expr:"steps"`
	Now      time.Time                 `expr:"now"`
	Received EventEnv                  `expr:"received"`
}

func (e Env) withReceived(received EventEnv) waitEnv {
	return waitEnv{Event: e.Event, Partner: e.Partner, Steps: e.Steps, Now: e.Now, Received: received}
}

// templateData is env under the names expressions use, for text/template and html/template.
func (e Env) templateData() map[string]any {
	steps := e.Steps
	if steps == nil {
		steps = map[string]map[string]any{}
	}
	return map[string]any{
		"event":   e.Event.templateData(),
		"partner": e.Partner.templateData(),
		"steps":   steps,
		"now":     e.Now,
	}
}

func (e EventEnv) templateData() map[string]any {
	payload := e.Payload
	if payload == nil {
		payload = map[string]any{}
	}
	return map[string]any{
		"id":         e.ID,
		"type":       e.Type,
		"payload":    payload,
		"customerId": e.CustomerID,
		"partnerId":  e.PartnerID,
		"occurredAt": e.OccurredAt,
	}
}

func (p PartnerEnv) templateData() map[string]any {
	custom := p.Custom
	if custom == nil {
		custom = map[string]any{}
	}
	return map[string]any{
		"id":     p.ID,
		"name":   p.Name,
		"type":   p.Type,
		"level":  p.Level,
		"status": p.Status,
		"custom": custom,
	}
}

// withStep returns a copy of e whose steps include output under nodeID; e is unchanged.
func (e Env) withStep(nodeID string, output map[string]any) Env {
	steps := make(map[string]map[string]any, len(e.Steps)+1)
	for k, v := range e.Steps {
		steps[k] = v
	}
	steps[nodeID] = output
	e.Steps = steps
	return e
}
