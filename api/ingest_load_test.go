package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// Load test of ingest through the real HTTP stack: concurrent clients send single events and
// batches whose eventIds repeat on purpose (each eventId is sent up to three times, by whichever
// clients take it, often at the same moment, and batches repeat ids within themselves), for
// customers that do not exist yet. Afterwards the database must hold every acknowledged event
// exactly once, under the id the API answered, and nothing that was not acknowledged.
const (
	loadClients           = 16
	loadRequestsPerClient = 45
	loadBatchEvery        = 15 // every 15th request of a client is a batch
	loadBatchSize         = 30
	loadEmails            = 12
	loadEventType         = "usage.recorded"
)

// loadAck is what the API answered for one event.
type loadAck struct {
	id, status, customerID, email string
}

type loadRecorder struct {
	mu       sync.Mutex
	byID     map[string][]loadAck // eventId → every acknowledgement
	noID     []loadAck            // events sent without an eventId
	failures []string
}

func (r *loadRecorder) ack(eventID string, a loadAck) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if eventID == "" {
		r.noID = append(r.noID, a)
		return
	}
	r.byID[eventID] = append(r.byID[eventID], a)
}

func (r *loadRecorder) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

type loadEvent struct {
	CustomerEmail string         `json:"customerEmail"`
	Type          string         `json:"type"`
	EventID       string         `json:"eventId,omitempty"`
	Payload       map[string]any `json:"payload"`
}

