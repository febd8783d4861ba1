package store

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// slowQuery is the duration above which a statement is logged as slow.
const slowQuery = 500 * time.Millisecond

// gormLogger reports failed and slow statements to slog. Statement text is logged without its
// bound values, which may hold secrets or personal data.
type gormLogger struct {
	log *slog.Logger
}

func newGormLogger(l *slog.Logger) logger.Interface {
	if l == nil {
		return logger.Discard
	}
	return gormLogger{log: l.With("component", "store")}
}

func (g gormLogger) LogMode(logger.LogLevel) logger.Interface { return g }

func (g gormLogger) Info(ctx context.Context, msg string, args ...any) {
	g.log.DebugContext(ctx, msg, "args", len(args))
}

func (g gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	g.log.WarnContext(ctx, msg, "args", len(args))
}

func (g gormLogger) Error(ctx context.Context, msg string, args ...any) {
	g.log.ErrorContext(ctx, msg, "args", len(args))
}

func (g gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	switch {
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound) && !errors.Is(err, context.Canceled):
		sql, rows := fc()
		g.log.WarnContext(ctx, "statement failed", "sql", sql, "rows", rows, "duration", elapsed, "error", err.Error())
	case elapsed > slowQuery:
		sql, rows := fc()
		g.log.WarnContext(ctx, "slow statement", "sql", sql, "rows", rows, "duration", elapsed)
	}
}

// ParamsFilter keeps bound values out of the SQL text handed to Trace.
func (g gormLogger) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}
