package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The fault suite (`make faults`): tests named TestFault… kill or break what partnerd depends on
// and check that nothing is lost, doubled or half-written.

// killableServe is `partnerd serve` on the embedded database and Temporal server as a child
// process that can be killed with SIGKILL and started again on the same data directory.
type killableServe struct {
	t    *testing.T
	env  map[string]string
	base string
	proc *process
	n    int
}

func newKillableServe(t *testing.T, password string, extra map[string]string) *killableServe {
	t.Helper()
	addr := "127.0.0.1:" + freeTCPPort(t)
	env := map[string]string{
		"PARTNERD_DATA_DIR":           t.TempDir(),
		"PARTNERD_HTTP_ADDR":          addr,
		"PARTNERD_TEMPORAL_PORT":      freeTCPPort(t),
		"PARTNERD_ADMIN_ADDR":         "off",
		"PARTNERD_LOG_LEVEL":          "warn",
		"PARTNERD_BOOTSTRAP_EMAIL":    "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD": password,
		// The embedded database, whatever the test run's Postgres settings.
		"DATABASE_URL":     "",
		"TEMPORAL_ADDRESS": "",
	}
	for k, v := range extra {
		env[k] = v
	}
	s := &killableServe{t: t, env: env, base: "http://" + addr}
	s.start()
	return s
}

func (s *killableServe) start() {
	s.t.Helper()
	s.n++
	s.proc = startProcess(s.t, fmt.Sprintf("serve-%d", s.n), "serve", s.env)
	waitReady(s.t, s.proc, s.base)
}

// crash kills the process with SIGKILL and starts it again on the same data directory.
func (s *killableServe) crash() {
	s.t.Helper()
	s.proc.kill(s.t)
	s.start()
}

// post sends one JSON request and reports a transport error instead of failing the test.
func post(url, bearer string, body any) (int, []byte, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

// TestFaultServeKilledMidPlaybookWaitFinishesTheRunOnce: a run waits on a timer when serve is
// killed with SIGKILL; after a restart on the same data directory it completes, once.
func TestFaultServeKilledMidPlaybookWaitFinishesTheRunOnce(t *testing.T) {
	const password = "bootstrap-Password-0451"
	s := newKillableServe(t, password, nil)
	owner := login(t, s.base, "founder@example.test", password)
	bob := login(t, s.base, "bob@contoso.demo", password)
	graph := map[string]any{
		"trigger": map[string]any{"eventType": "deal.won", "condition": `event.payload.customerCompany == "Crash Test Inc"`},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "settle", "kind": "wait", "wait": map[string]any{"duration": "8s"}},
			{"id": "review", "kind": "create_task", "createTask": map[string]any{"title": "After the crash: {{.event.payload.customerCompany}}", "assignee": "partner", "dueInDays": 5}},
		},
		"edges": []map[string]any{{"from": "start", "to": "settle"}, {"from": "settle", "to": "review"}},
	}
	var pb struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, s.base+"/api/playbooks", owner, map[string]any{"name": "Crash test", "graph": graph}, &pb); code != http.StatusCreated {
		t.Fatalf("create playbook = %d", code)
	}
	call(t, http.MethodPost, s.base+"/api/playbooks/"+pb.ID+"/publish", owner, nil, nil)
	if code := call(t, http.MethodPost, s.base+"/api/playbooks/"+pb.ID+"/enable", owner, nil, nil); code != http.StatusOK {
		t.Fatalf("enable = %d", code)
	}
	dealID, won := approvedDeal(t, s.base, owner, bob, "Crash Test Inc", "crash-test.test", 5_000_00)
	if code := call(t, http.MethodPost, s.base+"/api/deals/"+dealID+"/move", bob, map[string]any{"stageId": won}, nil); code != http.StatusOK {
		t.Fatalf("win deal = %d", code)
	}
	type run struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	var steps struct {
		Steps []struct {
			NodeID string `json:"nodeId"`
			Status string `json:"status"`
		} `json:"steps"`
	}
	eventually(t, "the run waiting on its timer", time.Minute, func() bool {
		runs := listAll[run](t, s.base+"/api/playbook-runs?playbookId="+pb.ID, owner)
		if len(runs) != 1 || runs[0].Status != "running" {
			return false
		}
		call(t, http.MethodGet, s.base+"/api/playbook-runs/"+runs[0].ID, owner, nil, &steps)
		for _, st := range steps.Steps {
			if st.NodeID == "settle" && st.Status == "running" {
				return true
			}
		}
		return false
	})
	s.crash()
	owner = login(t, s.base, "founder@example.test", password)
	bob = login(t, s.base, "bob@contoso.demo", password)
	eventually(t, "the run completed after the restart", 2*time.Minute, func() bool {
		runs := listAll[run](t, s.base+"/api/playbook-runs?playbookId="+pb.ID, owner)
		return len(runs) == 1 && runs[0].Status == "completed"
	})
	type task struct {
		Title string `json:"title"`
	}
	n := 0
	for _, tk := range listAll[task](t, s.base+"/api/tasks", bob) {
		if tk.Title == "After the crash: Crash Test Inc" {
			n++
		}
	}
	if runs := listAll[run](t, s.base+"/api/playbook-runs?playbookId="+pb.ID, owner); len(runs) != 1 || n != 1 {
		t.Fatalf("%d runs and %d tasks after the crash, want one of each", len(runs), n)
	}
}

