package idempotency_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestIdempotencyKeysAreClaimedOnceAndReplayTheirResponse(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		ctx := context.Background()
		now := time.Now().UTC()
		tenantA, tenantB := seedIdempotencyTenant(t, s, "idem-a"), seedIdempotencyTenant(t, s, "idem-b")

		t.Run("the first claim of a key wins and holds it in flight", func(t *testing.T) {
			claim, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k1", "fp-1", now)
			if err != nil || !won {
				t.Fatalf("first claim = %v, %v", won, err)
			}
			if claim.ClaimID == "" || claim.Status != models.IdempotencyInFlight || !claim.ExpiresAt.After(now.Add(23*time.Hour)) {
				t.Fatalf("claim = %+v", claim)
			}
			again, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k1", "fp-1", now.Add(time.Second))
			if err != nil || won {
				t.Fatalf("a second claim in flight = %v, %v", won, err)
			}
			if again.Status != models.IdempotencyInFlight || again.Fingerprint != "fp-1" || again.ClaimID != claim.ClaimID {
				t.Fatalf("the key as seen by the second claim = %+v", again)
			}

			resp := models.IdempotentResponse{Status: 201, ContentType: "application/json", Body: []byte(`{"id":"x"}`)}
			if err := s.FinishIdempotencyKey(ctx, models.System(tenantA), "k1", claim.ClaimID, resp); err != nil {
				t.Fatal(err)
			}
			done, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k1", "fp-1", now.Add(time.Hour))
			if err != nil || won {
				t.Fatalf("a claim of a finished key = %v, %v", won, err)
			}
			if done.Status != models.IdempotencyDone || done.ResponseStatus != 201 || done.ResponseContentType != "application/json" || string(done.ResponseBody) != `{"id":"x"}` {
				t.Fatalf("the stored response = %+v", done)
			}
			if err := s.FinishIdempotencyKey(ctx, models.System(tenantA), "k1", claim.ClaimID, resp); storetest.Code(err) != "IDEMPOTENCY_CLAIM_LOST" {
				t.Fatalf("finishing twice = %v", err)
			}
		})

		t.Run("a claim with another fingerprint gets the stored key to compare", func(t *testing.T) {
			other, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k1", "fp-2", now.Add(time.Minute))
			if err != nil || won || other.Fingerprint != "fp-1" {
				t.Fatalf("claim with another fingerprint = %+v, %v, %v", other, won, err)
			}
		})

		t.Run("keys of different tenants are independent", func(t *testing.T) {
			claim, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantB), "k1", "fp-2", now)
			if err != nil || !won || claim.TenantID != tenantB {
				t.Fatalf("the same key in another tenant = %+v, %v, %v", claim, won, err)
			}
		})

		t.Run("a released claim frees the key and a stale holder cannot release it again", func(t *testing.T) {
			claim, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k2", "fp-1", now)
			if err != nil || !won {
				t.Fatalf("claim = %v, %v", won, err)
			}
			if err := s.ReleaseIdempotencyKey(ctx, models.System(tenantA), "k2", claim.ClaimID); err != nil {
				t.Fatal(err)
			}
			next, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k2", "fp-other", now)
			if err != nil || !won {
				t.Fatalf("a claim after the release = %v, %v", won, err)
			}
			if err := s.ReleaseIdempotencyKey(ctx, models.System(tenantA), "k2", claim.ClaimID); err != nil {
				t.Fatal(err)
			}
			if _, won, _ := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k2", "fp-other", now); won {
				t.Fatal("an old claim id released the new holder's claim")
			}
			if err := s.FinishIdempotencyKey(ctx, models.System(tenantA), "k2", next.ClaimID, models.IdempotentResponse{Status: 200}); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("an expired key may be claimed for a new request", func(t *testing.T) {
			later := now.Add(models.IdempotencyKeyLifetime + time.Minute)
			claim, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k1", "fp-3", later)
			if err != nil || !won || claim.Fingerprint != "fp-3" || claim.Status != models.IdempotencyInFlight {
				t.Fatalf("claiming an expired key = %+v, %v, %v", claim, won, err)
			}
			if _, won, _ := s.ClaimIdempotencyKey(ctx, models.System(tenantB), "k1", "fp-2", now.Add(time.Second)); won {
				t.Fatal("another tenant's live key was swept")
			}
			// The claim swept the tenant's other expired keys: k2 is free again.
			k2, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k2", "fp-4", now.Add(time.Second))
			if err != nil || !won {
				t.Fatalf("an expired key of the tenant survived a claim: %v, %v", won, err)
			}
			if err := s.ReleaseIdempotencyKey(ctx, models.System(tenantA), "k2", k2.ClaimID); err != nil {
				t.Fatal(err)
			}
			if n, err := s.DeleteExpiredIdempotencyKeys(ctx, later); err != nil || n != 1 {
				t.Fatalf("deleting the expired keys of every tenant removed %d, %v; want tenant B's one", n, err)
			}
		})

		t.Run("a claim left in flight by a crashed request is taken over once abandoned", func(t *testing.T) {
			first, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k3", "fp-1", now)
			if err != nil || !won {
				t.Fatalf("claim = %v, %v", won, err)
			}
			if _, won, _ := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k3", "fp-1", now.Add(models.IdempotencyClaimTimeout-time.Second)); won {
				t.Fatal("a fresh in-flight claim was taken over")
			}
			taken, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k3", "fp-1", now.Add(models.IdempotencyClaimTimeout+time.Second))
			if err != nil || !won || taken.ClaimID == first.ClaimID {
				t.Fatalf("taking over an abandoned claim = %+v, %v, %v", taken, won, err)
			}
			if err := s.FinishIdempotencyKey(ctx, models.System(tenantA), "k3", first.ClaimID, models.IdempotentResponse{Status: 201}); storetest.Code(err) != "IDEMPOTENCY_CLAIM_LOST" {
				t.Fatalf("the crashed holder finishing late = %v", err)
			}
			if err := s.FinishIdempotencyKey(ctx, models.System(tenantA), "k3", taken.ClaimID, models.IdempotentResponse{Status: 201}); err != nil {
				t.Fatal(err)
			}
			if _, won, _ := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "k3", "fp-1", now.Add(time.Hour)); won {
				t.Fatal("a finished key was taken over as abandoned")
			}
		})

		t.Run("of concurrent claims of one key exactly one wins", func(t *testing.T) {
			const n = 16
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				wins int
				errs []error
			)
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					_, won, err := s.ClaimIdempotencyKey(ctx, models.System(tenantA), "race", "fp-"+string(rune('a'+i)), now)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, err)
					}
					if won {
						wins++
					}
				})
			}
			close(start)
			wg.Wait()
			if len(errs) > 0 || wins != 1 {
				t.Fatalf("%d of %d concurrent claims won; errors %v", wins, n, errs)
			}
		})

		t.Run("a claim needs a tenant and a key", func(t *testing.T) {
			if _, _, err := s.ClaimIdempotencyKey(ctx, models.System(""), "k", "fp", now); storetest.Code(err) != "IDEMPOTENCY_KEY_INVALID" {
				t.Fatalf("a claim without a tenant = %v", err)
			}
		})
	})
}

func seedIdempotencyTenant(t *testing.T, s *stores.Set, slug string) string {
	t.Helper()
	tenant := &models.Tenant{Slug: slug, Name: slug}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner", PasswordHash: "$argon2id$hash"}
	if err := s.CreateTenant(context.Background(), tenant, owner); err != nil {
		t.Fatal(err)
	}
	return tenant.ID
}
