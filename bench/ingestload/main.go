// Command ingestload drives POST /api/events/ingest (or /api/events/batch) on loopback with
// concurrent clients, records every acknowledged event, and then proves from the database that
// every acknowledged eventId is stored exactly once and under the id the API answered.
//
// Some requests deliberately send an eventId again (a retry of an earlier event, possibly still
// in flight on another client), so duplicates race with their originals.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

type options struct {
	url, keyFile, db, run string
	clients, requests     int
	batch, customers      int
	dupRate, rate         float64
	duration              time.Duration
	timeline              bool
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8089", "base URL of the API (loopback)")
	flag.StringVar(&o.keyFile, "keyfile", "bench/out/key", "file holding the machine key")
	flag.StringVar(&o.db, "db", "", "postgres:// URL of the server's database, for the exactly-once check (empty: no check)")
	flag.StringVar(&o.run, "run", "", "eventId prefix of this run (default: time-based)")
	flag.IntVar(&o.clients, "clients", 32, "concurrent clients (connections)")
	flag.IntVar(&o.requests, "requests", 20000, "requests in all (bounded)")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "stop sending after this long, even if requests remain")
	flag.IntVar(&o.batch, "batch", 0, "events per request on the batch route; 0 uses the single-event route")
	flag.IntVar(&o.customers, "customers", 1000, "seeded customers bench-<n>@example.com to pick from")
	flag.Float64Var(&o.dupRate, "dup", 0.05, "share of events that resend an earlier eventId")
	flag.Float64Var(&o.rate, "rate", 0, "requests per second, open loop: requests start on a fixed schedule and latency counts from the scheduled start, so a server that falls behind shows it (0: each client sends as fast as it is answered)")
	flag.BoolVar(&o.timeline, "timeline", false, "also print, per second of the run, the requests started in it and their p50, p99 and max latency (to see when a tail happens)")
	flag.Parse()
	if o.run == "" {
		o.run = fmt.Sprintf("load-%d", time.Now().UnixNano())
	}
	key, err := os.ReadFile(o.keyFile)
	if err != nil {
		fail(err)
	}
	res := drive(o, strings.TrimSpace(string(key)))
	res.print(o)
	if o.db != "" {
		if err := verify(o, res); err != nil {
			fail(err)
		}
	}
}

// sample is one answered request: when it was due (from the start of the run) and its latency.
type sample struct {
	at, latency time.Duration
}

// ack is what the API answered for one event.
type ack struct {
	id, status string
}

type result struct {
	mu        sync.Mutex
	acked     map[string][]ack // eventId → every acknowledgement of it
	sent      map[string]bool  // every eventId sent, acknowledged or not
	latencies []time.Duration
	samples   []sample     // every answered request, for the timeline
	events    atomic.Int64 // events acknowledged (stored or duplicate)
	failed    atomic.Int64 // requests without a 200
	elapsed   time.Duration
}

func drive(o options, key string) *result {
	res := &result{acked: map[string][]ack{}, sent: map[string]bool{}}
	u, err := url.Parse(o.url)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	var next atomic.Int64
	// Every request is built before the run, so that the driver spends its CPU on sending
	// (it shares the machine with the server and the database).
	requests := prepare(o, key)
	start := time.Now()
	// In open-loop mode request n (from 0) is due at start + n × interval: a free client takes
	// the next request, waits until it is due (or sends it at once if it is late) and counts
	// its latency from when it was due.
	var interval time.Duration
	if o.rate > 0 {
		interval = time.Duration(float64(time.Second) / o.rate)
	}
	var wg sync.WaitGroup
	for range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cn := &conn{addr: u.Host}
			var lat []time.Duration
			var samples []sample
			defer func() {
				res.mu.Lock()
				res.latencies = append(res.latencies, lat...)
				res.samples = append(res.samples, samples...)
				res.mu.Unlock()
			}()
			for ctx.Err() == nil {
				n := next.Add(1)
				if n > int64(o.requests) {
					return
				}
				t0 := time.Now()
				if interval > 0 {
					t0 = start.Add(time.Duration(n-1) * interval)
					if wait := time.Until(t0); wait > 0 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(wait):
						}
					}
				}
				req, ids := requests[n-1].http, requests[n-1].ids
				res.mu.Lock()
				for _, id := range ids {
					res.sent[id] = true
				}
				res.mu.Unlock()
				status, answer, err := cn.do(ctx, req)
				var acks map[string][]ack
				if err == nil {
					acks, err = acknowledgements(o, status, answer, ids)
				}
				if err != nil {
					if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() == nil {
						res.failed.Add(1)
						if res.failed.Load() <= 3 {
							fmt.Fprintln(os.Stderr, "request failed:", err)
						}
					}
					continue
				}
				lat = append(lat, time.Since(t0))
				samples = append(samples, sample{at: t0.Sub(start), latency: lat[len(lat)-1]})
				res.mu.Lock()
				for id, a := range acks {
					res.acked[id] = append(res.acked[id], a...)
					res.events.Add(int64(len(a)))
				}
				res.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// request is one prepared request: its bytes on the wire and the eventIds it carries.
