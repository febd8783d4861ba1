// Command soak drives a running partnerd with a mixed load for a fixed time (events ingested,
// deals registered, approved and won, withdrawals requested, approved and paid, the playbook
// runs and commission accruals the wins start, webhook deliveries of the ingested events to a
// receiver of its own), samples the server's /metrics while it runs, and then checks that
// nothing was lost or doubled. It writes the samples as CSV and plots memory, goroutines, open
// database connections and outbox lag into a PNG.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8090", "the server's base URL")
	metricsURL := flag.String("metrics", "http://127.0.0.1:9099/metrics", "the server's /metrics")
	email := flag.String("email", "founder@example.test", "an owner's email")
	partnerEmail := flag.String("partner-email", "bob@contoso.demo", "a partner user's email")
	password := flag.String("password", "", "the password of both")
	duration := flag.Duration("duration", 30*time.Minute, "how long to load the server")
	ingestRate := flag.Int("ingest-rate", 20, "events ingested per second")
	hookEvery := flag.Int("hook-every", 10, "every n-th ingested event is of a type the webhook receives")
	dealEvery := flag.Duration("deal-every", 2*time.Second, "a deal registered, approved and won this often")
	withdrawEvery := flag.Duration("withdraw-every", 15*time.Second, "a withdrawal requested, approved and paid this often")
	sampleEvery := flag.Duration("sample-every", 10*time.Second, "how often /metrics is read")
	drain := flag.Duration("drain", 5*time.Minute, "how long the work may take to finish after the load")
	csvPath := flag.String("csv", "bench/out/soak.csv", "the samples")
	pngPath := flag.String("png", "bench/soak.png", "the plot")
	flag.Parse()

	ctx := context.Background()
	c := &client{base: strings.TrimRight(*base, "/"), http: &http.Client{Timeout: 30 * time.Second}}
	owner := &session{c: c, email: *email, password: *password}
	partner := &session{c: c, email: *partnerEmail, password: *password}

	// The receiver of webhook deliveries: accepted deliveries per webhook-id.
	var recvMu sync.Mutex
	received := map[string]int{}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	receiver := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		recvMu.Lock()
		received[r.Header.Get("webhook-id")]++
		recvMu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = receiver.Serve(ln) }()

	tag := strconv.FormatInt(time.Now().Unix(), 36)
	key := c.must(ctx, "POST", "/api/apikeys", owner.token(ctx), map[string]any{"name": "soak " + tag, "scopes": []string{"events:write"}})["key"].(string)
	c.must(ctx, "POST", "/api/webhooks", owner.token(ctx), map[string]any{"url": "http://" + ln.Addr().String() + "/hook", "eventTypes": []string{"soak.hook"}})
	for _, p := range c.list(ctx, "/api/commission-plans?status=active", owner.token(ctx)) {
		c.must(ctx, "POST", "/api/commission-plans/"+p["id"].(string)+"/archive", owner.token(ctx), nil)
	}
	plan := c.must(ctx, "POST", "/api/commission-plans", owner.token(ctx), map[string]any{"name": "soak " + tag,
		"definition": map[string]any{"trigger": "deal.won", "holdingDays": 0, "calculation": map[string]any{"kind": "percentage", "rateBps": 1000}}})["id"].(string)
	graph := map[string]any{
		"trigger": map[string]any{"eventType": "deal.won", "condition": `event.payload.customerCompany startsWith "Soak ` + tag + ` "`},
		"nodes": []map[string]any{
			{"id": "start", "kind": "trigger"},
			{"id": "pause", "kind": "wait", "wait": map[string]any{"duration": "5s"}},
			{"id": "task", "kind": "create_task", "createTask": map[string]any{"title": "Soak kick-off {{.event.payload.customerCompany}}", "assignee": "partner", "dueInDays": 3}},
		},
		"edges": []map[string]any{{"from": "start", "to": "pause"}, {"from": "pause", "to": "task"}},
	}
	pb := c.must(ctx, "POST", "/api/playbooks", owner.token(ctx), map[string]any{"name": "soak " + tag, "graph": graph})["id"].(string)
	c.must(ctx, "POST", "/api/playbooks/"+pb+"/publish", owner.token(ctx), nil)
	c.must(ctx, "POST", "/api/playbooks/"+pb+"/enable", owner.token(ctx), nil)
	method := c.must(ctx, "POST", "/api/payout-methods", partner.token(ctx), map[string]any{"kind": "bank", "label": "soak " + tag,
		"details": map[string]string{"iban": "DE89370400440532013000", "accountHolder": "Soak"}})["id"].(string)
	won := ""
	for _, p := range c.list(ctx, "/api/pipelines", owner.token(ctx)) {
		for _, st := range p["stages"].([]any) {
			if s := st.(map[string]any); s["outcome"] == "won" && won == "" {
				won = s["id"].(string)
			}
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var ingested, ingestFailed atomic.Int64
	var ackedMu sync.Mutex
	acked := map[string]bool{} // client event id → answered 200; true when the webhook receives it
	var dealsMu sync.Mutex
	deals := map[string]bool{}
	var withdrawals sync.Map // id → true
	var failures atomic.Int64
	every := func(d time.Duration, fn func(i int)) {
		wg.Go(func() {
			t := time.NewTicker(d)
			defer t.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-t.C:
					fn(i)
				}
			}
		})
	}
	// Ingest: ingestRate events a second from a pool of senders.
	jobs := make(chan int, 100)
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				id := fmt.Sprintf("soak-%s-%d", tag, i)
				typ := "soak.tick"
				if i%*hookEvery == 0 {
					typ = "soak.hook"
				}
				code, _, err := c.do(ctx, "POST", "/api/events/ingest", key, map[string]any{"customerEmail": fmt.Sprintf("soak-%d@example.test", i%500),
					"type": typ, "eventId": id, "payload": map[string]any{"i": i}})
				ingested.Add(1)
				if err != nil || code != http.StatusOK {
					ingestFailed.Add(1)
					continue
				}
				ackedMu.Lock()
				acked[id] = typ == "soak.hook"
				ackedMu.Unlock()
			}
		})
	}
	var seq atomic.Int64
	every(time.Second/time.Duration(*ingestRate), func(int) {
		select {
		case jobs <- int(seq.Add(1)):
		default:
			ingestFailed.Add(1) // the senders fell behind: counted, not queued without bound
		}
	})
	every(*dealEvery, func(i int) {
		company := fmt.Sprintf("Soak %s %05d", tag, i)
		d, err := c.call(ctx, "POST", "/api/deals", partner.token(ctx), map[string]any{"customerCompany": company,
			"customerDomain": fmt.Sprintf("soak-%s-%05d.test", tag, i), "amountMinor": 1_000_00, "currency": "EUR"})
		if err != nil {
			failures.Add(1)
			log.Printf("register deal: %v", err)
			return
		}
		id := d["id"].(string)
		if _, err := c.call(ctx, "POST", "/api/deals/"+id+"/approve", owner.token(ctx), map[string]any{}); err != nil {
			failures.Add(1)
			log.Printf("approve deal: %v", err)
			return
		}
		if _, err := c.call(ctx, "POST", "/api/deals/"+id+"/move", partner.token(ctx), map[string]any{"stageId": won}); err != nil {
			failures.Add(1)
			log.Printf("win deal: %v", err)
			return
		}
		dealsMu.Lock()
		deals[id] = true
		dealsMu.Unlock()
	})
	every(*withdrawEvery, func(i int) {
		w, err := c.callKeyed(ctx, "POST", "/api/withdrawals", partner.token(ctx), fmt.Sprintf("soak-%s-%d", tag, i),
			map[string]any{"amount": 100, "currency": "EUR", "payoutMethodId": method})
		if err != nil {
			log.Printf("withdrawal: %v", err) // too little available early on: not a failure
			return
		}
		id := w["id"].(string)
		if _, err := c.call(ctx, "POST", "/api/withdrawals/"+id+"/approve", owner.token(ctx), map[string]any{}); err != nil {
			failures.Add(1)
			log.Printf("approve withdrawal: %v", err)
			return
		}
		if _, err := c.call(ctx, "POST", "/api/withdrawals/"+id+"/confirm-payout", owner.token(ctx), map[string]any{"reference": "SOAK-" + strconv.Itoa(i)}); err != nil {
			failures.Add(1)
			log.Printf("confirm payout: %v", err)
			return
		}
		withdrawals.Store(id, true)
	})

	// Samples of /metrics.
	var samples []sample
	var sampleMu sync.Mutex
	start := time.Now()
	take := func() {
		s, err := scrape(ctx, *metricsURL)
		if err != nil {
			log.Printf("metrics: %v", err)
			return
		}
		s.at = time.Since(start)
		sampleMu.Lock()
		samples = append(samples, s)
		sampleMu.Unlock()
	}
	take()
	samplerStop := make(chan struct{})
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		t := time.NewTicker(*sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-samplerStop:
				return
			case <-t.C:
				take()
			}
		}
	}()
	every(time.Minute, func(int) {
		log.Printf("%v: %d events sent (%d failed), %d deals won, samples %d", time.Since(start).Round(time.Second), ingested.Load(), ingestFailed.Load(), len(deals), len(samples))
	})

	time.Sleep(*duration)
	close(stop)
	close(jobs)
	wg.Wait()
	loadEnded := time.Since(start)
	log.Printf("load ended after %v; draining", loadEnded.Round(time.Second))

	// Drain: every run completed, every delivery received, the outbox empty.
	nDeals := len(deals)
	deadline := time.Now().Add(*drain)
	var problems []string
	for {
		problems = check(ctx, c, owner, partner, pb, plan, tag, deals, acked, &withdrawals, received, &recvMu)
		if len(problems) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Second)
	}
	drained := time.Since(start) - loadEnded
	close(samplerStop)
	<-samplerDone
	take()
	if err := writeCSV(*csvPath, samples); err != nil {
		log.Fatal(err)
	}
	if err := plotSamples(*pngPath, samples, loadEnded); err != nil {
		log.Fatal(err)
	}
	n := 0
	withdrawals.Range(func(any, any) bool { n++; return true })
	fmt.Printf("soak of %v (load ended after %v, drained %v later): %d events acknowledged (%d sent, %d not acknowledged), %d deals won, %d withdrawals paid, %d request failures\n",
		duration.Round(time.Second), loadEnded.Round(time.Second), drained.Round(time.Second), len(acked), ingested.Load(), ingestFailed.Load(), nDeals, n, failures.Load())
	fmt.Print(flatness(samples, loadEnded))
	if len(problems) > 0 {
		fmt.Printf("LOST OR DOUBLED:\n  %s\n", strings.Join(problems, "\n  "))
		os.Exit(1)
	}
	fmt.Println("0 lost, 0 doubled: every acknowledged event stored and delivered once, every won deal accrued once with one completed run and one task, every withdrawal paid and booked once")
}

