package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/partnerd/partnerd/models"
)

// rateLimits is the state of the quotas a Store decides (ADR 22): on SQLite the theoretical
// arrival time of every quota, in this process; on Postgres only the refusals this process has
// seen, each certain until its time (a quota's arrival time never moves back while it refuses),
// so a caller far over its quota is refused without a round trip.
type rateLimits struct {
	mu sync.Mutex
	// tats holds SQLite's theoretical arrival times, microseconds, by stored key.
	tats map[string]int64
	// refused holds Postgres refusals by stored key.
	refused map[string]refusal
	// lastSweep is when this process last deleted the spent rows of Postgres (Unix seconds).
	lastSweep atomic.Int64
	// batches holds, by the signature of a set of quotas, the takes of that set waiting while
	// a Postgres statement for it is in flight; a set is present only while one is.
	batches map[string]*rateBatch
}

// rateBatch is the takes of one set of quotas that arrived while a statement for the same set
// was in flight: the next statement decides them together, in the order they arrived.
type rateBatch struct {
	pending []*rateTake
}

// rateTake is one request's take of a set of quotas, answered in key order.
type rateTake struct {
	done chan struct{}
	out  []models.RateDecision
	err  error
}

// maxRateBatch bounds the takes one statement decides.
const maxRateBatch = 256

// rateStatementTimeout bounds a statement deciding a batch, which runs on even when the
// request that started it is gone.
const rateStatementTimeout = 10 * time.Second

// refusal is a refusal seen on Postgres: the decision and, on this process's clock, until when
// it holds.
type refusal struct {
	decision models.RateDecision
	until    time.Time
}

// maxRateEntries bounds each map of rateLimits; past it, spent entries are swept.
const maxRateEntries = 100_000

// rateSweepEvery is how often a process deletes the spent rows of the Postgres table.
const rateSweepEvery = time.Minute

// rateKey is the stored key of l: its policy and a hash of its partition, so that no email or
// client address is kept.
func rateKey(l models.RateLimit) string {
	sum := sha256.Sum256([]byte(l.Key))
	return l.Policy + ":" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// rateItem is one limit of a request with its stored key.
type rateItem struct {
	key   string
	limit models.RateLimit
	// order is the limit's place among the caller's limits that limit something.
	order int
}

// rateItems are the limits that limit something, one per stored key, ordered by key (the
// order Postgres locks them in, so that two requests never wait on each other's rows).
func rateItems(limits []models.RateLimit) []rateItem {
	items := make([]rateItem, 0, len(limits))
	seen := map[string]bool{}
	for _, l := range limits {
		if k := rateKey(l); !l.Quota.Off() && !seen[k] {
			seen[k] = true
			items = append(items, rateItem{key: k, limit: l, order: len(items)})
		}
	}
	slices.SortFunc(items, func(a, b rateItem) int { return cmp.Compare(a.key, b.key) })
	return items
}

// TakeRate counts one request against every limit when each has a unit left, and counts
// nothing when one has none: a refused request spends no quota. It answers each limit's state
// (those limiting nothing left out); on Postgres a refusal this process already knows to hold
// answers only the refusing limits, without asking the database. The quotas of every process
// on the same Postgres are one; SQLite's are this process's.
func (s *Store) TakeRate(ctx context.Context, limits []models.RateLimit) ([]models.RateDecision, error) {
	items := rateItems(limits)
	if len(items) == 0 {
		return nil, nil
	}
	if s.dialect != Postgres {
		return s.takeRateInMemory(items, time.Now().UnixMicro()), nil
	}
	if refused := s.knownRefusals(items, time.Now()); refused != nil {
		return refused, nil
	}
	out, err := s.takeRateShared(ctx, items)
	if err != nil {
		return nil, WrapUnavailable(err) // its rows are read from the connection directly
	}
	s.noteRefusals(items, out, time.Now())
	s.sweepRates(ctx)
	return inOrder(items, out), nil
}

// PeekRate answers the state of every limit without counting a request.
func (s *Store) PeekRate(ctx context.Context, limits []models.RateLimit) ([]models.RateDecision, error) {
	items := rateItems(limits)
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]models.RateDecision, len(items))
	if s.dialect != Postgres {
		now := time.Now().UnixMicro()
		s.rates.mu.Lock()
		defer s.rates.mu.Unlock()
		for i, it := range items {
			out[i] = models.PeekRate(it.limit, s.rates.tats[it.key], now)
		}
		return inOrder(items, out), nil
	}
	var (
		b    strings.Builder
		args []any
	)
	b.WriteString(`SELECT v.key, coalesce(r.tat, 0), (extract(epoch FROM clock_timestamp()) * 1000000)::bigint FROM (VALUES `)
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?::text)")
		args = append(args, it.key)
	}
	b.WriteString(`) AS v(key) LEFT JOIN rate_limits r ON r.key = v.key`)
	rows, err := s.db.WithContext(ctx).Raw(b.String(), args...).Rows()
	if err != nil {
		return nil, WrapUnavailable(fmt.Errorf("store: peek rate limits: %w", err))
	}
	defer rows.Close()
	index := rateIndex(items)
	for rows.Next() {
		var (
			key      string
			tat, now int64
		)
		if err := rows.Scan(&key, &tat, &now); err != nil {
			return nil, WrapUnavailable(fmt.Errorf("store: peek rate limits: %w", err))
		}
		i := index[key]
		out[i] = models.PeekRate(items[i].limit, tat, now)
	}
	if err := rows.Err(); err != nil {
		return nil, WrapUnavailable(fmt.Errorf("store: peek rate limits: %w", err))
	}
	return inOrder(items, out), nil
}