type request struct {
	http []byte
	ids  []string
}

// prepare builds every request of the run. A share o.dupRate of the events reuses an eventId of
// the last 1 024 events, which is likely still in flight when it is sent again.
func prepare(o options, key string) []request {
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano()))) //nolint:gosec // load shapes, not secrets
	recent := make([]string, 0, 1024)
	out := make([]request, o.requests)
	for n := range out {
		ids := make([]string, max(o.batch, 1))
		for i := range ids {
			ids[i] = fmt.Sprintf("%s-%d-%d", o.run, n+1, i)
			if len(recent) > 0 && rng.Float64() < o.dupRate {
				ids[i] = recent[rng.IntN(len(recent))]
			} else if len(recent) < cap(recent) {
				recent = append(recent, ids[i])
			} else {
				recent[rng.IntN(len(recent))] = ids[i]
			}
		}
		out[n] = request{http: httpRequest(o, key, requestBody(o, rng, ids)), ids: ids}
	}
	return out
}

type eventBody struct {
	CustomerEmail string         `json:"customerEmail"`
	Type          string         `json:"type"`
	EventID       string         `json:"eventId"`
	Payload       map[string]any `json:"payload"`
}

func requestBody(o options, rng *rand.Rand, ids []string) []byte {
	events := make([]eventBody, len(ids))
	for i, id := range ids {
		events[i] = eventBody{
			CustomerEmail: fmt.Sprintf("bench-%d@example.com", rng.IntN(o.customers)),
			Type:          "feature.used", EventID: id,
			Payload: map[string]any{"feature": "export", "seats": rng.IntN(50), "plan": "pro"},
		}
	}
	var v any = events[0]
	if o.batch > 0 {
		v = map[string]any{"events": events}
	}
	b, _ := json.Marshal(v)
	return b
}

// send posts one request and returns the acknowledgements by eventId.
// conn is one keep-alive connection of a client. It writes prepared requests and reads the
// answers with net/http's parser, without the goroutines and channels of http.Transport, which
// cost the driver a third of a core at 2 500 requests/s on the machine it shares with the server.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
}

// do sends one prepared request and returns the status and body of the answer.
func (cn *conn) do(ctx context.Context, req []byte) (int, []byte, error) {
	if cn.c == nil {
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err := d.DialContext(ctx, "tcp", cn.addr)
		if err != nil {
			return 0, nil, err
		}
		cn.c, cn.br = c, bufio.NewReaderSize(c, 64<<10)
	}
	fail := func(err error) (int, []byte, error) {
		_ = cn.c.Close()
		cn.c = nil
		return 0, nil, err
	}
	if err := cn.c.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return fail(err)
	}
	if _, err := cn.c.Write(req); err != nil {
		return fail(err)
	}
	resp, err := http.ReadResponse(cn.br, nil)
	if err != nil {
		return fail(err)
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	if resp.Close {
		_ = cn.c.Close()
		cn.c = nil
	}
	return resp.StatusCode, b, nil
}

