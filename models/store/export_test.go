package store

import "context"

// ExecRaw runs a statement outside the store's API, for tests that prove what the database
// itself refuses.
func ExecRaw(ctx context.Context, s *Store, sql string, args ...any) error {
	return s.db.WithContext(ctx).Exec(sql, args...).Error
}

// ForgetCopyConflict lets the next ingest group try COPY again at once, as it does
// copyCooldown after a COPY met a duplicate.
func ForgetCopyConflict(s *Store) { s.copyState().conflictAt.Store(0) }
