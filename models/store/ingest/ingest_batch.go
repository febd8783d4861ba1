// Package ingest writes the events integrations send: group commit of concurrent requests,
// COPY on Postgres, and a cache of the customers they name.
package ingest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Group commit of ingested events: concurrent ingest requests hand their events to one
// transaction (one multi-row INSERT, one read of the client ids, one commit) instead of running
// a transaction each. Each request waits for the commit of the transaction holding its events
// and answers only then, so nothing is acknowledged before it is durable; a failed transaction
// fails every request it held. Nothing outlives the requests: the goroutine of one of the
// waiting requests runs the transaction.
const (
	// ingestMaxInflight is how many group transactions may run at the same time.
	ingestMaxInflight = 2
	// ingestMaxGroup bounds the events of one group transaction.
	ingestMaxGroup = 2000
	// ingestCommitTimeout bounds one group transaction, which no single client may cancel.
	ingestCommitTimeout = 30 * time.Second
	// ingestInsertChunk is the number of rows per INSERT statement.
	ingestInsertChunk = 500
)

// ingestGroups queues the events of concurrent ingest requests of one Store.
type ingestGroups struct {
	mu       sync.Mutex
	queue    []*ingestWork
	inflight int
}

// ingestWork is the events of one request, waiting for their group's commit.
type ingestWork struct {
	ctx    context.Context
	events []*models.Event
	// storedID maps each client event id of events to the id of the event stored under it,
	// which differs from ours when another request stored it first.
	storedID map[string]string
	err      error
	done     chan struct{} // closed after the group's commit or failure
	lead     chan struct{} // receives when this request's goroutine must run the next group
	asked    bool          // lead was signalled
}

// Engine writes ingested events: the group-commit queue, the customer cache and what COPY
// learnt of duplicates, for one database.
type Engine struct {
	core      *store.Store
	groups    ingestGroups
	customers CustomerCache
	copy      copyState
	// observe, when set, is told of every group commit.
	observe func(GroupStats)
}

// GroupStats is what one group commit wrote and how it went.
type GroupStats struct {
	// Requests and Events are the ingest requests committed together and their events.
	Requests, Events int
	// Took is the duration of the group's transaction.
	Took time.Duration
	// Failed reports that the transaction failed (each request got the error).
	Failed bool
}

// Observe makes the engine report every group commit to fn. Call it before the first Commit.
func (s *Engine) Observe(fn func(GroupStats)) { s.observe = fn }

// Queue reports the requests waiting for a group commit and their events.
func (s *Engine) Queue() (requests, events int) {
	q := &s.groups
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, w := range q.queue {
		events += len(w.events)
	}
	return len(q.queue), events
}

// New is the ingest engine on core's database.
func New(core *store.Store) *Engine {
	return &Engine{core: core, customers: CustomerCache{m: map[string]cachedCustomer{}}}
}

// Customers is the cache of the customers ingest resolved lately.
func (s *Engine) Customers() *CustomerCache { return &s.customers }

// Commit stores events (which carry their tenant) in a group transaction with those of
// concurrent requests and reports, for each client event id among them, the id of the event
// stored under it. It returns after the commit.
func (s *Engine) Commit(ctx context.Context, events []*models.Event) (map[string]string, error) {
	w := &ingestWork{ctx: ctx, events: events, done: make(chan struct{}), lead: make(chan struct{}, 1)}
	q := &s.groups
	q.mu.Lock()
	q.queue = append(q.queue, w)
	leading := q.inflight < ingestMaxInflight
	if leading {
		q.inflight++
	}
	q.mu.Unlock()
	for {
		if leading {
			q.runGroup(s)
			leading = false
		}
		select {
		case <-w.done:
			// A group of another request may have taken our events after we were asked to
			// lead; the slot we were handed must be used or freed.
			select {
			case <-w.lead:
				q.runGroup(s)
			default:
			}
			return w.storedID, w.err
		case <-w.lead:
			leading = true
		}
	}
}

