package playbooks_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

type playbookEnv struct {
	ctx       context.Context
	s         *stores.Set
	op        *stores.Scoped
	partner   *stores.Scoped
	tenantID  string
	partnerID string
}

func newPlaybookEnv(t *testing.T, s *stores.Set, slug string) *playbookEnv {
	t.Helper()
	ctx := context.Background()
	owner := storetest.Tenant(t, s.Core(), slug)
	e := &playbookEnv{ctx: ctx, s: s, op: s.For(owner), tenantID: owner.TenantID}
	p := &models.Partner{Name: "Alpha", Type: "reseller", Level: "gold", Status: models.PartnerActive}
	if err := e.op.CreatePartner(ctx, p); err != nil {
		t.Fatal(err)
	}
	e.partnerID = p.ID
	e.partner = s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: owner.TenantID, UserID: models.NewID(), PartnerID: p.ID})
	return e
}

// graph is a trigger on eventType followed by one create_task node and, when waitFor is set,
// a wait_for_event node.
func graph(eventType, waitFor string) models.PlaybookGraph {
	g := models.PlaybookGraph{
		Trigger: models.PlaybookTrigger{EventType: eventType},
		Nodes: []models.PlaybookNode{
			{ID: "start", Kind: models.NodeTrigger},
			{ID: "task", Kind: models.NodeCreateTask, CreateTask: &models.PlaybookCreateTask{Title: "Call them", Assignee: models.AssigneeOperator}},
		},
		Edges: []models.PlaybookEdge{{From: "start", To: "task"}},
	}
	if waitFor != "" {
		g.Nodes = append(g.Nodes, models.PlaybookNode{ID: "wait", Kind: models.NodeWaitForEvent,
			WaitForEvent: &models.PlaybookWaitForEvent{EventType: waitFor, Timeout: "3d"}})
		g.Edges = append(g.Edges, models.PlaybookEdge{From: "task", To: "wait"})
	}
	return g
}