// TestFaultServeKilledMidPayoutPaysOnce: serve is killed with SIGKILL while the payout provider
// holds the first call; after a restart the payout completes once, every call carrying the
// payout id as its idempotency key, booked once and announced once.
func TestFaultServeKilledMidPayoutPaysOnce(t *testing.T) {
	const password = "bootstrap-Password-0451"
	provider := newPayoutProvider(t, "PSP-CRASH")
	s := newKillableServe(t, password, map[string]string{"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8"})
	owner := login(t, s.base, "founder@example.test", password)
	bob := login(t, s.base, "bob@contoso.demo", password)
	provider.configure(t, s.base, owner)
	var me struct {
		PartnerID string `json:"partnerId"`
	}
	call(t, http.MethodGet, s.base+"/api/me", bob, nil, &me)
	partnerID := me.PartnerID
	if code := callKeyed(t, http.MethodPost, s.base+"/api/ledger/adjustments", owner, "crash-bonus",
		map[string]any{"partnerId": partnerID, "amount": 75_00, "currency": "EUR", "reason": "crash test"}, nil); code != http.StatusCreated {
		t.Fatalf("adjustment = %d", code)
	}
	var method struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, s.base+"/api/payout-methods", bob, map[string]any{"kind": "bank", "label": "Main",
		"details": map[string]string{"iban": "DE89370400440532013000", "accountHolder": "Contoso Agency"}}, &method); code != http.StatusCreated {
		t.Fatalf("payout method = %d", code)
	}
	var w e2eWithdrawal
	if code := callKeyed(t, http.MethodPost, s.base+"/api/withdrawals", bob, "crash-w", map[string]any{"amount": 75_00, "currency": "EUR", "payoutMethodId": method.ID}, &w); code != http.StatusCreated {
		t.Fatalf("withdrawal = %d", code)
	}
	if code := call(t, http.MethodPost, s.base+"/api/withdrawals/"+w.ID+"/approve", owner, map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("approve = %d", code)
	}
	provider.awaitFirstCall(t)
	s.crash()
	owner = login(t, s.base, "founder@example.test", password)
	eventually(t, "the payout after the crash", 3*time.Minute, func() bool {
		call(t, http.MethodGet, s.base+"/api/withdrawals/"+w.ID, owner, nil, &w)
		return w.Status == "paid"
	})
	provider.checkCalls(t, w)
	type entry struct {
		Amount int64 `json:"amount"`
	}
	if entries := listAll[entry](t, s.base+"/api/ledger/entries?kind=payout&sourceId="+w.Payout.ID, owner); len(entries) != 2 {
		t.Fatalf("payout entries %+v: the payout was booked other than once", entries)
	}
	type event struct {
		Payload map[string]any `json:"payload"`
	}
	n := 0
	for _, e := range listAll[event](t, s.base+"/api/events?type=payout.paid", owner) {
		if e.Payload["withdrawalId"] == w.ID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d payout.paid events for the withdrawal", n)
	}
}