// runGroup commits the longest prefix of the queue that fits in a group, then hands its slot to
// the first request still waiting, or frees it.
func (q *ingestGroups) runGroup(s *Engine) {
	q.mu.Lock()
	n, size := 0, 0
	for n < len(q.queue) && (n == 0 || size+len(q.queue[n].events) <= ingestMaxGroup) {
		size += len(q.queue[n].events)
		n++
	}
	if n == 0 {
		q.inflight--
		q.mu.Unlock()
		return
	}
	group := q.queue[:n:n]
	q.queue = q.queue[n:]
	if len(q.queue) == 0 {
		q.queue = nil
	}
	q.mu.Unlock()

	start := time.Now()
	s.commitGroup(group)
	if s.observe != nil {
		s.observe(GroupStats{Requests: len(group), Events: size, Took: time.Since(start), Failed: group[0].err != nil})
	}
	for _, w := range group {
		close(w.done)
	}

	q.mu.Lock()
	defer q.mu.Unlock()
	for _, w := range q.queue {
		if !w.asked {
			w.asked = true
			w.lead <- struct{}{}
			return
		}
	}
	q.inflight--
}

// commitGroup runs the transaction of one group and records its outcome in each work.
//
// Rows are inserted in the order of their tenant and client id, so that two group transactions
// that race for the same client ids wait for each other instead of deadlocking. The INSERT
// returns the ids it stored; only the events it skipped (their client id was stored before, by
// an earlier or concurrent transaction or by another event of this group) cost a read.
func (s *Engine) commitGroup(group []*ingestWork) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(group[0].ctx), ingestCommitTimeout)
	defer cancel()
	var events []*models.Event
	for _, w := range group {
		events = append(events, w.events...)
	}
	slices.SortStableFunc(events, func(a, b *models.Event) int {
		if c := strings.Compare(a.TenantID, b.TenantID); c != 0 {
			return c
		}
		return strings.Compare(store.Deref(a.ExternalID), store.Deref(b.ExternalID))
	})
	var stored map[string]map[string]string // tenant → client id → stored id
	subscribed, err := s.anySubscribed(ctx, events)
	copied := false
	if err == nil && s.core.Dialect() == store.Postgres && s.copy.worthTrying(events) {
		stored, copied, err = s.copyGroup(ctx, events, subscribed)
	}
	switch {
	case err != nil || copied:
	case s.core.Dialect() == store.Postgres && !subscribed:
		// Nothing to write beside the events, which one statement writes: it commits on its
		// own, without BEGIN and COMMIT round trips.
		stored, err = insertGroup(ctx, s.core.DB(ctx), nil, events, true)
	default:
		err = s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
			var err error
			stored, err = insertGroup(ctx, tx, ev, events, s.core.Dialect() == store.Postgres)
			return err
		})
	}
	err = store.WrapUnavailable(err) // the statements above read and write the connection directly
	for _, w := range group {
		if err != nil {
			w.err = err
			continue
		}
		for _, e := range w.events {
			if e.ExternalID == nil {
				continue
			}
			if w.storedID == nil {
				w.storedID = map[string]string{}
			}
			w.storedID[*e.ExternalID] = stored[e.TenantID][*e.ExternalID]
		}
	}
}

// insertGroup writes events in tx and reports, per tenant, the id stored under each client id.
// Without an Outbox (nothing subscribes to any of the events) it writes no outbox rows.
func insertGroup(ctx context.Context, tx *gorm.DB, ev *store.Outbox, events []*models.Event, postgres bool) (map[string]map[string]string, error) {
	inserted := make(map[string]bool, len(events))
	if postgres {
		if err := insertEventsPostgres(ctx, tx, events, inserted); err != nil {
			return nil, err
		}
	} else {
		for start := 0; start < len(events); start += ingestInsertChunk {
			if err := insertEvents(tx, events[start:min(start+ingestInsertChunk, len(events))], inserted); err != nil {
				return nil, err
			}
		}
	}
	fresh := make([]*models.Event, 0, len(events))
	var skipped []*models.Event
	for _, e := range events {
		if inserted[e.ID] {
			fresh = append(fresh, e)
		} else {
			skipped = append(skipped, e)
		}
	}
	stored, err := storedClientIDs(tx, skipped)
	if err != nil {
		return nil, err
	}
	noteStored(stored, fresh)
	if ev == nil {
		return stored, nil
	}
	return stored, ev.Add(ctx, tx, fresh...)
}