// enabledPlaybook creates, publishes and enables a playbook.
func (e *playbookEnv) enabledPlaybook(t *testing.T, name string, g models.PlaybookGraph, limit int) *models.Playbook {
	t.Helper()
	p := &models.Playbook{Name: name, Graph: g, ConcurrencyLimit: limit}
	if err := e.op.CreatePlaybook(e.ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.PublishPlaybook(e.ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	p, err := e.op.SetPlaybookStatus(e.ctx, p.ID, models.PlaybookEnabled)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if e, ok := models.AsError(err); !ok || e.Code != code {
		t.Fatalf("%s: error %v; want %s", what, err, code)
	}
}

func TestPlaybookLifecycle(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		ctx := e.ctx
		p := &models.Playbook{Name: "Won deals", Graph: graph("deal.won", ""), ConcurrencyLimit: 5}

		t.Run("a new playbook is a draft of the principal's tenant", func(t *testing.T) {
			if err := e.op.CreatePlaybook(ctx, p); err != nil {
				t.Fatal(err)
			}
			got, err := e.op.Playbook(ctx, p.ID)
			if err != nil || got.Status != models.PlaybookDraft || got.PublishedVersion != 0 || got.TenantID != e.tenantID ||
				got.Graph.Trigger.EventType != "deal.won" || len(got.Graph.Nodes) != 2 || got.ConcurrencyLimit != 5 {
				t.Fatalf("playbook = %+v, %v", got, err)
			}
		})

		t.Run("a draft cannot be enabled before it is published", func(t *testing.T) {
			_, err := e.op.SetPlaybookStatus(ctx, p.ID, models.PlaybookEnabled)
			wantCode(t, "enable", err, "PLAYBOOK_NOT_PUBLISHED")
		})

		t.Run("updates change the draft only", func(t *testing.T) {
			name, g := "Won deals v2", graph("deal.*", "")
			got, err := e.op.UpdatePlaybook(ctx, p.ID, models.PlaybookChanges{Name: &name, Graph: &g})
			if err != nil || got.Name != name || got.Graph.Trigger.EventType != "deal.*" {
				t.Fatalf("update = %+v, %v", got, err)
			}
			bad := -1
			_, err = e.op.UpdatePlaybook(ctx, p.ID, models.PlaybookChanges{ConcurrencyLimit: &bad})
			wantCode(t, "negative limit", err, "INVALID_CONCURRENCY_LIMIT")
		})

		t.Run("publishing twice makes versions 1 and 2, and version 1 keeps its graph", func(t *testing.T) {
			v1, err := e.op.PublishPlaybook(ctx, p.ID)
			if err != nil || v1.Version != 1 || v1.PublishedBy != e.op.Principal().UserID || v1.Graph.Trigger.EventType != "deal.*" {
				t.Fatalf("v1 = %+v, %v", v1, err)
			}
			g := graph("deal.lost", "")
			if _, err := e.op.UpdatePlaybook(ctx, p.ID, models.PlaybookChanges{Graph: &g}); err != nil {
				t.Fatal(err)
			}
			v2, err := e.op.PublishPlaybook(ctx, p.ID)
			if err != nil || v2.Version != 2 || v2.Graph.Trigger.EventType != "deal.lost" {
				t.Fatalf("v2 = %+v, %v", v2, err)
			}
			vs, err := e.op.PlaybookVersions(ctx, p.ID)
			if err != nil || len(vs) != 2 || vs[0].Version != 1 || vs[0].Graph.Trigger.EventType != "deal.*" ||
				vs[1].Version != 2 || vs[1].Graph.Trigger.EventType != "deal.lost" {
				t.Fatalf("versions = %+v, %v", vs, err)
			}
			old, err := s.PlaybookVersion(ctx, models.System(e.tenantID), p.ID, 1)
			if err != nil || old.Graph.Trigger.EventType != "deal.*" {
				t.Fatalf("version 1 = %+v, %v", old, err)
			}
			got, _ := e.op.Playbook(ctx, p.ID)
			if got.PublishedVersion != 2 {
				t.Fatalf("published version = %d", got.PublishedVersion)
			}
		})

		t.Run("a published playbook is enabled, disabled and enabled again", func(t *testing.T) {
			for _, st := range []string{models.PlaybookEnabled, models.PlaybookDisabled, models.PlaybookEnabled} {
				got, err := e.op.SetPlaybookStatus(ctx, p.ID, st)
				if err != nil || got.Status != st {
					t.Fatalf("to %s: %+v, %v", st, got, err)
				}
			}
			enabled, _, err := e.op.ListPlaybooks(ctx, models.PlaybookEnabled, models.Page{})
			if err != nil || len(enabled) != 1 || enabled[0].ID != p.ID {
				t.Fatalf("enabled playbooks = %+v, %v", enabled, err)
			}
		})

		t.Run("an archived playbook changes no more", func(t *testing.T) {
			if got, err := e.op.SetPlaybookStatus(ctx, p.ID, models.PlaybookArchived); err != nil || got.Status != models.PlaybookArchived {
				t.Fatalf("archive = %+v, %v", got, err)
			}
			name := "again"
			_, err := e.op.UpdatePlaybook(ctx, p.ID, models.PlaybookChanges{Name: &name})
			wantCode(t, "update", err, "PLAYBOOK_ARCHIVED")
			_, err = e.op.PublishPlaybook(ctx, p.ID)
			wantCode(t, "publish", err, "PLAYBOOK_ARCHIVED")
			_, err = e.op.SetPlaybookStatus(ctx, p.ID, models.PlaybookEnabled)
			wantCode(t, "enable", err, "ILLEGAL_PLAYBOOK_TRANSITION")
			if vs, _ := e.op.PlaybookVersions(ctx, p.ID); len(vs) != 2 {
				t.Fatalf("versions after archive = %d", len(vs))
			}
		})

		t.Run("another tenant's playbook reads as missing", func(t *testing.T) {
			other := s.For(storetest.Tenant(t, s.Core(), "other"))
			_, err := other.Playbook(ctx, p.ID)
			wantCode(t, "read", err, "PLAYBOOK_NOT_FOUND")
			_, err = other.PublishPlaybook(ctx, p.ID)
			wantCode(t, "publish", err, "PLAYBOOK_NOT_FOUND")
			_, err = other.PlaybookVersions(ctx, p.ID)
			wantCode(t, "versions", err, "PLAYBOOK_NOT_FOUND")
		})
	})
}

