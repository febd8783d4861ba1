package api

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
)

// BenchmarkLogin measures POST /api/auth/login through the whole HTTP stack on the embedded
// database, and reports the median and 99th percentile besides the mean.
func BenchmarkLogin(b *testing.B) {
	st, err := stores.Open(context.Background(), store.Config{SQLitePath: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	s, _ := identityServer(b, st)
	_, email := seedTenant(b, st, "bench")
	h := s.Handler()
	body := `{"email":"` + email + `","password":"` + ownerPassword + `"}`
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		res := doBench(h, body)
		durations = append(durations, time.Since(start))
		if res != http.StatusOK {
			b.Fatalf("login = %d", res)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
}
