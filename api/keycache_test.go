package api

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// countingIdentity counts machine key reads.
type countingIdentity struct {
	IdentityStore
	reads atomic.Int32
}

func (c *countingIdentity) APIKeyByLookup(ctx context.Context, lookup string) (*models.APIKey, error) {
	c.reads.Add(1)
	return c.IdentityStore.APIKeyByLookup(ctx, lookup)
}

func TestVerifiedMachineKeysAreReusedBrieflyAndForgottenOnRevocation(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		ctx := context.Background()
		tenantID, _ := seedTenant(t, st, "cache")
		owner := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID})
		k, err := authn.NewMachineKey()
		if err != nil {
			t.Fatal(err)
		}
		scopes, _ := json.Marshal([]string{"events:write"})
		rec := &models.APIKey{Name: "cached", LookupID: k.LookupID, Hash: k.Hash, Scopes: string(scopes)}
		if err := owner.CreateAPIKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		ids := &countingIdentity{IdentityStore: st}
		a := newCredentialAuthenticator(nil, ids)
		now := time.Now()
		a.now = func() time.Time { return now }
		auth := func() error {
			_, err := a.Authenticate(ctx, "Bearer "+k.Plaintext, []string{SchemeMachineKey})
			return err
		}
		for range 5 {
			if err := auth(); err != nil {
				t.Fatal(err)
			}
		}
		if n := ids.reads.Load(); n != 1 {
			t.Fatalf("5 requests within the TTL read the key %d times, want 1", n)
		}
		// A wrong secret with a valid lookup id is refused from the cache too.
		wrong := k.Plaintext[:len(k.Plaintext)-8] + "AAAAAAAA"
		if _, err := a.Authenticate(ctx, "Bearer "+wrong, []string{SchemeMachineKey}); models.ErrorKind(err) != models.KindUnauthenticated {
			t.Fatalf("a wrong secret = %v", err)
		}
		// Revoked elsewhere: this process notices once the TTL has passed.
		if _, err := owner.RevokeAPIKey(ctx, rec.ID); err != nil {
			t.Fatal(err)
		}
		if err := auth(); err != nil {
			t.Fatalf("within the TTL the cached record still answers: %v", err)
		}
		now = now.Add(keyCacheTTL)
		if err := auth(); models.ErrorKind(err) != models.KindUnauthenticated {
			t.Fatalf("after the TTL a revoked key = %v", err)
		}
		// Revoked here: forgotten at once.
		k2, _ := authn.NewMachineKey()
		rec2 := &models.APIKey{Name: "cached2", LookupID: k2.LookupID, Hash: k2.Hash, Scopes: string(scopes)}
		if err := owner.CreateAPIKey(ctx, rec2); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Authenticate(ctx, "Bearer "+k2.Plaintext, []string{SchemeMachineKey}); err != nil {
			t.Fatal(err)
		}
		if _, err := owner.RevokeAPIKey(ctx, rec2.ID); err != nil {
			t.Fatal(err)
		}
		a.ForgetMachineKey(rec2.ID)
		if _, err := a.Authenticate(ctx, "Bearer "+k2.Plaintext, []string{SchemeMachineKey}); models.ErrorKind(err) != models.KindUnauthenticated {
			t.Fatalf("a key revoked in this process = %v", err)
		}
	})
}
