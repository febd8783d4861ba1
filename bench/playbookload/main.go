// Command playbookload measures playbook runs on a running partnerd: it creates a playbook on
// an ingested event type, ingests one event per run at an even pace, waits until every run has
// completed, checks that each event started exactly one run, that each run made exactly one
// document and recorded each of its three steps once, completed, and reports the time to drain
// and the memory of the server process (API, worker and embedded Temporal in one process).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8090", "the server's base URL")
	email := flag.String("email", "bench@example.test", "an owner's email")
	password := flag.String("password", "", "the owner's password")
	runs := flag.Int("runs", 1000, "how many runs to start")
	within := flag.Duration("within", 50*time.Second, "spread the events over this long")
	wait := flag.String("wait", "1s", "the wait step of every run")
	limit := flag.Int("limit", 1000, "the playbook's concurrency limit")
	pid := flag.Int("pid", 0, "the server's process id, for its memory")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up draining after this long")
	temporalAddr := flag.String("temporal", "", "the Temporal frontend (host:port): count the work of some runs in their histories")
	sample := flag.Int("sample", 20, "how many runs' histories to count")
	flag.Parse()
	c := &client{base: strings.TrimRight(*base, "/"), http: &http.Client{Timeout: 30 * time.Second}}
	ctx := context.Background()

	c.login = func() string {
		return c.must(ctx, "POST", "/api/auth/login", "", map[string]string{"email": *email, "password": *password})["accessToken"].(string)
	}
	token := c.login()
	c.first, c.token = token, &token
	key := c.must(ctx, "POST", "/api/apikeys", token, map[string]any{"name": "playbook bench", "scopes": []string{"events:write"}})["key"].(string)
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	graph := map[string]any{
		"trigger": map[string]any{"eventType": "bench.tick"},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "pause", "kind": "wait", "wait": map[string]any{"duration": *wait}},
			{"id": "doc", "kind": "create_document", "createDocument": map[string]any{"title": "Run {{.event.payload.n}}", "body": "<p>{{.event.payload.n}}</p>"}},
		},
		"edges": []map[string]any{{"from": "start", "to": "pause"}, {"from": "pause", "to": "doc"}},
	}
	pb := c.must(ctx, "POST", "/api/playbooks", token, map[string]any{"name": "bench " + tag, "graph": graph, "concurrencyLimit": *limit})["id"].(string)
	c.must(ctx, "POST", "/api/playbooks/"+pb+"/publish", token, nil)
	c.must(ctx, "POST", "/api/playbooks/"+pb+"/enable", token, nil)

	// Ingest one event per run, evenly over the window, from 16 workers.
	start := time.Now()
	interval := *within / time.Duration(*runs)
	var acked, failed atomic.Int64
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				body := map[string]any{"customerEmail": "bench-" + tag + "@example.test", "type": "bench.tick",
					"eventId": "bench-" + tag + "-" + strconv.Itoa(n), "payload": map[string]any{"n": n}}
				if _, code, err := c.call(ctx, "POST", "/api/events/ingest", key, body); err == nil && code == http.StatusOK {
					acked.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	for n := range *runs {
		if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 {
			time.Sleep(d)
		}
		next <- n
	}
	close(next)
	wg.Wait()
	ingested := time.Since(start)
	log.Printf("ingested %d events (%d failed) in %v", acked.Load(), failed.Load(), ingested.Round(time.Millisecond))

	var peak int64
	deadline := time.Now().Add(*timeout)
	var byStatus map[string]int
	var events map[string]int
	var runIDs []string
	var runEvents map[string]string
	for {
		byStatus, events, runIDs, runEvents = c.runs(ctx, token, pb)
		if rss := memory(*pid, "VmRSS"); rss > peak {
			peak = rss
		}
		if byStatus["completed"]+byStatus["failed"]+byStatus["cancelled"] >= *runs || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	drained := time.Since(start)
	dupes := 0
	for _, n := range events {
		if n > 1 {
			dupes++
		}
	}
	fmt.Printf("runs: %d started for %d acknowledged events, by status %v\n", len(events), acked.Load(), byStatus)
	fmt.Printf("events with more than one run: %d; acknowledged events without a run: %d\n", dupes, int(acked.Load())-len(events))
	fmt.Printf("ingest window: %v; first event to last run completed: %v (%.1f runs/s)\n",
		ingested.Round(time.Millisecond), drained.Round(time.Millisecond), float64(byStatus["completed"])/drained.Seconds())
	if *pid > 0 {
		fmt.Printf("server process memory: peak RSS while draining %d MiB, high-water mark %d MiB\n", peak/1024, memory(*pid, "VmHWM")/1024)
	}
	// Side effects, counted after the drain: one document per run, three steps per run, each
	// recorded once and completed.
	docs := c.documents(ctx, token)
	docDupes, docMissing := 0, 0
	for _, id := range runIDs {
		switch docs[id] {
		case 0:
			docMissing++
		case 1:
		default:
			docDupes++
		}
	}
	badSteps := 0
	for _, id := range runIDs {
		if !c.stepsOnce(ctx, token, id, []string{"start", "pause", "doc"}) {
			badSteps++
		}
	}
	if *temporalAddr != "" {
		countWork(ctx, *temporalAddr, runIDs, runEvents, *sample)
	}
	fmt.Printf("documents: %d for %d runs; runs without a document: %d, with more than one: %d; runs whose steps are not start, pause, doc once each, completed: %d\n",
		len(docs), len(runIDs), docMissing, docDupes, badSteps)
	if byStatus["completed"] != *runs || dupes > 0 || len(events) != int(acked.Load()) || docMissing > 0 || docDupes > 0 || badSteps > 0 {
		os.Exit(1)
	}
}

// memory reads a field (kB) of /proc/<pid>/status.
func memory(pid int, field string) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

type client struct {
	base string
	http *http.Client
	// login signs in again when the access token has expired during a long drain; token is
	// the current one.
	login func() string
	token *string
	first string
}

func (c *client) call(ctx context.Context, method, path, token string, body any) (map[string]any, int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out, res.StatusCode, nil
}

func (c *client) must(ctx context.Context, method, path, token string, body any) map[string]any {
	if c.token != nil && token == c.first {
		token = *c.token // the latest sign-in
	}
	out, code, err := c.call(ctx, method, path, token, body)
	if code == http.StatusUnauthorized && c.token != nil && token == *c.token {
		*c.token = c.login()
		out, code, err = c.call(ctx, method, path, *c.token, body)
	}
	if err != nil || code >= 300 {
		log.Fatalf("%s %s: %d %v %v", method, path, code, out, err)
	}
	return out
}

// runs counts the playbook's runs by status and by event, and lists their ids and events.
func (c *client) runs(ctx context.Context, token, playbookID string) (map[string]int, map[string]int, []string, map[string]string) {
	byStatus, byEvent := map[string]int{}, map[string]int{}
	var ids []string
	eventOf := map[string]string{}
	cursor := ""
	for {
		q := url.Values{"playbookId": {playbookID}, "limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		out := c.must(ctx, "GET", "/api/playbook-runs?"+q.Encode(), token, nil)
		data, _ := out["data"].([]any)
		for _, d := range data {
			r, _ := d.(map[string]any)
			s, _ := r["status"].(string)
			e, _ := r["eventId"].(string)
			id, _ := r["id"].(string)
			byStatus[s]++
			byEvent[e]++
			ids = append(ids, id)
			eventOf[id] = e
		}
		cursor, _ = out["nextCursor"].(string)
		if cursor == "" {
			return byStatus, byEvent, ids, eventOf
		}
	}
}

// documents counts the tenant's documents by the run that made them.
func (c *client) documents(ctx context.Context, token string) map[string]int {
	byRun := map[string]int{}
	cursor := ""
	for {
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		out := c.must(ctx, "GET", "/api/documents?"+q.Encode(), token, nil)
		data, _ := out["data"].([]any)
		for _, d := range data {
			doc, _ := d.(map[string]any)
			run, _ := doc["runId"].(string)
			byRun[run]++
		}
		cursor, _ = out["nextCursor"].(string)
		if cursor == "" {
			return byRun
		}
	}
}

// stepsOnce reports whether the run recorded exactly the nodes want, one step each, completed.
func (c *client) stepsOnce(ctx context.Context, token, runID string, want []string) bool {
	out := c.must(ctx, "GET", "/api/playbook-runs/"+url.PathEscape(runID), token, nil)
	steps, _ := out["steps"].([]any)
	seen := map[string]int{}
	for _, s := range steps {
		st, _ := s.(map[string]any)
		node, _ := st["nodeId"].(string)
		if status, _ := st["status"].(string); status != "completed" {
			return false
		}
		seen[node]++
	}
	if len(seen) != len(want) || len(steps) != len(want) {
		return false
	}
	for _, n := range want {
		if seen[n] != 1 {
			return false
		}
	}
	return true
}

// countWork reads the workflow histories of n runs and of their events' fan-outs and prints
// the work per run: activities, local activities (markers), timers and workflow tasks.
func countWork(ctx context.Context, address string, runIDs []string, eventOf map[string]string, n int) {
	c, err := sdkclient.Dial(sdkclient.Options{HostPort: address, Logger: quiet{}})
	if err != nil {
		log.Printf("temporal: %v", err)
		return
	}
	defer c.Close()
	type work struct{ activities, markers, timers, tasks, events int }
	count := func(workflowID string) (work, error) {
		var w work
		it := c.GetWorkflowHistory(ctx, workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return w, err
			}
			w.events++
			switch e.GetEventType() {
			case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				w.activities++
			case enums.EVENT_TYPE_MARKER_RECORDED:
				if e.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
					w.markers++
				}
			case enums.EVENT_TYPE_TIMER_STARTED:
				w.timers++
			case enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
				w.tasks++
			}
		}
		return w, nil
	}
	var run, fan work
	counted := 0
	for _, id := range runIDs {
		if counted == n {
			break
		}
		r, err := count("playbook-run-" + id)
		if err != nil {
			log.Printf("history of run %s: %v", id, err)
			return
		}
		f, err := count("event-" + eventOf[id])
		if err != nil {
			log.Printf("history of the fan-out of %s: %v", eventOf[id], err)
			return
		}
		run.activities, run.markers, run.timers, run.tasks, run.events = run.activities+r.activities, run.markers+r.markers, run.timers+r.timers, run.tasks+r.tasks, run.events+r.events
		fan.activities, fan.markers, fan.timers, fan.tasks, fan.events = fan.activities+f.activities, fan.markers+f.markers, fan.timers+f.timers, fan.tasks+f.tasks, fan.events+f.events
		counted++
	}
	if counted == 0 {
		return
	}
	per := func(x int) float64 { return float64(x) / float64(counted) }
	fmt.Printf("work per run (mean of %d runs' histories): run workflow %.1f activities, %.1f local activities, %.1f timers, %.1f workflow tasks, %.1f history events; "+
		"its event's fan-out %.1f activities, %.1f local activities, %.1f workflow tasks, %.1f history events\n",
		counted, per(run.activities), per(run.markers), per(run.timers), per(run.tasks), per(run.events),
		per(fan.activities), per(fan.markers), per(fan.tasks), per(fan.events))
}

// quiet drops the Temporal client's logs.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