// noteStored records in stored (tenant → client id → event id) the client ids of events, which
// were stored under their own ids.
func noteStored(stored map[string]map[string]string, events []*models.Event) {
	for _, e := range events {
		if e.ExternalID == nil {
			continue
		}
		if stored[e.TenantID] == nil {
			stored[e.TenantID] = map[string]string{}
		}
		stored[e.TenantID][*e.ExternalID] = e.ID
	}
}

// anySubscribed reports whether something subscribes to any of events. It loads the
// subscriptions of their tenants unless they are cached, so that the outbox decisions inside the
// transaction that may follow read nothing on another connection: SQLite holds its one write
// lock for the whole transaction, and a read waiting for a free connection of a pool held by
// transactions queued on that lock would stall them all.
func (s *Engine) anySubscribed(ctx context.Context, events []*models.Event) (bool, error) {
	found := false
	seen := map[[2]string]bool{}
	for _, e := range events {
		key := [2]string{e.TenantID, e.Type}
		if seen[key] {
			continue
		}
		seen[key] = true
		sub, err := s.core.Subscribed(ctx, models.System(e.TenantID), e.Type)
		if err != nil {
			return false, err
		}
		found = found || sub
	}
	return found, nil
}

// eventColumns are the columns insertEvents writes, in the order of eventValues.
const eventColumns = "id, tenant_id, type, source, customer_id, partner_id, actor_kind, actor_id, causation_id, depth, external_id, payload, occurred_at, received_at"

func eventValues(e *models.Event) []any {
	return []any{e.ID, e.TenantID, e.Type, e.Source, e.CustomerID, e.PartnerID, e.ActorKind, e.ActorID,
		e.CausationID, e.Depth, e.ExternalID, e.Payload, e.OccurredAt, e.ReceivedAt}
}

// insertEvents writes events in one statement, skipping those whose client id is taken, and
// marks the ids it stored in inserted. (Both engines return only the rows inserted.)
func insertEvents(tx *gorm.DB, events []*models.Event, inserted map[string]bool) error {
	var sql strings.Builder
	sql.Grow(64 + len(eventColumns) + len(events)*44)
	sql.WriteString("INSERT INTO events (" + eventColumns + ") VALUES ")
	args := make([]any, 0, len(events)*14)
	for i, e := range events {
		if i > 0 {
			sql.WriteByte(',')
		}
		sql.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
		args = append(args, eventValues(e)...)
	}
	sql.WriteString(" ON CONFLICT DO NOTHING RETURNING id")
	rows, err := tx.Raw(sql.String(), args...).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		inserted[id] = true
	}
	return rows.Err()
}

// insertEventsPostgres is insertEvents for Postgres: the values travel as one array per column,
// so the statement has 14 parameters however many rows it writes, and Postgres parses, plans
// and binds it at a fraction of the cost of a multi-row VALUES list. Empty strings stand for
// NULL in the nullable id columns (no id is ever empty).
func insertEventsPostgres(ctx context.Context, tx *gorm.DB, events []*models.Event, inserted map[string]bool) error {
	n := len(events)
	text := func() []string { return make([]string, n) }
	id, tenant, typ, source, customer, partner, actorKind, actorID, causation, external, payload :=
		text(), text(), text(), text(), text(), text(), text(), text(), text(), text(), text()
	depth := make([]int64, n)
	occurred, received := make([]time.Time, n), make([]time.Time, n)
	for i, e := range events {
		id[i], tenant[i], typ[i], source[i] = e.ID, e.TenantID, e.Type, e.Source
		customer[i], partner[i], causation[i], external[i] = store.Deref(e.CustomerID), store.Deref(e.PartnerID), store.Deref(e.CausationID), store.Deref(e.ExternalID)
		actorKind[i], actorID[i], depth[i], payload[i] = e.ActorKind, e.ActorID, int64(e.Depth), e.Payload
		occurred[i], received[i] = e.OccurredAt, e.ReceivedAt
	}
	const sql = `INSERT INTO events (` + eventColumns + `)
SELECT id, tenant_id, type, source, NULLIF(customer_id, ''), NULLIF(partner_id, ''), actor_kind, actor_id,
       NULLIF(causation_id, ''), depth, NULLIF(external_id, ''), payload, occurred_at, received_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
            $9::text[], $10::bigint[], $11::text[], $12::text[], $13::timestamptz[], $14::timestamptz[])
     AS t(id, tenant_id, type, source, customer_id, partner_id, actor_kind, actor_id,
          causation_id, depth, external_id, payload, occurred_at, received_at)
ON CONFLICT DO NOTHING RETURNING id`
	// Straight to the connection: gorm would expand each array into a list of parameters.
	begin := time.Now()
	rows, err := tx.Statement.ConnPool.QueryContext(ctx, sql, id, tenant, typ, source, customer, partner,
		actorKind, actorID, causation, depth, external, payload, occurred, received)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var got string
			if err = rows.Scan(&got); err != nil {
				break
			}
			inserted[got] = true
		}
		if err == nil {
			err = rows.Err()
		}
	}
	tx.Logger.Trace(ctx, begin, func() (string, int64) { return "INSERT INTO events ... unnest(...)", int64(len(inserted)) }, err)
	return err
}

