package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/workflows"
)

// subcommandEnv names the partnerd command line a re-executed test binary runs instead of the
// tests, so that a test can start real partnerd processes (and kill them with SIGKILL).
const subcommandEnv = "PARTNERD_TEST_SUBCOMMAND"

func TestMain(m *testing.M) {
	if cmd := os.Getenv(subcommandEnv); cmd != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, strings.Fields(cmd), os.Getenv, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// process is one partnerd command running as a child process of the test.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startProcess runs `partnerd <command>` (this test binary re-executed) with env added to the
// test's environment; its output goes to a file shown if the test fails.
func startProcess(t *testing.T, name, command string, env map[string]string) *process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), subcommandEnv+"="+command)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); _ = out.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.end()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 20000 {
				b = b[len(b)-20000:]
			}
			t.Logf("---- %s (%s) output ----\n%s", name, command, b)
		}
	})
	return p
}

// end kills the process with SIGKILL, unless it has ended, and waits for it: when its test
// ends, no process of the test is left running.
func (p *process) end() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// kill ends the process with SIGKILL: no shutdown, no drain.
func (p *process) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
}

// waitReady polls base/readyz until it answers 200.
func waitReady(t *testing.T, p *process, base string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("%s exited before it was ready", p.name)
		default:
		}
		if res, err := http.Get(base + "/readyz"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("%s was not ready within 3 minutes", p.name)
}

