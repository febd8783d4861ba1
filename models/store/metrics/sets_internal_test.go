package metrics

import (
	"slices"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

func TestOrdinalSetsRoundTripInTheShorterEncodingAndUnionExactly(t *testing.T) {
	dense := make([]int64, 0, 3000)
	for o := int64(5000); o < 9000; o++ {
		if o%4 != 0 {
			dense = append(dense, o)
		}
	}
	cases := []struct {
		name string
		ords []int64
		want byte
	}{
		{"empty", nil, setVarints},
		{"a few scattered values", []int64{7, 3, 1 << 30, 3, 70000}, setVarints},
		{"a dense range far from zero", dense, setBitmap},
		{"one word", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 63}, setBitmap},
	}
	var all bitset
	union := map[int64]bool{}
	for _, c := range cases {
		enc := encodeOrdinals(slices.Clone(c.ords))
		if enc[0] != c.want {
			t.Errorf("%s: encoding %d, want %d", c.name, enc[0], c.want)
		}
		want := slices.Clone(c.ords)
		slices.Sort(want)
		want = slices.Compact(want)
		got := decodeOrdinals(enc, nil)
		slices.Sort(got)
		if !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Errorf("%s: decoded %v, want %v", c.name, got, want)
		}
		all.addEncoded(enc)
		for _, o := range want {
			union[o] = true
		}
	}
	if all.count() != int64(len(union)) {
		t.Errorf("union counts %d, want %d", all.count(), len(union))
	}
	// Out-of-range ordinals are dropped, never wrapped.
	if got := decodeOrdinals(encodeOrdinals([]int64{-1, maxOrdinal, 2}), nil); !slices.Equal(got, []int64{2}) {
		t.Errorf("out of range kept: %v", got)
	}
}

func TestSpansCoverTheRangeOnceWithTheCoarsestRows(t *testing.T) {
	from := time.Date(2025, 11, 27, 9, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		interval string
		grains   map[int64]int
	}{
		{"", map[int64]int{grainMonth: 11, grainDay: 3 + 27, grainHour: 15 + 8}},
		{models.IntervalMonth, map[int64]int{grainMonth: 11, grainDay: 3 + 27, grainHour: 15 + 8}},
		{models.IntervalDay, map[int64]int{grainDay: 365, grainHour: 15 + 8}},
		{models.IntervalHour, map[int64]int{grainHour: 366*24 - 1}},
	} {
		cmp := &computation{res: &models.MetricResult{From: from, To: to}, interval: c.interval}
		got := map[int64]int{}
		covered := map[int64]bool{}
		for _, sp := range cmp.spans() {
			for t0 := time.Unix(sp.from, 0).UTC(); t0.Unix() < sp.to; {
				next := t0.Add(time.Duration(sp.grain) * time.Second)
				switch sp.grain {
				case grainMonth:
					next = t0.AddDate(0, 1, 0)
				}
				got[sp.grain]++
				for h := t0; h.Before(next); h = h.Add(time.Hour) {
					if covered[h.Unix()] {
						t.Fatalf("interval %q: hour %v covered twice", c.interval, h)
					}
					covered[h.Unix()] = true
				}
				t0 = next
			}
		}
		if len(covered) != int(to.Sub(from)/time.Hour) {
			t.Errorf("interval %q: %d hours covered, want %d", c.interval, len(covered), int(to.Sub(from)/time.Hour))
		}
		for g, n := range c.grains {
			if got[g] != n {
				t.Errorf("interval %q: %d buckets of grain %d, want %d (%v)", c.interval, got[g], g, n, got)
			}
		}
	}
}
