package playbook

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

// dealWonJSON is a realistic graph: a won deal of at least 1 000.00 waits a week, then a task
// and a webhook go out in parallel and the branches join.
const dealWonJSON = `{
  "trigger": {"eventType": "deal.won"},
  "nodes": [
    {"id": "start", "kind": "trigger"},
    {"id": "big_deal", "kind": "condition", "condition": {"expression": "event.payload.amount >= 100000"}},
    {"id": "settle", "kind": "wait", "wait": {"duration": "7d"}},
    {"id": "fan_out", "kind": "parallel"},
    {"id": "review", "kind": "create_task", "createTask": {
      "title": "Review {{.event.payload.dealName}} with {{.partner.name}}",
      "description": "Won {{.event.payload.amount}} {{.event.payload.currency}}",
      "assignee": "operator", "dueInDays": 3}},
    {"id": "notify_crm", "kind": "call_webhook", "callWebhook": {
      "url": "https://crm.example.com/hooks/deal-won",
      "body": "{\"deal\": {{json .event.payload.dealName}}, \"partner\": {{json .partner.id}}}"}},
    {"id": "done", "kind": "join"},
    {"id": "thanks", "kind": "send_email", "sendEmail": {
      "to": "owner@example.com", "subject": "Thanks, {{.partner.name}}", "text": "Task {{.steps.review.taskId}} is open."}}
  ],
  "edges": [
    {"from": "start", "to": "big_deal"},
    {"from": "big_deal", "to": "settle", "label": "true"},
    {"from": "big_deal", "to": "thanks", "label": "false"},
    {"from": "settle", "to": "fan_out"},
    {"from": "fan_out", "to": "review"},
    {"from": "fan_out", "to": "notify_crm"},
    {"from": "review", "to": "done"},
    {"from": "notify_crm", "to": "done"},
    {"from": "done", "to": "thanks"}
  ]
}`

func dealWonGraph(t testing.TB) models.PlaybookGraph {
	t.Helper()
	var g models.PlaybookGraph
	if err := json.Unmarshal([]byte(dealWonJSON), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

var wonAt = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

func dealWonSample(amount float64) Sample {
	return Sample{
		Event: EventEnv{
			ID: "0195f0a0-0000-7000-8000-000000000001", Type: "deal.won", PartnerID: "p1", CustomerID: "c1",
			Payload:    map[string]any{"amount": amount, "currency": "EUR", "dealName": "Acme renewal"},
			OccurredAt: wonAt,
		},
		Partner: PartnerEnv{ID: "p1", Name: "Northwind", Type: "reseller", Level: "Gold", Status: "active"},
		Outputs: map[string]map[string]any{"review": {"taskId": "t-42"}},
	}
}
