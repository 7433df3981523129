package tracing

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ryo-bot/ryo/clocktest"
)

type failingExporter struct{ err error }

func (f *failingExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return f.err }
func (f *failingExporter) Shutdown(context.Context) error                             { return nil }

func TestAnOutageOfTheCollectorIsLoggedOnce(t *testing.T) {
	var out bytes.Buffer
	inner := &failingExporter{err: errors.New("connection refused")}
	clock := clocktest.New(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	e := &quietExporter{SpanExporter: inner, log: slog.New(slog.NewTextHandler(&out, nil)), clock: clock}
	for range 5 {
		if err := e.ExportSpans(context.Background(), nil); err != nil {
			t.Fatalf("the failure reached the SDK: %v", err)
		}
	}
	inner.err = nil
	e.ExportSpans(context.Background(), nil)
	e.ExportSpans(context.Background(), nil)
	clock.Advance(warnEvery) // a new outage, long enough after the first: warned about too
	inner.err = errors.New("timeout")
	e.ExportSpans(context.Background(), nil)
	if w, i := strings.Count(out.String(), "level=WARN"), strings.Count(out.String(), "level=INFO"); w != 2 || i != 1 {
		t.Fatalf("%d warnings and %d recoveries; want 2 and 1:\n%s", w, i, out.String())
	}
}

func TestOffRecordsNothing(t *testing.T) {
	p, err := Start(Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer().Start(context.Background(), "turn")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Fatal("tracing off still records spans")
	}
	span.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkTurnSpansOff is what a turn's spans cost with tracing off.
func BenchmarkTurnSpansOff(b *testing.B) {
	tr := Off().Tracer()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, root := tr.Start(ctx, "turn")
		_, child := tr.Start(c, "model")
		child.End()
		root.End()
	}
}

// BenchmarkTurnSpansOn is the same with spans recorded and dropped.
func BenchmarkTurnSpansOn(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	tr := tp.Tracer(Name)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, root := tr.Start(ctx, "turn")
		_, child := tr.Start(c, "model")
		child.End()
		root.End()
	}
}
