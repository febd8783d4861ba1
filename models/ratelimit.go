package models

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Quota is a rate limit: Limit requests per Window, of which up to Limit may come at once
// (GCRA, the generic cell rate algorithm: one unit returns every Window/Limit). A quota with a
// Limit or Window of zero limits nothing.
type Quota struct {
	Limit  int
	Window time.Duration
}

// Off reports whether the quota limits nothing.
func (q Quota) Off() bool { return q.Limit <= 0 || q.Window <= 0 }

// String is the quota as ParseQuota reads it: "600/1m0s", or "off".
func (q Quota) String() string {
	if q.Off() {
		return "off"
	}
	return strconv.Itoa(q.Limit) + "/" + q.Window.String()
}

// ParseQuota reads "N/duration" (600/1m: 600 requests a minute) or "off" (also "0").
func ParseQuota(s string) (Quota, error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "0" {
		return Quota{}, nil
	}
	n, w, ok := strings.Cut(s, "/")
	limit, err := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err != nil || limit < 1 || limit > 1_000_000_000 {
		return Quota{}, fmt.Errorf("%q is not requests/window such as 600/1m, or off", s)
	}
	window, err := time.ParseDuration(strings.TrimSpace(w))
	if err != nil || window < time.Second || window > 31*24*time.Hour {
		return Quota{}, fmt.Errorf("%q: the window must be a duration from 1s to 744h, such as 1m", s)
	}
	return Quota{Limit: limit, Window: window}, nil
}

// EmissionMicros is the time one unit of the quota takes to return, in microseconds.
func (q Quota) EmissionMicros() int64 { return max(q.Window.Microseconds()/int64(q.Limit), 1) }

// ToleranceMicros is how far ahead of now the quota lets its theoretical arrival time run: the
// whole window, so that Limit requests fit at once.
func (q Quota) ToleranceMicros() int64 { return q.Window.Microseconds() }

// RateLimit is one quota applied to one partition: Policy names the quota (the name the
// RateLimit-Policy header shows, such as "machine-key") and Key what it counts (a key id, a
// tenant id, an email and a client address).
type RateLimit struct {
	Policy string
	Key    string
	Quota  Quota
}

// RateDecision is the state of one RateLimit after a request was counted or refused.
type RateDecision struct {
	RateLimit
	// Allowed is false when the quota had no unit left for the request.
	Allowed bool
	// Remaining is the number of requests the quota would allow at once now.
	Remaining int
	// Reset is the time until the whole quota is available again.
	Reset time.Duration
	// RetryAfter is, when the request was refused, the time until one unit is available.
	RetryAfter time.Duration
}

// GCRA decides one request against a quota whose theoretical arrival time is tat (0: never
// used) at now, both in microseconds: it answers the new theoretical arrival time and whether
// the request fits. A refused request leaves tat as it was. Postgres runs the same arithmetic in
// one statement (models/store/ratelimit.go); the two must stay equal.
func GCRA(q Quota, tat, now int64) (int64, bool) {
	next := max(tat, now) + q.EmissionMicros()
	if next-q.ToleranceMicros() > now {
		return tat, false
	}
	return next, true
}

// DecideRate is the decision of l whose theoretical arrival time after the request is tat, at
// now (microseconds).
func DecideRate(l RateLimit, tat, now int64, allowed bool) RateDecision {
	d := RateDecision{RateLimit: l, Allowed: allowed}
	t, tau := l.Quota.EmissionMicros(), l.Quota.ToleranceMicros()
	ahead := max(tat-now, 0)
	d.Remaining = int(min(max((tau-ahead)/t, 0), int64(l.Quota.Limit)))
	d.Reset = time.Duration(ahead) * time.Microsecond
	if !allowed {
		d.Remaining = 0
		d.RetryAfter = time.Duration(max(max(tat, now)+t-tau-now, 1)) * time.Microsecond
	}
	return d
}

// PeekRate is the decision a request would get from l at now, without counting it.
func PeekRate(l RateLimit, tat, now int64) RateDecision {
	_, ok := GCRA(l.Quota, tat, now)
	return DecideRate(l, tat, now, ok)
}
