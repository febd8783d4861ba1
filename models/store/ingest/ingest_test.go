package ingest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/ingest"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// TestIngestStoresEachClientIDOnceWhateverTheGroupHolds covers both ways a group of ingested
// events is written on Postgres (COPY, and the INSERT that skips duplicates when COPY meets one)
// and the one way on SQLite: fresh client ids are stored, repeated ones answer the id stored
// first, and a duplicate neither adds a row nor reaches the outbox.
func TestIngestStoresEachClientIDOnceWhateverTheGroupHolds(t *testing.T) {
	// Without subscribers COPY commits on its own; with one it shares a transaction with the
	// outbox rows. The case without runs first: the outbox is shared by the tenants of a store.
	cases := []struct {
		name, typ  string
		subscribed bool
	}{{"unsubscribed", "page.viewed", false}, {"subscribed", "seat.added", true}}
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				rec := &storetest.Recorder{}
				s.SetDispatcher(rec.Dispatch)
				p := storetest.Tenant(t, s.Core(), "dups-"+tc.name)
				sc := s.For(p)
				if tc.subscribed {
					if err := sc.CreateWebhook(ctx, &models.Webhook{URL: "https://hooks.example.com/in", Enabled: true, Secret: "sealed"}, []string{"seat.*"}); err != nil {
						t.Fatal(err)
					}
				}
				stored := map[string]string{} // client id → event id answered when it was stored
				calls := 0
				// ingest sends ids after enough fresh events to make the group worth a COPY.
				send := func(ids ...string) []models.IngestResult {
					t.Helper()
					calls++
					var in []models.IngestEvent
					for i := range 100 {
						in = append(in, models.IngestEvent{CustomerEmail: "c@example.com", Type: tc.typ, Payload: `{"n":1}`, ExternalID: fmt.Sprintf("fill-%d-%d", calls, i)})
					}
					for _, id := range ids {
						in = append(in, models.IngestEvent{CustomerEmail: "c@example.com", Type: tc.typ, Payload: `{"n":1}`, ExternalID: id})
					}
					res, err := sc.Ingest(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					for i, r := range res[:100] {
						if r.Status != models.IngestStored {
							t.Fatalf("fresh event %s: %+v", in[i].ExternalID, r)
						}
						stored[in[i].ExternalID] = r.EventID
					}
					return res[100:]
				}
				expect := func(step string, res []models.IngestResult, ids []string, want []string) {
					t.Helper()
					for i, r := range res {
						if r.Status != want[i] {
							t.Fatalf("%s: event %d (%s) is %q, want %q", step, i, ids[i], r.Status, want[i])
						}
						switch r.Status {
						case models.IngestStored:
							if _, twice := stored[ids[i]]; twice {
								t.Fatalf("%s: %s stored a second time", step, ids[i])
							}
							stored[ids[i]] = r.EventID
						case models.IngestDuplicate:
							if first := stored[ids[i]]; r.EventID != first || first == "" {
								t.Fatalf("%s: duplicate %s answered %q, want the first id %q", step, ids[i], r.EventID, first)
							}
						}
					}
				}
				fresh := []string{"a", "b", "c"}
				expect("fresh", send(fresh...), fresh, []string{models.IngestStored, models.IngestStored, models.IngestStored})

				// One stored id among new ones: on Postgres the COPY is refused and the group is
				// written again, skipping only the stored one.
				ingest.ForgetCopyConflict(s.IngestEngine)
				mixed := []string{"d", "b", "e"}
				expect("mixed", send(mixed...), mixed, []string{models.IngestStored, models.IngestDuplicate, models.IngestStored})
				// Right after a refusal groups skip COPY; the outcome is the same.
				again := []string{"f", "a", "f"}
				expect("within the cool-down", send(again...), again, []string{models.IngestStored, models.IngestDuplicate, models.IngestDuplicate})
				// A group repeating one of its own client ids never tries COPY.
				ingest.ForgetCopyConflict(s.IngestEngine)
				twins := []string{"g", "g", "h"}
				expect("twins", send(twins...), twins, []string{models.IngestStored, models.IngestDuplicate, models.IngestStored})
				ingest.ForgetCopyConflict(s.IngestEngine)
				all := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
				expect("all again", send(all...), all, []string{models.IngestDuplicate, models.IngestDuplicate, models.IngestDuplicate,
					models.IngestDuplicate, models.IngestDuplicate, models.IngestDuplicate, models.IngestDuplicate, models.IngestDuplicate})

				evs, _, err := sc.ListEvents(ctx, models.EventFilter{Type: tc.typ}, models.Page{Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				rows := map[string]bool{}
				for _, e := range evs {
					rows[e.ID] = true
				}
				if len(evs) != len(stored) || len(rows) != len(stored) {
					t.Fatalf("%d rows for %d client ids", len(evs), len(stored))
				}
				for id, eventID := range stored {
					if !rows[eventID] {
						t.Fatalf("client id %s: answered id %s is not stored", id, eventID)
					}
				}
				want := 0 // dispatched events and outbox rows
				if tc.subscribed {
					want = len(stored)
				}
				dispatched := map[string]int{}
				for _, ref := range rec.Refs() {
					dispatched[ref.EventID]++
				}
				if len(dispatched) != want {
					t.Fatalf("dispatched %d events, want %d: %v", len(dispatched), want, dispatched)
				}
				for id, n := range dispatched {
					if n != 1 || !rows[id] {
						t.Fatalf("event %s dispatched %d times (stored: %v)", id, n, rows[id])
					}
				}
				pending, err := s.PendingOutbox(ctx, evs[0].ReceivedAt.Add(1e12), 1000)
				if err != nil || len(pending) != want {
					t.Fatalf("outbox holds %d rows (%v), want %d", len(pending), err, want)
				}
			})
		}
	})
}
