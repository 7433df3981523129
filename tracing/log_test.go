package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// lines decodes what a JSON handler wrote, one object a line.
func lines(t *testing.T, out *bytes.Buffer) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got = append(got, m)
	}
	return got
}

func TestHandlerAddsTheTurnToLinesOfATurn(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&out, nil)))
	const id = int64(9_007_199_254_740_993) // beyond float64's exact integers: kept whole
	ctx := WithTurn(context.Background(), id)
	log.InfoContext(ctx, "in a turn")
	log.With("chat_id", int64(-1001234567890)).WarnContext(ctx, "with attributes")
	log.InfoContext(context.Background(), "outside")
	log.Info("no context")
	got := lines(t, &out)
	if len(got) != 4 {
		t.Fatalf("%d lines", len(got))
	}
	for i, want := range []bool{true, true, false, false} {
		_, has := got[i]["turn"]
		if has != want {
			t.Errorf("line %d %q: turn present %v, want %v", i, got[i]["msg"], has, want)
		}
	}
	if !strings.Contains(out.String(), `"turn":9007199254740993`) {
		t.Errorf("the turn's id is not written whole: %s", out.String())
	}
	if got[1]["chat_id"] == nil {
		t.Errorf("the logger's own attributes are lost: %v", got[1])
	}
	if _, has := got[0]["trace_id"]; has {
		t.Errorf("a turn that is not traced got a trace id: %v", got[0])
	}
}

func TestHandlerAddsTheTraceIDOfATracedTurn(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&out, nil)))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer(Name).Start(WithTurn(context.Background(), 7), "turn")
	log.InfoContext(ctx, "traced")
	span.End()
	got := lines(t, &out)[0]
	if got["trace_id"] != span.SpanContext().TraceID().String() || got["turn"] != float64(7) {
		t.Fatalf("line = %v; want turn 7 and trace %s", got, span.SpanContext().TraceID())
	}
}

func TestHandlerDoesNotWrapTwice(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(Handler(Handler(slog.NewTextHandler(&out, nil))))
	log.InfoContext(WithTurn(context.Background(), 3), "once")
	if n := strings.Count(out.String(), "turn=3"); n != 1 {
		t.Fatalf("turn written %d times: %s", n, out.String())
	}
}

func TestHandlerKeepsTheLevel(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	log.InfoContext(WithTurn(context.Background(), 3), "quiet")
	if out.Len() != 0 {
		t.Fatalf("a line below the level was written: %s", out.String())
	}
}