// check lists what is missing or doubled now.
func check(ctx context.Context, c *client, owner, partner *session, pb, plan, tag string, deals, acked map[string]bool,
	withdrawals *sync.Map, received map[string]int, recvMu *sync.Mutex) []string {
	var out []string
	stored := map[string]string{} // client event id → event id
	var events []map[string]any
	for _, typ := range []string{"soak.tick", "soak.hook"} {
		events = append(events, c.list(ctx, "/api/events?type="+typ, owner.token(ctx))...)
	}
	for _, e := range events {
		cid, _ := e["eventId"].(string)
		if !strings.HasPrefix(cid, "soak-"+tag+"-") {
			continue
		}
		if _, dup := stored[cid]; dup {
			out = append(out, "event "+cid+" stored twice")
		}
		stored[cid] = e["id"].(string)
	}
	recvMu.Lock()
	for cid, hooked := range acked {
		id, ok := stored[cid]
		switch {
		case !ok:
			out = append(out, "acknowledged event "+cid+" not stored")
		case !hooked:
		case received[id] == 0:
			out = append(out, "event "+cid+" not delivered")
		case received[id] > 1:
			out = append(out, fmt.Sprintf("event %s delivered %d times", cid, received[id]))
		}
	}
	recvMu.Unlock()
	accrued := map[string]int{}
	for _, a := range c.list(ctx, "/api/ledger/accruals?planId="+plan, owner.token(ctx)) {
		if ref, _ := a["reference"].(string); deals[ref] {
			accrued[ref]++
		}
	}
	runs := map[string]int{}
	for _, r := range c.list(ctx, "/api/playbook-runs?playbookId="+pb, owner.token(ctx)) {
		if r["status"] != "completed" {
			out = append(out, "run "+r["id"].(string)+" "+r["status"].(string))
		}
		runs[r["eventId"].(string)]++
	}
	for id, n := range runs {
		if n != 1 {
			out = append(out, fmt.Sprintf("%d runs for event %s", n, id))
		}
	}
	if len(runs) != len(deals) {
		out = append(out, fmt.Sprintf("%d runs for %d won deals", len(runs), len(deals)))
	}
	tasks := map[string]int{}
	for _, t := range c.list(ctx, "/api/tasks", partner.token(ctx)) {
		if title, _ := t["title"].(string); strings.HasPrefix(title, "Soak kick-off Soak "+tag+" ") {
			tasks[title]++
		}
	}
	if len(tasks) != len(deals) {
		out = append(out, fmt.Sprintf("%d playbook tasks for %d won deals", len(tasks), len(deals)))
	}
	for title, n := range tasks {
		if n != 1 {
			out = append(out, fmt.Sprintf("task %q opened %d times", title, n))
		}
	}
	for id := range deals {
		if accrued[id] != 1 {
			out = append(out, fmt.Sprintf("deal %s accrued %d times", id, accrued[id]))
		}
	}
	withdrawals.Range(func(k, _ any) bool {
		w, err := c.call(ctx, "GET", "/api/withdrawals/"+k.(string), owner.token(ctx), nil)
		if err != nil || w["status"] != "paid" {
			out = append(out, fmt.Sprintf("withdrawal %s %v %v", k, w["status"], err))
			return true
		}
		p, _ := w["payout"].(map[string]any)
		if p == nil {
			out = append(out, "withdrawal "+k.(string)+" paid without a payout")
			return true
		}
		if n := len(c.list(ctx, "/api/ledger/entries?kind=payout&sourceId="+p["id"].(string), owner.token(ctx))); n != 2 {
			out = append(out, fmt.Sprintf("payout %s booked with %d entries", p["id"], n))
		}
		return true
	})
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("… and %d more", len(out)-20))
	}
	return out
}

