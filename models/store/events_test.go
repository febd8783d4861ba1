package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestOnlyEventsWithSubscribersReachTheOutboxAndTheDispatcher(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		rec := &storetest.Recorder{}
		s.SetDispatcher(rec.Dispatch)
		owner := storetest.Tenant(t, s.Core(), "bus")
		other := storetest.Tenant(t, s.Core(), "other")
		sc := s.For(owner)
		ingest := func(sc *stores.Scoped, types ...string) {
			t.Helper()
			var in []models.IngestEvent
			for _, typ := range types {
				in = append(in, models.IngestEvent{CustomerEmail: "c@example.com", Type: typ, Payload: "{}"})
			}
			res, err := sc.Ingest(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.Status != models.IngestStored {
					t.Fatalf("ingest: %+v", r)
				}
			}
		}
		ingest(sc, "invoice.paid")
		if got := rec.Types(); len(got) != 0 {
			t.Fatalf("events without subscribers were dispatched: %v", got)
		}
		hook := &models.Webhook{URL: "https://hooks.example.com/in", Enabled: true, Secret: "sealed"}
		if err := sc.CreateWebhook(ctx, hook, []string{"invoice.*"}); err != nil {
			t.Fatal(err)
		}
		ingest(sc, "invoice.paid", "invoice.refunded", "seat.added")
		ingest(s.For(other), "invoice.paid") // another tenant's webhook list is empty
		if got := rec.Types(); !slices.Equal(got, []string{"invoice.paid", "invoice.refunded"}) {
			t.Fatalf("dispatched %v, want the two invoice events of the subscribed tenant", got)
		}
		pending, err := s.PendingOutbox(ctx, time.Now().Add(time.Second), 100)
		if err != nil || len(pending) != 2 {
			t.Fatalf("outbox = %v %v, want the two dispatched-but-unmarked events", pending, err)
		}
		if young, _ := s.PendingOutbox(ctx, time.Now().Add(-time.Hour), 100); len(young) != 0 {
			t.Fatalf("rows younger than the age were offered: %v", young)
		}
		if err := s.MarkDispatched(ctx, []string{pending[0].EventID}); err != nil {
			t.Fatal(err)
		}
		if left, _ := s.PendingOutbox(ctx, time.Now().Add(time.Second), 100); len(left) != 1 || left[0].EventID != pending[1].EventID {
			t.Fatalf("after marking one: %v", left)
		}
		ids, err := s.WebhooksFor(ctx, models.System(owner.TenantID), "invoice.paid")
		if err != nil || !slices.Equal(ids, []string{hook.ID}) {
			t.Fatalf("webhooks for invoice.paid = %v %v", ids, err)
		}
		// Disabling the endpoint stops the outbox at once in this process.
		off := false
		if _, err := sc.UpdateWebhook(ctx, hook.ID, models.WebhookChanges{Enabled: &off}); err != nil {
			t.Fatal(err)
		}
		ingest(sc, "invoice.paid")
		if got := rec.Types(); len(got) != 2 {
			t.Fatalf("an event for a disabled endpoint was dispatched: %v", got)
		}
	})
}

func TestInternalEventsRecordActorAndCausation(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "causes")
		email := "x@example.com"
		c := &models.Customer{Email: &email}
		if err := s.For(owner).CreateCustomer(models.WithPrincipal(ctx, owner), c); err != nil {
			t.Fatal(err)
		}
		evs, _, err := s.For(owner).ListEvents(ctx, models.EventFilter{Type: "customer.*"}, models.Page{Limit: 10})
		if err != nil || len(evs) != 1 {
			t.Fatalf("events = %v %v", evs, err)
		}
		first := evs[0]
		if first.ActorKind != string(models.PrincipalOperator) || first.ActorID != owner.UserID || first.Source != models.EventSourceInternal || first.Depth != 0 {
			t.Fatalf("first event = %+v", first)
		}
		caused, err := s.EmitEvent(models.WithCausation(ctx, models.Causation{EventID: first.ID, Depth: first.Depth}), models.System(owner.TenantID),
			models.NewEvent{Type: models.EventWebhookTested, Payload: `{"webhookId":"w"}`})
		if err != nil {
			t.Fatal(err)
		}
		if caused.CausationID == nil || *caused.CausationID != first.ID || caused.Depth != 1 || caused.ActorKind != "system" {
			t.Fatalf("caused event = %+v", caused)
		}
	})
}
