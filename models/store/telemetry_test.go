package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/ingest"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// TestOutboxLagPoolAndIngestGroupsAreObservable covers what the operators' metrics read from the
// store: the oldest outbox row, the pool, and a report per ingest group commit.
func TestOutboxLagPoolAndIngestGroupsAreObservable(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		var groups []ingest.GroupStats
		s.IngestEngine.Observe(func(g ingest.GroupStats) { groups = append(groups, g) })
		if _, ok, err := s.OldestOutbox(ctx); err != nil || ok {
			t.Fatalf("empty outbox: ok=%v err=%v, want none waiting", ok, err)
		}
		owner := storetest.Tenant(t, s.Core(), "lag")
		sc := s.For(owner)
		hook := &models.Webhook{URL: "https://hooks.example.com/in", Enabled: true, Secret: "sealed"}
		if err := sc.CreateWebhook(ctx, hook, []string{"invoice.*"}); err != nil {
			t.Fatal(err)
		}
		before := time.Now().Add(-time.Second)
		if _, err := sc.Ingest(ctx, []models.IngestEvent{
			{CustomerEmail: "c@example.com", Type: "invoice.paid", Payload: "{}"},
			{CustomerEmail: "c@example.com", Type: "invoice.sent", Payload: "{}"},
		}); err != nil {
			t.Fatal(err)
		}
		oldest, ok, err := s.OldestOutbox(ctx)
		if err != nil || !ok || oldest.Before(before) || oldest.After(time.Now().Add(time.Second)) {
			t.Fatalf("oldest outbox row = %v ok=%v err=%v, want just written", oldest, ok, err)
		}
		if len(groups) != 1 || groups[0].Requests != 1 || groups[0].Events != 2 || groups[0].Failed {
			t.Fatalf("group reports = %+v, want one group of one request and 2 events", groups)
		}
		if r, e := s.IngestEngine.Queue(); r != 0 || e != 0 {
			t.Fatalf("queue after the commit = %d requests, %d events", r, e)
		}
		pool, err := s.Pool()
		if err != nil || pool.Stats().MaxOpenConnections == 0 {
			t.Fatalf("pool = %v, %v", pool, err)
		}
	})
}
