package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/partnerd/partnerd/models"
)

// Log attribute keys the handler adds.
const (
	LogTraceID   = "trace_id"
	LogSpanID    = "span_id"
	LogRequestID = "request_id"
)

// LogHandler wraps next so that every record logged with a context carries the trace and span
// ids of the span in that context and the id of the request it serves (unless the record names
// a request_id itself).
func LogHandler(next slog.Handler) slog.Handler { return &logHandler{next: next} }

type logHandler struct{ next slog.Handler }

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx == nil {
		return h.next.Handle(ctx, r)
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String(LogTraceID, sc.TraceID().String()), slog.String(LogSpanID, sc.SpanID().String()))
	}
	if id := models.RequestMetaFrom(ctx).RequestID; id != "" {
		named := false
		r.Attrs(func(a slog.Attr) bool {
			named = a.Key == LogRequestID
			return !named
		})
		if !named {
			r.AddAttrs(slog.String(LogRequestID, id))
		}
	}
	return h.next.Handle(ctx, r)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{next: h.next.WithAttrs(attrs)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{next: h.next.WithGroup(name)}
}
