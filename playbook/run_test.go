package playbook

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

func mustCompile(t *testing.T, g models.PlaybookGraph) *Compiled {
	t.Helper()
	c, err := Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNext(t *testing.T) {
	g := dealWonGraph(t)
	c := mustCompile(t, g)
	tests := []struct {
		name, node, outcome string
		want                []string
	}{
		{"a true condition follows its true edge", "big_deal", "true", []string{"settle"}},
		{"a false condition follows its false edge", "big_deal", "false", []string{"thanks"}},
		{"a parallel node follows every edge", "fan_out", "", []string{"review", "notify_crm"}},
		{"an empty outcome means next", "settle", "", []string{"fan_out"}},
		{"the last step leads nowhere", "thanks", "next", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Next(g, tt.node, tt.outcome); !slices.Equal(got, tt.want) {
				t.Errorf("Next = %v, want %v", got, tt.want)
			}
			if got := c.Next(tt.node, tt.outcome); !slices.Equal(got, tt.want) {
				t.Errorf("Compiled.Next = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRun(t *testing.T) {
	c := mustCompile(t, dealWonGraph(t))

	t.Run("a join waits for both branches of the parallel node", func(t *testing.T) {
		r := c.NewRun()
		steps := [][3]string{{"start", "", "big_deal"}, {"big_deal", "true", "settle"}, {"settle", "", "fan_out"}}
		if got, _ := r.Start(); !slices.Equal(got, []string{"start"}) {
			t.Fatalf("Start = %v", got)
		}
		for _, s := range steps {
			got, err := r.Complete(s[0], s[1])
			if err != nil || !slices.Equal(got, []string{s[2]}) {
				t.Fatalf("Complete(%s) = %v, %v", s[0], got, err)
			}
		}
		if got, _ := r.Complete("fan_out", ""); !slices.Equal(got, []string{"review", "notify_crm"}) {
			t.Fatalf("fan-out = %v", got)
		}
		if got, _ := r.Complete("notify_crm", ""); len(got) != 0 {
			t.Fatalf("join started after one branch: %v", got)
		}
		if got, _ := r.Complete("review", ""); !slices.Equal(got, []string{"done"}) {
			t.Fatalf("join = %v", got)
		}
		if got, _ := r.Complete("done", ""); !slices.Equal(got, []string{"thanks"}) {
			t.Fatalf("after join = %v", got)
		}
		if r.Done() {
			t.Fatal("done with thanks under way")
		}
		if _, err := r.Complete("thanks", ""); err != nil || !r.Done() {
			t.Fatalf("not done: %v %v", err, r.Pending())
		}
	})

	t.Run("completing a step that is not under way is an error", func(t *testing.T) {
		r := c.NewRun()
		_, _ = r.Start()
		if _, err := r.Complete("review", ""); err == nil {
			t.Fatal("no error")
		}
	})

	t.Run("a join whose other branch took another way continues", func(t *testing.T) {
		g := clone(t, dealWonGraph(t))
		// The webhook branch first checks the partner; a false result ends the branch.
		addNode(models.PlaybookNode{ID: "gold", Kind: models.NodeCondition, Condition: &models.PlaybookCondition{Expression: `partner.level == "Gold"`}})(&g)
		dropEdge("fan_out", "notify_crm")(&g)
		addEdge("fan_out", "gold", "")(&g)
		addEdge("gold", "notify_crm", "true")(&g)
		addNode(models.PlaybookNode{ID: "log", Kind: models.NodeEmitEvent, EmitEvent: &models.PlaybookEmitEvent{Type: "crm.skipped"}})(&g)
		addEdge("gold", "log", "false")(&g)
		c := mustCompile(t, g)
		r := c.NewRun()
		_, _ = r.Start()
		_, _ = r.Complete("start", "")
		_, _ = r.Complete("big_deal", "true")
		_, _ = r.Complete("settle", "")
		_, _ = r.Complete("fan_out", "")
		if got, _ := r.Complete("review", ""); len(got) != 0 {
			t.Fatalf("join started while gold could still reach it: %v", got)
		}
		// The false branch leads to log, which cannot reach the join: the join goes on at once.
		if got, _ := r.Complete("gold", "false"); !slices.Equal(got, []string{"log", "done"}) {
			t.Fatalf("after the false branch = %v, want [log done]", got)
		}
	})

	t.Run("a loop through a wait stops at the step limit", func(t *testing.T) {
		g := clone(t, dealWonGraph(t))
		addEdge("thanks", "settle", "")(&g)
		c := mustCompile(t, g)
		r := c.NewRun()
		ready, _ := r.Start()
		var err error
		for i := 0; err == nil && i < 2*MaxSteps; i++ {
			id := ready[0]
			outcome := ""
			if id == "big_deal" {
				outcome = "true"
			}
			var next []string
			next, err = r.Complete(id, outcome)
			ready = append(ready[1:], next...)
		}
		if !errors.Is(err, ErrStepLimit) {
			t.Fatalf("err = %v after %d steps", err, r.Steps())
		}
	})
}

func TestCompiledStepHelpers(t *testing.T) {
	g := clone(t, dealWonGraph(t))
	awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice.*", Timeout: "30d", Condition: `received.payload.dealId == event.payload.dealId`}, "next", "timeout")(&g)
	nodeAt(&g, "thanks").Kind = models.NodeWait
	nodeAt(&g, "thanks").SendEmail = nil
	nodeAt(&g, "thanks").Wait = &models.PlaybookWait{Until: `date(event.payload.renewsOn) - days(30)`}
	c := mustCompile(t, g)
	env := Env{Event: EventEnv{Type: "deal.won", Payload: map[string]any{"dealId": "d1", "renewsOn": "2027-01-31"}}, Now: wonAt}

	t.Run("a wait until a payload date lasts until then", func(t *testing.T) {
		d, err := c.Wait("thanks", env)
		want := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Sub(wonAt)
		if err != nil || d != want {
			t.Fatalf("Wait = %v, %v; want %v", d, err, want)
		}
	})
	t.Run("a wait until a past time does not wait", func(t *testing.T) {
		past := env
		past.Event.Payload = map[string]any{"renewsOn": "2020-01-01"}
		if d, err := c.Wait("thanks", past); err != nil || d != 0 {
			t.Fatalf("Wait = %v, %v", d, err)
		}
	})
	t.Run("a wait until more than a year ahead fails", func(t *testing.T) {
		far := env
		far.Event.Payload = map[string]any{"renewsOn": "2030-01-01"}
		if _, err := c.Wait("thanks", far); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("a wait until a malformed date fails", func(t *testing.T) {
		bad := env
		bad.Event.Payload = map[string]any{"renewsOn": "soon"}
		if _, err := c.Wait("thanks", bad); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("the awaited event must match the pattern and the condition", func(t *testing.T) {
		w, err := c.WaitForEvent("settle")
		if err != nil || w.EventType != "invoice.*" || w.Timeout != 30*24*time.Hour {
			t.Fatalf("WaitForEvent = %+v, %v", w, err)
		}
		for _, tc := range []struct {
			received EventEnv
			want     bool
		}{
			{EventEnv{Type: "invoice.paid", Payload: map[string]any{"dealId": "d1"}}, true},
			{EventEnv{Type: "invoice.paid", Payload: map[string]any{"dealId": "d2"}}, false},
			{EventEnv{Type: "deal.lost", Payload: map[string]any{"dealId": "d1"}}, false},
		} {
			if got, err := c.EventArrives("settle", env, tc.received); err != nil || got != tc.want {
				t.Errorf("EventArrives(%+v) = %v, %v", tc.received, got, err)
			}
		}
	})
	t.Run("asking a node for what it is not is an error", func(t *testing.T) {
		if _, err := c.Condition("settle", env); err == nil {
			t.Error("Condition on a wait_for_event")
		}
		if _, err := c.Render("big_deal", env); err == nil {
			t.Error("Render on a condition")
		}
	})
}

func TestAnAmountExpressionBeyondTheLargestBonusFailsToRender(t *testing.T) {
	g := clone(t, dealWonGraph(t))
	commission(models.PlaybookAccrueCommission{AmountExpression: "event.payload.amount", Currency: "EUR", Reason: "bonus"})(&g)
	c := mustCompile(t, g)
	for _, tc := range []struct {
		amount int64
		ok     bool
	}{{MaxAmountMinor, true}, {MaxAmountMinor + 1, false}, {9_223_372_036_854_775_807, false}} {
		env := Env{Event: EventEnv{Type: "deal.won", Payload: map[string]any{"amount": tc.amount}}}
		n, err := c.Render("review", env)
		if tc.ok && (err != nil || n.AccrueCommission.AmountMinor != tc.amount) {
			t.Errorf("amount %d: %v, %+v", tc.amount, err, n.AccrueCommission)
		}
		if !tc.ok && err == nil {
			t.Errorf("amount %d rendered as %d; it exceeds the largest bonus", tc.amount, n.AccrueCommission.AmountMinor)
		}
	}
}
