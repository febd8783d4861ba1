// Command example is an integration's first steps with partnerd's typed Go client: it signs in
// as a user, mints a machine key that may only ingest events, and ingests one customer event
// with that key.
//
//	go run ./client/example -server http://localhost:8080 -email ada@acme.example -password '…'
//
// It prints the key's id (never the key) and the stored event. A real integration mints its key
// once, in the console or like this, and keeps it in its secret store.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/partnerd/partnerd/client"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

// run parses args, then signs in, mints the key and ingests the event, reporting to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	server := fs.String("server", envOr("PARTNERD_URL", "http://localhost:8080"), "partnerd's base URL (PARTNERD_URL)")
	email := fs.String("email", os.Getenv("PARTNERD_EMAIL"), "a user allowed to create machine keys (PARTNERD_EMAIL)")
	password := fs.String("password", os.Getenv("PARTNERD_PASSWORD"), "the user's password (PARTNERD_PASSWORD)")
	tenant := fs.String("tenant", "", "the tenant's slug, when the email belongs to several tenants")
	customer := fs.String("customer", "billing@initech.example", "the email of the customer the event is about")
	eventType := fs.String("type", "invoice.paid", "the event's type")
	eventID := fs.String("event-id", "", "your idempotency key for the event; sending it again stores nothing new")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || *password == "" {
		return errors.New("-email and -password (or PARTNERD_EMAIL and PARTNERD_PASSWORD) are required")
	}

	// Sign in: a 15-minute access token for the user.
	anonymous, err := client.NewClientWithResponses(*server)
	if err != nil {
		return err
	}
	body := client.LoginJSONRequestBody{Email: openapi_types.Email(*email), Password: *password}
	if *tenant != "" {
		body.Tenant = tenant
	}
	login, err := anonymous.LoginWithResponse(ctx, body)
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	if err := client.CheckResponse(login.HTTPResponse, login.Body); err != nil {
		return fmt.Errorf("sign in: %w", err)
	}

	// Mint a machine key holding only events:write; the key is shown this once.
	user, err := client.NewClientWithResponses(*server, client.WithBearer(login.JSON200.AccessToken))
	if err != nil {
		return err
	}
	scopes := []string{"events:write"}
	minted, err := user.CreateApikeyWithResponse(ctx, client.CreateApikeyJSONRequestBody{Name: "example integration", Scopes: &scopes})
	if err != nil {
		return fmt.Errorf("create a machine key: %w", err)
	}
	if err := client.CheckResponse(minted.HTTPResponse, minted.Body); err != nil {
		return fmt.Errorf("create a machine key: %w", err)
	}
	fmt.Fprintf(out, "machine key %s (%s…) holds %v\n", minted.JSON201.Id, minted.JSON201.Prefix, scopes)

	// Ingest one event with the key.
	integration, err := client.NewClientWithResponses(*server, client.WithBearer(minted.JSON201.Key))
	if err != nil {
		return err
	}
	event := client.IngestEventJSONRequestBody{
		CustomerEmail: customer,
		Type:          *eventType,
		Payload:       &map[string]any{"invoiceId": "inv-2026-1184", "amount": 129900, "currency": "EUR"},
	}
	if *eventID != "" {
		event.EventId = eventID
	}
	ingested, err := integration.IngestEventWithResponse(ctx, event)
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if err := client.CheckResponse(ingested.HTTPResponse, ingested.Body); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	fmt.Fprintf(out, "event %s %s for customer %s\n", ingested.JSON200.Id, ingested.JSON200.Status, ingested.JSON200.CustomerId)
	return nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