func TestIngestUnderConcurrentLoadStoresEveryAcknowledgedEventExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		s, logs := identityServer(t, st) // the same store and keys, with its log at hand
		srv := httptest.NewServer(s.Handler())
		defer srv.Close()
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}}
		defer client.CloseIdleConnections()

		var seq atomic.Int64
		// next makes one event: each eventId is handed out up to three times in a row, so that the
		// clients taking them race; every tenth event has no eventId at all.
		next := func() loadEvent {
			n := seq.Add(1)
			e := loadEvent{CustomerEmail: fmt.Sprintf("load-%d@example.com", n%loadEmails), Type: loadEventType,
				Payload: map[string]any{"n": n}}
			if n%10 != 0 {
				e.EventID = fmt.Sprintf("ev-%d", n/3)
			}
			return e
		}
		rec := &loadRecorder{byID: map[string][]loadAck{}}
		post := func(path string, body any) (int, []byte) {
			b, _ := json.Marshal(body)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+env.key)
			req.Header.Set("Content-Type", "application/json")
			res, err := client.Do(req)
			if err != nil {
				rec.fail("%s: %v", path, err)
				return 0, nil
			}
			defer res.Body.Close()
			out, _ := io.ReadAll(res.Body)
			return res.StatusCode, out
		}

		start := make(chan struct{})
		var wg sync.WaitGroup
		for c := range loadClients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range loadRequestsPerClient {
					if (i+c)%loadBatchEvery != 0 {
						e := next()
						status, body := post("/api/events/ingest", e)
						if status != http.StatusOK {
							rec.fail("single %s: %d %s", e.EventID, status, body)
							continue
						}
						var got IngestedEvent
						if err := json.Unmarshal(body, &got); err != nil {
							rec.fail("single: %v", err)
							continue
						}
						rec.ack(e.EventID, loadAck{got.ID, got.Status, got.CustomerID, e.CustomerEmail})
						continue
					}
					batch := make([]loadEvent, loadBatchSize)
					for j := range batch {
						batch[j] = next()
					}
					status, body := post("/api/events/batch", map[string]any{"events": batch})
					if status != http.StatusOK {
						rec.fail("batch: %d %s", status, body)
						continue
					}
					var got IngestBatchOutput
					if err := json.Unmarshal(body, &got.Body); err != nil || len(got.Body.Results) != len(batch) {
						rec.fail("batch answer: %v %s", err, body)
						continue
					}
					for _, r := range got.Body.Results {
						if r.Status != models.IngestStored && r.Status != models.IngestDuplicate {
							rec.fail("batch event %d: %+v", r.Index, r)
							continue
						}
						e := batch[r.Index]
						rec.ack(e.EventID, loadAck{r.ID, r.Status, r.CustomerID, e.CustomerEmail})
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		for _, f := range rec.failures {
			t.Error(f)
		}
		if len(rec.failures) > 0 {
			t.Logf("server log:\n%s", logs)
		}

		// Every row of the load's type, read back from the database.
		rows := map[string][]string{} // eventId → ids of the rows stored under it
		byRowID := map[string]models.Event{}
		ctx := context.Background()
		cursor := ""
		for {
			page, nextCursor, err := env.owner.ListEvents(ctx, models.EventFilter{Type: loadEventType}, models.Page{Limit: 100, After: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page {
				if _, seen := byRowID[e.ID]; seen {
					t.Fatalf("event %s listed twice", e.ID)
				}
				byRowID[e.ID] = e
				if e.ExternalID != nil {
					rows[*e.ExternalID] = append(rows[*e.ExternalID], e.ID)
				}
			}
			if nextCursor == "" {
				break
			}
			cursor = nextCursor
		}

		acknowledged := 0
		customerOf := map[string]string{} // email → customer id
		sameCustomer := func(a loadAck) {
			if prev, ok := customerOf[a.email]; ok && prev != a.customerID {
				t.Errorf("%s was answered as customers %s and %s", a.email, prev, a.customerID)
			}
			customerOf[a.email] = a.customerID
		}
		for eventID, acks := range rec.byID {
			acknowledged++
			stored := rows[eventID]
			if len(stored) != 1 {
				t.Errorf("eventId %s acknowledged %d times is stored %d times", eventID, len(acks), len(stored))
				continue
			}
			first := 0
			for _, a := range acks {
				sameCustomer(a)
				if a.id != stored[0] {
					t.Errorf("eventId %s: answered id %s (%s), stored %s", eventID, a.id, a.status, stored[0])
				}
				if a.status == models.IngestStored {
					first++
				}
			}
			if first != 1 {
				t.Errorf("eventId %s: %d of its %d acknowledgements say stored, want exactly 1", eventID, first, len(acks))
			}
		}
		for _, a := range rec.noID {
			acknowledged++
			sameCustomer(a)
			if e, ok := byRowID[a.id]; !ok || a.status != models.IngestStored || e.ExternalID != nil {
				t.Errorf("event without eventId answered %+v is not stored as such", a)
			}
		}
		if acknowledged != len(byRowID) {
			t.Errorf("%d events acknowledged, %d rows stored", acknowledged, len(byRowID))
		}
		if len(rec.byID) == 0 || len(rec.noID) == 0 {
			t.Fatalf("the load sent nothing: %d eventIds, %d without", len(rec.byID), len(rec.noID))
		}
		sends := 0
		for _, acks := range rec.byID {
			sends += len(acks)
		}
		if sends < 2*len(rec.byID) {
			t.Errorf("duplicates did not race: %d sends of %d eventIds", sends, len(rec.byID))
		}

		// Each new email became one customer, announced once.
		if len(customerOf) != loadEmails {
			t.Errorf("%d customers answered, want %d", len(customerOf), loadEmails)
		}
		for email, id := range customerOf {
			found, _, err := env.owner.ListCustomers(ctx, models.CustomerFilter{Email: email}, models.Page{Limit: 10})
			if err != nil || len(found) != 1 || found[0].ID != id {
				t.Errorf("customers with %s: %+v %v, answered %s", email, found, err, id)
			}
		}
		created, _, err := env.owner.ListEvents(ctx, models.EventFilter{Type: models.EventCustomerCreated}, models.Page{Limit: 100})
		if err != nil || len(created) != loadEmails {
			t.Errorf("customer.created events = %d %v, want %d", len(created), err, loadEmails)
		}
		t.Logf("%d events sent: %d eventIds sent %d times in all, %d without eventId; %d rows",
			seq.Load(), len(rec.byID), sends, len(rec.noID), len(byRowID))
	})
}
