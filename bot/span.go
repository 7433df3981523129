package bot

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/tracing"
)

// Each attempt at an update is one trace, when tracing is on (README
// "Tracing"): the root span "turn", and under it "intake" (the stored
// update waiting for its turn), the model calls and tools (agent and
// toolbus), and "deliver" with the Telegram calls that carry the answer
// (delivery). Attributes are ids, kinds, counts and outcomes: never what
// anyone wrote, their names, or tools' arguments.

// Tracer is what traces turns: an OpenTelemetry tracer.
type Tracer = trace.Tracer

// tracer is the bot's tracer; one that records nothing when none is set.
func (b *Bot) tracer() trace.Tracer {
	if b.cfg.Tracer == nil {
		return noop.NewTracerProvider().Tracer("")
	}
	return b.cfg.Tracer
}

// turnContext is ctx marked as the turn of update j's: its log lines say so.
func turnContext(ctx context.Context, j *job) context.Context {
	return tracing.WithTurn(ctx, j.id)
}

// startUpdate begins the trace of one attempt at update j, once claimed.
func (b *Bot) startUpdate(ctx context.Context, j *job) (context.Context, trace.Span) {
	ctx, span := b.tracer().Start(ctx, "turn", trace.WithNewRoot(), trace.WithAttributes(
		attribute.Int64("ryo.update_id", j.id), attribute.Int64("ryo.chat_id", j.chat),
		attribute.Int("ryo.attempt", j.attempt), attribute.Bool("ryo.press", j.press)))
	if span.IsRecording() && j.attempt == 1 && !j.queued.IsZero() {
		_, in := b.tracer().Start(ctx, "intake", trace.WithTimestamp(j.queued))
		in.End() // from when the stored update reached the dispatcher to when its turn began
	}
	return ctx, span
}

// endUpdate ends the trace of an attempt that came to err.
func endUpdate(span trace.Span, err error) {
	var wait errWait
	if span.IsRecording() && err != nil && !errors.Is(err, errGoOnInChat) && !errors.As(err, &wait) {
		span.SetAttributes(attribute.String("error.type", ryo.ErrorCode(err)))
		span.SetStatus(codes.Error, ryo.ErrorCode(err))
	}
	span.End()
}

// traceTurn names on the trace what kind of chat turn t is in.
func traceTurn(ctx context.Context, t talk) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("ryo.chat.kind", string(t.chat.Type)), attribute.Int64("ryo.chat_id", t.chat.ID),
			attribute.Bool("ryo.confirmed", t.prepare != nil))
	}
}

// traceOutcome names on the trace what the turn came to (metrics.go).
func traceOutcome(ctx context.Context, outcome string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("ryo.outcome", outcome))
	}
}

// startDelivery begins the span of the answer's delivery.
func (b *Bot) startDelivery(ctx context.Context) (context.Context, trace.Span) {
	return b.tracer().Start(ctx, "deliver")
}

// endDelivery ends the span of a delivery in parts messages, or err.
func endDelivery(span trace.Span, parts int, err error) {
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("ryo.parts", parts))
		if err != nil {
			span.SetStatus(codes.Error, ryo.ErrorCode(err))
		}
	}
	span.End()
}
