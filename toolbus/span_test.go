package toolbus_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ryo-bot/ryo/toolbus"
)

// Each call of a traced turn is a span under the turn's, named after the
// tool (never after a name the model made up), with its status and
// whether the person confirmed it, and without its arguments or result.
func TestRunTracesCallsOfATracedTurn(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	r := registry(t, spec("echo", toolbus.ReadOnly, echo))
	r.SetTracer(tp.Tracer("test"))
	ctx, turn := tp.Tracer("test").Start(context.Background(), "turn")
	const marker = "zz-secret-words"
	for _, c := range []toolbus.Call{
		{ID: "1", Key: "k1", Tool: "echo", Args: json.RawMessage(`{"text":"` + marker + `"}`), Confirmed: true},
		{ID: "2", Key: "k2", Tool: marker, Args: json.RawMessage(`{}`)},
		{ID: "3", Key: "k3", Tool: "echo", Args: json.RawMessage(`{"text":"` + marker + `"}`), Allowed: []string{"calculate"}},
	} {
		r.Run(ctx, c)
	}
	r.Run(context.Background(), toolbus.Call{ID: "4", Key: "k4", Tool: "echo", Args: json.RawMessage(`{"text":"x"}`)}) // no turn: no trace
	turn.End()

	got := spans.GetSpans()
	if len(got) != 4 {
		t.Fatalf("%d spans; want the three calls and the turn", len(got))
	}
	want := []struct {
		name, status       string
		confirmed, refused bool
	}{
		{"tool echo", toolbus.StatusOK, true, false},
		{"tool " + toolbus.UnknownTool, toolbus.StatusError, false, false},
		{"tool echo", toolbus.StatusDenied, false, true},
	}
	for i, w := range want {
		s := got[i]
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			attrs[string(kv.Key)] = kv.Value.Emit()
			if strings.Contains(kv.Value.Emit(), marker) {
				t.Errorf("span %s carries the call's words: %s=%s", s.Name, kv.Key, kv.Value.Emit())
			}
		}
		if s.Name != w.name || s.Parent.SpanID() != turn.SpanContext().SpanID() || attrs["ryo.tool.status"] != w.status ||
			attrs["ryo.tool.confirmed"] != strconv.FormatBool(w.confirmed) || attrs["ryo.tool.refused"] != strconv.FormatBool(w.refused) {
			t.Errorf("span %d = %s %v; want %+v", i, s.Name, attrs, w)
		}
	}
}
