package playbook

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

func TestExpressions(t *testing.T) {
	env := Env{
		Event:   EventEnv{Type: "deal.won", Payload: map[string]any{"amount": 150000.0, "tags": []any{"b", "a"}}, OccurredAt: wonAt},
		Partner: PartnerEnv{Level: "Gold", Custom: map[string]any{"region": "EMEA"}},
		Steps:   map[string]map[string]any{"review": {"taskId": "t-1"}},
		Now:     wonAt.Add(48 * time.Hour),
	}
	bools := []struct {
		name, src string
		want      bool
	}{
		{"payload numbers compare with integers", "event.payload.amount >= 100000", true},
		{"now is the time given by the caller", `now - event.occurredAt == duration("48h")`, true},
		{"days give whole days", "now == event.occurredAt + days(2)", true},
		{"partner custom fields are readable", `partner.custom.region == "EMEA"`, true},
		{"step outputs are readable", `steps.review.taskId == "t-1"`, true},
		{"missing step outputs are nil", `steps.other == nil`, true},
		{"dates parse in UTC", `date("2026-03-02") < event.occurredAt`, true},
		{"sorting is allowed", `sort(event.payload.tags)[0] == "a"`, true},
	}
	for _, tt := range bools {
		t.Run(tt.name, func(t *testing.T) {
			e, err := CompileExpression(tt.src, KindBool)
			if err != nil {
				t.Fatal(err)
			}
			got, err := EvalCondition(e, env)
			if err != nil || got != tt.want {
				t.Fatalf("= %v, %v", got, err)
			}
		})
	}

	refused := []struct{ name, src string }{
		{"the clock cannot be read", "now() > event.occurredAt"},
		{"map keys cannot be listed in random order", `len(keys(partner.custom)) > 0`},
		{"map values cannot be listed in random order", `len(values(partner.custom)) > 0`},
		{"map pairs cannot be listed in random order", `len(toPairs(partner.custom)) > 0`},
		{"time zones cannot be loaded from the host", `timezone("UTC") != nil`},
		{"an empty expression is refused", "  "},
		{"a very long expression is refused", strings.Repeat("true && ", 300) + "true"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := CompileExpression(tt.src, KindBool); err == nil {
				t.Fatal("compiled")
			}
		})
	}

	t.Run("a condition on a payload field that is not a boolean fails when evaluated", func(t *testing.T) {
		e, err := CompileExpression("event.payload.amount", KindBool)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := EvalCondition(e, env); err == nil {
			t.Fatal("no error")
		}
	})

	amounts := []struct {
		name, src string
		want      int64
		ok        bool
	}{
		{"an amount from a payload number", "event.payload.amount / 100", 1500, true},
		{"an integer amount", "2500", 2500, true},
		{"a fractional amount is refused", "event.payload.amount / 7", 0, false},
		{"a rounded amount is accepted", "round(event.payload.amount / 7)", 21429, true},
	}
	for _, tt := range amounts {
		t.Run(tt.name, func(t *testing.T) {
			e, err := CompileExpression(tt.src, KindAmount)
			if err != nil {
				t.Fatal(err)
			}
			got, err := EvalAmount(e, env)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("= %d, %v", got, err)
			}
		})
	}
}

func TestEvaluationIsDeterministic(t *testing.T) {
	env := Env{Event: EventEnv{Payload: map[string]any{"a": 1.0, "b": 2.0, "c": 3.0}}, Partner: PartnerEnv{Custom: map[string]any{"x": "1", "y": "2", "z": "3"}}}
	tmpl, err := ParseText(`{{range $k, $v := .partner.custom}}{{$k}}={{$v}};{{end}}{{json .event.payload}}`)
	if err != nil {
		t.Fatal(err)
	}
	first, err := tmpl.Render(env)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if got, _ := tmpl.Render(env); got != first {
			t.Fatalf("rendering changed: %q then %q", first, got)
		}
	}
	if first != `x=1;y=2;z=3;{"a":1,"b":2,"c":3}` {
		t.Fatalf("rendered %q", first)
	}
}

