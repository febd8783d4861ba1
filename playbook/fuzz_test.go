package playbook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models"
)

// FuzzValidate feeds arbitrary JSON to the validator: it must never panic, and a graph it
// accepts must compile, run and simulate.
func FuzzValidate(f *testing.F) {
	f.Add(dealWonJSON)
	f.Add(`{}`)
	f.Add(`{"trigger":{"eventType":"deal.*"},"nodes":[{"id":"s","kind":"trigger"}],"edges":[]}`)
	f.Add(`{"trigger":{"eventType":"x"},"nodes":[{"id":"s","kind":"trigger"},{"id":"a","kind":"join"}],"edges":[{"from":"s","to":"a"},{"from":"a","to":"a"},{"from":"a","to":"s"}]}`)
	f.Add(`{"trigger":{"eventType":"deal.won","condition":"event.payload.amount >"},"nodes":[{"id":"s","kind":"trigger"},{"id":"w","kind":"wait","wait":{"duration":"3d","until":"now"}},{"id":"c","kind":"condition","condition":{"expression":"now()"}}],"edges":[{"from":"s","to":"w"},{"from":"w","to":"c","label":"true"},{"from":"c","to":"w","label":"false"}]}`)
	f.Add(`{"trigger":{"eventType":"partner.approved"},"nodes":[{"id":"s","kind":"trigger"},{"id":"e","kind":"send_email","sendEmail":{"to":"{{.partner.custom.email}}","subject":"{{","html":"<a href=\"{{.x}}"}},{"id":"f","kind":"wait_for_event","waitForEvent":{"eventType":"task.completed","timeout":"3d","condition":"received.payload.id == steps.e.id"}}],"edges":[{"from":"s","to":"e"},{"from":"e","to":"f"},{"from":"f","to":"e","label":"timeout"},{"from":"f","to":"e"}]}`)
	f.Add(`{"nodes":[{"id":"a","kind":"accrue_commission","accrueCommission":{"amountMinor":-1,"currency":"eu","reason":"{{.event.id}}"}},{"id":"b","kind":"update_partner","updatePartner":{"status":"gold","levelId":"x"}},{"id":"c","kind":"emit_event","emitEvent":{"type":"deal.won","payload":"[]"}},{"id":"d","kind":"call_webhook","callWebhook":{"url":"ftp://x"}}],"edges":[{"from":"a","to":"zz","label":"maybe"}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		var graph models.PlaybookGraph
		if err := json.Unmarshal([]byte(data), &graph); err != nil {
			return
		}
		problems := Validate(graph)
		for _, p := range problems {
			if p.Code == "" || p.Message == "" || p.Path == "" {
				t.Fatalf("incomplete problem %+v", p)
			}
		}
		c, err := Compile(graph)
		if (err == nil) != (len(problems) == 0) {
			t.Fatalf("Compile and Validate disagree: %v vs %v", err, problems)
		}
		if err != nil {
			return
		}
		// A graph that passes runs to its end or to the step limit in simulation.
		s := dealWonSample(150000)
		s.Event.Type = strings.ReplaceAll(graph.Trigger.EventType, "*", "x")
		p := c.Simulate(s)
		if p.Triggered && len(p.Steps) == 0 {
			t.Fatalf("a triggered run took no step")
		}
	})
}

// FuzzCompileExpression compiles arbitrary expressions of every kind and evaluates those that
// compile: neither may panic.
func FuzzCompileExpression(f *testing.F) {
	for _, s := range []string{
		"event.payload.amount >= 100000",
		`partner.level in ["Gold"] && partner.custom.region == "EMEA"`,
		`now - event.occurredAt > duration("72h")`,
		"event.occurredAt + days(30)",
		`date(event.payload.renewsOn)`,
		"now()",
		`keys(event.payload)`,
		"steps.review.taskId",
		`repeat("x", 1000000)`,
		"1/0",
		"[1,2,3] | map(# * 2) | sum()",
		"((((((((((1))))))))))",
		`fromJSON("{\"a\":1}").a`,
		"",
	} {
		f.Add(s, uint8(0))
	}
	env := Env{
		Event:   EventEnv{Type: "deal.won", Payload: map[string]any{"amount": 1.5e5, "renewsOn": "2027-01-01", "list": []any{1.0, "a", nil}}, OccurredAt: wonAt},
		Partner: PartnerEnv{Custom: map[string]any{"region": "EMEA"}},
		Steps:   map[string]map[string]any{"review": {"taskId": "t"}},
		Now:     wonAt,
	}
	f.Fuzz(func(t *testing.T, src string, k uint8) {
		kind := ExpressionKind(k % 3)
		if e, err := CompileExpression(src, kind); err == nil {
			switch kind {
			case KindBool:
				_, _ = EvalCondition(e, env)
			case KindTime:
				_, _ = EvalTime(e, env)
			case KindAmount:
				_, _ = EvalAmount(e, env)
			}
		}
		if e, err := CompileEventCondition(src); err == nil {
			_, _ = EvalEventCondition(e, env, env.Event)
		}
	})
}
