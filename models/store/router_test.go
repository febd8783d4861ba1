package store_test

import (
	"context"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// TestTheRouterAnswersTheOutboxAndTheFanOutFromOneTable: what the outbox check says listens to an
// event type is what the fan-out finds for an event of it, the service's own reactions included.
func TestTheRouterAnswersTheOutboxAndTheFanOutFromOneTable(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		e := storetest.NewPartners(t, s)
		subscribed := func(typ string) bool {
			t.Helper()
			s.InvalidateSubscriptions(e.TenantID)
			ok, err := s.Subscribed(ctx, models.System(e.TenantID), typ)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		routes := func(id string) models.EventRoutes {
			t.Helper()
			r, err := s.EventRoutes(ctx, models.System(e.TenantID), id)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		if subscribed("invoice.paid") || !subscribed(models.EventDealApproved) || !subscribed(models.EventWithdrawalApproved) {
			t.Fatal("before any subscriber only the service's own reactions listen")
		}
		before, err := s.EmitEvent(ctx, models.System(e.TenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &e.PartnerA})
		if err != nil {
			t.Fatal(err)
		}
		if r := routes(before.ID); !r.Found || len(r.Webhooks) != 0 || r.Accrue || r.Playbooks || r.Waiting || r.ProtectDeal != "" {
			t.Fatalf("routes of an event nothing listens to = %+v", r)
		}

		hook := &models.Webhook{URL: "https://hooks.example.com/in", Enabled: true, Secret: "sealed"}
		if err := e.Op.CreateWebhook(ctx, hook, []string{"invoice.*"}); err != nil {
			t.Fatal(err)
		}
		if !subscribed("invoice.paid") || subscribed("seat.added") {
			t.Fatal("the endpoint's pattern decides the outbox check")
		}
		if r := routes(before.ID); !r.Found || len(r.Webhooks) != 1 || r.Webhooks[0] != hook.ID {
			t.Fatalf("routes after the endpoint was added = %+v", r)
		}

		d := e.Register(t, e.A, "Initech", "", "", 100)
		if _, err := e.Op.ApproveDeal(ctx, d.ID, ""); err != nil {
			t.Fatal(err)
		}
		approved, _, err := e.Op.ListEvents(ctx, models.EventFilter{Type: models.EventDealApproved}, models.Page{Limit: 5})
		if err != nil || len(approved) != 1 {
			t.Fatalf("deal.approved events = %v, %v", approved, err)
		}
		if r := routes(approved[0].ID); !r.Found || r.ProtectDeal != d.ID || len(r.Webhooks) != 0 || r.PayWithdrawal != "" {
			t.Fatalf("routes of an approved deal = %+v", r)
		}
		if r := routes(models.NewID()); r.Found {
			t.Fatalf("routes of a missing event = %+v", r)
		}
		if r, err := s.EventRoutes(ctx, models.System(models.NewID()), before.ID); err != nil || r.Found {
			t.Fatalf("another tenant's routes of the event = %+v, %v", r, err)
		}
	})
}