func TestPlaybooksForMatchesOnlyEnabledPublishedTriggers(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		ctx := e.ctx
		wildcard := e.enabledPlaybook(t, "any deal", graph("deal.*", ""), 0)
		exact := e.enabledPlaybook(t, "won deal", graph("deal.won", ""), 7)
		disabled := e.enabledPlaybook(t, "disabled", graph("deal.won", ""), 0)
		if _, err := e.op.SetPlaybookStatus(ctx, disabled.ID, models.PlaybookDisabled); err != nil {
			t.Fatal(err)
		}
		draft := &models.Playbook{Name: "draft", Graph: graph("deal.won", "")}
		if err := e.op.CreatePlaybook(ctx, draft); err != nil {
			t.Fatal(err)
		}
		// The draft of an enabled playbook moves on; runs keep using the published trigger.
		g := graph("partner.*", "")
		if _, err := e.op.UpdatePlaybook(ctx, wildcard.ID, models.PlaybookChanges{Graph: &g}); err != nil {
			t.Fatal(err)
		}
		e.enabledPlaybook(t, "customers", graph("customer.created", ""), 0)

		refs, err := s.PlaybooksFor(ctx, models.System(e.tenantID), "deal.won")
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(refs, func(a, b models.PlaybookRef) int {
			if a.PlaybookID < b.PlaybookID {
				return -1
			}
			return 1
		})
		want := []models.PlaybookRef{
			{PlaybookID: wildcard.ID, Version: 1, ConcurrencyLimit: models.DefaultPlaybookConcurrencyLimit},
			{PlaybookID: exact.ID, Version: 1, ConcurrencyLimit: 7},
		}
		if !slices.EqualFunc(refs, want, func(a, b models.PlaybookRef) bool {
			return a.PlaybookID == b.PlaybookID && a.Version == b.Version && a.ConcurrencyLimit == b.ConcurrencyLimit &&
				a.Graph.Trigger.EventType != "" && len(a.Graph.Nodes) > 0 // the published version's graph
		}) {
			t.Fatalf("playbooks for deal.won = %+v; want %+v", refs, want)
		}
		if refs, err := s.PlaybooksFor(ctx, models.System(e.tenantID), "deal.lost"); err != nil || len(refs) != 1 || refs[0].PlaybookID != wildcard.ID {
			t.Fatalf("playbooks for deal.lost = %+v, %v", refs, err)
		}
		if refs, err := s.PlaybooksFor(ctx, models.System(e.tenantID), "partner.approved"); err != nil || len(refs) != 0 {
			t.Fatalf("playbooks for partner.approved = %+v, %v", refs, err)
		}
		other := storetest.Tenant(t, s.Core(), "other")
		if refs, err := s.PlaybooksFor(ctx, models.System(other.TenantID), "deal.won"); err != nil || len(refs) != 0 {
			t.Fatalf("another tenant's playbooks for deal.won = %+v, %v", refs, err)
		}
	})
}