// httpRequest is the bytes of one POST of body to the ingest route of o.
func httpRequest(o options, key string, body []byte) []byte {
	u, err := url.Parse(o.url)
	if err != nil {
		fail(err)
	}
	path := "/api/events/ingest"
	if o.batch > 0 {
		path = "/api/events/batch"
	}
	head := fmt.Sprintf("POST %s%s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		strings.TrimSuffix(u.Path, "/"), path, u.Host, key, len(body))
	return append([]byte(head), body...)
}

// acknowledgements reads the eventIds an answer acknowledged.
func acknowledgements(o options, status int, b []byte, ids []string) (map[string][]ack, error) {
	if status != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.300s", status, b)
	}
	acks := map[string][]ack{}
	if o.batch == 0 {
		var r struct{ ID, Status string }
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, err
		}
		acks[ids[0]] = append(acks[ids[0]], ack{r.ID, r.Status})
		return acks, nil
	}
	var r struct {
		Results []struct {
			Index      int
			ID, Status string
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	for _, x := range r.Results {
		if x.Status == "stored" || x.Status == "duplicate" {
			acks[ids[x.Index]] = append(acks[ids[x.Index]], ack{x.ID, x.Status})
		}
	}
	return acks, nil
}

func (r *result) print(o options) {
	slices.Sort(r.latencies)
	pct := func(p float64) float64 {
		if len(r.latencies) == 0 {
			return 0
		}
		return float64(r.latencies[min(len(r.latencies)-1, int(float64(len(r.latencies))*p))].Microseconds()) / 1000
	}
	secs := r.elapsed.Seconds()
	mode := "closed loop"
	if o.rate > 0 {
		mode = fmt.Sprintf("open loop at %.0f requests/s", o.rate)
	}
	fmt.Printf("run %s: %d clients, batch %d, %s, %.1f s\n", o.run, o.clients, o.batch, mode, secs)
	fmt.Printf("requests ok %d (%.0f/s), failed %d; events acknowledged %d (%.0f/s)\n",
		len(r.latencies), float64(len(r.latencies))/secs, r.failed.Load(), r.events.Load(), float64(r.events.Load())/secs)
	fmt.Printf("latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", pct(0.50), pct(0.90), pct(0.99), pct(1))
	if o.timeline {
		printTimeline(r.samples)
	}
}

// printTimeline prints, per second of the run, how many requests were due in it and the p50,
// p99 and max of their latencies.
func printTimeline(samples []sample) {
	bySecond := map[int][]time.Duration{}
	last := 0
	for _, s := range samples {
		sec := int(s.at / time.Second)
		bySecond[sec] = append(bySecond[sec], s.latency)
		last = max(last, sec)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for sec := 0; sec <= last; sec++ {
		l := bySecond[sec]
		if len(l) == 0 {
			continue
		}
		slices.Sort(l)
		fmt.Printf("second %3d: %5d requests, p50 %7.2f ms, p99 %7.2f ms, max %7.2f ms\n",
			sec, len(l), ms(l[len(l)/2]), ms(l[min(len(l)-1, len(l)*99/100)]), ms(l[len(l)-1]))
	}
}

// verify counts the stored events of this run and checks every acknowledgement against them.
func verify(o options, r *result) error {
	db, err := gorm.Open(postgres.Open(o.db), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	var rows []struct{ ID, ExternalID string }
	if err := db.Raw(`SELECT e.id, e.external_id FROM events e JOIN tenants t ON t.id = e.tenant_id
		WHERE t.slug = 'bench' AND e.external_id LIKE ?`, o.run+"-%").Scan(&rows).Error; err != nil {
		return err
	}
	stored := map[string][]string{}
	for _, row := range rows {
		stored[row.ExternalID] = append(stored[row.ExternalID], row.ID)
	}
	var twice, missing, wrongID, storedAcks, dupAcks, extra int
	for id, acks := range r.acked {
		rowsOf := stored[id]
		switch {
		case len(rowsOf) == 0:
			missing++
			continue
		case len(rowsOf) > 1:
			twice++
		}
		storedHere := 0
		for _, a := range acks {
			if a.id != rowsOf[0] {
				wrongID++
			}
			if a.status == "stored" {
				storedHere++
				storedAcks++
			} else {
				dupAcks++
			}
		}
		if storedHere > 1 {
			twice++ // two requests were each told they stored it
		}
	}
	for id := range stored {
		if r.acked[id] == nil {
			extra++ // sent, stored, but the request got no 200 (e.g. cut off at the end)
		}
	}
	fmt.Printf("exactly-once: distinct eventIds sent %d, acknowledged %d (stored %d, duplicate %d acknowledgements); rows in the database %d for %d eventIds\n",
		len(r.sent), len(r.acked), storedAcks, dupAcks, len(rows), len(stored))
	fmt.Printf("exactly-once: acknowledged but missing %d, stored more than once %d, answered id differs from the stored one %d, stored without a 200 %d\n",
		missing, twice, wrongID, extra)
	if missing > 0 || twice > 0 || wrongID > 0 || len(rows) != len(stored) {
		return fmt.Errorf("exactly-once violated")
	}
	fmt.Println("exactly-once: OK")
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ingestload:", err)
	os.Exit(1)
}
