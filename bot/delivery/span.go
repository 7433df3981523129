package delivery

import (
	"context"
	"errors"
	"time"

	tg "github.com/go-telegram/bot"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Each Telegram call a traced turn makes and waits for is a span of its
// trace: the method, the chat, how many tries failed, each flood-control
// wait and retry as an event, and how the call ended. Never the text sent.

// startCall begins the span of j, a child of ctx's; none when ctx's turn
// is not traced, so that calls outside turns start no traces of their own.
func (e *engine) startCall(ctx context.Context, j *apiCall) (context.Context, trace.Span) {
	if e.tracer == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return e.tracer.Start(ctx, "telegram "+j.method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("ryo.telegram.method", j.method), attribute.Int64("ryo.chat_id", j.chat)))
}

// endCall ends the span of j, which came to err. It runs once j is
// finished, when nothing else touches j.
func endCall(span trace.Span, j *apiCall, err error) {
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("ryo.telegram.failed_tries", j.attempts))
		if err != nil {
			span.SetAttributes(attribute.String("error.type", callErrorType(err)))
			span.SetStatus(codes.Error, callErrorType(err))
		}
	}
	span.End()
}

// callErrorType is the kind of a failed call, without Telegram's words
// (which may quote what was sent).
func callErrorType(err error) string {
	var tooMany *tg.TooManyRequestsError
	switch {
	case errors.As(err, &tooMany):
		return "too_many_requests"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, tg.ErrorBadRequest):
		return "bad_request"
	case errors.Is(err, tg.ErrorForbidden):
		return "forbidden"
	case errors.Is(err, errStopped):
		return "stopped"
	}
	return "failed"
}

// waitedSpan notes on j's span a flood-control wait of Telegram's.
func waitedSpan(j *apiCall, wait time.Duration) {
	if span := trace.SpanFromContext(j.ctx); span.IsRecording() {
		span.AddEvent("telegram flood control", trace.WithAttributes(attribute.Float64("ryo.telegram.retry_after_s", wait.Seconds())))
	}
}

// retriedSpan notes on j's span a try that failed and is made again.
func retriedSpan(j *apiCall, wait time.Duration, err error) {
	if span := trace.SpanFromContext(j.ctx); span.IsRecording() {
		span.AddEvent("telegram call retried", trace.WithAttributes(attribute.String("error.type", callErrorType(err)),
			attribute.Float64("ryo.telegram.retry_in_s", wait.Seconds())))
	}
}