// ForgetRate gives l its whole quota back (a successful sign-in forgets the failures before it).
func (s *Store) ForgetRate(ctx context.Context, l models.RateLimit) error {
	key := rateKey(l)
	s.rates.mu.Lock()
	delete(s.rates.tats, key)
	delete(s.rates.refused, key)
	s.rates.mu.Unlock()
	if s.dialect != Postgres {
		return nil
	}
	if err := s.db.WithContext(ctx).Exec("DELETE FROM rate_limits WHERE key = ?", key).Error; err != nil {
		return fmt.Errorf("store: forget rate limit: %w", err)
	}
	return nil
}

func (s *Store) takeRateInMemory(items []rateItem, now int64) []models.RateDecision {
	r := s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tats == nil {
		r.tats = map[string]int64{}
	}
	if len(r.tats) > maxRateEntries {
		for k, tat := range r.tats {
			if tat <= now {
				delete(r.tats, k)
			}
		}
	}
	out := make([]models.RateDecision, len(items))
	ok := true
	for _, it := range items {
		if _, fits := models.GCRA(it.limit.Quota, r.tats[it.key], now); !fits {
			ok = false
		}
	}
	for i, it := range items {
		tat := r.tats[it.key]
		if ok {
			tat, _ = models.GCRA(it.limit.Quota, tat, now)
			r.tats[it.key] = tat
			out[i] = models.DecideRate(it.limit, tat, now, true)
		} else {
			// Nothing is counted; a quota with room still says Allowed.
			out[i] = models.PeekRate(it.limit, tat, now)
		}
	}
	return inOrder(items, out)
}

// inOrder puts decisions, made in the order of items (ds[i] for items[i]), back in the order
// the caller named the limits in.
func inOrder(items []rateItem, ds []models.RateDecision) []models.RateDecision {
	out := make([]models.RateDecision, len(items))
	for i, it := range items {
		out[it.order] = ds[i]
	}
	return out
}

