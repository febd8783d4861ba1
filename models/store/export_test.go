package store

import "context"

// ExecRaw runs a statement outside the store's API, for tests that prove what the database
// itself refuses.
func ExecRaw(ctx context.Context, s *Store, sql string, args ...any) error {
	return s.db.WithContext(ctx).Exec(sql, args...).Error
}
