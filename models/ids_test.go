package models

import (
	"regexp"
	"sync"
	"testing"
	"time"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestIDsAreUUIDv7AndStrictlyIncreasingWithinAProcess(t *testing.T) {
	before := time.Now().UnixMilli()
	prev := ""
	for range 20000 { // far more than 4096 per millisecond on any machine
		id := NewID()
		if !uuidV7.MatchString(id) {
			t.Fatalf("%q is not a UUIDv7", id)
		}
		if id <= prev {
			t.Fatalf("%q follows %q", id, prev)
		}
		prev = id
	}
	var first [16]byte
	if got := formatID(first, before, 0)[:13]; NewID()[:13] < got {
		t.Fatalf("ids went back in time")
	}
}

func TestIDsFromManyGoroutinesAreUnique(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				id := NewID()
				mu.Lock()
				if seen[id] {
					t.Errorf("duplicate id %s", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func TestACounterOverflowBorrowsTheNextMillisecond(t *testing.T) {
	idClock.Lock()
	saved, savedSeq := idClock.ms, idClock.seq
	idClock.Unlock()
	t.Cleanup(func() {
		idClock.Lock()
		idClock.ms, idClock.seq = saved, savedSeq
		idClock.Unlock()
	})
	ms, seq := nextIDTick(time.Now().Add(time.Hour).UnixMilli(), 0x0ffe)
	if seq != 0x0ffe {
		t.Fatalf("a new millisecond starts at %d, want the seed", seq)
	}
	ms2, seq2 := nextIDTick(ms-5, 3)
	if ms2 != ms || seq2 != 0x0fff {
		t.Fatalf("a clock going back kept (%d,%d), want (%d,%d)", ms2, seq2, ms, 0x0fff)
	}
	ms3, seq3 := nextIDTick(ms, 7)
	if ms3 != ms+1 || seq3 != 7 {
		t.Fatalf("overflow gave (%d,%d), want (%d,7)", ms3, seq3, ms+1)
	}
}
