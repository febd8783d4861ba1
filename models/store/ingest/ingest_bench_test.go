package ingest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// benchTenant creates a tenant with customers c-<n>@bench.test and returns the scope of a
// machine key of it.
func benchTenant(b *testing.B, st *stores.Set, customers int) *stores.Scoped {
	b.Helper()
	ctx := context.Background()
	tenant := &models.Tenant{Slug: "bench", Name: "Bench"}
	owner := &models.User{Email: "owner@bench.test", Name: "Owner", PasswordHash: "x"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		b.Fatal(err)
	}
	op := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})
	for i := range customers {
		email := fmt.Sprintf("c-%d@bench.test", i)
		if err := op.CreateCustomer(ctx, &models.Customer{Email: &email}); err != nil {
			b.Fatal(err)
		}
	}
	return st.For(&models.Principal{Kind: models.PrincipalMachineKey, TenantID: tenant.ID, KeyID: models.NewID(), Scopes: []string{"events:write"}})
}

var benchSeq atomic.Int64

func benchEvent(n int64) models.IngestEvent {
	return models.IngestEvent{CustomerEmail: fmt.Sprintf("c-%d@bench.test", n%100), Type: "feature.used",
		Payload: `{"feature":"export","seats":7}`, ExternalID: fmt.Sprintf("b-%d-%d", time.Now().UnixNano(), n)}
}

// BenchmarkIngestRawInsert is the baseline of the ingest benchmarks: one single-row INSERT into
// the events table per operation (a prepared statement, autocommit, no ORM), from 32
// goroutines, on Postgres.
func BenchmarkIngestRawInsert(b *testing.B) {
	st, raw := storetest.BenchPostgres(b)
	sc := benchTenant(b, st, 1)
	tenant := sc.Principal().TenantID
	sqlDB, err := raw.DB()
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := sqlDB.Prepare(`INSERT INTO events (id, tenant_id, type, source, actor_kind, actor_id, depth, external_id, payload, occurred_at, received_at)
		VALUES ($1, $2, 'feature.used', 'ingest', 'machine_key', '', 0, $3, '{"feature":"export","seats":7}', $4, $4)`)
	if err != nil {
		b.Fatal(err)
	}
	defer stmt.Close()
	b.SetParallelism(16) // 2 CPUs × 16 = 32 goroutines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := benchSeq.Add(1)
			if _, err := stmt.Exec(models.NewID(), tenant, fmt.Sprintf("raw-%d", n), time.Now().UTC()); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkIngestSingle ingests one event per call from 32 goroutines through the store (no
// HTTP), and reports the median and 99th percentile latency besides the rate.
func BenchmarkIngestSingle(b *testing.B) {
	benchEngines(b, func(b *testing.B, st *stores.Set) {
		sc := benchTenant(b, st, 100)
		ctx := context.Background()
		var mu sync.Mutex
		var lat []time.Duration
		b.SetParallelism(16)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var mine []time.Duration
			for pb.Next() {
				t0 := time.Now()
				res, err := sc.Ingest(ctx, []models.IngestEvent{benchEvent(benchSeq.Add(1))})
				if err != nil || res[0].Status != models.IngestStored {
					b.Errorf("ingest: %v %+v", err, res)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		if len(lat) > 0 {
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		}
	})
}

// BenchmarkIngestBatch ingests 500 events per call from 4 goroutines.
func BenchmarkIngestBatch(b *testing.B) {
	benchEngines(b, func(b *testing.B, st *stores.Set) {
		sc := benchTenant(b, st, 100)
		ctx := context.Background()
		b.SetParallelism(2)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			batch := make([]models.IngestEvent, 500)
			for pb.Next() {
				for i := range batch {
					batch[i] = benchEvent(benchSeq.Add(1))
				}
				res, err := sc.Ingest(ctx, batch)
				if err != nil || res[499].Status != models.IngestStored {
					b.Errorf("ingest: %v", err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)*500/b.Elapsed().Seconds(), "events/s")
	})
}

// benchEngines runs fn on the embedded SQLite database and, with PARTNERD_TEST_DATABASE_URL,
// on Postgres.
func benchEngines(b *testing.B, fn func(b *testing.B, st *stores.Set)) {
	b.Run("sqlite", func(b *testing.B) {
		ctx := context.Background()
		st, err := stores.Open(ctx, store.Config{SQLitePath: filepath.Join(b.TempDir(), "bench.db")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		if err := st.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		fn(b, st)
	})
	b.Run("postgres", func(b *testing.B) {
		st, _ := storetest.BenchPostgres(b)
		fn(b, st)
	})
}
