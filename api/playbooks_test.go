package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// fakeRuns records the cancellations of playbook runs instead of delivering them.
type fakeRuns struct {
	mu    sync.Mutex
	calls [][2]string // tenant id, run id
	err   error
}

func (f *fakeRuns) CancelPlaybookRun(_ context.Context, tenantID, runID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.calls = append(f.calls, [2]string{tenantID, runID})
	return nil
}

func (f *fakeRuns) recorded() [][2]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][2]string(nil), f.calls...)
}

// dealWonPlaybook is the graph of a won deal of at least 1 000.00: a week's wait, then a task
// and a webhook in parallel that join; smaller deals get a thank-you task.
func dealWonPlaybook(wait string) map[string]any {
	return map[string]any{
		"trigger": map[string]any{"eventType": "deal.won"},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "big", "kind": "condition", "condition": map[string]any{"expression": "event.payload.amountMinor >= 100000"}},
			{"id": "settle", "kind": "wait", "wait": map[string]any{"duration": wait}},
			{"id": "fan", "kind": "parallel"},
			{"id": "review", "kind": "create_task", "createTask": map[string]any{
				"title": "Review {{.event.payload.dealName}} with {{.partner.name}}", "assignee": "operator", "dueInDays": 3}},
			{"id": "notify", "kind": "call_webhook", "callWebhook": map[string]any{"url": "https://crm.example.com/hooks/deal-won"}},
			{"id": "done", "kind": "join"},
			{"id": "thanks", "kind": "create_task", "createTask": map[string]any{"title": "Thank {{.partner.name}}", "assignee": "partner"}},
		},
		"edges": []map[string]any{
			{"from": "start", "to": "big"},
			{"from": "big", "to": "settle", "label": "true"},
			{"from": "big", "to": "thanks", "label": "false"},
			{"from": "settle", "to": "fan"},
			{"from": "fan", "to": "review"},
			{"from": "fan", "to": "notify"},
			{"from": "review", "to": "done"},
			{"from": "notify", "to": "done"},
		},
	}
}

// brokenPlaybook has four problems at once: an expression that does not compile, a duration
// that does not parse, an edge to a node that does not exist and a node nothing reaches.
func brokenPlaybook() map[string]any {
	return map[string]any{
		"trigger": map[string]any{"eventType": "deal.won"},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "check", "kind": "condition", "condition": map[string]any{"expression": "event.payload.amountMinor >="}},
			{"id": "pause", "kind": "wait", "wait": map[string]any{"duration": "forever"}},
			{"id": "orphan", "kind": "create_task", "createTask": map[string]any{"title": "Never", "assignee": "operator"}},
		},
		"edges": []map[string]any{
			{"from": "start", "to": "check"},
			{"from": "check", "to": "pause", "label": "true"},
			{"from": "check", "to": "ghost", "label": "false"},
		},
	}
}

// playbookView is a playbook as responses carry it.
type playbookView struct {
	ID               string               `json:"id"`
	Name             string               `json:"name"`
	Status           string               `json:"status"`
	PublishedVersion int                  `json:"publishedVersion"`
	ConcurrencyLimit int                  `json:"concurrencyLimit"`
	Graph            models.PlaybookGraph `json:"graph"`
}

func waitOf(g models.PlaybookGraph) string {
	for _, n := range g.Nodes {
		if n.Wait != nil {
			return n.Wait.Duration
		}
	}
	return ""
}

func (e *moneyEnv) runs() *fakeRuns { return e.s.deps.Runs.(*fakeRuns) }

// createPublished creates the deal-won playbook and publishes it as version 1.
func (e *moneyEnv) createPublished(name string) playbookView {
	e.t.Helper()
	p := decode[playbookView](e.t, e.want(201, e.call(http.MethodPost, "/api/playbooks", e.op, "", map[string]any{"name": name, "graph": dealWonPlaybook("7d")})))
	e.want(201, e.call(http.MethodPost, "/api/playbooks/"+p.ID+"/publish", e.op, "", nil))
	p.PublishedVersion = 1
	return p
}

