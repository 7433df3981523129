package agent_test

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/prompts"
)

// Each model call of a traced turn is a span under the turn's, a repair
// numbered, with the tokens the server reported; a failed call has the
// error's code, never its words or the model's.
func TestEachModelCallIsASpan(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	f := newFixture(t, "not an envelope at all", reply("Hello Ann!"))
	set, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	f.agent, err = agent.New(agent.Config{Model: f.model, Prompts: set, Tools: f.reg, Store: f.store, Location: time.UTC, Clock: f.clock, Tracer: tp.Tracer("test")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, turn := tp.Tracer("test").Start(context.Background(), "turn")
	if _, err := f.agent.Run(ctx, private("hi")); err != nil {
		t.Fatal(err)
	}
	f.model.replies = nil // the next call fails
	if _, err := f.agent.Run(ctx, private("hi again")); err == nil {
		t.Fatal("a model with nothing to say answered")
	}
	turn.End()

	got := spans.GetSpans()
	if len(got) != 4 {
		t.Fatalf("%d spans; want three model calls and the turn", len(got))
	}
	for i, want := range []struct {
		repair string
		failed bool
	}{{"0", false}, {"1", false}, {"0", true}} {
		s := got[i]
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		if s.Name != "model.chat" || s.Parent.SpanID() != turn.SpanContext().SpanID() || attrs["ryo.model.repair"] != want.repair ||
			(attrs["error.type"] != "") != want.failed {
			t.Errorf("call %d: %s %v; want repair %s, failed %v", i, s.Name, attrs, want.repair, want.failed)
		}
		if !want.failed && (attrs["gen_ai.usage.input_tokens"] != "10" || attrs["gen_ai.usage.output_tokens"] != "5") {
			t.Errorf("call %d: tokens %v", i, attrs)
		}
		if want.failed && (s.Status.Description != attrs["error.type"] || len(s.Events) != 0) {
			t.Errorf("call %d: the failure is not its code alone: %+v %v", i, s.Status, s.Events)
		}
	}
}