// outboxed reports whether an event of type typ written now goes to the fan-out.
func (e *playbookEnv) outboxed(t *testing.T, typ string) bool {
	t.Helper()
	ev, err := e.s.EmitEvent(e.ctx, models.System(e.tenantID), models.NewEvent{Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	refs, err := e.s.PendingOutbox(e.ctx, time.Now().Add(time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(refs, func(r models.EventRef) bool { return r.EventID == ev.ID })
}

func TestPlaybookTriggersAndWaitsAreSubscribed(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		if e.outboxed(t, "onboarding.started") || e.outboxed(t, "task.done") {
			t.Fatal("events nobody listens to went to the fan-out")
		}
		p := e.enabledPlaybook(t, "onboarding", graph("onboarding.*", "task.done"), 0)
		if !e.outboxed(t, "onboarding.started") {
			t.Fatal("an enabled playbook's trigger is not subscribed")
		}
		if !e.outboxed(t, "task.done") {
			t.Fatal("the event an enabled playbook waits for is not subscribed")
		}
		// A run under way on the version keeps the event it waits for subscribed after the
		// playbook is disabled; the trigger is not.
		if _, _, err := s.BeginPlaybookRun(e.ctx, &models.PlaybookRun{TenantID: e.tenantID, PlaybookID: p.ID, Version: 1, EventID: models.NewID()}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := e.op.SetPlaybookStatus(e.ctx, p.ID, models.PlaybookDisabled); err != nil {
			t.Fatal(err)
		}
		if e.outboxed(t, "onboarding.started") {
			t.Fatal("a disabled playbook's trigger is still subscribed")
		}
		if !e.outboxed(t, "task.done") {
			t.Fatal("the event a running run waits for is not subscribed")
		}
	})
}

func (e *playbookEnv) begin(t *testing.T, playbookID, eventID string, limit int) (*models.PlaybookRun, bool) {
	t.Helper()
	partner := e.partnerID
	run, admitted, err := e.s.BeginPlaybookRun(e.ctx, &models.PlaybookRun{TenantID: e.tenantID, PlaybookID: playbookID, Version: 1,
		EventID: eventID, PartnerID: &partner, Depth: 1}, limit)
	if err != nil {
		t.Fatal(err)
	}
	return run, admitted
}

func TestBeginPlaybookRun(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		ctx := e.ctx
		p := e.enabledPlaybook(t, "won", graph("deal.won", ""), 2)
		ev1, ev2, ev3 := models.NewID(), models.NewID(), models.NewID()
		var r1, r3 *models.PlaybookRun

		t.Run("runs are admitted up to the limit and the next one is queued", func(t *testing.T) {
			var ok bool
			if r1, ok = e.begin(t, p.ID, ev1, 2); !ok || r1.Status != models.RunRunning || r1.ID == "" || r1.Depth != 1 || *r1.PartnerID != e.partnerID {
				t.Fatalf("first run = %+v, %v", r1, ok)
			}
			if r, ok := e.begin(t, p.ID, ev2, 2); !ok || r.Status != models.RunRunning {
				t.Fatalf("second run = %+v, %v", r, ok)
			}
			if r3, ok = e.begin(t, p.ID, ev3, 2); ok || r3.Status != models.RunQueued {
				t.Fatalf("third run = %+v, %v", r3, ok)
			}
		})

		t.Run("the same event begins the same run again", func(t *testing.T) {
			if r, ok := e.begin(t, p.ID, ev1, 2); !ok || r.ID != r1.ID {
				t.Fatalf("first run again = %+v, %v", r, ok)
			}
			if r, ok := e.begin(t, p.ID, ev3, 2); ok || r.ID != r3.ID || r.Status != models.RunQueued {
				t.Fatalf("queued run again = %+v, %v", r, ok)
			}
			runs, _, err := e.op.ListPlaybookRuns(ctx, models.PlaybookRunFilter{PlaybookID: p.ID}, models.Page{})
			if err != nil || len(runs) != 3 {
				t.Fatalf("runs = %d, %v", len(runs), err)
			}
		})

		t.Run("a given run id is kept", func(t *testing.T) {
			id := models.NewID()
			r, _, err := s.BeginPlaybookRun(ctx, &models.PlaybookRun{ID: id, TenantID: e.tenantID, PlaybookID: p.ID, Version: 1, EventID: models.NewID()}, 2)
			if err != nil || r.ID != id {
				t.Fatalf("run = %+v, %v", r, err)
			}
		})

		t.Run("a queued run is admitted once a running one finishes", func(t *testing.T) {
			if err := s.FinishPlaybookRun(ctx, models.System(e.tenantID), r1.ID, models.RunCompleted, ""); err != nil {
				t.Fatal(err)
			}
			if r, ok := e.begin(t, p.ID, ev3, 2); !ok || r.ID != r3.ID || r.Status != models.RunRunning {
				t.Fatalf("promoted run = %+v, %v", r, ok)
			}
		})

		t.Run("a finished run is not admitted again and keeps its end", func(t *testing.T) {
			r, ok := e.begin(t, p.ID, ev1, 2)
			if ok || r.Status != models.RunCompleted || r.EndedAt == nil {
				t.Fatalf("finished run = %+v, %v", r, ok)
			}
			if err := s.FinishPlaybookRun(ctx, models.System(e.tenantID), r1.ID, models.RunFailed, "late"); err != nil {
				t.Fatal(err)
			}
			got, _, err := e.op.PlaybookRun(ctx, r1.ID)
			if err != nil || got.Status != models.RunCompleted || got.Error != "" || !got.EndedAt.Equal(*r.EndedAt) {
				t.Fatalf("run after a second finish = %+v, %v", got, err)
			}
			wantCode(t, "finish a missing run", s.FinishPlaybookRun(ctx, models.System(e.tenantID), models.NewID(), models.RunFailed, ""), "RUN_NOT_FOUND")
		})

		t.Run("steps are recorded once and updated", func(t *testing.T) {
			step := &models.PlaybookStep{ID: models.NewID(), TenantID: e.tenantID, RunID: r3.ID, NodeID: "task", Kind: models.NodeCreateTask, Status: models.StepRunning}
			if err := s.RecordPlaybookStep(ctx, step); err != nil {
				t.Fatal(err)
			}
			later := &models.PlaybookStep{ID: models.NewID(), TenantID: e.tenantID, RunID: r3.ID, NodeID: "wait", Kind: models.NodeWait, Status: models.StepRunning}
			if err := s.RecordPlaybookStep(ctx, later); err != nil {
				t.Fatal(err)
			}
			end := time.Now().UTC()
			done := *step
			done.Status, done.Output, done.EndedAt = models.StepCompleted, `{"taskId":"t1"}`, &end
			if err := s.RecordPlaybookStep(ctx, &done); err != nil {
				t.Fatal(err)
			}
			_, steps, err := e.op.PlaybookRun(ctx, r3.ID)
			if err != nil || len(steps) != 2 || steps[0].ID != step.ID || steps[0].Status != models.StepCompleted ||
				steps[0].Output != `{"taskId":"t1"}` || steps[0].EndedAt == nil || steps[1].ID != later.ID {
				t.Fatalf("steps = %+v, %v", steps, err)
			}
		})
	})
}

func TestConcurrentBeginPlaybookRunNeverAdmitsMoreThanTheLimit(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		for round := range 5 {
			p := e.enabledPlaybook(t, "won", graph("deal.won", ""), 2)
			var (
				wg       sync.WaitGroup
				mu       sync.Mutex
				admitted int
				errs     []error
			)
			start := make(chan struct{})
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, ok, err := s.BeginPlaybookRun(e.ctx, &models.PlaybookRun{TenantID: e.tenantID, PlaybookID: p.ID, Version: 1, EventID: models.NewID()}, 2)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, err)
					}
					if ok {
						admitted++
					}
				}()
			}
			close(start)
			wg.Wait()
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			running, _, err := e.op.ListPlaybookRuns(e.ctx, models.PlaybookRunFilter{PlaybookID: p.ID, Status: models.RunRunning}, models.Page{})
			if err != nil {
				t.Fatal(err)
			}
			queued, _, err := e.op.ListPlaybookRuns(e.ctx, models.PlaybookRunFilter{PlaybookID: p.ID, Status: models.RunQueued}, models.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if admitted != 2 || len(running) != 2 || len(queued) != 6 {
				t.Fatalf("round %d: admitted %d, running %d, queued %d; want 2, 2, 6", round, admitted, len(running), len(queued))
			}
		}
	})
}