// seedRun records a run of version 1 of playbookID started by a new deal.won event of
// partnerID, as the run workflow would.
func seedRun(t *testing.T, st *stores.Set, tenantID, playbookID, partnerID string) *models.PlaybookRun {
	t.Helper()
	ctx := context.Background()
	ev, err := st.EmitEvent(ctx, models.System(tenantID), models.NewEvent{Type: "deal.won", PartnerID: &partnerID, Payload: `{"amountMinor":150000}`})
	if err != nil {
		t.Fatal(err)
	}
	run := &models.PlaybookRun{ID: models.NewID(), TenantID: tenantID, PlaybookID: playbookID, Version: 1, EventID: ev.ID,
		PartnerID: &partnerID, Status: models.RunRunning, StartedAt: time.Now().UTC()}
	got, _, err := st.BeginPlaybookRun(ctx, run, 10)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func seedStep(t *testing.T, st *stores.Set, run *models.PlaybookRun, nodeID, kind, status, output string) {
	t.Helper()
	now := time.Now().UTC()
	step := &models.PlaybookStep{ID: models.NewID(), TenantID: run.TenantID, RunID: run.ID, NodeID: nodeID, Kind: kind, Status: status,
		Output: output, StartedAt: now}
	if status != models.StepRunning {
		step.EndedAt = &now
	}
	if err := st.RecordPlaybookStep(context.Background(), step); err != nil {
		t.Fatal(err)
	}
}

func TestPlaybooksOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "playbooks")
		const path = "/api/playbooks"

		t.Run("an invalid graph is refused with every problem at once, each naming its node", func(t *testing.T) {
			e := e.on(t)
			p := e.problem(e.call(http.MethodPost, path, e.op, "", map[string]any{"name": "Broken", "graph": brokenPlaybook()}), 422, CodeInvalidPlaybook)
			if len(p.Errors) < 4 {
				t.Fatalf("errors = %+v", p.Errors)
			}
			var text []string
			for _, fe := range p.Errors {
				if !strings.HasPrefix(fe.Location, "body.graph.") {
					t.Errorf("location %q is not under body.graph.", fe.Location)
				}
				text = append(text, fe.Location+" "+fe.Message)
			}
			all := strings.Join(text, "\n")
			for _, want := range []string{"EXPRESSION_INVALID (node check)", "DURATION_INVALID (node pause)", "NODE_UNREACHABLE (node orphan)",
				"EDGE_TO_UNKNOWN", "body.graph.nodes[1].condition.expression", "body.graph.edges[2]"} {
				if !strings.Contains(all, want) {
					t.Errorf("the problems do not mention %q:\n%s", want, all)
				}
			}
			list := decode[ListBody[playbookView]](t, e.want(200, e.call(http.MethodGet, path, e.op, "", nil)))
			if len(list.Data) != 0 {
				t.Fatalf("an invalid playbook was stored: %+v", list.Data)
			}
		})

		t.Run("validate lists the problems of a graph and stores nothing", func(t *testing.T) {
			e := e.on(t)
			type result struct {
				Valid    bool
				Problems []PlaybookProblem
			}
			bad := decode[result](t, e.want(200, e.call(http.MethodPost, path+"/validate", e.op, "", map[string]any{"graph": brokenPlaybook()})))
			if bad.Valid || len(bad.Problems) < 4 {
				t.Fatalf("validation of a broken graph = %+v", bad)
			}
			nodes := map[string][]string{}
			for _, p := range bad.Problems {
				nodes[p.NodeID] = append(nodes[p.NodeID], p.Code)
			}
			if !slices.Contains(nodes["check"], "EXPRESSION_INVALID") || !slices.Contains(nodes["pause"], "DURATION_INVALID") ||
				!slices.Contains(nodes["orphan"], "NODE_UNREACHABLE") {
				t.Errorf("problems by node = %v", nodes)
			}
			edge := slices.IndexFunc(bad.Problems, func(p PlaybookProblem) bool { return p.Code == "EDGE_TO_UNKNOWN" })
			if edge < 0 || bad.Problems[edge].Edge == nil || *bad.Problems[edge].Edge != 2 || !strings.HasPrefix(bad.Problems[edge].Path, "edges[2]") {
				t.Errorf("the edge problem = %+v", bad.Problems)
			}
			good := e.want(200, e.call(http.MethodPost, path+"/validate", e.op, "", map[string]any{"graph": dealWonPlaybook("7d")}))
			if r := decode[result](t, good); !r.Valid || !strings.Contains(string(good.Body), `"problems":[]`) {
				t.Fatalf("validation of a valid graph = %s", good.Body)
			}
			vars := decode[struct{ Variables map[string][]string }](t, good).Variables
			for node, want := range map[string][]string{
				"review": {"event.payload.amountMinor", "event.payload.dealId", "partner.level", "now", "steps.big.result", "steps.settle.until"},
				"big":    {"event.payload.currency", "partner.custom"},
			} {
				for _, w := range want {
					if !slices.Contains(vars[node], w) {
						t.Errorf("node %s may not read %s: %v", node, w, vars[node])
					}
				}
			}
			if slices.Contains(vars["review"], "steps.notify.status") || slices.Contains(vars["big"], "steps.big.result") {
				t.Errorf("variables offer steps that cannot have run: %v", vars)
			}
		})

		created := decode[playbookView](t, e.want(201, e.call(http.MethodPost, path, e.op, "", map[string]any{
			"name": "Big deals", "description": "Follow up on big won deals", "graph": dealWonPlaybook("7d"), "concurrencyLimit": 5})))
		if created.ID == "" || created.Status != models.PlaybookDraft || created.PublishedVersion != 0 || created.ConcurrencyLimit != 5 ||
			len(created.Graph.Nodes) != 8 || waitOf(created.Graph) != "7d" {
			t.Fatalf("created = %+v", created)
		}
		one := path + "/" + created.ID

		t.Run("a playbook never published cannot be enabled", func(t *testing.T) {
			e := e.on(t)
			e.problem(e.call(http.MethodPost, one+"/enable", e.op, "", nil), 409, "PLAYBOOK_NOT_PUBLISHED")
		})

		t.Run("a draft is simulated before its first publication", func(t *testing.T) {
			e := e.on(t)
			sim := decode[SimulatedPath](t, e.want(200, e.call(http.MethodPost, one+"/simulate", e.op, "", map[string]any{
				"event": map[string]any{"type": "deal.won", "payload": map[string]any{"amountMinor": 5000}}})))
			if sim.Version != 0 || !sim.Triggered || len(sim.Steps) != 3 || sim.Steps[2].NodeID != "thanks" {
				t.Fatalf("simulation of the draft = %+v", sim)
			}
		})

		version := decode[models.PlaybookVersion](t, e.want(201, e.call(http.MethodPost, one+"/publish", e.op, "", nil)))
		if version.Version != 1 || version.PlaybookID != created.ID || waitOf(version.Graph) != "7d" || version.PublishedBy == "" {
			t.Fatalf("version = %+v", version)
		}

		t.Run("published versions do not change when the draft does", func(t *testing.T) {
			e := e.on(t)
			updated := decode[playbookView](t, e.want(200, e.call(http.MethodPut, one, e.op, "", map[string]any{
				"name": "Big deals, faster", "graph": dealWonPlaybook("3d")})))
			if updated.Name != "Big deals, faster" || waitOf(updated.Graph) != "3d" || updated.PublishedVersion != 1 || updated.ConcurrencyLimit != 5 {
				t.Fatalf("updated = %+v", updated)
			}
			vs := decode[ListBody[models.PlaybookVersion]](t, e.want(200, e.call(http.MethodGet, one+"/versions", e.op, "", nil)))
			if v1 := decode[models.PlaybookVersion](t, e.want(200, e.call(http.MethodGet, one+"/versions/1", e.op, "", nil))); v1.Version != 1 || waitOf(v1.Graph) != waitOf(vs.Data[0].Graph) {
				t.Errorf("version 1 = %+v", v1)
			}
			e.problem(e.call(http.MethodGet, one+"/versions/99", e.op, "", nil), 404, "PLAYBOOK_VERSION_NOT_FOUND")
			if len(vs.Data) != 1 || vs.Data[0].Version != 1 || waitOf(vs.Data[0].Graph) != "7d" {
				t.Fatalf("versions after a draft change = %+v", vs.Data)
			}
			p := e.problem(e.call(http.MethodPut, one, e.op, "", map[string]any{"graph": brokenPlaybook()}), 422, CodeInvalidPlaybook)
			if len(p.Errors) < 4 {
				t.Fatalf("errors = %+v", p.Errors)
			}
			got := decode[playbookView](t, e.want(200, e.call(http.MethodGet, one, e.op, "", nil)))
			if waitOf(got.Graph) != "3d" || got.Name != "Big deals, faster" {
				t.Fatalf("an invalid update changed the draft: %+v", got)
			}
		})

		t.Run("the simulation of the published version shows the wait and the actions without doing anything", func(t *testing.T) {
			e := e.on(t)
			at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
			sample := map[string]any{
				"event": map[string]any{"type": "deal.won", "partnerId": e.partner1, "occurredAt": at,
					"payload": map[string]any{"amountMinor": 150000, "dealName": "Acme renewal"}},
				"partner": map[string]any{"name": "Northwind", "type": "reseller", "level": "Gold", "status": "active"},
			}
			sim := decode[SimulatedPath](t, e.want(200, e.call(http.MethodPost, one+"/simulate", e.op, "", sample)))
			var ids []string
			for _, s := range sim.Steps {
				ids = append(ids, s.NodeID)
			}
			if sim.Version != 1 || !sim.Triggered || sim.Failed || strings.Join(ids, " ") != "start big settle fan review notify done" {
				t.Fatalf("simulation = %+v", sim)
			}
			if r := sim.Steps[1].Result; r == nil || !*r || sim.Steps[1].Outcome != "true" {
				t.Errorf("condition step = %+v", sim.Steps[1])
			}
			week := at.Add(7 * 24 * time.Hour)
			if sim.Steps[2].Wait != "7d" || !sim.Steps[3].At.Equal(week) || !sim.EndsAt.Equal(week) {
				t.Errorf("wait step = %+v, ends at %s", sim.Steps[2], sim.EndsAt)
			}
			task, hook := sim.Steps[4].Action, sim.Steps[5].Action
			if task == nil || task.CreateTask == nil || task.CreateTask.Title != "Review Acme renewal with Northwind" {
				t.Errorf("task action = %+v", task)
			}
			if hook == nil || hook.CallWebhook == nil || hook.CallWebhook.URL != "https://crm.example.com/hooks/deal-won" {
				t.Errorf("webhook action = %+v", hook)
			}
			draft := decode[SimulatedPath](t, e.want(200, e.call(http.MethodPost, one+"/simulate?version=draft", e.op, "", sample)))
			if draft.Version != 0 || len(draft.Steps) < 3 || draft.Steps[2].Wait != "3d" {
				t.Errorf("simulation of the draft = %+v", draft)
			}
			sample["event"] = map[string]any{"type": "deal.lost", "payload": map[string]any{}}
			other := decode[SimulatedPath](t, e.want(200, e.call(http.MethodPost, one+"/simulate?version=1", e.op, "", sample)))
			if other.Triggered || len(other.Steps) != 0 || !strings.Contains(other.Reason, "does not match") {
				t.Errorf("simulation of another event type = %+v", other)
			}
			e.problem(e.call(http.MethodPost, one+"/simulate?version=9", e.op, "", sample), 404, "PLAYBOOK_VERSION_NOT_FOUND")
			if tasks := decode[ListBody[json.RawMessage]](t, e.want(200, e.call(http.MethodGet, "/api/tasks", e.op, "", nil))); len(tasks.Data) != 0 {
				t.Errorf("the simulation created tasks: %s", tasks.Data)
			}
			if runs := decode[ListBody[PlaybookRun]](t, e.want(200, e.call(http.MethodGet, "/api/playbook-runs", e.op, "", nil))); len(runs.Data) != 0 {
				t.Errorf("the simulation recorded runs: %+v", runs.Data)
			}
		})

		t.Run("a second publication is version 2 and version 1 stays as it was", func(t *testing.T) {
			e := e.on(t)
			v2 := decode[models.PlaybookVersion](t, e.want(201, e.call(http.MethodPost, one+"/publish", e.op, "", nil)))
			if v2.Version != 2 || waitOf(v2.Graph) != "3d" {
				t.Fatalf("version 2 = %+v", v2)
			}
			first := decode[ListBody[models.PlaybookVersion]](t, e.want(200, e.call(http.MethodGet, one+"/versions?limit=1", e.op, "", nil)))
			if len(first.Data) != 1 || first.Data[0].Version != 1 || waitOf(first.Data[0].Graph) != "7d" || first.NextCursor == "" {
				t.Fatalf("first page of versions = %+v", first)
			}
			second := decode[ListBody[models.PlaybookVersion]](t, e.want(200, e.call(http.MethodGet, one+"/versions?limit=1&cursor="+first.NextCursor, e.op, "", nil)))
			if len(second.Data) != 1 || second.Data[0].Version != 2 || second.NextCursor != "" {
				t.Fatalf("second page of versions = %+v", second)
			}
		})

		t.Run("enable, disable and archive follow the lifecycle", func(t *testing.T) {
			e := e.on(t)
			for _, step := range []struct{ action, status string }{{"enable", "enabled"}, {"disable", "disabled"}, {"enable", "enabled"}, {"archive", "archived"}} {
				got := decode[playbookView](t, e.want(200, e.call(http.MethodPost, one+"/"+step.action, e.op, "", nil)))
				if got.Status != step.status {
					t.Fatalf("%s: status %s, want %s", step.action, got.Status, step.status)
				}
			}
			if res := e.call(http.MethodPost, one+"/enable", e.op, "", nil); res.Status != http.StatusConflict {
				t.Fatalf("enabling an archived playbook = %d: %s", res.Status, res.Body)
			}
			list := decode[ListBody[playbookView]](t, e.want(200, e.call(http.MethodGet, path+"?status=archived", e.op, "", nil)))
			if len(list.Data) != 1 || list.Data[0].ID != created.ID {
				t.Fatalf("archived playbooks = %+v", list.Data)
			}
			if list := decode[ListBody[playbookView]](t, e.want(200, e.call(http.MethodGet, path+"?status=enabled", e.op, "", nil))); len(list.Data) != 0 {
				t.Fatalf("enabled playbooks = %+v", list.Data)
			}
		})

		t.Run("partners are refused every playbook operation", func(t *testing.T) {
			e := e.on(t)
			body := map[string]any{"name": "Mine", "graph": dealWonPlaybook("7d")}
			sample := map[string]any{"event": map[string]any{"type": "deal.won"}}
			for _, c := range []struct {
				method, path string
				body         any
			}{
				{http.MethodPost, path, body}, {http.MethodGet, path, nil}, {http.MethodPost, path + "/validate", map[string]any{"graph": dealWonPlaybook("7d")}},
				{http.MethodGet, one, nil}, {http.MethodPut, one, body}, {http.MethodPost, one + "/publish", nil}, {http.MethodGet, one + "/versions", nil},
				{http.MethodPost, one + "/enable", nil}, {http.MethodPost, one + "/disable", nil}, {http.MethodPost, one + "/archive", nil},
				{http.MethodPost, one + "/simulate", sample}, {http.MethodGet, "/api/playbook-runs", nil},
				{http.MethodGet, "/api/playbook-runs/" + created.ID, nil}, {http.MethodPost, "/api/playbook-runs/" + created.ID + "/cancel", nil},
			} {
				for _, token := range []string{e.p1, e.p2} {
					e.problem(e.call(c.method, c.path, token, "", c.body), 403, "PERMISSION_DENIED")
				}
			}
		})
	})
}

