package toolbus

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Each call the registry runs is a span of the turn's trace, when the
// turn is traced: the tool's name (UnknownTool for one it does not hold),
// whether the person confirmed it, its status, latency and error code.
// Never its arguments or its result.

// SetTracer sets the tracer calls are traced with; none by default. Call
// it while building the registry.
func (r *Registry) SetTracer(t trace.Tracer) { r.tracer = t }

// startSpan begins the span of call c, as a child of ctx's span; none
// when ctx's turn is not traced.
func (r *Registry) startSpan(ctx context.Context, c Call, known bool) (context.Context, trace.Span) {
	if r.tracer == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, trace.SpanFromContext(context.Background())
	}
	tool := c.Tool
	if !known {
		tool = UnknownTool
	}
	return r.tracer.Start(ctx, "tool "+tool, trace.WithAttributes(
		attribute.String("gen_ai.tool.name", tool), attribute.Bool("ryo.tool.confirmed", c.Confirmed)))
}

func endSpan(span trace.Span, res Result) {
	if span.IsRecording() {
		span.SetAttributes(attribute.String("ryo.tool.status", res.Status),
			attribute.Bool("ryo.tool.refused", res.Status == StatusDenied),
			attribute.Float64("ryo.tool.latency_ms", float64(res.Latency.Microseconds())/1000),
			attribute.Int("ryo.tool.attempts", res.Attempts))
		if res.Error != nil {
			span.SetAttributes(attribute.String("error.type", res.Error.Code))
		}
		if res.Status != StatusOK {
			span.SetStatus(codes.Error, res.Status)
		}
	}
	span.End()
}