func TestPlaybookActionsHappenOncePerKey(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		ctx := e.ctx
		runID := models.NewID()
		key := func(node string) string { return runID + ":" + node }
		count := func(typ string) int {
			t.Helper()
			evs, _, err := e.op.ListEvents(ctx, models.EventFilter{Type: typ}, models.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return len(evs)
		}

		t.Run("a task is created once", func(t *testing.T) {
			var ids []string
			for range 2 {
				partner := e.partnerID
				id, err := s.PlaybookCreateTask(ctx, models.System(e.tenantID), key("task"), &models.Task{Title: "Sign the agreement", PartnerID: &partner})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			tasks, _, err := e.op.ListTasks(ctx, models.TaskFilter{Source: "playbook"}, models.Page{})
			if err != nil || len(tasks) != 1 || ids[0] != ids[1] || tasks[0].ID != ids[0] || tasks[0].Status != models.TaskOpen {
				t.Fatalf("tasks = %+v (ids %v), %v", tasks, ids, err)
			}
			if mine, _, _ := e.partner.ListTasks(ctx, models.TaskFilter{}, models.Page{}); len(mine) != 1 {
				t.Fatalf("the partner sees %d tasks", len(mine))
			}
		})

		t.Run("a task is created once when retries race", func(t *testing.T) {
			var wg sync.WaitGroup
			ids := make([]string, 4)
			errs := make([]error, 4)
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ids[i], errs[i] = s.PlaybookCreateTask(ctx, models.System(e.tenantID), key("raced"), &models.Task{Title: "Raced"})
				}()
			}
			wg.Wait()
			for i := range 4 {
				if errs[i] != nil || ids[i] != ids[0] {
					t.Fatalf("ids %v, errors %v", ids, errs)
				}
			}
			tasks, _, _ := e.op.ListTasks(ctx, models.TaskFilter{Source: "playbook"}, models.Page{})
			if len(tasks) != 2 {
				t.Fatalf("tasks = %d; want 2", len(tasks))
			}
		})

		t.Run("a document is created once", func(t *testing.T) {
			var ids []string
			for range 2 {
				partner := e.partnerID
				id, err := s.PlaybookCreateDocument(ctx, models.System(e.tenantID), key("doc"), &models.Document{Title: "Agreement", Body: "<p>Hi</p>", PartnerID: &partner, RunID: &runID})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			docs, _, err := e.op.ListDocuments(ctx, "", models.Page{})
			if err != nil || len(docs) != 1 || ids[0] != ids[1] || docs[0].ID != ids[0] || docs[0].Body != "<p>Hi</p>" {
				t.Fatalf("documents = %+v (ids %v), %v", docs, ids, err)
			}
		})

		t.Run("a bonus is booked once", func(t *testing.T) {
			var ids []string
			for range 2 {
				id, err := s.PlaybookBonus(ctx, models.System(e.tenantID), key("bonus"), e.partnerID, 500_00, "EUR", "welcome bonus")
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			entries, _, err := e.op.ListLedgerEntries(ctx, models.EntryFilter{SourceType: "playbook"}, models.Page{})
			if err != nil || len(entries) != 2 || ids[0] != ids[1] || entries[0].MovementID != ids[0] {
				t.Fatalf("entries = %+v (ids %v), %v", entries, ids, err)
			}
			bs, err := e.op.Balances(ctx, e.partnerID, "EUR")
			if err != nil || len(bs) != 1 || bs[0].Available != 500_00 || bs[0].TotalEarned != 500_00 {
				t.Fatalf("balances = %+v, %v", bs, err)
			}
			if n := count(models.EventLedgerAdjusted); n != 1 {
				t.Fatalf("ledger.adjusted events = %d", n)
			}
			chk, err := s.CheckLedger(ctx, models.System(e.tenantID))
			if err != nil || len(chk.Mismatches) > 0 || len(chk.Unbalanced) > 0 {
				t.Fatalf("ledger check %+v, %v", chk, err)
			}
			_, err = s.PlaybookBonus(ctx, models.System(e.tenantID), key("zero"), e.partnerID, 0, "EUR", "")
			wantCode(t, "a zero bonus", err, "INVALID_BONUS")
		})

		t.Run("a survey goes to the partner's active users once", func(t *testing.T) {
			_, err := s.PlaybookSendSurvey(ctx, models.System(e.tenantID), key("survey-nobody"), e.partnerID, models.SurveyNPS)
			wantCode(t, "a survey to a partner without users", err, "NO_RECIPIENTS")
			for _, u := range []struct{ email, status string }{{"ana@acme.test", models.UserStatusActive}, {"ben@acme.test", models.UserStatusActive}, {"old@acme.test", "deactivated"}} {
				if err := e.op.CreateUser(ctx, &models.User{Email: u.email, Name: u.email, PartnerID: &e.partnerID, Status: u.status}, []string{"partner_user"}); err != nil {
					t.Fatal(err)
				}
			}
			var batches []string
			for range 2 {
				id, err := s.PlaybookSendSurvey(ctx, models.System(e.tenantID), key("survey"), e.partnerID, models.SurveyNPS)
				if err != nil {
					t.Fatal(err)
				}
				batches = append(batches, id)
			}
			list, _, err := e.op.ListSurveys(ctx, models.SurveyFilter{PartnerID: e.partnerID}, models.Page{Limit: 100})
			if err != nil || len(list) != 2 || batches[0] != batches[1] {
				t.Fatalf("surveys %d (batches %v), %v; want two, one batch", len(list), batches, err)
			}
			for _, sv := range list {
				if sv.Kind != models.SurveyNPS || sv.Source != models.SurveySourcePlaybook || sv.BatchID != batches[0] {
					t.Fatalf("survey %+v", sv)
				}
			}
			if n := count(models.EventSurveyRequested); n != 1 {
				t.Fatalf("survey.requested events = %d", n)
			}
		})

		t.Run("an event is emitted once", func(t *testing.T) {
			var ids []string
			for range 2 {
				id, err := s.PlaybookEmitEvent(ctx, models.System(e.tenantID), key("emit"), models.NewEvent{Type: "onboarding.reminded", Payload: `{"n":1}`})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if n := count("onboarding.reminded"); n != 1 || ids[0] != ids[1] {
				t.Fatalf("onboarding.reminded events = %d (ids %v)", n, ids)
			}
		})

		t.Run("a partner's status changes once with its event", func(t *testing.T) {
			for range 2 {
				if err := s.PlaybookUpdatePartner(ctx, models.System(e.tenantID), key("suspend"), e.partnerID, models.PlaybookUpdatePartner{Status: models.PartnerSuspended}); err != nil {
					t.Fatal(err)
				}
			}
			// Reactivated by hand, the partner is not suspended again by a retry of the same step.
			active := models.PartnerActive
			if _, err := e.op.UpdatePartner(ctx, e.partnerID, models.PartnerChanges{Status: &active}); err != nil {
				t.Fatal(err)
			}
			if err := s.PlaybookUpdatePartner(ctx, models.System(e.tenantID), key("suspend"), e.partnerID, models.PlaybookUpdatePartner{Status: models.PartnerSuspended}); err != nil {
				t.Fatal(err)
			}
			p, _ := e.op.Partner(ctx, e.partnerID)
			if p.Status != models.PartnerActive || count(models.EventPartnerStatusChanged) != 2 {
				t.Fatalf("partner %+v, status events %d", p, count(models.EventPartnerStatusChanged))
			}
			err := s.PlaybookUpdatePartner(ctx, models.System(e.tenantID), key("onboard"), e.partnerID, models.PlaybookUpdatePartner{Status: models.PartnerOnboarding})
			wantCode(t, "back to onboarding", err, "ILLEGAL_PARTNER_TRANSITION")
		})

		t.Run("a partner's level changes once with its event", func(t *testing.T) {
			l := &models.Level{Name: "platinum", Rank: 3}
			if err := e.op.CreateLevel(ctx, l, models.LevelRequirements{}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := s.PlaybookUpdatePartner(ctx, models.System(e.tenantID), key("level"), e.partnerID, models.PlaybookUpdatePartner{LevelID: l.ID}); err != nil {
					t.Fatal(err)
				}
			}
			p, _ := e.op.Partner(ctx, e.partnerID)
			if p.Level != "platinum" || count(models.EventPartnerLevelChanged) != 1 {
				t.Fatalf("partner %+v, level events %d", p, count(models.EventPartnerLevelChanged))
			}
			err := s.PlaybookUpdatePartner(ctx, models.System(e.tenantID), key("nolevel"), e.partnerID, models.PlaybookUpdatePartner{LevelID: models.NewID()})
			wantCode(t, "a missing level", err, "LEVEL_NOT_FOUND")
		})

		t.Run("a custom field is set once and keeps the others", func(t *testing.T) {
			p, _ := e.op.Partner(ctx, e.partnerID)
			if p.CustomFields != "{}" || len(p.Custom()) != 0 {
				t.Fatalf("a new partner's custom fields = %q", p.CustomFields)
			}
			steps := []struct{ key, field, value string }{
				{key("crm"), "crmId", "C-1"}, {key("region"), "region", "north"}, {key("crm"), "crmId", "C-2"},
			}
			for _, st := range steps {
				if err := s.PlaybookUpdatePartner(ctx, models.System(e.tenantID), st.key, e.partnerID, models.PlaybookUpdatePartner{CustomField: st.field, CustomValue: st.value}); err != nil {
					t.Fatal(err)
				}
			}
			p, _ = e.op.Partner(ctx, e.partnerID)
			if c := p.Custom(); len(c) != 2 || c["crmId"] != "C-1" || c["region"] != "north" {
				t.Fatalf("custom fields = %q", p.CustomFields)
			}
		})

		t.Run("actions refuse another tenant's partner and users", func(t *testing.T) {
			other := storetest.Tenant(t, s.Core(), "other")
			partner := e.partnerID
			_, err := s.PlaybookCreateTask(ctx, models.System(other.TenantID), key("foreign"), &models.Task{Title: "x", PartnerID: &partner})
			wantCode(t, "task", err, "PARTNER_NOT_FOUND")
			owner := e.op.Principal().UserID
			_, err = s.PlaybookCreateTask(ctx, models.System(other.TenantID), key("foreign"), &models.Task{Title: "x", AssigneeUserID: &owner})
			wantCode(t, "task assignee", err, "ASSIGNEE_NOT_FOUND")
			_, err = s.PlaybookBonus(ctx, models.System(other.TenantID), key("foreign"), e.partnerID, 1, "EUR", "")
			wantCode(t, "bonus", err, "PARTNER_NOT_FOUND")
			err = s.PlaybookUpdatePartner(ctx, models.System(other.TenantID), key("foreign"), e.partnerID, models.PlaybookUpdatePartner{Status: models.PartnerSuspended})
			wantCode(t, "update", err, "PARTNER_NOT_FOUND")
		})
	})
}

func TestPlaybookDocumentsAndRunsAreScoped(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		ctx := e.ctx
		beta := &models.Partner{Name: "Beta", Type: "reseller", Status: models.PartnerActive}
		if err := e.op.CreatePartner(ctx, beta); err != nil {
			t.Fatal(err)
		}
		mine, theirs := e.partnerID, beta.ID
		myDoc, err := s.PlaybookCreateDocument(ctx, models.System(e.tenantID), "r:a", &models.Document{Title: "Mine", Body: "a", PartnerID: &mine})
		if err != nil {
			t.Fatal(err)
		}
		theirDoc, err := s.PlaybookCreateDocument(ctx, models.System(e.tenantID), "r:b", &models.Document{Title: "Theirs", Body: "b", PartnerID: &theirs})
		if err != nil {
			t.Fatal(err)
		}
		p := e.enabledPlaybook(t, "won", graph("deal.won", ""), 0)
		run, _ := e.begin(t, p.ID, models.NewID(), 0)

		t.Run("a partner lists and reads its own documents only", func(t *testing.T) {
			docs, _, err := e.partner.ListDocuments(ctx, "", models.Page{})
			if err != nil || len(docs) != 1 || docs[0].ID != myDoc {
				t.Fatalf("partner's documents = %+v, %v", docs, err)
			}
			if docs, _, err := e.partner.ListDocuments(ctx, theirs, models.Page{}); err != nil || len(docs) != 0 {
				t.Fatalf("another partner's documents = %+v, %v", docs, err)
			}
			if d, err := e.partner.Document(ctx, myDoc); err != nil || d.Title != "Mine" {
				t.Fatalf("own document = %+v, %v", d, err)
			}
			_, err = e.partner.Document(ctx, theirDoc)
			wantCode(t, "another partner's document", err, "DOCUMENT_NOT_FOUND")
		})

		t.Run("operators see every document of their tenant only", func(t *testing.T) {
			docs, _, err := e.op.ListDocuments(ctx, "", models.Page{})
			if err != nil || len(docs) != 2 {
				t.Fatalf("operator's documents = %+v, %v", docs, err)
			}
			if docs, _, err := e.op.ListDocuments(ctx, theirs, models.Page{Limit: 1}); err != nil || len(docs) != 1 || docs[0].ID != theirDoc {
				t.Fatalf("operator's documents of Beta = %+v, %v", docs, err)
			}
			other := s.For(storetest.Tenant(t, s.Core(), "other"))
			_, err = other.Document(ctx, myDoc)
			wantCode(t, "another tenant's document", err, "DOCUMENT_NOT_FOUND")
			if docs, _, err := other.ListDocuments(ctx, "", models.Page{}); err != nil || len(docs) != 0 {
				t.Fatalf("another tenant's documents = %+v, %v", docs, err)
			}
		})

		t.Run("another tenant's run reads as missing", func(t *testing.T) {
			other := s.For(storetest.Tenant(t, s.Core(), "third"))
			_, _, err := other.PlaybookRun(ctx, run.ID)
			wantCode(t, "read", err, "RUN_NOT_FOUND")
			_, err = other.RequestPlaybookRunCancel(ctx, run.ID)
			wantCode(t, "cancel", err, "RUN_NOT_FOUND")
			if runs, _, err := other.ListPlaybookRuns(ctx, models.PlaybookRunFilter{}, models.Page{}); err != nil || len(runs) != 0 {
				t.Fatalf("another tenant's runs = %+v, %v", runs, err)
			}
		})
	})
}