func TestPlaybookNodeKindsCarryTheirParameterSchemas(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "playbook-kinds")
		type kind struct {
			Kind, Member, SchemaRef string
			Action, FanOut          bool
			Labels, Outputs         []string
			Parameters              struct {
				Required   []string
				Properties map[string]struct {
					Type string
					Enum []string
				}
			}
		}
		got := decode[struct{ Data []kind }](t, e.want(200, e.call(http.MethodGet, "/api/playbook-node-kinds", e.op, "", nil))).Data
		if len(got) != len(models.PlaybookNodeKinds) {
			t.Fatalf("kinds = %+v", got)
		}
		by := map[string]kind{}
		for _, k := range got {
			by[k.Kind] = k
		}
		task := by[models.NodeCreateTask]
		if !task.Action || task.Member != "createTask" || task.SchemaRef != "#/components/schemas/PlaybookCreateTask" ||
			!slices.Contains(task.Parameters.Required, "assignee") || !slices.Equal(task.Parameters.Properties["assignee"].Enum, []string{"partner", "operator"}) ||
			task.Parameters.Properties["dueInDays"].Type != "integer" || !slices.Equal(task.Outputs, []string{"taskId"}) {
			t.Errorf("create_task = %+v", task)
		}
		if c := by[models.NodeCondition]; !slices.Equal(c.Labels, []string{"true", "false"}) || c.Action || c.Parameters.Properties["expression"].Type != "string" {
			t.Errorf("condition = %+v", c)
		}
		if p := by[models.NodeParallel]; !p.FanOut || p.Member != "" || p.SchemaRef != "" {
			t.Errorf("parallel = %+v", p)
		}
	})
}

func TestPlaybookRunsOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "playbook-runs")
		pb := e.createPublished("Runs")
		other := e.createPublished("Other")
		run := seedRun(t, st, e.tenantID, pb.ID, e.partner1)
		seedStep(t, st, run, "start", models.NodeTrigger, models.StepCompleted, `{}`)
		seedStep(t, st, run, "review", models.NodeCreateTask, models.StepCompleted, `{"taskId":"t-42"}`)
		seedStep(t, st, run, "big", models.NodeCondition, models.StepCompleted, `{"result":false}`)
		seedStep(t, st, run, "reply", models.NodeWaitForEvent, models.StepCompleted, `{"timedOut":true}`)
		seedStep(t, st, run, "settle", models.NodeWait, models.StepRunning, ``)
		otherRun := seedRun(t, st, e.tenantID, other.ID, e.partner2)

		t.Run("runs are listed by playbook and status", func(t *testing.T) {
			e := e.on(t)
			all := decode[ListBody[PlaybookRun]](t, e.want(200, e.call(http.MethodGet, "/api/playbook-runs", e.op, "", nil)))
			if len(all.Data) != 2 {
				t.Fatalf("runs = %+v", all.Data)
			}
			mine := decode[ListBody[PlaybookRun]](t, e.want(200, e.call(http.MethodGet, "/api/playbook-runs?playbookId="+pb.ID, e.op, "", nil)))
			if len(mine.Data) != 1 || mine.Data[0].ID != run.ID || mine.Data[0].Version != 1 || mine.Data[0].PartnerID != e.partner1 ||
				mine.Data[0].EventID != run.EventID {
				t.Fatalf("runs of the playbook = %+v", mine.Data)
			}
			if done := decode[ListBody[PlaybookRun]](t, e.want(200, e.call(http.MethodGet, "/api/playbook-runs?status=completed", e.op, "", nil))); len(done.Data) != 0 {
				t.Fatalf("completed runs = %+v", done.Data)
			}
			e.want(422, e.call(http.MethodGet, "/api/playbook-runs?status=bogus", e.op, "", nil))
		})

		t.Run("a run shows its steps with their outputs as objects", func(t *testing.T) {
			e := e.on(t)
			res := e.want(200, e.call(http.MethodGet, "/api/playbook-runs/"+run.ID, e.op, "", nil))
			got := decode[PlaybookRunDetail](t, res)
			if got.ID != run.ID || got.PlaybookID != pb.ID || len(got.Steps) != 5 {
				t.Fatalf("run = %s", res.Body)
			}
			byNode := map[string]PlaybookStep{}
			for _, s := range got.Steps {
				byNode[s.NodeID] = s
			}
			if string(byNode["review"].Output) != `{"taskId":"t-42"}` || byNode["review"].Status != models.StepCompleted || byNode["review"].EndedAt == nil {
				t.Errorf("review step = %+v", byNode["review"])
			}
			if string(byNode["settle"].Output) != `{}` || byNode["settle"].Status != models.StepRunning {
				t.Errorf("settle step = %+v", byNode["settle"])
			}
			// The path taken: the label followed out of each completed step.
			for node, want := range map[string]string{"start": "next", "review": "next", "big": "false", "reply": "timeout", "settle": ""} {
				if byNode[node].Outcome != want {
					t.Errorf("step %s outcome = %q, want %q", node, byNode[node].Outcome, want)
				}
			}
			if !strings.Contains(string(res.Body), `"output":{"taskId":"t-42"}`) {
				t.Errorf("the output is not a JSON object: %s", res.Body)
			}
			e.want(404, e.call(http.MethodGet, "/api/playbook-runs/"+models.NewID(), e.op, "", nil))
		})

		t.Run("cancelling a run records the request and stops its workflow", func(t *testing.T) {
			e := e.on(t)
			got := decode[PlaybookRun](t, e.want(202, e.call(http.MethodPost, "/api/playbook-runs/"+run.ID+"/cancel", e.op, "", nil)))
			if got.ID != run.ID || !got.CancelRequested {
				t.Fatalf("cancelled run = %+v", got)
			}
			calls := e.runs().recorded()
			if len(calls) != 1 || calls[0] != [2]string{e.tenantID, run.ID} {
				t.Fatalf("cancellations = %v", calls)
			}
			if again := decode[PlaybookRunDetail](t, e.want(200, e.call(http.MethodGet, "/api/playbook-runs/"+run.ID, e.op, "", nil))); !again.CancelRequested {
				t.Fatalf("the cancellation was not recorded: %+v", again)
			}
		})

		t.Run("a workflow engine that cannot be reached is a 503 the caller may retry", func(t *testing.T) {
			e := e.on(t)
			e.runs().mu.Lock()
			e.runs().err = errors.New("connection refused")
			e.runs().mu.Unlock()
			defer func() {
				e.runs().mu.Lock()
				e.runs().err = nil
				e.runs().mu.Unlock()
			}()
			e.problem(e.call(http.MethodPost, "/api/playbook-runs/"+otherRun.ID+"/cancel", e.op, "", nil), 503, "RUN_NOT_REACHED")
			if !strings.Contains(e.logs.String(), "connection refused") {
				t.Errorf("the cause was not logged")
			}
		})

		t.Run("without a workflow engine runs cannot be cancelled", func(t *testing.T) {
			e := e.on(t)
			runs := e.s.deps.Runs
			e.s.deps.Runs = nil
			defer func() { e.s.deps.Runs = runs }()
			e.problem(e.call(http.MethodPost, "/api/playbook-runs/"+otherRun.ID+"/cancel", e.op, "", nil), 503, "RUNS_UNAVAILABLE")
		})
	})
}

func TestDocumentsOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "documents")
		ctx := context.Background()
		doc := func(partnerID, title string) string {
			t.Helper()
			d := &models.Document{PartnerID: &partnerID, Title: title, Body: "<p>" + title + "</p>", Template: "welcome"}
			id, err := st.PlaybookCreateDocument(ctx, models.System(e.tenantID), "doc:"+models.NewID(), d)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		d1 := doc(e.partner1, "Agreement for One")
		d2 := doc(e.partner2, "Agreement for Two")

		t.Run("partners list and open only their own documents", func(t *testing.T) {
			e := e.on(t)
			for _, c := range []struct{ token, own, foreign string }{{e.p1, d1, d2}, {e.p2, d2, d1}} {
				list := decode[ListBody[Document]](t, e.want(200, e.call(http.MethodGet, "/api/documents", c.token, "", nil)))
				if len(list.Data) != 1 || list.Data[0].ID != c.own {
					t.Fatalf("documents a partner sees = %+v", list.Data)
				}
				got := decode[DocumentDetail](t, e.want(200, e.call(http.MethodGet, "/api/documents/"+c.own, c.token, "", nil)))
				if got.ID != c.own || !strings.HasPrefix(got.Body, "<p>Agreement for ") || got.Template != "welcome" {
					t.Fatalf("document = %+v", got)
				}
				e.want(404, e.call(http.MethodGet, "/api/documents/"+c.foreign, c.token, "", nil))
			}
			mixed := decode[ListBody[Document]](t, e.want(200, e.call(http.MethodGet, "/api/documents?partnerId="+e.partner2, e.p1, "", nil)))
			for _, d := range mixed.Data {
				if d.ID == d2 {
					t.Fatalf("partner 1 listed partner 2's document by asking for it: %+v", mixed.Data)
				}
			}
		})

		t.Run("operators see every document and filter by partner", func(t *testing.T) {
			e := e.on(t)
			all := decode[ListBody[Document]](t, e.want(200, e.call(http.MethodGet, "/api/documents", e.op, "", nil)))
			if len(all.Data) != 2 {
				t.Fatalf("documents = %+v", all.Data)
			}
			two := decode[ListBody[Document]](t, e.want(200, e.call(http.MethodGet, "/api/documents?partnerId="+e.partner2, e.op, "", nil)))
			if len(two.Data) != 1 || two.Data[0].ID != d2 || two.Data[0].PartnerID != e.partner2 {
				t.Fatalf("documents of partner 2 = %+v", two.Data)
			}
			// Finance holds no tasks:read.
			e.problem(e.call(http.MethodGet, "/api/documents", e.finance, "", nil), 403, "PERMISSION_DENIED")
		})
	})
}

// decodeInto converts v to out through JSON.
func decodeInto(t testing.TB, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

func TestThePlaybookWebhookSecretIsShownOnceAndRotates(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "playbook-secret").on(t)
		type secret struct {
			Secret    string    `json:"secret"`
			UpdatedAt time.Time `json:"updatedAt"`
		}
		first := decode[secret](t, e.want(201, e.call(http.MethodPost, "/api/playbooks/webhook-secret", e.op, "", nil)))
		second := decode[secret](t, e.want(201, e.call(http.MethodPost, "/api/playbooks/webhook-secret", e.op, "", nil)))
		if !strings.HasPrefix(first.Secret, "whsec_") || first.Secret == second.Secret || second.UpdatedAt.IsZero() {
			t.Fatalf("secrets %q, %q", first.Secret, second.Secret)
		}
		sealed, err := st.PlaybookWebhookSecret(context.Background(), models.System(e.tenantID))
		if err != nil || sealed == "" || strings.Contains(string(sealed), second.Secret) {
			t.Fatalf("stored %q, %v", sealed, err)
		}
		e.want(403, e.call(http.MethodPost, "/api/playbooks/webhook-secret", e.p1, "", nil))
	})
}
