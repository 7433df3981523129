package tracing

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

type turnKey struct{}

// WithTurn returns ctx for the turn that answers update id: what is
// logged with it says so.
func WithTurn(ctx context.Context, id int64) context.Context {
	return context.WithValue(ctx, turnKey{}, id)
}

// TurnOf is the update id of the turn ctx runs for, if any.
func TurnOf(ctx context.Context) (int64, bool) {
	id, ok := ctx.Value(turnKey{}).(int64)
	return id, ok
}

// Handler wraps h: a line logged with a context of a turn gets the
// attribute "turn", the update id the turn answers, and "trace_id" when
// the turn is traced. Lines logged without a context, or outside a turn,
// are h's alone.
func Handler(h slog.Handler) slog.Handler {
	if t, ok := h.(turnHandler); ok {
		return t
	}
	return turnHandler{h}
}

type turnHandler struct{ h slog.Handler }

func (t turnHandler) Enabled(ctx context.Context, l slog.Level) bool { return t.h.Enabled(ctx, l) }

func (t turnHandler) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := TurnOf(ctx); ok {
		r = r.Clone()
		r.AddAttrs(slog.Int64("turn", id))
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && sc.IsSampled() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()))
		}
	}
	return t.h.Handle(ctx, r)
}

func (t turnHandler) WithAttrs(as []slog.Attr) slog.Handler { return turnHandler{t.h.WithAttrs(as)} }
func (t turnHandler) WithGroup(name string) slog.Handler    { return turnHandler{t.h.WithGroup(name)} }
