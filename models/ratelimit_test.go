package models

import (
	"testing"
	"time"
)

func TestGCRAAdmitsABurstThenOneUnitPerEmission(t *testing.T) {
	q := Quota{Limit: 4, Window: 4 * time.Second} // one unit a second
	l := RateLimit{Policy: "p", Key: "k", Quota: q}
	now := int64(1_000_000_000)
	var tat int64
	for i := range 4 {
		var ok bool
		if tat, ok = GCRA(q, tat, now); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
		if d := DecideRate(l, tat, now, true); d.Remaining != 3-i {
			t.Fatalf("after %d: remaining %d", i+1, d.Remaining)
		}
	}
	if next, ok := GCRA(q, tat, now); ok || next != tat {
		t.Fatal("the fifth request at once was admitted or moved the arrival time")
	}
	d := PeekRate(l, tat, now)
	if d.Allowed || d.RetryAfter != time.Second || d.Reset != 4*time.Second {
		t.Fatalf("refusal = %+v; want retry 1s, reset 4s", d)
	}
	if _, ok := GCRA(q, tat, now+999_999); ok {
		t.Fatal("admitted before one unit returned")
	}
	if _, ok := GCRA(q, tat, now+1_000_000); !ok {
		t.Fatal("refused once one unit returned")
	}
	if d := PeekRate(l, tat, now+10_000_000); !d.Allowed || d.Remaining != 4 || d.Reset != 0 {
		t.Fatalf("after the window: %+v; want the whole quota", d)
	}
}

func TestParseQuota(t *testing.T) {
	for in, want := range map[string]Quota{
		"600/1m": {600, time.Minute}, " 5 / 15m ": {5, 15 * time.Minute}, "off": {}, "0": {},
	} {
		if got, err := ParseQuota(in); err != nil || got != want {
			t.Errorf("ParseQuota(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "600", "600/", "-1/1m", "10/0s", "10/500ms", "x/1m", "10/1000h"} {
		if _, err := ParseQuota(bad); err == nil {
			t.Errorf("ParseQuota(%q) accepted", bad)
		}
	}
	if s := (Quota{600, time.Minute}).String(); s != "600/1m0s" {
		t.Errorf("String = %q", s)
	}
}