// sample is one reading of the server's /metrics.
type sample struct {
	at                                      time.Duration
	rss, heap, goroutines, conns, outboxLag float64
}

func scrape(ctx context.Context, u string) (sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return sample{}, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer res.Body.Close()
	var parser expfmt.TextParser
	families, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		return sample{}, err
	}
	val := func(name string) float64 {
		f := families[name]
		if f == nil || len(f.GetMetric()) == 0 {
			return 0
		}
		total := 0.0
		for _, m := range f.GetMetric() {
			total += value(m)
		}
		return total
	}
	return sample{rss: val("process_resident_memory_bytes"), heap: val("go_memstats_heap_inuse_bytes"),
		goroutines: val("go_goroutines"), conns: val("go_sql_open_connections"), outboxLag: val("partnerd_outbox_oldest_age_seconds")}, nil
}

func value(m *dto.Metric) float64 {
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

func writeCSV(path string, samples []sample) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"seconds", "rss_bytes", "heap_inuse_bytes", "goroutines", "db_open_connections", "outbox_lag_seconds"})
	for _, s := range samples {
		_ = w.Write([]string{strconv.FormatFloat(s.at.Seconds(), 'f', 0, 64), fmt.Sprint(s.rss), fmt.Sprint(s.heap),
			fmt.Sprint(s.goroutines), fmt.Sprint(s.conns), fmt.Sprint(s.outboxLag)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return f.Close()
}

// flatness compares the second and the last fifth of the load (the first is warm-up).
func flatness(samples []sample, loadEnded time.Duration) string {
	var early, late []sample
	for _, s := range samples {
		switch {
		case s.at > loadEnded/5 && s.at <= 2*loadEnded/5:
			early = append(early, s)
		case s.at > 4*loadEnded/5 && s.at <= loadEnded:
			late = append(late, s)
		}
	}
	avg := func(ss []sample, f func(sample) float64) float64 {
		if len(ss) == 0 {
			return 0
		}
		t := 0.0
		for _, s := range ss {
			t += f(s)
		}
		return t / float64(len(ss))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "second fifth of the load → last fifth (averages):\n")
	for _, m := range []struct {
		name  string
		scale float64
		f     func(sample) float64
	}{
		{"resident memory MiB", 1 << 20, func(s sample) float64 { return s.rss }},
		{"heap in use MiB", 1 << 20, func(s sample) float64 { return s.heap }},
		{"goroutines", 1, func(s sample) float64 { return s.goroutines }},
		{"open database connections", 1, func(s sample) float64 { return s.conns }},
		{"outbox lag s", 1, func(s sample) float64 { return s.outboxLag }},
	} {
		e, l := avg(early, m.f)/m.scale, avg(late, m.f)/m.scale
		ratio := "—"
		if e > 0 {
			ratio = fmt.Sprintf("%.2fx", l/e)
		}
		fmt.Fprintf(&b, "  %-27s %10.1f → %10.1f  (%s)\n", m.name, e, l, ratio)
	}
	return b.String()
}

// plotSamples draws the four series over time, one panel each, with the end of the load marked.
func plotSamples(path string, samples []sample, loadEnded time.Duration) error {
	panels := []struct {
		title, unit string
		scale       float64
		f           func(sample) float64
	}{
		{"Memory (resident and heap in use)", "MiB", 1 << 20, func(s sample) float64 { return s.rss }},
		{"Goroutines", "", 1, func(s sample) float64 { return s.goroutines }},
		{"Open database connections", "", 1, func(s sample) float64 { return s.conns }},
		{"Outbox lag (oldest unrelayed event)", "s", 1, func(s sample) float64 { return s.outboxLag }},
	}
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "minutes"
		p.Y.Label.Text = pn.unit
		p.Y.Min = 0
		pts := make(plotter.XYs, len(samples))
		for j, s := range samples {
			pts[j] = plotter.XY{X: s.at.Minutes(), Y: pn.f(s) / pn.scale}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = color.RGBA{B: 200, A: 255}
		p.Add(line, plotter.NewGrid())
		if i == 0 {
			heap := make(plotter.XYs, len(samples))
			for j, s := range samples {
				heap[j] = plotter.XY{X: s.at.Minutes(), Y: s.heap / pn.scale}
			}
			hl, err := plotter.NewLine(heap)
			if err != nil {
				return err
			}
			hl.Color = color.RGBA{R: 200, A: 255}
			p.Add(hl)
			p.Legend.Add("resident", line)
			p.Legend.Add("heap in use", hl)
			p.Legend.Top = true
		}
		end, err := plotter.NewLine(plotter.XYs{{X: loadEnded.Minutes(), Y: 0}, {X: loadEnded.Minutes(), Y: maxY(pts)}})
		if err != nil {
			return err
		}
		end.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
		p.Add(end)
		plots[i] = []*plot.Plot{p}
	}
	img := vgimg.New(vg.Points(900), vg.Points(1000))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadX: vg.Points(10), PadY: vg.Points(10), PadTop: vg.Points(10), PadBottom: vg.Points(10), PadLeft: vg.Points(10), PadRight: vg.Points(10)}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		return err
	}
	return f.Close()
}

