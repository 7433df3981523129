package delivery

import (
	"context"
	"errors"
	"testing"
	"time"

	tg "github.com/go-telegram/bot"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A call of a traced turn is a span under the turn's: Telegram's 429 and
// the retry after a 502 are its events, and what it sent is nowhere.
func TestEngineTracesTheCallsOfATracedTurn(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	e, c := startEngine(t, defaultLimits())
	e.tracer = tp.Tracer("test")

	r := newTries(c, &tg.TooManyRequestsError{Message: "Too Many Requests: retry after 7", RetryAfter: 7},
		errors.New("error response from telegram for method editMessageText, 502 Bad Gateway"))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "deliver")
	done := make(chan error, 1)
	go func() {
		done <- e.do(ctx, &apiCall{chat: alicePM, class: urgent, method: "editMessageText", call: r.call})
	}()
	waitTry(t, r)
	advance(t, c, 7*time.Second)
	waitTry(t, r)
	advance(t, c, 7500*time.Millisecond)
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
	// A call outside a traced turn starts no trace of its own.
	if err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendChatAction", call: newTries(c).call})); err != nil {
		t.Fatal(err)
	}
	parent.End()

	got := spans.GetSpans()
	if len(got) != 2 || got[0].Name != "telegram editMessageText" || got[0].Parent.SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("spans = %v; want the call under the turn's, and nothing for the call outside it", got.Snapshots())
	}
	call := got[0]
	var events []string
	for _, ev := range call.Events {
		events = append(events, ev.Name)
	}
	if len(events) != 2 || events[0] != "telegram flood control" || events[1] != "telegram call retried" {
		t.Fatalf("events = %v", events)
	}
	want := map[attribute.Key]attribute.Value{"ryo.telegram.method": attribute.StringValue("editMessageText"),
		"ryo.telegram.failed_tries": attribute.IntValue(1), "ryo.chat_id": attribute.Int64Value(alicePM)}
	for _, kv := range call.Attributes {
		if w, ok := want[kv.Key]; ok && w != kv.Value {
			t.Errorf("%s = %v, want %v", kv.Key, kv.Value.Emit(), w.Emit())
		}
		delete(want, kv.Key)
	}
	if len(want) != 0 {
		t.Errorf("missing attributes %v", want)
	}
	if retry := call.Events[0].Attributes; len(retry) != 1 || retry[0].Value.AsFloat64() != 7 {
		t.Errorf("flood control event = %v", retry)
	}
}
