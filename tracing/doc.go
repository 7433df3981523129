// Package tracing is ryo's optional OpenTelemetry tracing and the turn's
// id in log lines.
//
// Each turn is one trace: a root span for the update, with children for
// its model calls, its tools and the Telegram calls that deliver it. The
// spans go to an OTLP/HTTP collector when one is configured with the
// standard OTEL_* variables; otherwise Start returns a tracer provider
// that does nothing, and costs next to nothing. The provider is passed
// through the wiring like the logger: nothing here is global.
//
// Spans never carry what people wrote, their names, tools' arguments or
// secrets: only ids, kinds, names of models and tools, counts, statuses
// and times.
//
// Handler wraps a slog.Handler so that every line logged with a context
// that carries a turn (WithTurn) says which turn it belongs to, and its
// trace when the turn is traced.
package tracing
