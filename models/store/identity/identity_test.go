package identity_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/identity"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestTenantSlugsAreUnique(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		storetest.Tenant(t, s.Core(), "acme")
		err := s.CreateTenant(context.Background(), &models.Tenant{Slug: "acme", Name: "Again"}, &models.User{Email: "x@y.test"})
		if e, ok := models.AsError(err); !ok || e.Code != "TENANT_SLUG_TAKEN" {
			t.Fatalf("a second acme: %v", err)
		}
	})
}

func TestAccessPolicyReflectsAssignmentsAndVersions(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		p, err := s.AccessPolicy(ctx, models.System(owner.TenantID))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Assignments[owner.UserID]; len(got) != 1 || got[0] != models.RoleOwner {
			t.Fatalf("assignments = %v", p.Assignments)
		}
		other := storetest.Tenant(t, s.Core(), "globex")
		po, _ := s.AccessPolicy(ctx, models.System(other.TenantID))
		if _, leaked := po.Assignments[owner.UserID]; leaked {
			t.Fatal("one tenant's policy lists another tenant's user")
		}
	})
}

func TestRefreshTokensRotateAndReuseRevokesTheFamily(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, s.Core(), "acme")
		now := time.Now().UTC()
		first := &models.RefreshToken{TenantID: owner.TenantID, UserID: owner.UserID, Hash: "h1", ExpiresAt: now.Add(time.Hour)}
		if err := s.CreateRefreshToken(ctx, first); err != nil {
			t.Fatal(err)
		}
		old, err := s.RotateRefreshToken(ctx, "h1", &models.RefreshToken{Hash: "h2", ExpiresAt: now.Add(time.Hour)}, now)
		if err != nil || old.UserID != owner.UserID {
			t.Fatalf("rotate = %+v, %v", old, err)
		}
		if _, err := s.RotateRefreshToken(ctx, "h1", &models.RefreshToken{Hash: "h3", ExpiresAt: now.Add(time.Hour)}, now); !errors.Is(err, identity.ErrRefreshReused) {
			t.Fatalf("reusing h1: %v, want reuse", err)
		}
		if _, err := s.RotateRefreshToken(ctx, "h2", &models.RefreshToken{Hash: "h4", ExpiresAt: now.Add(time.Hour)}, now); err == nil {
			t.Fatal("the family's newest token still works after a reuse")
		}
		expired := &models.RefreshToken{TenantID: owner.TenantID, UserID: owner.UserID, Hash: "e1", ExpiresAt: now.Add(-time.Second)}
		_ = s.CreateRefreshToken(ctx, expired)
		if _, err := s.RotateRefreshToken(ctx, "e1", &models.RefreshToken{Hash: "e2", ExpiresAt: now.Add(time.Hour)}, now); err == nil {
			t.Fatal("an expired token rotated")
		}
		if _, err := s.RotateRefreshToken(ctx, "unknown", &models.RefreshToken{Hash: "u2"}, now); err == nil {
			t.Fatal("an unknown token rotated")
		}
	})
}

func TestAPIKeysAreScopedToTheirTenantAndAudited(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := models.WithRequestMeta(context.Background(), models.RequestMeta{RequestID: "req-1", ClientAddress: "192.0.2.9"})
		acme := storetest.Tenant(t, s.Core(), "acme")
		globex := storetest.Tenant(t, s.Core(), "globex")
		ctx = models.WithPrincipal(ctx, acme)

		for i := range 3 {
			k := &models.APIKey{Name: "key", LookupID: "lookup0" + string(rune('a'+i)), Hash: "hash", Scopes: `["events:write"]`}
			if err := s.For(acme).CreateAPIKey(ctx, k); err != nil {
				t.Fatal(err)
			}
			if k.TenantID != acme.TenantID || k.CreatedBy != acme.UserID {
				t.Fatalf("tenant or creator not taken from the principal: %+v", k)
			}
		}
		keys, next, err := s.For(acme).ListAPIKeys(ctx, models.Page{Limit: 2})
		if err != nil || len(keys) != 2 || next == "" {
			t.Fatalf("page 1 = %d keys, next %q, %v", len(keys), next, err)
		}
		rest, next2, _ := s.For(acme).ListAPIKeys(ctx, models.Page{Limit: 2, After: next})
		if len(rest) != 1 || next2 != "" || rest[0].ID == keys[1].ID {
			t.Fatalf("page 2 = %d keys, next %q", len(rest), next2)
		}
		if others, _, _ := s.For(globex).ListAPIKeys(ctx, models.Page{}); len(others) != 0 {
			t.Fatal("another tenant lists acme's keys")
		}
		if _, err := s.For(globex).APIKey(ctx, keys[0].ID); models.ErrorKind(err) != models.KindNotFound {
			t.Fatalf("another tenant reads acme's key: %v", err)
		}
		if _, err := s.For(globex).RevokeAPIKey(ctx, keys[0].ID); models.ErrorKind(err) != models.KindNotFound {
			t.Fatalf("another tenant revokes acme's key: %v", err)
		}
		revoked, err := s.For(acme).RevokeAPIKey(ctx, keys[0].ID)
		if err != nil || revoked.RevokedAt == nil {
			t.Fatalf("revoke = %+v, %v", revoked, err)
		}
		entries, _, err := s.For(acme).ListAudit(ctx, models.AuditFilter{TargetType: "apikey"}, models.Page{Limit: 100})
		if err != nil || len(entries) != 4 {
			t.Fatalf("audit entries for keys = %d, %v; want 3 created + 1 revoked", len(entries), err)
		}
		last := entries[len(entries)-1]
		if last.Action != "apikey.revoked" || last.ActorID != acme.UserID || last.RequestID != "req-1" || last.ClientAddress != "192.0.2.9" {
			t.Fatalf("audit entry = %+v", last)
		}
		if e, _, _ := s.For(globex).ListAudit(ctx, models.AuditFilter{TargetType: "apikey"}, models.Page{}); len(e) != 0 {
			t.Fatal("another tenant reads acme's audit log")
		}
	})
}

func TestAPIKeyUseIsRecordedAtMostOncePerInterval(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		acme := storetest.Tenant(t, s.Core(), "acme")
		k := &models.APIKey{Name: "k", LookupID: "lookupzz", Hash: "h", Scopes: "[]"}
		if err := s.For(acme).CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now().UTC().Truncate(time.Second)
		for _, at := range []time.Time{t0, t0.Add(10 * time.Second), t0.Add(30 * time.Second)} {
			if err := s.TouchAPIKey(ctx, k.ID, at, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := s.APIKeyByLookup(ctx, "lookupzz")
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(t0) {
			t.Fatalf("lastUsedAt = %v, want the first use %v", got.LastUsedAt, t0)
		}
		_ = s.TouchAPIKey(ctx, k.ID, t0.Add(2*time.Minute), time.Minute)
		got, _ = s.APIKeyByLookup(ctx, "lookupzz")
		if !got.LastUsedAt.Equal(t0.Add(2 * time.Minute)) {
			t.Fatalf("lastUsedAt = %v after the interval", got.LastUsedAt)
		}
	})
}
