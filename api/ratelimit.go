package api

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// failureLimiter counts failures per key in fixed windows and refuses a key that reached its
// limit until the window ends. It is per process: behind a load balancer each process limits
// on its own, so the effective limit is the configured one times the number of processes.
type failureLimiter struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	entries map[string]*failureWindow
}

type failureWindow struct {
	start time.Time
	count int
}

func newFailureLimiter(limit int, window time.Duration) *failureLimiter {
	return &failureLimiter{limit: limit, window: window, now: time.Now, entries: map[string]*failureWindow{}}
}

// blocked reports whether key is over its limit and, if so, for how long.
func (l *failureLimiter) blocked(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.entries[key]
	if !ok {
		return false, 0
	}
	now := l.now()
	if now.Sub(w.start) >= l.window {
		delete(l.entries, key)
		return false, 0
	}
	if w.count < l.limit {
		return false, 0
	}
	return true, w.start.Add(l.window).Sub(now)
}

// fail counts one failure of key.
func (l *failureLimiter) fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w, ok := l.entries[key]
	if !ok || now.Sub(w.start) >= l.window {
		w = &failureWindow{start: now}
		l.entries[key] = w
		if len(l.entries) > 100_000 {
			l.sweep(now)
		}
	}
	w.count++
}

// reset forgets key's failures (after a success).
func (l *failureLimiter) reset(key string) {
	l.mu.Lock()
	delete(l.entries, key)
	l.mu.Unlock()
}

func (l *failureLimiter) sweep(now time.Time) {
	for k, w := range l.entries {
		if now.Sub(w.start) >= l.window {
			delete(l.entries, k)
		}
	}
}

// tooManyRequests is the 429 problem with Retry-After and the IETF RateLimit headers.
func tooManyRequests(ctx context.Context, l *failureLimiter, retry time.Duration, detail string) *Problem {
	secs := max(int(retry.Round(time.Second)/time.Second), 1)
	p := newProblem(ctx, http.StatusTooManyRequests, detail)
	p.headers = http.Header{}
	p.headers.Set("Retry-After", strconv.Itoa(secs))
	p.headers.Set("RateLimit-Policy", strconv.Itoa(l.limit)+";w="+strconv.Itoa(int(l.window/time.Second)))
	p.headers.Set("RateLimit", "limit="+strconv.Itoa(l.limit)+", remaining=0, reset="+strconv.Itoa(secs))
	return p
}
