package store_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// hourly is a quota that returns no unit during a test.
func hourly(policy, key string, limit int) models.RateLimit {
	return models.RateLimit{Policy: policy, Key: key, Quota: models.Quota{Limit: limit, Window: time.Hour}}
}

func TestRateQuotasCountRefuseAndForget(t *testing.T) {
	storetest.Run(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key, tenant := hourly("machine-key", "k1", 2), hourly("tenant", "t1", 5)
		for i := range 2 {
			ds, err := s.TakeRate(ctx, []models.RateLimit{key, tenant})
			if err != nil || len(ds) != 2 || !ds[0].Allowed || !ds[1].Allowed {
				t.Fatalf("take %d = %+v, %v", i+1, ds, err)
			}
			if ds[0].Policy != "machine-key" || ds[0].Remaining != 1-i || ds[1].Remaining != 4-i {
				t.Fatalf("take %d remaining = %+v", i+1, ds)
			}
			if ds[0].Reset < time.Duration(i+1)*30*time.Minute-time.Minute || ds[0].Reset > time.Duration(i+1)*30*time.Minute {
				t.Fatalf("take %d reset = %s", i+1, ds[0].Reset)
			}
		}
		ds, err := s.TakeRate(ctx, []models.RateLimit{key, tenant})
		if err != nil || ds[0].Allowed || !ds[1].Allowed {
			t.Fatalf("the third take = %+v, %v; want the key's quota to refuse", ds, err)
		}
		if ds[0].RetryAfter < 29*time.Minute || ds[0].RetryAfter > 30*time.Minute || ds[0].Remaining != 0 {
			t.Fatalf("refusal = %+v; want a retry in 30 minutes", ds[0])
		}
		// A refused request spends nothing: the tenant still has 3 of 5.
		peek, err := s.PeekRate(ctx, []models.RateLimit{tenant, key})
		if err != nil || peek[0].Remaining != 3 || peek[1].Allowed {
			t.Fatalf("peek = %+v, %v; want the tenant at 3 and the key refusing", peek, err)
		}
		// Another key of the tenant takes the rest of the tenant's quota.
		other := hourly("machine-key", "k2", 10)
		for range 3 {
			if ds, err := s.TakeRate(ctx, []models.RateLimit{other, tenant}); err != nil || !ds[1].Allowed {
				t.Fatalf("the other key = %+v, %v", ds, err)
			}
		}
		if ds, _ := s.TakeRate(ctx, []models.RateLimit{other, tenant}); ds[1].Allowed || !ds[0].Allowed || ds[0].Remaining != 7 {
			t.Fatalf("past the tenant's quota = %+v; want the tenant to refuse and the key to keep 7", ds)
		}
		if err := s.ForgetRate(ctx, key); err != nil {
			t.Fatal(err)
		}
		if peek, _ := s.PeekRate(ctx, []models.RateLimit{key}); !peek[0].Allowed || peek[0].Remaining != 2 {
			t.Fatalf("after forgetting = %+v", peek)
		}
		if ds, err := s.TakeRate(ctx, []models.RateLimit{{Policy: "off", Key: "x"}}); err != nil || len(ds) != 0 {
			t.Fatalf("a quota that is off = %+v, %v", ds, err)
		}
	})
}

