package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// benchPostgres opens a migrated store in a schema of its own on the test Postgres server, and
// a raw gorm handle on the same schema; it skips without PARTNERD_TEST_DATABASE_URL.
func benchPostgres(b *testing.B) (*store.Store, *gorm.DB) {
	b.Helper()
	base := storetest.PostgresURL(b)
	if base == "" {
		b.Skipf("%s is not set", storetest.PostgresEnv)
	}
	admin, err := gorm.Open(postgres.Open(base), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		b.Fatal(err)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	schema := "bench_" + hex.EncodeToString(r[:])
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{URL: u.String()})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := gorm.Open(postgres.Open(u.String()), &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		b.Fatal(err)
	}
	sqlDB, _ := raw.DB()
	sqlDB.SetMaxOpenConns(32)
	sqlDB.SetMaxIdleConns(32)
	b.Cleanup(func() {
		_ = st.Close()
		_ = sqlDB.Close()
		_ = admin.Exec("DROP SCHEMA " + schema + " CASCADE").Error
		if d, err := admin.DB(); err == nil {
			_ = d.Close()
		}
	})
	if err := st.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	return st, raw
}

// benchTenant creates a tenant with customers c-<n>@bench.test and returns the scope of a
// machine key of it.
func benchTenant(b *testing.B, st *store.Store, customers int) *store.Scoped {
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

// BenchmarkRawInsert is the baseline of the ingest benchmarks: one single-row INSERT into the
// events table per operation, autocommit, from 32 goroutines (run with -cpu 32 or rely on
// SetParallelism).
func BenchmarkRawInsert(b *testing.B) {
	st, raw := benchPostgres(b)
	sc := benchTenant(b, st, 1)
	tenant := sc.Principal().TenantID
	b.SetParallelism(16) // 2 CPUs × 16 = 32 goroutines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := benchSeq.Add(1)
			ext := fmt.Sprintf("raw-%d", n)
			now := time.Now().UTC()
			e := &models.Event{ID: models.NewID(), TenantID: tenant, Type: "feature.used", Source: models.EventSourceIngest,
				ActorKind: "machine_key", Payload: `{"feature":"export","seats":7}`, ExternalID: &ext, OccurredAt: now, ReceivedAt: now}
			if err := raw.Create(e).Error; err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkIngestSingle ingests one event per call from 32 goroutines.
func BenchmarkIngestSingle(b *testing.B) {
	st, _ := benchPostgres(b)
	sc := benchTenant(b, st, 100)
	ctx := context.Background()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := sc.Ingest(ctx, []models.IngestEvent{benchEvent(benchSeq.Add(1))})
			if err != nil || res[0].Status != models.IngestStored {
				b.Errorf("ingest: %v %+v", err, res)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIngestBatch ingests 500 events per call from 4 goroutines.
func BenchmarkIngestBatch(b *testing.B) {
	st, _ := benchPostgres(b)
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
}