func TestPlaybookRunCancelRequests(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "acme")
		ctx := e.ctx
		p := e.enabledPlaybook(t, "won", graph("deal.won", ""), 1)
		running, _ := e.begin(t, p.ID, models.NewID(), 1)
		queuedEvent := models.NewID()
		queued, _ := e.begin(t, p.ID, queuedEvent, 1)

		t.Run("a running run records the request, and asking again changes nothing", func(t *testing.T) {
			for range 2 {
				r, err := e.op.RequestPlaybookRunCancel(ctx, running.ID)
				if err != nil || !r.CancelRequested || r.Status != models.RunRunning {
					t.Fatalf("cancel = %+v, %v", r, err)
				}
			}
			got, _, _ := e.op.PlaybookRun(ctx, running.ID)
			if !got.CancelRequested {
				t.Fatal("the request was not stored")
			}
		})

		t.Run("a finished run cannot be cancelled", func(t *testing.T) {
			if err := s.FinishPlaybookRun(ctx, models.System(e.tenantID), running.ID, models.RunCancelled, ""); err != nil {
				t.Fatal(err)
			}
			_, err := e.op.RequestPlaybookRunCancel(ctx, running.ID)
			wantCode(t, "cancel a finished run", err, "RUN_NOT_ACTIVE")
		})

		t.Run("a queued run asked to cancel ends cancelled instead of starting", func(t *testing.T) {
			if r, err := e.op.RequestPlaybookRunCancel(ctx, queued.ID); err != nil || !r.CancelRequested || r.Status != models.RunQueued {
				t.Fatalf("cancel = %+v, %v", r, err)
			}
			r, ok := e.begin(t, p.ID, queuedEvent, 1)
			if ok || r.Status != models.RunCancelled || r.EndedAt == nil {
				t.Fatalf("begin after cancel = %+v, %v", r, ok)
			}
		})

		t.Run("a missing run is not found", func(t *testing.T) {
			_, err := e.op.RequestPlaybookRunCancel(ctx, models.NewID())
			wantCode(t, "cancel", err, "RUN_NOT_FOUND")
		})
	})
}

func TestPlaybookTitlesAreShortenedByCharacters(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newPlaybookEnv(t, s, "titles")
		ctx := e.ctx
		key := func(node string) string { return "run:" + node }
		long := strings.Repeat("é", 300) // 600 bytes
		id, err := s.PlaybookCreateTask(ctx, models.System(e.tenantID), key("long-task"), &models.Task{Title: long})
		if err != nil {
			t.Fatal(err)
		}
		task, err := e.op.Task(ctx, id)
		if err != nil || task.Title != strings.Repeat("é", 200) {
			t.Fatalf("task title = %q (%d characters), %v", task.Title, utf8.RuneCountInString(task.Title), err)
		}
		docID, err := s.PlaybookCreateDocument(ctx, models.System(e.tenantID), key("long-doc"), &models.Document{Title: strings.Repeat("日本", 600), Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := e.op.Document(ctx, docID)
		if err != nil || doc.Title != strings.Repeat("日本", 500) {
			t.Fatalf("document title has %d characters, %v", utf8.RuneCountInString(doc.Title), err)
		}
	})
}