// takeRateShared takes one unit of every quota of items on Postgres, answered in key order.
// Takes of the same quotas in this process share statements: while one is in flight, the
// takes arriving queue, and the next statement decides them all, each as if it came alone in
// the order it arrived. A busy quota then costs one row lock and one round trip per batch, not
// per request, and waiting requests hold no database connection. A request whose context ends
// while it waits is answered with the context's error; its unit may still be counted.
func (s *Store) takeRateShared(ctx context.Context, items []rateItem) ([]models.RateDecision, error) {
	sig := rateSignature(items)
	t := &rateTake{done: make(chan struct{})}
	r := s.rates
	r.mu.Lock()
	if r.batches == nil {
		r.batches = map[string]*rateBatch{}
	}
	if b, busy := r.batches[sig]; busy {
		b.pending = append(b.pending, t)
		r.mu.Unlock()
		select {
		case <-t.done:
			return t.out, t.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.batches[sig] = &rateBatch{}
	r.mu.Unlock()
	s.runRateBatch(context.WithoutCancel(ctx), sig, items, []*rateTake{t})
	return t.out, t.err
}

// runRateBatch decides takes in one statement, then hands the takes that queued meanwhile to a
// new run, or marks the set idle.
func (s *Store) runRateBatch(ctx context.Context, sig string, items []rateItem, takes []*rateTake) {
	stmt, cancel := context.WithTimeout(ctx, rateStatementTimeout)
	outs, err := s.takeRatePostgres(stmt, items, len(takes))
	cancel()
	for i, t := range takes {
		if err != nil {
			t.err = err
		} else {
			t.out = outs[i]
		}
		close(t.done)
	}
	r := s.rates
	r.mu.Lock()
	b := r.batches[sig]
	next := b.pending[:min(len(b.pending), maxRateBatch)]
	b.pending = b.pending[len(next):]
	if len(next) == 0 {
		delete(r.batches, sig)
	}
	r.mu.Unlock()
	if len(next) > 0 {
		go s.runRateBatch(ctx, sig, items, next)
	}
}

// rateSignature names a set of quotas: their keys and quotas, in key order.
func rateSignature(items []rateItem) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s/%d/%d;", it.key, it.limit.Quota.EmissionMicros(), it.limit.Quota.ToleranceMicros())
	}
	return b.String()
}

// takeRateSQL decides n requests of the same quotas in one statement: it locks the rows of the
// quotas in key order and admits the first m of the n requests, m being the most that fit every
// quota (GCRA, as models.GCRA: a request fits when max(tat, now) + emission - tolerance <= now,
// and each admitted one moves tat on by one emission), and writes the new arrival times only
// when m > 0. Every request after the first refused one is refused too, so m requests are
// admitted in order as if each came alone. Times are the database's clock, so the processes'
// clocks need not agree. Two statements that both see a quota's row missing both count from
// now; the second then adds its units to the first's row, so a new quota can admit one batch
// more per racing process, once.
const takeRateSQL = `WITH clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS now),
v (key, emission, tolerance) AS (VALUES %s),
cur AS (SELECT r.key, r.tat FROM rate_limits r WHERE r.key IN (SELECT key FROM v) ORDER BY r.key FOR UPDATE),
verdict AS (
	SELECT greatest(0, least(?::bigint, min((clock.now + v.tolerance - greatest(coalesce(cur.tat, 0), clock.now)) / v.emission))) AS units
	FROM v CROSS JOIN clock LEFT JOIN cur ON cur.key = v.key
),
w AS (
	INSERT INTO rate_limits AS r (key, tat, emission, tolerance)
	SELECT v.key, clock.now + v.emission * verdict.units, v.emission, v.tolerance FROM v, clock, verdict WHERE verdict.units > 0
	ORDER BY v.key
	ON CONFLICT (key) DO UPDATE SET
		tat = greatest(r.tat, (SELECT now FROM clock)) + excluded.emission * (SELECT units FROM verdict),
		emission = excluded.emission, tolerance = excluded.tolerance
	RETURNING r.key, r.tat
)
SELECT v.key, coalesce(w.tat, cur.tat, 0), clock.now, verdict.units
FROM v CROSS JOIN clock CROSS JOIN verdict LEFT JOIN w ON w.key = v.key LEFT JOIN cur ON cur.key = v.key`

// takeRatePostgres decides n requests of the same quotas with takeRateSQL: the decisions of each,
// in key order. Racing statements whose quotas overlap lock the same rows; when Postgres still
// picks one of them as a deadlock (or serialisation) victim, it changed nothing and is tried
// again, a few times.
func (s *Store) takeRatePostgres(ctx context.Context, items []rateItem, n int) ([][]models.RateDecision, error) {
	var err error
	for attempt := range 4 {
		var out [][]models.RateDecision
		if out, err = s.takeRatePostgresOnce(ctx, items, n); err == nil || !retryableConflict(err) {
			return out, err
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * time.Millisecond)
	}
	return nil, err
}