// storedClientIDs reads, per tenant, the ids of the events stored under the client ids of events.
func storedClientIDs(tx *gorm.DB, events []*models.Event) (map[string]map[string]string, error) {
	byTenant := map[string][]string{}
	for _, e := range events {
		if e.ExternalID != nil {
			byTenant[e.TenantID] = append(byTenant[e.TenantID], *e.ExternalID)
		}
	}
	out := make(map[string]map[string]string, len(byTenant)+1)
	for tenant, ext := range byTenant {
		ids := map[string]string{}
		ext = slices.Compact(slices.Sorted(slices.Values(ext)))
		for start := 0; start < len(ext); start += ingestInsertChunk {
			var have []struct{ ID, ExternalID string }
			chunk := ext[start:min(start+ingestInsertChunk, len(ext))]
			if err := tx.Model(&models.Event{}).Select("id, external_id").
				Where(store.System(tenant).Tenant()).Where("external_id IN ?", chunk).Find(&have).Error; err != nil {
				return nil, err
			}
			for _, h := range have {
				ids[h.ExternalID] = h.ID
			}
		}
		out[tenant] = ids
	}
	return out, nil
}

// Customers resolved by ingest are remembered for a short while per Store, so that a stream of
// events of known customers costs no customer read per request. A change to a customer (its
// email, its partner, its deletion) reaches ingest after at most customerCacheTTL.
const (
	customerCacheTTL = 2 * time.Second
	customerCacheMax = 50_000
)

// CustomerCache maps tenant and email (or id) to a customer seen lately.
type CustomerCache struct {
	mu sync.Mutex
	m  map[string]cachedCustomer
}

type cachedCustomer struct {
	c    *models.Customer
	seen time.Time
}

func byEmailKey(tenantID, email string) string { return tenantID + "\x00e\x00" + email }
func byIDKey(tenantID, id string) string       { return tenantID + "\x00i\x00" + id }

// ByEmail returns the tenant's customer cached under email, if it is fresh.
func (cc *CustomerCache) ByEmail(tenantID, email string, now time.Time) *models.Customer {
	return cc.get(byEmailKey(tenantID, email), now)
}

// ByID returns the tenant's customer cached under id, if it is fresh.
func (cc *CustomerCache) ByID(tenantID, id string, now time.Time) *models.Customer {
	return cc.get(byIDKey(tenantID, id), now)
}

func (cc *CustomerCache) get(key string, now time.Time) *models.Customer {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.m[key]
	if !ok || now.Sub(e.seen) > customerCacheTTL {
		return nil
	}
	return e.c
}

// Put remembers customers of a tenant by email and by id.
func (cc *CustomerCache) Put(tenantID string, found []models.Customer, now time.Time) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if len(cc.m)+2*len(found) > customerCacheMax {
		clear(cc.m)
	}
	for i := range found {
		c := &found[i]
		cc.m[byIDKey(tenantID, c.ID)] = cachedCustomer{c, now}
		if c.Email != nil {
			cc.m[byEmailKey(tenantID, *c.Email)] = cachedCustomer{c, now}
		}
	}
}
