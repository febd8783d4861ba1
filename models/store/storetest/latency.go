package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

// Latencies are the durations of a benchmark's operations, reported as percentiles beside its
// ns/op: a mean hides the slow pages a user waits for.
type Latencies []time.Duration

// Add records one operation.
func (l *Latencies) Add(d time.Duration) { *l = append(*l, d) }

// Report adds the median, the 99th percentile and the slowest operation, in ms, to b's result.
func (l Latencies) Report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	s := slices.Clone(l)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(s[len(s)/2]), "p50-ms")
	b.ReportMetric(ms(s[len(s)*99/100]), "p99-ms")
	b.ReportMetric(ms(s[len(s)-1]), "max-ms")
}

// Explain logs Postgres's plan of a statement, run with its arguments, under name.
func Explain(b *testing.B, raw *gorm.DB, name, sql string, args ...any) {
	b.Helper()
	var lines []string
	if err := raw.Raw("EXPLAIN (ANALYZE, BUFFERS) "+sql, args...).Scan(&lines).Error; err != nil {
		b.Fatal(err)
	}
	b.Logf("EXPLAIN %s:\n  %s", name, strings.Join(lines, "\n  "))
}
