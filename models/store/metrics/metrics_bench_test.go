package metrics_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// Shape of the metric benchmark's data: one tenant with benchMetricEvents invoice.paid events
// (PARTNERD_BENCH_METRIC_EVENTS overrides the count, e.g. 5000000)
// spread over a year of occurrence times (received in a different order), benchCustomers
// customers spread over benchPartners partners (every 21st customer unattributed), plus noise:
// events of another type in the same tenant and events of the same type in another tenant.
const (
	benchMetricEvents = 1_000_000
	benchNoiseEvents  = 200_000
	benchCustomers    = 20_000
	benchPartners     = 20
	benchDays         = 365
)

// seedMetricEvents inserts n events of type typ for tenant with one INSERT ... SELECT. Event i
// was received i/1000 ms after receivedFrom (ids are UUIDv7 texts in that order) and occurred
// at a pseudo-random second of the benchDays before occurredTo, so receipt and occurrence
// orders differ.
func seedMetricEvents(b *testing.B, raw *gorm.DB, tenant, slug, typ string, n int, receivedFrom, occurredTo time.Time) {
	b.Helper()
	err := raw.Exec(`
INSERT INTO events (id, tenant_id, type, source, customer_id, partner_id, actor_kind, actor_id, depth, payload, occurred_at, received_at)
SELECT lpad(to_hex((ms >> 16)), 8, '0') || '-' || lpad(to_hex(ms & 65535), 4, '0') || '-7' || lpad(to_hex(i % 4096), 3, '0') ||
         '-8000-' || lpad(to_hex(i), 12, '0'),
       @tenant, @type, 'ingest', c.id, c.partner_id, 'machine_key', 'bench', 0,
       '{"amount": ' || (i % 100000 + 1) || ', "currency": "EUR", "plan": "p' || (i % 7) || '"}',
       CAST(@occurredTo AS timestamptz) - make_interval(secs => (i::bigint * 7919) % @span),
       to_timestamp(ms / 1000.0)
FROM (SELECT i, CAST(@receivedFrom AS bigint) + i / 1000 AS ms FROM generate_series(1, @n) AS i) g
JOIN customers c ON c.tenant_id = @tenant AND c.id = @slug || '-' || lpad((((g.i::bigint * 104729) % @customers))::text, 12, '0')`,
		map[string]any{"tenant": tenant, "slug": slug, "type": typ, "n": n, "receivedFrom": receivedFrom.UnixMilli(),
			"occurredTo": occurredTo, "span": benchDays * 86400, "customers": benchCustomers}).Error
	if err != nil {
		b.Fatal(err)
	}
}

// seedBenchTenant creates a tenant with partners and customers and returns its operator scope.
func seedBenchTenant(b *testing.B, st *stores.Set, raw *gorm.DB, slug string) (*stores.Scoped, string) {
	b.Helper()
	ctx := context.Background()
	tenant := &models.Tenant{Slug: slug, Name: slug}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner", PasswordHash: "x"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		b.Fatal(err)
	}
	op := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})
	partners := make([]string, 0, benchPartners)
	for i := range benchPartners {
		p := &models.Partner{Name: fmt.Sprintf("P%d", i), Type: models.PartnerAgency, Level: []string{"Gold", "Silver"}[i%2]}
		if err := op.CreatePartner(ctx, p); err != nil {
			b.Fatal(err)
		}
		partners = append(partners, "'"+p.ID+"'")
	}
	err := raw.Exec(`
INSERT INTO customers (id, tenant_id, email, partner_id, name, created_at, updated_at)
SELECT @slug || '-' || lpad(j::text, 12, '0'), @tenant, 'c' || j || '@' || @slug || '.test',
       CASE WHEN j % 21 = 20 THEN NULL ELSE (ARRAY[`+strings.Join(partners, ",")+`])[1 + j % 20] END, '', now(), now()
FROM generate_series(0, @customers - 1) AS j`,
		map[string]any{"tenant": tenant.ID, "slug": slug, "customers": benchCustomers}).Error
	if err != nil {
		b.Fatal(err)
	}
	return op, tenant.ID
}

// BenchmarkMetricCompute computes a count, a sum and a unique metric over a million events of
// one tenant on Postgres, over the whole year and over 30 days with a daily series. The
// rollups are built (and timed) before the measured loops; every measured compute still
// catches its rollup up and reads the events not rolled up yet, as a request does.
func BenchmarkMetricCompute(b *testing.B) {
	st, raw := storetest.BenchPostgres(b)
	ctx := context.Background()
	now := time.Now().UTC()
	op, tenantID := seedBenchTenant(b, st, raw, "metrics")
	_, otherID := seedBenchTenant(b, st, raw, "noise")
	start := time.Now()
	received := now.Add(-2 * time.Hour)
	events := benchMetricEvents
	if v, err := strconv.Atoi(os.Getenv("PARTNERD_BENCH_METRIC_EVENTS")); err == nil && v > 0 {
		events = v
	}
	seedMetricEvents(b, raw, tenantID, "metrics", "invoice.paid", events, received.Add(-time.Hour), now)
	seedMetricEvents(b, raw, tenantID, "metrics", "feature.used", benchNoiseEvents, received, now)
	seedMetricEvents(b, raw, otherID, "noise", "invoice.paid", benchNoiseEvents, received.Add(10*time.Minute), now)
	if err := raw.Exec("ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	var n int64
	raw.Table("events").Where("tenant_id = ? AND type = ?", tenantID, "invoice.paid").Count(&n)
	if n != int64(events) {
		b.Fatalf("seeded %d events, want %d", n, events)
	}
	b.Logf("seeded %d + %d noise events in %v", n, 2*benchNoiseEvents, time.Since(start).Round(time.Millisecond))

	metrics := []*models.Metric{
		{Name: "Invoices", Kind: models.MetricCount, EventType: "invoice.paid"},
		{Name: "Revenue", Kind: models.MetricSum, EventType: "invoice.paid", Field: "amount"},
		{Name: "Paying customers", Kind: models.MetricUnique, EventType: "invoice.paid", Field: models.MetricFieldCustomer},
	}
	opCtx := models.WithPrincipal(ctx, &models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID})
	for _, m := range metrics {
		if err := op.CreateMetric(opCtx, m, nil); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := st.RollUpMetric(ctx, models.System(tenantID), m.ID, time.Now()); err != nil {
			b.Fatal(err)
		}
		b.Logf("rollup of %s built in %v", m.Kind, time.Since(start).Round(time.Millisecond))
	}
	whole := models.MetricQuery{From: now.AddDate(0, 0, -benchDays-1), To: now.Add(time.Hour)}
	month := models.MetricQuery{From: now.AddDate(0, 0, -30), To: now, Interval: models.IntervalDay}
	for _, m := range metrics {
		for _, c := range []struct {
			name string
			q    models.MetricQuery
		}{{"whole-year", whole}, {"30-days-daily", month}} {
			b.Run(m.Kind+"/"+c.name, func(b *testing.B) {
				var res *models.MetricResult
				for b.Loop() {
					var err error
					if res, err = op.ComputeMetric(ctx, m.ID, c.q); err != nil {
						b.Fatal(err)
					}
				}
				if c.q.Interval != "" && len(res.Series) < 30 {
					b.Fatalf("series of %d points", len(res.Series))
				}
				if m.Kind == models.MetricCount && c.name == "whole-year" && res.Value != int64(events) {
					b.Fatalf("count = %d, want %d", res.Value, events)
				}
				b.ReportMetric(float64(res.Value), "value")
			})
		}
	}
}
