package workflows_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/workflows"
)

// TestFaultAWebhookReceiverDownForAnHourGetsEveryEventOnce: the receiver drops every connection
// for the first hour (skipped time) of each delivery and then answers again. Every event is
// delivered, accepted exactly once, and every attempt carries the event's id as webhook-id.
func TestFaultAWebhookReceiverDownForAnHourGetsEveryEventOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		var up atomic.Bool
		var mu sync.Mutex
		attempts := map[string]int{} // webhook-id → requests
		accepted := map[string]int{} // webhook-id → 2xx answers
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			id := r.Header.Get("webhook-id")
			mu.Lock()
			attempts[id]++
			mu.Unlock()
			if !up.Load() {
				// Down: the connection is dropped without an answer.
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_ = conn.Close()
				}
				return
			}
			mu.Lock()
			accepted[id]++
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		defer srv.Close()
		f := newDeliveryFixture(t, st, srv.URL)
		const events = 3
		ids := make([]string, 0, events)
		for range events {
			e := f.event(t)
			ids = append(ids, e.ID)
			up.Store(false)
			f.deliver(t, workflows.WebhookDeliveryInput{TenantID: f.tenant, WebhookID: f.hook.ID, EventID: e.ID},
				func(env *testsuite.TestWorkflowEnvironment) {
					env.RegisterDelayedCallback(func() { up.Store(true) }, time.Hour)
				})
		}
		list, _, err := f.sc.ListWebhookDeliveries(context.Background(), f.hook.ID, models.DeliveryFilter{}, models.Page{Limit: 100})
		if err != nil || len(list) != events {
			t.Fatalf("deliveries %d, %v; want %d", len(list), err, events)
		}
		for _, d := range list {
			full, tries, err := f.sc.WebhookDelivery(context.Background(), f.hook.ID, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if full.Status != models.DeliverySucceeded {
				t.Fatalf("delivery %s = %s", full.ID, full.Status)
			}
			// Every attempt inside the hour failed; the first after it succeeded.
			first := tries[0].AttemptedAt
			for i, a := range tries {
				inHour := a.AttemptedAt.Sub(first) < time.Hour
				last := i == len(tries)-1
				if inHour == (a.StatusCode >= 200 && a.StatusCode < 300) || last != (a.StatusCode >= 200 && a.StatusCode < 300) {
					t.Fatalf("attempt %d at +%v answered %d", a.Number, a.AttemptedAt.Sub(first), a.StatusCode)
				}
			}
			if len(tries) < 4 {
				t.Fatalf("%d attempts for a receiver down an hour", len(tries))
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			if accepted[id] != 1 || attempts[id] < 4 {
				t.Fatalf("event %s: %d attempts, %d accepted; want several attempts and one accepted", id, attempts[id], accepted[id])
			}
		}
		if len(attempts) != events {
			t.Fatalf("requests carried %d webhook ids for %d events: %v", len(attempts), events, attempts)
		}
	})
}