func maxY(pts plotter.XYs) float64 {
	m := 1.0
	for _, p := range pts {
		m = max(m, p.Y)
	}
	return m
}

// session is a signed-in user whose access token is renewed before it expires.
type session struct {
	c               *client
	email, password string
	mu              sync.Mutex
	tok             string
	at              time.Time
}

func (s *session) token(ctx context.Context) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok == "" || time.Since(s.at) > 10*time.Minute {
		s.tok = s.c.must(ctx, "POST", "/api/auth/login", "", map[string]string{"email": s.email, "password": s.password})["accessToken"].(string)
		s.at = time.Now()
	}
	return s.tok
}

type client struct {
	base string
	http *http.Client
}

func (c *client) do(ctx context.Context, method, path, bearer string, body any, headers ...string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

func (c *client) call(ctx context.Context, method, path, bearer string, body any, headers ...string) (map[string]any, error) {
	code, raw, err := c.do(ctx, method, path, bearer, body, headers...)
	if err != nil {
		return nil, err
	}
	if code >= 300 {
		return nil, fmt.Errorf("%s %s = %d %s", method, path, code, raw)
	}
	out := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *client) callKeyed(ctx context.Context, method, path, bearer, key string, body any) (map[string]any, error) {
	return c.call(ctx, method, path, bearer, body, "Idempotency-Key", key)
}

func (c *client) must(ctx context.Context, method, path, bearer string, body any) map[string]any {
	out, err := c.call(ctx, method, path, bearer, body)
	if err != nil {
		log.Fatal(err)
	}
	return out
}

// list reads every page of a list operation.
func (c *client) list(ctx context.Context, path, bearer string) []map[string]any {
	var all []map[string]any
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	cursor := ""
	for {
		var page struct {
			Data       []map[string]any `json:"data"`
			NextCursor string           `json:"nextCursor"`
		}
		code, raw, err := c.do(ctx, "GET", path+sep+"limit=100&cursor="+url.QueryEscape(cursor), bearer, nil)
		if err != nil || code != http.StatusOK {
			log.Fatalf("GET %s = %d %s %v", path, code, raw, err)
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			log.Fatal(err)
		}
		all = append(all, page.Data...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}