// TestFaultServeKilledMidIngestBurstStoresEveryAcknowledgedEventOnce: clients ingest a burst
// when serve is killed with SIGKILL. After the restart every event answered 200 is stored, and
// sending the whole burst again (as clients retry) leaves each event stored exactly once.
func TestFaultServeKilledMidIngestBurstStoresEveryAcknowledgedEventOnce(t *testing.T) {
	const password = "bootstrap-Password-0451"
	s := newKillableServe(t, password, map[string]string{"PARTNERD_RATE_LIMIT_MACHINE_KEY": "off", "PARTNERD_RATE_LIMIT_TENANT": "off"})
	owner := login(t, s.base, "founder@example.test", password)
	var mk struct {
		Key string `json:"key"`
	}
	if code := call(t, http.MethodPost, s.base+"/api/apikeys", owner, map[string]any{"name": "burst", "scopes": []string{"events:write"}}, &mk); code != http.StatusCreated {
		t.Fatalf("create key = %d", code)
	}
	const clients, perClient = 8, 400
	event := func(c, i int) map[string]any {
		return map[string]any{"customerEmail": fmt.Sprintf("burst-%d@example.test", c), "type": "burst.tick",
			"eventId": fmt.Sprintf("burst-%d-%d", c, i), "payload": map[string]any{"client": c, "i": i}}
	}
	var acked sync.Map // eventId → true for every 200
	var sent, failed atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range perClient {
				code, _, err := post(s.base+"/api/events/ingest", mk.Key, event(c, i))
				sent.Add(1)
				if err == nil && code == http.StatusOK {
					acked.Store(fmt.Sprintf("burst-%d-%d", c, i), true)
				} else {
					failed.Add(1)
				}
			}
		})
	}
	eventually(t, "a part of the burst acknowledged", time.Minute, func() bool { return sent.Load() >= clients*perClient/4 })
	s.proc.kill(t)
	wg.Wait()
	nAcked := 0
	acked.Range(func(any, any) bool { nAcked++; return true })
	if nAcked == 0 || failed.Load() == 0 {
		t.Fatalf("the kill did not land mid-burst: %d acknowledged, %d failed", nAcked, failed.Load())
	}
	t.Logf("killed mid-burst: %d of %d acknowledged, %d failed", nAcked, clients*perClient, failed.Load())
	s.start()
	owner = login(t, s.base, "founder@example.test", password)
	type stored struct {
		EventID string `json:"eventId"`
	}
	before := map[string]int{}
	for _, e := range listAll[stored](t, s.base+"/api/events?type=burst.tick", owner) {
		before[e.EventID]++
	}
	acked.Range(func(k, _ any) bool {
		if before[k.(string)] != 1 {
			t.Errorf("acknowledged event %s stored %d times after the restart", k, before[k.(string)])
		}
		return true
	})
	// The clients send everything again; acknowledged events are duplicates, the rest stored.
	for c := range clients {
		for i := range perClient {
			code, raw, err := post(s.base+"/api/events/ingest", mk.Key, event(c, i))
			if err != nil || code != http.StatusOK {
				t.Fatalf("resend = %d %s %v", code, raw, err)
			}
			var ack struct {
				Status string `json:"status"`
			}
			_ = json.Unmarshal(raw, &ack)
			if _, ok := acked.Load(fmt.Sprintf("burst-%d-%d", c, i)); ok && ack.Status != "duplicate" {
				t.Fatalf("an acknowledged event sent again answered %q", ack.Status)
			}
		}
	}
	after := map[string]int{}
	for _, e := range listAll[stored](t, s.base+"/api/events?type=burst.tick", owner) {
		after[e.EventID]++
	}
	if len(after) != clients*perClient {
		t.Fatalf("%d distinct events stored, want %d", len(after), clients*perClient)
	}
	for id, n := range after {
		if n != 1 {
			t.Fatalf("event %s stored %d times", id, n)
		}
	}
}

