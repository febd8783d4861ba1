package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/mail"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/internal/app"
	"github.com/partnerd/partnerd/models"
)

// tenantCreate opens a tenant for whoever runs the installation:
// partnerd tenant create -slug acme -name "Acme" -email owner@acme.example [-password ...].
func tenantCreate(ctx context.Context, cfg config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("partnerd tenant create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	slug := fs.String("slug", "", "tenant slug: lower-case letters, digits, inner hyphens")
	name := fs.String("name", "", "organisation name")
	email := fs.String("email", "", "the owner's email")
	ownerName := fs.String("owner-name", "", "the owner's name")
	password := fs.String("password", "", "the owner's password (default: generated and printed once)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var problems []error
	if !models.ValidSlug(*slug) {
		problems = append(problems, fmt.Errorf("-slug %q: lower-case letters, digits and inner hyphens, 1-63 characters", *slug))
	}
	if *name == "" {
		problems = append(problems, errors.New("-name is required"))
	}
	if a, err := mail.ParseAddress(*email); err != nil || a.Address != *email {
		problems = append(problems, fmt.Errorf("-email %q is not an email address", *email))
	}
	if *password != "" && len([]rune(*password)) < authn.MinPasswordLength {
		problems = append(problems, fmt.Errorf("-password must be at least %d characters", authn.MinPasswordLength))
	}
	if err := errors.Join(problems...); err != nil {
		return err
	}
	generated := *password == ""
	if generated {
		p, err := authn.RandomPassword(20)
		if err != nil {
			return err
		}
		*password = p
	}
	st, err := openStore(ctx, cfg, newLogger(cfg, stderr), app.Telemetry{})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	tenant := &models.Tenant{Slug: *slug, Name: *name}
	if err := app.CreateTenant(ctx, st, tenant, &models.User{Email: *email, Name: *ownerName}, *password); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tenant %q created (id %s)\n  owner     %s\n", tenant.Slug, tenant.ID, *email)
	if generated {
		fmt.Fprintf(stdout, "  password  %s\n  (shown this once)\n", *password)
	}
	return nil
}
