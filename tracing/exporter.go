package tracing

import (
	"context"
	"log/slog"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// quietExporter logs failed exports once per outage, not once per batch,
// and keeps the failures from the SDK, which would print each of them
// through its process-wide error handler.
type quietExporter struct {
	sdktrace.SpanExporter
	log     *slog.Logger
	failing atomic.Bool
}

func (e *quietExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	switch {
	case err != nil && !e.failing.Swap(true):
		e.log.Warn("cannot send traces to the OTLP collector; they are dropped until it answers again (turns go on)", "err", err)
	case err == nil && e.failing.Swap(false):
		e.log.Info("traces reach the OTLP collector again")
	}
	return nil
}