// retryableConflict reports whether Postgres refused a statement as a deadlock victim or a
// serialisation failure: the statement did nothing and may be run again.
func retryableConflict(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001")
}

func (s *Store) takeRatePostgresOnce(ctx context.Context, items []rateItem, n int) ([][]models.RateDecision, error) {
	values := make([]string, len(items))
	args := make([]any, 0, 3*len(items)+1)
	for i, it := range items {
		values[i] = "(?::text, ?::bigint, ?::bigint)"
		args = append(args, it.key, it.limit.Quota.EmissionMicros(), it.limit.Quota.ToleranceMicros())
	}
	args = append(args, n)
	index := rateIndex(items)
	rows, err := s.db.WithContext(ctx).Raw(fmt.Sprintf(takeRateSQL, strings.Join(values, ", ")), args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("store: take rate limits: %w", err)
	}
	defer rows.Close()
	out := make([][]models.RateDecision, n)
	for k := range out {
		out[k] = make([]models.RateDecision, len(items))
	}
	for rows.Next() {
		var (
			key           string
			tat, now, got int64
		)
		if err := rows.Scan(&key, &tat, &now, &got); err != nil {
			return nil, fmt.Errorf("store: take rate limits: %w", err)
		}
		i, l := index[key], items[index[key]].limit
		emission := l.Quota.EmissionMicros()
		// The m admitted requests moved tat on from base one emission each; the rest saw it
		// at its final value and were refused.
		base := tat - emission*got
		for k := range out {
			if int64(k) < got {
				out[k][i] = models.DecideRate(l, base+emission*int64(k+1), now, true)
			} else {
				out[k][i] = models.PeekRate(l, tat, now)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: take rate limits: %w", err)
	}
	return out, nil
}

// rateIndex maps each stored key to its place in items.
func rateIndex(items []rateItem) map[string]int {
	index := make(map[string]int, len(items))
	for i, it := range items {
		index[it.key] = i
	}
	return index
}

// knownRefusals answers the refusals this process saw that still hold for items, or nil.
func (s *Store) knownRefusals(items []rateItem, now time.Time) []models.RateDecision {
	r := s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []models.RateDecision
	for _, it := range items {
		ref, ok := r.refused[it.key]
		if !ok {
			continue
		}
		left := ref.until.Sub(now)
		if left <= 0 || ref.decision.Quota != it.limit.Quota {
			delete(r.refused, it.key)
			continue
		}
		d := ref.decision
		d.RetryAfter = left
		d.Reset = max(d.Reset-(ref.decision.RetryAfter-left), left)
		out = append(out, d)
	}
	return out
}

// noteRefusals remembers the refusing decisions among out (out[i] for items[i]) until their
// RetryAfter passes.
func (s *Store) noteRefusals(items []rateItem, out []models.RateDecision, now time.Time) {
	if allAllowed(out) {
		return
	}
	r := s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refused == nil {
		r.refused = map[string]refusal{}
	}
	if len(r.refused) > maxRateEntries {
		for k, ref := range r.refused {
			if !ref.until.After(now) {
				delete(r.refused, k)
			}
		}
	}
	for i, d := range out {
		if !d.Allowed {
			r.refused[items[i].key] = refusal{decision: d, until: now.Add(d.RetryAfter)}
		}
	}
}

func allAllowed(ds []models.RateDecision) bool {
	for _, d := range ds {
		if !d.Allowed {
			return false
		}
	}
	return true
}

// sweepRates deletes, at most once a minute per process, the rows whose quota is whole again
// (a row whose arrival time has passed says nothing a missing row does not).
func (s *Store) sweepRates(ctx context.Context) {
	now := time.Now().Unix()
	last := s.rates.lastSweep.Load()
	if now-last < int64(rateSweepEvery/time.Second) || !s.rates.lastSweep.CompareAndSwap(last, now) {
		return
	}
	_ = s.db.WithContext(ctx).Exec(`DELETE FROM rate_limits WHERE tat < (extract(epoch FROM clock_timestamp()) * 1000000)::bigint`).Error
}
