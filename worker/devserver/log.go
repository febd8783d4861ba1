package devserver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// temporalLogger passes the server's logs on to slog, dropping those below a level.
type temporalLogger struct {
	log   *slog.Logger
	level slog.Level
	// stopping silences the server while it stops: its services report each other's
	// departure as errors, which is noise once a stop was asked for.
	stopping *atomic.Bool
}

var (
	_ log.Logger     = temporalLogger{}
	_ log.WithLogger = temporalLogger{}
)

func newTemporalLogger(l *slog.Logger, level slog.Level) temporalLogger {
	return temporalLogger{log: l.With("component", "temporal"), level: level, stopping: &atomic.Bool{}}
}

func (l temporalLogger) Debug(msg string, tags ...tag.Tag) { l.emit(slog.LevelDebug, msg, tags) }
func (l temporalLogger) Info(msg string, tags ...tag.Tag)  { l.emit(slog.LevelInfo, msg, tags) }
func (l temporalLogger) Warn(msg string, tags ...tag.Tag)  { l.emit(slog.LevelWarn, msg, tags) }
func (l temporalLogger) Error(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }
func (l temporalLogger) DPanic(msg string, tags ...tag.Tag) {
	l.emit(slog.LevelError, msg, tags)
}

func (l temporalLogger) Panic(msg string, tags ...tag.Tag) {
	l.emit(slog.LevelError, msg, tags)
	panic(msg)
}

func (l temporalLogger) Fatal(msg string, tags ...tag.Tag) {
	l.emit(slog.LevelError, msg, tags)
	os.Exit(1)
}

func (l temporalLogger) With(tags ...tag.Tag) log.Logger {
	return temporalLogger{log: l.log.With(attrs(tags)...), level: l.level, stopping: l.stopping}
}

func (l temporalLogger) emit(level slog.Level, msg string, tags []tag.Tag) {
	if level < l.level || l.stopping.Load() || !l.log.Enabled(context.Background(), level) {
		return
	}
	l.log.Log(context.Background(), level, msg, attrs(tags)...)
}

func attrs(tags []tag.Tag) []any {
	out := make([]any, 0, len(tags))
	for _, t := range tags {
		v := t.Value()
		if s, ok := v.(fmt.Stringer); ok {
			v = s.String()
		}
		out = append(out, slog.Any(t.Key(), v))
	}
	return out
}