func TestTemplates(t *testing.T) {
	env := Env{Partner: PartnerEnv{Name: `<script>alert(1)</script>`, Custom: map[string]any{}}}
	t.Run("HTML bodies escape data", func(t *testing.T) {
		tm, err := ParseHTML(`<p>{{.partner.name}}</p>`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tm.Render(env)
		if err != nil || strings.Contains(got, "<script>") {
			t.Fatalf("= %q, %v", got, err)
		}
	})
	t.Run("a missing field is an error, not an empty value", func(t *testing.T) {
		tm, _ := ParseText(`{{.partner.custom.region}}`)
		if _, err := tm.Render(env); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("index reads an optional field", func(t *testing.T) {
		tm, _ := ParseText(`[{{index .partner.custom "region"}}]`)
		if got, err := tm.Render(env); err != nil || got != "[<no value>]" {
			t.Fatalf("= %q, %v", got, err)
		}
	})
	t.Run("rendering stops at the output limit", func(t *testing.T) {
		tm, err := ParseText(`{{range .steps.s.items}}{{$.steps.s.big}}{{end}}`)
		if err != nil {
			t.Fatal(err)
		}
		items := make([]any, 100)
		big := strings.Repeat("x", 10000)
		_, err = tm.Render(Env{Steps: map[string]map[string]any{"s": {"items": items, "big": big}}})
		if err == nil || !strings.Contains(err.Error(), "longer than") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a template calling itself forever fails instead of hanging", func(t *testing.T) {
		tm, err := ParseText(`{{define "a"}}{{template "a"}}{{end}}{{template "a"}}`)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tm.Render(env); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestRenderActions(t *testing.T) {
	env := Env{
		Event:   EventEnv{Type: "deal.won", Payload: map[string]any{"amount": 150000.0, "dealName": "Acme"}},
		Partner: PartnerEnv{ID: "p1", Name: "Northwind", Custom: map[string]any{"contact": "ops@northwind.example"}},
	}
	build := func(n models.PlaybookNode) *Compiled {
		g := clone(t, dealWonGraph(t))
		replace(n)(&g)
		return mustCompile(t, g)
	}
	t.Run("an amount expression becomes a fixed amount", func(t *testing.T) {
		c := build(models.PlaybookNode{Kind: models.NodeAccrueCommission, AccrueCommission: &models.PlaybookAccrueCommission{AmountExpression: "event.payload.amount / 100", Currency: "EUR", Reason: "Bonus for {{.event.payload.dealName}}"}})
		a, err := c.Render("review", env)
		if err != nil || a.AccrueCommission.AmountMinor != 1500 || a.AccrueCommission.AmountExpression != "" || a.AccrueCommission.Reason != "Bonus for Acme" {
			t.Fatalf("= %+v, %v", a.AccrueCommission, err)
		}
	})
	t.Run("an amount expression giving zero fails", func(t *testing.T) {
		c := build(models.PlaybookNode{Kind: models.NodeAccrueCommission, AccrueCommission: &models.PlaybookAccrueCommission{AmountExpression: "event.payload.amount * 0", Currency: "EUR", Reason: "r"}})
		if _, err := c.Render("review", env); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("a templated recipient must render to an address", func(t *testing.T) {
		c := build(models.PlaybookNode{Kind: models.NodeSendEmail, SendEmail: &models.PlaybookSendEmail{To: "{{.partner.custom.contact}}", Subject: "Hi {{.partner.name}}", Text: "x"}})
		a, err := c.Render("review", env)
		if err != nil || a.SendEmail.To != "ops@northwind.example" {
			t.Fatalf("= %+v, %v", a.SendEmail, err)
		}
		bad := env
		bad.Partner.Custom = map[string]any{"contact": "nobody"}
		if _, err := c.Render("review", bad); err == nil {
			t.Fatal("rendered a recipient that is not an address")
		}
	})
	t.Run("a subject with a line break from data fails", func(t *testing.T) {
		c := build(models.PlaybookNode{Kind: models.NodeSendEmail, SendEmail: &models.PlaybookSendEmail{To: "a@example.com", Subject: "Hi {{.partner.name}}", Text: "x"}})
		evil := env
		evil.Partner.Name = "x\r\nBcc: all@example.com"
		if _, err := c.Render("review", evil); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("an event payload must render to a JSON object", func(t *testing.T) {
		c := build(models.PlaybookNode{Kind: models.NodeEmitEvent, EmitEvent: &models.PlaybookEmitEvent{Type: "bonus.granted", Payload: `{"deal": {{.event.payload.dealName}}}`}})
		if _, err := c.Render("review", env); err == nil {
			t.Fatal("rendered invalid JSON")
		}
		c = build(models.PlaybookNode{Kind: models.NodeEmitEvent, EmitEvent: &models.PlaybookEmitEvent{Type: "bonus.granted", Payload: `{"deal": {{json .event.payload.dealName}}}`}})
		a, err := c.Render("review", env)
		if err != nil || a.EmitEvent.Payload != `{"deal": "Acme"}` {
			t.Fatalf("= %+v, %v", a.EmitEvent, err)
		}
	})
	t.Run("an empty webhook body sends the event and the partner", func(t *testing.T) {
		c := build(models.PlaybookNode{Kind: models.NodeCallWebhook, CallWebhook: &models.PlaybookCallWebhook{URL: "https://example.com/h"}})
		a, err := c.Render("review", env)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Event   map[string]any `json:"event"`
			Partner map[string]any `json:"partner"`
		}
		if err := json.Unmarshal([]byte(a.CallWebhook.Body), &body); err != nil || body.Event["type"] != "deal.won" || body.Partner["id"] != "p1" {
			t.Fatalf("body = %s, %v", a.CallWebhook.Body, err)
		}
	})
}

func TestDurations(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"72h", 72 * time.Hour, true},
		{"3d", 72 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"0d", 0, true},
		{"d", 0, false},
		{"-3d", 0, false},
		{"3d-1h", 0, false},
		{"3 days", 0, false},
		{"3d4d", 0, false},
		{"", 0, false},
		{"99999999999d", 0, false},
	}
	for _, tt := range tests {
		t.Run("duration "+tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseDuration(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
	for d, want := range map[time.Duration]string{7 * 24 * time.Hour: "7d", 36 * time.Hour: "1d12h", 90 * time.Minute: "1h30m", 0: "0s", 30 * time.Second: "30s"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
