package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestMigrationsAreRecordedAndIdempotent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		first, err := s.AppliedMigrations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) < 2 || first[0] != "0001_tenants_users" || first[1] != "0002_identity" {
			t.Fatalf("applied migrations = %v, want 0001_tenants_users first", first)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		second, err := s.AppliedMigrations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(first, ",") != strings.Join(second, ",") {
			t.Fatalf("migrating twice changed the record: %v then %v", first, second)
		}
	})
}

func TestConcurrentMigrationsDoNotCollide(t *testing.T) {
	for _, e := range storetest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			cfg := storetest.Config(t, e)
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for i := range errs {
				wg.Go(func() {
					s, err := store.Open(ctx, cfg)
					if err != nil {
						errs[i] = err
						return
					}
					defer s.Close()
					errs[i] = s.Migrate(ctx)
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("concurrent migrations failed: %v", err)
			}
		})
	}
}

func TestBootstrapCreatesTheDemoTenantOnce(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := models.User{Email: "owner@example.test", Name: "Owner", PasswordHash: "$argon2id$hash"}
		created, err := s.Bootstrap(ctx, models.Tenant{Slug: "demo", Name: "Demo"}, owner)
		if err != nil {
			t.Fatal(err)
		}
		if !created {
			t.Fatal("bootstrap on an empty database reported nothing created")
		}
		again, err := s.Bootstrap(ctx, models.Tenant{Slug: "other", Name: "Other"}, owner)
		if err != nil {
			t.Fatal(err)
		}
		if again {
			t.Fatal("bootstrap on a database with a tenant created another one")
		}
		tenant, err := s.TenantBySlug(ctx, "demo")
		if err != nil {
			t.Fatal(err)
		}
		if tenant.Name != "Demo" || tenant.ID == "" {
			t.Fatalf("tenant = %+v", tenant)
		}
		if _, err := s.TenantBySlug(ctx, "other"); models.ErrorKind(err) != models.KindNotFound {
			t.Fatalf("second bootstrap tenant lookup: err = %v, want not found", err)
		}
		u, err := s.UserByEmail(ctx, models.System(tenant.ID), "OWNER@example.test")
		if err != nil {
			t.Fatal(err)
		}
		if u.PasswordHash != owner.PasswordHash || u.Status != models.UserStatusActive {
			t.Fatalf("owner = %+v", u)
		}
		roles, err := s.RolesOf(ctx, models.System(tenant.ID), u.ID)
		if err != nil || len(roles) != 1 || roles[0] != models.RoleOwner {
			t.Fatalf("owner roles = %v, %v", roles, err)
		}
	})
}

func TestSQLiteReopensTheSameFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	s, err := store.Open(ctx, store.Config{SQLitePath: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Bootstrap(ctx, models.Tenant{Slug: "demo", Name: "Demo"}, models.User{Email: "a@b.test"}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	s, err = store.Open(ctx, store.Config{SQLitePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.TenantBySlug(ctx, "demo"); err != nil {
		t.Fatalf("tenant lost across reopen: %v", err)
	}
}

func TestOpenRefusesUnknownURLSchemesWithoutLeakingPasswords(t *testing.T) {
	_, err := store.Open(context.Background(), store.Config{URL: "mysql://root:hunter2@localhost/db"})
	if err == nil {
		t.Fatal("mysql URL accepted")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error leaks the password: %v", err)
	}
}

func TestPingFailsFastForAnUnreachablePostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := store.Open(ctx, store.Config{URL: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"})
	if err == nil {
		t.Fatal("open of an unreachable Postgres succeeded")
	}
}