// TestFaultPostgresRestartedUnderLoad: Postgres stops (immediate mode, as in a crash) while
// clients ingest events and read deals, and starts again. Meanwhile requests fail fast with 503
// DATABASE_UNAVAILABLE as a problem; afterwards the same partnerd process serves again, every
// acknowledged event is stored once, and clients sending everything again leave every event
// stored exactly once.
func TestFaultPostgresRestartedUnderLoad(t *testing.T) {
	const password = "bootstrap-Password-0451"
	pg := newPGCluster(t)
	pg.createDatabase("partnerd")
	s := newKillableServe(t, password, map[string]string{"DATABASE_URL": pg.URL("partnerd"),
		"PARTNERD_RATE_LIMIT_MACHINE_KEY": "off", "PARTNERD_RATE_LIMIT_TENANT": "off"})
	owner := login(t, s.base, "founder@example.test", password)
	var mk struct {
		Key string `json:"key"`
	}
	if code := call(t, http.MethodPost, s.base+"/api/apikeys", owner, map[string]any{"name": "load", "scopes": []string{"events:write"}}, &mk); code != http.StatusCreated {
		t.Fatalf("create key = %d", code)
	}
	type answer struct {
		code    int
		problem struct {
			Code string `json:"code"`
		}
		contentType string
		took        time.Duration
		down        bool
	}
	var down atomic.Bool
	var mu sync.Mutex
	var answers []answer
	var acked sync.Map
	var next atomic.Int64
	stop := make(chan struct{})
	event := func(i int64) map[string]any {
		return map[string]any{"customerEmail": "steady@example.test", "type": "steady.tick", "eventId": fmt.Sprintf("steady-%d", i), "payload": map[string]any{"i": i}}
	}
	send := func(method, url string, body any) answer {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, url, rd)
		req.Header.Set("Content-Type", "application/json")
		if method == http.MethodPost {
			req.Header.Set("Authorization", "Bearer "+mk.Key)
		} else {
			req.Header.Set("Authorization", "Bearer "+owner)
		}
		a := answer{down: down.Load()}
		start := time.Now()
		res, err := http.DefaultClient.Do(req)
		a.took = time.Since(start)
		if err != nil {
			a.code = -1
			return a
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		a.code, a.contentType = res.StatusCode, res.Header.Get("Content-Type")
		_ = json.Unmarshal(raw, &a.problem)
		return a
	}
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var a answer
				if c == 3 {
					a = send(http.MethodGet, s.base+"/api/deals?limit=20", nil)
				} else {
					i := next.Add(1)
					if a = send(http.MethodPost, s.base+"/api/events/ingest", event(i)); a.code == http.StatusOK {
						acked.Store(i, true)
					}
				}
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	time.Sleep(2 * time.Second)
	down.Store(true)
	pg.stop()
	time.Sleep(3 * time.Second)
	pg.start()
	down.Store(false)
	restarted := time.Now()
	// The same process serves again once Postgres is back.
	eventually(t, "requests succeeding after the restart", 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		ok := 0
		for _, a := range answers[max(0, len(answers)-20):] {
			if a.code == http.StatusOK {
				ok++
			}
		}
		return ok == 20
	})
	t.Logf("serving again %v after Postgres started", time.Since(restarted).Round(100*time.Millisecond))
	close(stop)
	wg.Wait()

	unavailable, failedFast := 0, 0
	for _, a := range answers {
		switch a.code {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			unavailable++
			if a.problem.Code != "DATABASE_UNAVAILABLE" || !strings.HasPrefix(a.contentType, "application/problem+json") {
				t.Fatalf("a 503 with code %q and content type %q", a.problem.Code, a.contentType)
			}
			if a.took < 3*time.Second {
				failedFast++
			}
		default:
			t.Fatalf("an answer of %d (%s, after %v) while Postgres restarted; want 200 or 503", a.code, a.problem.Code, a.took)
		}
	}
	if unavailable == 0 || failedFast != unavailable {
		t.Fatalf("%d answers 503 while Postgres was down, %d of them within 3 s", unavailable, failedFast)
	}
	t.Logf("%d requests, %d answered 503 DATABASE_UNAVAILABLE (all within 3 s)", len(answers), unavailable)

	// Nothing half-written: what was acknowledged is stored once; a full resend leaves one of each.
	type stored struct {
		EventID string `json:"eventId"`
	}
	count := func() map[string]int {
		seen := map[string]int{}
		for _, e := range listAll[stored](t, s.base+"/api/events?type=steady.tick", owner) {
			seen[e.EventID]++
		}
		return seen
	}
	before := count()
	acked.Range(func(k, _ any) bool {
		if id := fmt.Sprintf("steady-%d", k.(int64)); before[id] != 1 {
			t.Errorf("acknowledged event %s stored %d times", id, before[id])
		}
		return true
	})
	last := next.Load()
	for i := int64(1); i <= last; i++ {
		if code, raw, err := post(s.base+"/api/events/ingest", mk.Key, event(i)); err != nil || code != http.StatusOK {
			t.Fatalf("resend = %d %s %v", code, raw, err)
		}
	}
	after := count()
	if int64(len(after)) != last {
		t.Fatalf("%d distinct events stored, want %d", len(after), last)
	}
	for id, n := range after {
		if n != 1 {
			t.Fatalf("event %s stored %d times", id, n)
		}
	}
}