// listAll reads every page of a list operation.
func listAll[T any](t *testing.T, listURL, bearer string) []T {
	t.Helper()
	var all []T
	cursor, sep := "", "?"
	if strings.Contains(listURL, "?") {
		sep = "&"
	}
	for {
		var page struct {
			Data       []T    `json:"data"`
			NextCursor string `json:"nextCursor"`
		}
		if code := call(t, http.MethodGet, listURL+sep+"limit=100&cursor="+url.QueryEscape(cursor), bearer, nil, &page); code != http.StatusOK {
			t.Fatalf("GET %s = %d", listURL, code)
		}
		all = append(all, page.Data...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}

// scaleOutDatabase creates an empty Postgres database next to the one of
// PARTNERD_TEST_DATABASE_URL and returns its URL; it is dropped after the test.
func scaleOutDatabase(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("PARTNERD_TEST_DATABASE_URL")
	if admin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("PARTNERD_TEST_DATABASE_URL is not set: the scale-out test needs Postgres")
		}
		t.Skip("PARTNERD_TEST_DATABASE_URL is not set: the scale-out test needs Postgres")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("partnerd_scaleout_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_ = conn.Close(context.Background())
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestScaleOutTwoAPIsAndTwoWorkersOnOnePostgresSurviveAKilledWorker runs the distributed shape
// of docs/production.md on one machine: `partnerd serve` A with the embedded Temporal server,
// `partnerd serve` B on A's Temporal (TEMPORAL_ADDRESS), and two `partnerd worker` processes,
// all on one Postgres. Deals are won and events ingested through both APIs; one worker is
// killed with SIGKILL while playbook runs wait. Every run completes once, every accrual and
// every playbook task exists once, every acknowledged event is stored once, and a failed
// sign-in limit holds across both APIs. PARTNERD_SCALEOUT_DEALS (default 12) sizes the run.
func TestScaleOutTwoAPIsAndTwoWorkersOnOnePostgresSurviveAKilledWorker(t *testing.T) {
	const password = "bootstrap-Password-0451"
	deals := 12
	if v, err := strconv.Atoi(os.Getenv("PARTNERD_SCALEOUT_DEALS")); err == nil && v > 0 {
		deals = v
	}
	dbURL := scaleOutDatabase(t)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	temporal := "127.0.0.1:" + freeTCPPort(t)
	common := map[string]string{
		"DATABASE_URL":                             dbURL,
		"PARTNERD_SECRET_KEY":                      base64.StdEncoding.EncodeToString(key),
		"PARTNERD_ADMIN_ADDR":                      "off",
		"PARTNERD_LOG_LEVEL":                       "warn",
		"PARTNERD_BOOTSTRAP_EMAIL":                 "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD":              password,
		"PARTNERD_RATE_LIMIT_LOGIN_ACCOUNT_CLIENT": "4/15m",
	}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for k, v := range common {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	addrA, addrB := "127.0.0.1:"+freeTCPPort(t), "127.0.0.1:"+freeTCPPort(t)
	a := startProcess(t, "serve-a", "serve", with(map[string]string{"PARTNERD_HTTP_ADDR": addrA, "PARTNERD_DATA_DIR": t.TempDir(),
		"PARTNERD_TEMPORAL_PORT": strings.TrimPrefix(temporal, "127.0.0.1:")}))
	baseA, baseB := "http://"+addrA, "http://"+addrB
	waitReady(t, a, baseA)
	b := startProcess(t, "serve-b", "serve", with(map[string]string{"PARTNERD_HTTP_ADDR": addrB, "PARTNERD_DATA_DIR": t.TempDir(), "TEMPORAL_ADDRESS": temporal}))
	w1 := startProcess(t, "worker-1", "worker", with(map[string]string{"PARTNERD_DATA_DIR": t.TempDir(), "TEMPORAL_ADDRESS": temporal}))
	startProcess(t, "worker-2", "worker", with(map[string]string{"PARTNERD_DATA_DIR": t.TempDir(), "TEMPORAL_ADDRESS": temporal}))
	waitReady(t, b, baseB)
	bases := []string{baseA, baseB}

	// A token from one API process is good on the other (one secret key).
	owner := login(t, baseA, "founder@example.test", password)
	bob := login(t, baseB, "bob@contoso.demo", password)

	// A failed sign-in limit of 4 per account and client holds across both processes: the
	// fifth failure is refused wherever it lands.
	for i := range 4 {
		if code := call(t, http.MethodPost, bases[i%2]+"/api/auth/login", "", map[string]string{"email": "alice@northwind.demo", "password": "wrong-password-1"}, nil); code != http.StatusUnauthorized {
			t.Fatalf("failed sign-in %d = %d, want 401", i+1, code)
		}
	}
	for _, base := range bases {
		if code := call(t, http.MethodPost, base+"/api/auth/login", "", map[string]string{"email": "alice@northwind.demo", "password": "wrong-password-1"}, nil); code != http.StatusTooManyRequests {
			t.Fatalf("a fifth failed sign-in on %s = %d, want 429 (the limit is shared)", base, code)
		}
	}

	// A 10 % plan without holding, and a playbook that waits before it opens a task.
	var plans struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	call(t, http.MethodGet, baseA+"/api/commission-plans", owner, nil, &plans)
	for _, p := range plans.Data {
		if code := call(t, http.MethodPost, baseA+"/api/commission-plans/"+p.ID+"/archive", owner, nil, nil); code != http.StatusOK {
			t.Fatalf("archive plan = %d", code)
		}
	}
	var plan struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, baseB+"/api/commission-plans", owner, map[string]any{"name": "10 % at once",
		"definition": map[string]any{"trigger": "deal.won", "holdingDays": 0, "calculation": map[string]any{"kind": "percentage", "rateBps": 1000}}}, &plan); code != http.StatusCreated {
		t.Fatalf("create plan = %d", code)
	}
	graph := map[string]any{
		"trigger": map[string]any{"eventType": "deal.won", "condition": `event.payload.customerCompany startsWith "Scale "`},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "settle", "kind": "wait", "wait": map[string]any{"duration": "4s"}},
			{"id": "review", "kind": "create_task", "createTask": map[string]any{"title": "Scale-out kick-off with {{.event.payload.customerCompany}}", "assignee": "partner", "dueInDays": 5}},
		},
		"edges": []map[string]any{{"from": "start", "to": "settle"}, {"from": "settle", "to": "review"}},
	}
	var pb struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, baseA+"/api/playbooks", owner, map[string]any{"name": "Scale-out", "graph": graph}, &pb); code != http.StatusCreated {
		t.Fatalf("create playbook = %d", code)
	}
	if code := call(t, http.MethodPost, baseA+"/api/playbooks/"+pb.ID+"/publish", owner, nil, nil); code != http.StatusCreated {
		t.Fatalf("publish = %d", code)
	}
	if code := call(t, http.MethodPost, baseB+"/api/playbooks/"+pb.ID+"/enable", owner, nil, nil); code != http.StatusOK {
		t.Fatalf("enable = %d", code)
	}

	// Deals won through both processes; a worker is killed while runs it took part in wait.
	ours := map[string]bool{}
	win := func(i int) {
		base := bases[i%2]
		id, won := approvedDeal(t, base, owner, bob, fmt.Sprintf("Scale %03d", i), fmt.Sprintf("scale-%03d.test", i), 1_000_00)
		if code := call(t, http.MethodPost, base+"/api/deals/"+id+"/move", bob, map[string]any{"stageId": won}, nil); code != http.StatusOK {
			t.Fatalf("win deal %d = %d", i, code)
		}
		ours[id] = true
	}
	type run struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		EventID string `json:"eventId"`
	}
	runsOf := func() []run { return listAll[run](t, baseA+"/api/playbook-runs?playbookId="+pb.ID, owner) }
	// Worker 1 is killed once it has taken part in a waiting run (a workflow task or activity
	// of one was started by it), so the others must finish what it held.
	tc, err := client.Dial(client.Options{HostPort: temporal, Logger: discardSDKLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	w1Identity := strconv.Itoa(w1.cmd.Process.Pid) + "@"
	heldByW1 := func() bool {
		for _, r := range runsOf() {
			if r.Status == "completed" {
				continue
			}
			it := tc.GetWorkflowHistory(context.Background(), workflows.PlaybookRunWorkflowID(r.ID), "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					break
				}
				id := e.GetWorkflowTaskStartedEventAttributes().GetIdentity() + e.GetActivityTaskStartedEventAttributes().GetIdentity()
				if strings.HasPrefix(id, w1Identity) {
					return true
				}
			}
		}
		return false
	}
	i := 0
	for ; i < deals/2; i++ {
		win(i)
	}
	for held := false; !held; {
		for deadline := time.Now().Add(5 * time.Second); !held && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
			held = heldByW1()
		}
		if !held {
			if i == deals {
				t.Fatalf("worker 1 took part in none of %d runs", len(runsOf()))
			}
			win(i)
			i++
		}
	}
	w1.kill(t)
	killedAt := time.Now()
	t.Logf("worker 1 killed after %d deals were won, while it held a running playbook run", i)
	for ; i < deals; i++ {
		win(i)
	}

	// Events through both processes, each sent twice (once to each), stored once.
	var mk struct {
		Key string `json:"key"`
	}
	if code := call(t, http.MethodPost, baseA+"/api/apikeys", owner, map[string]any{"name": "scale-out ingest", "scopes": []string{"events:write"}}, &mk); code != http.StatusCreated {
		t.Fatalf("create key = %d", code)
	}
	const events = 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	for i := range events {
		for j, base := range bases {
			wg.Go(func() {
				var ack struct {
					Status string `json:"status"`
				}
				ev := map[string]any{"customerEmail": "buyer@example.test", "type": "scaleout.ping", "eventId": fmt.Sprintf("scale-%d", i), "payload": map[string]any{"n": i}}
				if code := call(t, http.MethodPost, base+"/api/events/ingest", mk.Key, ev, &ack); code != http.StatusOK {
					t.Errorf("ingest %d on %d = %d", i, j, code)
				}
				mu.Lock()
				statuses[ack.Status]++
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if statuses["stored"] != events || statuses["duplicate"] != events {
		t.Fatalf("ingest answers %v, want %d stored and %d duplicate", statuses, events, events)
	}
	type ref struct {
		ID string `json:"id"`
	}
	if stored := listAll[ref](t, baseB+"/api/events?type=scaleout.ping", owner); len(stored) != events {
		t.Fatalf("%d scaleout.ping events stored, want %d", len(stored), events)
	}

	// Every run completes once, after the killed worker's share moved to the others.
	statusesOf := func() map[string]int {
		seen := map[string]int{}
		for _, r := range runsOf() {
			seen[r.Status]++
		}
		return seen
	}
	for deadline := time.Now().Add(3 * time.Minute); statusesOf()["completed"] != deals; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("runs by status %v after 3 minutes, want %d completed", statusesOf(), deals)
		}
	}
	t.Logf("every run completed %v after the kill", time.Since(killedAt).Round(100*time.Millisecond))
	rs := runsOf()
	byEvent := map[string]bool{}
	for _, r := range rs {
		byEvent[r.EventID] = true
	}
	if len(rs) != deals || len(byEvent) != deals {
		t.Fatalf("%d runs of %d events for %d won deals: %+v", len(rs), len(byEvent), deals, rs)
	}
	type accrual struct {
		Reference string `json:"reference"`
		Amount    int64  `json:"amount"`
	}
	accruals := listAll[accrual](t, baseB+"/api/ledger/accruals?planId="+plan.ID, owner)
	byDeal := map[string]int{}
	for _, ac := range accruals {
		if !ours[ac.Reference] {
			continue // a demo deal won before the plan, dispatched after it
		}
		if ac.Amount != 100_00 {
			t.Fatalf("accrual of %d, want 100_00", ac.Amount)
		}
		byDeal[ac.Reference]++
	}
	if len(byDeal) != deals {
		t.Fatalf("accruals of %d of our deals, want all %d: %v", len(byDeal), deals, byDeal)
	}
	for deal, n := range byDeal {
		if n != 1 {
			t.Fatalf("deal %s accrued %d times", deal, n)
		}
	}
	type task struct {
		Title string `json:"title"`
	}
	tasks := listAll[task](t, baseA+"/api/tasks", bob)
	titles := map[string]int{}
	for _, task := range tasks {
		if strings.HasPrefix(task.Title, "Scale-out kick-off with ") {
			titles[task.Title]++
		}
	}
	if len(titles) != deals {
		t.Fatalf("%d distinct playbook tasks for %d runs: %v", len(titles), deals, titles)
	}
	for title, n := range titles {
		if n != 1 {
			t.Fatalf("task %q opened %d times", title, n)
		}
	}
}
