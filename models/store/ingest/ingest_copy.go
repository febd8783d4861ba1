package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/partnerd/partnerd/models"
)

// On Postgres a group of ingested events is first written with COPY, which costs the database
// about half of an INSERT … ON CONFLICT DO NOTHING of the same rows (ADR 16). COPY cannot skip
// rows: when one of the events' client ids is stored already, the database refuses the whole
// COPY with a unique violation, nothing of it stays, and the group is written again by the
// INSERT that skips duplicates. Once that happened, groups go straight to the INSERT for
// copyCooldown, so that a client retrying a stream of events does not pay twice per group.
const copyCooldown = 2 * time.Second

// copyMinEvents is the smallest group worth a COPY: COPY costs round trips of its own (a
// connection taken out of the pool for its driver, the column types on its first COPY, BEGIN and
// COMMIT when outbox rows go with it), which a small group's single INSERT statement does not.
const copyMinEvents = 64

// copyState remembers when COPY last met a duplicate.
type copyState struct {
	conflictAt atomic.Int64 // unix nanoseconds
}

// worthTrying reports whether events should be copied: they are many, none of their client ids
// repeats within them, and no COPY met a duplicate lately.
func (c *copyState) worthTrying(events []*models.Event) bool {
	if len(events) < copyMinEvents || time.Since(time.Unix(0, c.conflictAt.Load())) < copyCooldown {
		return false
	}
	// events are sorted by tenant and client id: a repeat sits next to its twin.
	for i := 1; i < len(events); i++ {
		a, b := events[i-1], events[i]
		if a.ExternalID != nil && b.ExternalID != nil && a.TenantID == b.TenantID && *a.ExternalID == *b.ExternalID {
			return false
		}
	}
	return true
}

// copyGroup writes events with COPY, in one transaction with their outbox rows when something
// subscribes to them (a COPY alone commits on its own), and reports per tenant the id stored
// under each client id. copied is false when the group must be written by the INSERT instead (a
// client id was stored before); nothing of it was written then.
func (s *Engine) copyGroup(ctx context.Context, events []*models.Event, subscribed bool) (stored map[string]map[string]string, copied bool, err error) {
	sqlDB, err := s.core.DB(ctx).DB()
	if err != nil {
		return nil, false, err
	}
	ev := s.core.NewOutbox()
	var outbox []models.OutboxEntry
	if subscribed {
		if outbox, err = ev.Rows(ctx, events); err != nil {
			return nil, false, err
		}
	}
	begin := time.Now()
	copyEvents := func(c interface {
		CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
	}) error {
		_, err := c.CopyFrom(ctx, pgx.Identifier{"events"}, copyEventColumns, pgx.CopyFromSlice(len(events), func(i int) ([]any, error) {
			return eventValues(events[i]), nil
		}))
		return err
	}
	err = withPgxConn(ctx, sqlDB, func(conn *pgx.Conn) error {
		if len(outbox) == 0 {
			return copyEvents(conn) // one statement commits on its own
		}
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if err := copyEvents(tx); err != nil {
				return err
			}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"event_outbox"}, []string{"event_id", "tenant_id", "type", "created_at"},
				pgx.CopyFromSlice(len(outbox), func(i int) ([]any, error) {
					o := outbox[i]
					return []any{o.EventID, o.TenantID, o.Type, o.CreatedAt}, nil
				}))
			return err
		})
	})
	s.core.DB(ctx).Logger.Trace(ctx, begin, func() (string, int64) { return "COPY events", int64(len(events)) }, err)
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "23505" {
		s.copy.conflictAt.Store(time.Now().UnixNano())
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	stored = map[string]map[string]string{}
	noteStored(stored, events)
	ev.Dispatch(ctx)
	return stored, true, nil
}

// copyEventColumns are the columns of eventColumns, in the order of eventValues.
var copyEventColumns = strings.Split(eventColumns, ", ")

// withPgxConn runs fn on the driver connection of one connection of db's pool.
func withPgxConn(ctx context.Context, db *sql.DB, fn func(*pgx.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("not a pgx connection: %T", driverConn)
		}
		return fn(c.Conn())
	})
}