// TestFaultBlobStoreFullOrReadOnly: the blob directory (a small tmpfs of the test) fills up and
// then turns read-only. Uploads are refused with 507 FILE_STORAGE_FULL and 503
// FILE_STORAGE_READ_ONLY, leaving no version row and no partial file behind; files stored before
// still download, and uploads work again once there is room.
func TestFaultBlobStoreFullOrReadOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("the blob store fault test mounts a tmpfs and needs root")
		}
		t.Skip("the blob store fault test mounts a tmpfs and needs root")
	}
	dir := filepath.Join(t.TempDir(), "blobs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mount := func(opts string) {
		t.Helper()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
			t.Fatalf("mount %s: %v %s", opts, err, out)
		}
	}
	remount := func(opts string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,"+opts, dir).CombinedOutput(); err != nil {
			t.Fatalf("remount %s: %v %s", opts, err, out)
		}
	}
	mount("size=1m,mode=0700")
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })

	const password = "bootstrap-Password-0451"
	s := newKillableServe(t, password, map[string]string{"PARTNERD_BLOB_URL": "file://" + dir + "?no_tmp_dir=true"})
	owner := login(t, s.base, "founder@example.test", password)
	var item struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, s.base+"/api/content/items", owner, map[string]any{"kind": "file", "title": "Price list"}, &item); code != http.StatusCreated {
		t.Fatalf("create item = %d", code)
	}
	pdf := func(size int) []byte {
		b := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
		return append(b, bytes.Repeat([]byte("%"), size)...)
	}
	upload := func(body []byte) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.base+"/api/content/items/"+item.ID+"/versions?fileName=prices.pdf", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+owner)
		req.Header.Set("Content-Type", "application/pdf")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p struct {
			Code string `json:"code"`
		}
		_ = json.NewDecoder(res.Body).Decode(&p)
		return res.StatusCode, p.Code
	}
	files := func() int {
		n := 0
		_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() != "filler" {
				n++
			}
			return nil
		})
		return n
	}
	versions := func() int {
		type version struct {
			ID string `json:"id"`
		}
		return len(listAll[version](t, s.base+"/api/content/items/"+item.ID+"/versions", owner))
	}
	if code, _ := upload(pdf(10_000)); code != http.StatusCreated {
		t.Fatalf("first upload = %d", code)
	}
	stored := files()

	// Full: a filler takes what is left of the tmpfs.
	filler, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := filler.Write(make([]byte, 64<<10)); err != nil {
			break
		}
	}
	_ = filler.Close()
	if code, problem := upload(pdf(200_000)); code != http.StatusInsufficientStorage || problem != "FILE_STORAGE_FULL" {
		t.Fatalf("upload to a full store = %d %s, want 507 FILE_STORAGE_FULL", code, problem)
	}
	if v, f := versions(), files(); v != 1 || f != stored {
		t.Fatalf("after the refused upload: %d versions and %d files, want 1 and %d", v, f, stored)
	}

	// Read-only: room again, but no writes.
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	remount("ro")
	if code, problem := upload(pdf(10_000)); code != http.StatusServiceUnavailable || problem != "FILE_STORAGE_READ_ONLY" {
		t.Fatalf("upload to a read-only store = %d %s, want 503 FILE_STORAGE_READ_ONLY", code, problem)
	}
	if v, f := versions(), files(); v != 1 || f != stored {
		t.Fatalf("after the refused upload: %d versions and %d files, want 1 and %d", v, f, stored)
	}
	// A brand logo is refused the same way.
	var logo bytes.Buffer
	if err := png.Encode(&logo, image.NewRGBA(image.Rect(0, 0, 48, 48))); err != nil {
		t.Fatal(err)
	}
	lreq, _ := http.NewRequest(http.MethodPut, s.base+"/api/settings/branding/logo", bytes.NewReader(logo.Bytes()))
	lreq.Header.Set("Authorization", "Bearer "+owner)
	lreq.Header.Set("Content-Type", "image/png")
	lres, err := http.DefaultClient.Do(lreq)
	if err != nil {
		t.Fatal(err)
	}
	var lp struct {
		Code string `json:"code"`
	}
	_ = json.NewDecoder(lres.Body).Decode(&lp)
	_ = lres.Body.Close()
	if lres.StatusCode != http.StatusServiceUnavailable || lp.Code != "FILE_STORAGE_READ_ONLY" {
		t.Fatalf("a brand logo to a read-only store = %d %s, want 503 FILE_STORAGE_READ_ONLY", lres.StatusCode, lp.Code)
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/api/content/items/"+item.ID+"/download", nil)
	req.Header.Set("Authorization", "Bearer "+owner)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Equal(got, pdf(10_000)) {
		t.Fatalf("the stored file from a read-only store = %d, %d bytes", res.StatusCode, len(got))
	}

	// Writable again: uploads work without a restart.
	remount("rw")
	if code, _ := upload(pdf(10_000)); code != http.StatusCreated {
		t.Fatalf("upload after the store recovered = %d", code)
	}
	if v := versions(); v != 2 {
		t.Fatalf("%d versions after recovery, want 2", v)
	}
}
