package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/client"
	"github.com/partnerd/partnerd/internal/app"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

const ownerPassword = "violet-harbour-lantern-42"

// server is partnerd's API as serve wires it, without Temporal, on st, with a tenant whose owner
// signs in with ownerPassword.
func server(t *testing.T, st *stores.Set) (url, ownerEmail string) {
	t.Helper()
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, err := app.Keyring(master, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	owner := &models.User{Email: "ada@acme.example", Name: "Ada"}
	if err := app.CreateTenant(context.Background(), st, &models.Tenant{Slug: "acme", Name: "Acme"}, owner, ownerPassword); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.NewAPI(app.Config{Version: "test"}, st, keys, nil, slog.New(slog.DiscardHandler)).Handler())
	t.Cleanup(srv.Close)
	return srv.URL, owner.Email
}

func TestTheExampleMintsAKeyAndIngestsAnEvent(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		url, email := server(t, st)
		ctx := context.Background()
		args := []string{"-server", url, "-email", email, "-password", ownerPassword, "-customer", "billing@initech.example", "-event-id", "inv-2026-1184"}

		var out bytes.Buffer
		if err := run(ctx, args, &out); err != nil {
			t.Fatalf("the example failed: %v\n%s", err, out.String())
		}
		stored := regexp.MustCompile(`(?m)^event (\S+) stored for customer (\S+)$`).FindStringSubmatch(out.String())
		if stored == nil {
			t.Fatalf("the example did not report a stored event:\n%s", out.String())
		}
		if regexp.MustCompile(`pd_live_[0-9A-Za-z]{36}`).MatchString(out.String()) {
			t.Fatalf("the example printed the machine key:\n%s", out.String())
		}

		// The owner sees the event, with its payload, through the same client.
		owner, err := client.NewClientWithResponses(url)
		if err != nil {
			t.Fatal(err)
		}
		login, err := owner.LoginWithResponse(ctx, client.LoginJSONRequestBody{Email: "ada@acme.example", Password: ownerPassword})
		if err != nil || login.JSON200 == nil {
			t.Fatalf("sign in: %v %s", err, login.Body)
		}
		owner, _ = client.NewClientWithResponses(url, client.WithBearer(login.JSON200.AccessToken))
		eventType := "invoice.paid"
		events, err := owner.ListEventsWithResponse(ctx, &client.ListEventsParams{Type: &eventType})
		if err != nil || events.JSON200 == nil {
			t.Fatalf("list events: %v %s", err, events.Body)
		}
		if n := len(events.JSON200.Data); n != 1 {
			t.Fatalf("%d invoice.paid events, want 1", n)
		}
		got := events.JSON200.Data[0]
		if got.Id != stored[1] || got.CustomerId == nil || *got.CustomerId != stored[2] || got.Payload["invoiceId"] != "inv-2026-1184" {
			t.Fatalf("stored event %+v, want id %s, customer %s and the example's payload", got, stored[1], stored[2])
		}

		// The same event id again is a duplicate of the first: the idempotency key holds.
		out.Reset()
		if err := run(ctx, args, &out); err != nil {
			t.Fatalf("the second run failed: %v", err)
		}
		if !strings.Contains(out.String(), "event "+stored[1]+" duplicate") {
			t.Fatalf("the second run did not report the first event as a duplicate:\n%s", out.String())
		}
	})
}

func TestTheExampleReportsTheServersProblem(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		url, email := server(t, st)
		err := run(context.Background(), []string{"-server", url, "-email", email, "-password", "wrong password"}, &bytes.Buffer{})
		var p *client.Problem
		if !errors.As(err, &p) || p.Status != 401 || p.Code != "INVALID_CREDENTIALS" {
			t.Fatalf("a wrong password gave %v, want the 401 problem", err)
		}
	})
}