// Racing requests of one process over the same quotas are each decided as if they came alone:
// exactly the quota is admitted, and each admitted request sees its own remaining count.
func TestRateQuotasDecideRacingRequestsOneByOne(t *testing.T) {
	storetest.Run(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tenant, key := hourly("tenant", "racing", 50), hourly("machine-key", "racing-key", 1000)
		var (
			mu        sync.Mutex
			remaining = map[int]int{}
			keyLeft   = map[int]int{}
			refused   int
			wg        sync.WaitGroup
		)
		for range 120 {
			wg.Go(func() {
				ds, err := s.TakeRate(ctx, []models.RateLimit{tenant, key})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Error(err)
				case ds[0].Allowed:
					remaining[ds[0].Remaining]++
					keyLeft[ds[1].Remaining]++
				default:
					refused++
					if ds[0].RetryAfter <= 0 || !ds[1].Allowed {
						t.Errorf("refusal = %+v; want the tenant to refuse with a retry and the key to have room", ds)
					}
				}
			})
		}
		wg.Wait()
		if refused != 70 || len(remaining) != 50 {
			t.Fatalf("120 racing requests: %d refused, admitted with %d distinct remaining counts; want 70 and 50", refused, len(remaining))
		}
		for r := range 50 {
			if remaining[r] != 1 || keyLeft[1000-50+r] != 1 {
				t.Fatalf("remaining %d seen %d times (key %d seen %d times); want each once", r, remaining[r], 1000-50+r, keyLeft[1000-50+r])
			}
		}
		// The key counted the 50 admitted requests only.
		if peek, _ := s.PeekRate(ctx, []models.RateLimit{key}); peek[0].Remaining != 950 {
			t.Fatalf("key remaining = %d; want 950", peek[0].Remaining)
		}
	})
}

// Two processes on one Postgres share every quota, also when their requests race.
func TestRateQuotasAreOneAcrossProcessesOnPostgres(t *testing.T) {
	for _, e := range storetest.Engines(t) {
		if e.Name != "postgres" {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			ctx := context.Background()
			cfg := storetest.Config(t, e)
			var procs [2]*store.Store
			for i := range procs {
				s, err := store.Open(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				if err := s.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				procs[i] = s
			}
			q := hourly("tenant", "shared", 20)
			if ds, err := procs[0].TakeRate(ctx, []models.RateLimit{q}); err != nil || !ds[0].Allowed {
				t.Fatalf("first take = %+v, %v", ds, err)
			}
			var allowed, refused atomic.Int64
			var wg sync.WaitGroup
			for g := range 40 {
				wg.Go(func() {
					ds, err := procs[g%2].TakeRate(ctx, []models.RateLimit{q, hourly("machine-key", "k", 1000)})
					switch {
					case err != nil:
						t.Error(err)
					case ds[0].Allowed:
						allowed.Add(1)
					default:
						refused.Add(1)
					}
				})
			}
			wg.Wait()
			if allowed.Load() != 19 || refused.Load() != 21 {
				t.Fatalf("40 racing requests over two processes: %d allowed, %d refused; want 19 and 21", allowed.Load(), refused.Load())
			}
			// The key's quota counted only the 19 admitted requests.
			if peek, _ := procs[1].PeekRate(ctx, []models.RateLimit{hourly("machine-key", "k", 1000)}); peek[0].Remaining != 1000-19 {
				t.Fatalf("key remaining = %d; want %d", peek[0].Remaining, 1000-19)
			}
		})
	}
}

// BenchmarkTakeRate is the limiter's cost per authenticated request of a machine key (its own
// quota and its tenant's), from 16 goroutines per core: "spread" over 100 keys of 10 tenants,
// "one-key" all on one key (one integrator's ingest). On Postgres the shared table, on SQLite
// the in-process quotas.
func BenchmarkTakeRate(b *testing.B) {
	for _, e := range storetest.Engines(b) {
		for _, keys := range []int64{100, 1} {
			name := e.Name + "/spread"
			if keys == 1 {
				name = e.Name + "/one-key"
			}
			b.Run(name, func(b *testing.B) {
				s := storetest.Open(b, e).Core()
				ctx := context.Background()
				var n atomic.Int64
				b.SetParallelism(16) // 16 × GOMAXPROCS goroutines, as many as an API's busy connections
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := n.Add(1)
						limits := []models.RateLimit{
							{Policy: "machine-key", Key: strconv.FormatInt(i%keys, 10), Quota: models.Quota{Limit: 1_000_000_000, Window: time.Second}},
							{Policy: "tenant", Key: strconv.FormatInt(i%keys%10, 10), Quota: models.Quota{Limit: 1_000_000_000, Window: time.Second}},
						}
						if ds, err := s.TakeRate(ctx, limits); err != nil || !ds[0].Allowed {
							b.Fatalf("take = %+v, %v", ds, err)
						}
					}
				})
			})
		}
	}
}
