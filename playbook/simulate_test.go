package playbook

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

func TestSimulateDealWon(t *testing.T) {
	g := dealWonGraph(t)

	t.Run("a big won deal waits a week, then creates a task and calls the webhook, then joins", func(t *testing.T) {
		p, err := Simulate(g, dealWonSample(150000))
		if err != nil {
			t.Fatal(err)
		}
		if !p.Triggered || p.Failed || p.Truncated {
			t.Fatalf("path = %+v", p)
		}
		var ids []string
		for _, s := range p.Steps {
			ids = append(ids, s.NodeID)
		}
		want := "start big_deal settle fan_out review notify_crm done thanks"
		if got := strings.Join(ids, " "); got != want {
			t.Fatalf("steps = %s, want %s", got, want)
		}
		cond := p.Steps[1]
		if cond.Result == nil || !*cond.Result || cond.Outcome != models.EdgeTrue {
			t.Errorf("condition step = %+v, want true", cond)
		}
		wait := p.Steps[2]
		if wait.Wait != "7d" {
			t.Errorf("wait = %q, want 7d", wait.Wait)
		}
		week := wonAt.Add(7 * 24 * time.Hour)
		for _, s := range p.Steps[3:] {
			if !s.At.Equal(week) {
				t.Errorf("%s starts at %s, want %s", s.NodeID, s.At, week)
			}
		}
		task := p.Steps[4].Action
		if task == nil || task.CreateTask == nil || task.CreateTask.Title != "Review Acme renewal with Northwind" ||
			task.CreateTask.Description != "Won 150000 EUR" {
			t.Errorf("task = %+v", task)
		}
		hook := p.Steps[5].Action
		if hook == nil || hook.CallWebhook == nil || hook.CallWebhook.Body != `{"deal": "Acme renewal", "partner": "p1"}` {
			t.Errorf("webhook = %+v", hook.CallWebhook)
		}
		mail := p.Steps[7].Action
		if mail == nil || mail.SendEmail.Text != "Task t-42 is open." || mail.SendEmail.Subject != "Thanks, Northwind" {
			t.Errorf("email = %+v", mail.SendEmail)
		}
		if !p.EndsAt.Equal(week) {
			t.Errorf("ends at %s, want %s", p.EndsAt, week)
		}
	})

	t.Run("a small won deal goes straight to the thank-you email", func(t *testing.T) {
		p, err := Simulate(g, dealWonSample(99999))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range p.Steps {
			ids = append(ids, s.NodeID)
		}
		if got := strings.Join(ids, " "); got != "start big_deal thanks" {
			t.Fatalf("steps = %s", got)
		}
		if r := p.Steps[1].Result; r == nil || *r {
			t.Errorf("condition result = %v, want false", r)
		}
		// The email reads the task's output, which this branch never produced.
		if !p.Failed || !strings.Contains(p.Steps[2].Error, "taskId") && !strings.Contains(p.Steps[2].Error, "review") {
			t.Errorf("email step = %+v, want a failure naming the missing step output", p.Steps[2])
		}
	})

	t.Run("another event type does not start a run", func(t *testing.T) {
		s := dealWonSample(150000)
		s.Event.Type = "deal.lost"
		p, err := Simulate(g, s)
		if err != nil {
			t.Fatal(err)
		}
		if p.Triggered || len(p.Steps) != 0 || !strings.Contains(p.Reason, "does not match") {
			t.Errorf("path = %+v", p)
		}
	})

	t.Run("an invalid graph is reported with every problem", func(t *testing.T) {
		bad := dealWonGraph(t)
		bad.Edges = bad.Edges[1:]
		_, err := Simulate(bad, dealWonSample(1))
		var verr *ValidationError
		if !errors.As(err, &verr) || len(verr.Problems) == 0 {
			t.Fatalf("err = %v", err)
		}
	})
}
