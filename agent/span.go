package agent

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ryo-bot/ryo"
)

// A model call is a span of the turn's trace: which model, whether it
// repaired an invalid answer, what it cost, and its error. The model
// adapter adds the server it asked. Never what was written.

// startModelSpan begins the span of one model call.
func (a *Agent) startModelSpan(ctx context.Context, model string, repair int) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{attribute.Int("ryo.model.repair", repair)}
	if model != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", model))
	}
	return a.cfg.Tracer.Start(ctx, "model.chat", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endModelSpan ends the span of a model call that got reply, or err.
func endModelSpan(span trace.Span, reply ryo.ModelReply, err error) {
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("gen_ai.usage.input_tokens", reply.Usage.PromptTokens),
			attribute.Int("gen_ai.usage.output_tokens", reply.Usage.ReplyTokens),
			attribute.Bool("ryo.model.cut_off", reply.CutOff))
		if err != nil {
			span.SetAttributes(attribute.String("error.type", ryo.ErrorCode(err)))
			span.SetStatus(codes.Error, ryo.ErrorCode(err))
		}
	}
	span.End()
}

// heldSpan notes on the turn's span that a tool waits for the person's
// yes, and why (a toolbus hold reason).
func heldSpan(ctx context.Context, tool, reason string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("tool held for confirmation", trace.WithAttributes(
			attribute.String("gen_ai.tool.name", tool), attribute.String("ryo.tool.hold", reason)))
	}
}
