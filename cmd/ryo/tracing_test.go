package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// collector is an OTLP/HTTP trace receiver, as a real collector takes
// spans: protobuf posted to /v1/traces.
type collector struct {
	srv     *httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	attrs   []*commonpb.KeyValue // the resources' attributes
	arrived chan struct{}        // one value per export received, dropped when nobody waits
	block   chan struct{}        // when set, every export waits until it is closed
}

func newCollector(t *testing.T, blocking bool) *collector {
	c := &collector{arrived: make(chan struct{}, 1)}
	if blocking {
		c.block = make(chan struct{})
	}
	c.srv = httptest.NewServer(http.HandlerFunc(c.export))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) export(w http.ResponseWriter, r *http.Request) {
	select {
	case c.arrived <- struct{}{}:
	default:
	}
	if c.block != nil {
		select {
		case <-c.block:
		case <-r.Context().Done():
		}
		http.Error(w, "collector released", http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP/HTTP protobuf export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		c.attrs = append(c.attrs, rs.GetResource().GetAttributes()...)
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// received is every span exported so far.
func (c *collector) received() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*tracepb.Span(nil), c.spans...)
}

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// lookupTool is a tool whose arguments and result carry what it is given.
func lookupTool() toolbus.Spec {
	return toolbus.Spec{Name: "lookup", Description: "Looks a word up.", Category: toolbus.MathFinance,
		Schema:   json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`),
		Examples: []toolbus.Example{{Question: "Look up tea.", Arguments: json.RawMessage(`{"q":"tea"}`)}},
		Tool: toolbus.ToolFunc(func(_ context.Context, args json.RawMessage) (any, error) {
			return "found " + string(args), nil
		})}
}

// A turn that runs a tool is one trace: the root span "turn", with the
// intake, both model calls, the tool and the delivery with its Telegram
// calls under it. What the person wrote, what the model and the tool
// said, and the person's name are in no span, event or resource; the
// turn's log lines name the turn and its trace.
func TestATurnIsOneTraceWithoutWhatWasWritten(t *testing.T) {
	c := newCollector(t, false)
	h := newHarness(t)
	h.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = c.srv.URL
	h.env["OTEL_SERVICE_NAME"] = "ryo-test"
	const marker = "qx7-marker-Ж9"
	h.tools = []toolbus.Spec{lookupTool()}
	h.tg.FailNext("editMessageText", 1, telegramtest.TooManyRequests(1)) // flood control, once
	h.llm.Enqueue(ollamatest.Reply{Content: command("lookup", `{"q":"`+marker+`"}`), PromptEvalCount: 812, EvalCount: 23},
		ollamatest.Reply{Content: envelope("It says " + marker), PromptEvalCount: 905, EvalCount: 11})
	h.start()
	q := h.tg.SendText(dm, alice, "look up "+marker)
	h.answer(dm, q.ID, "It says "+marker)
	h.waitFor("the turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	h.stopMain() // sends the spans still queued

	spans := c.received()
	var root *tracepb.Span
	for _, s := range spans {
		if s.Name == "turn" {
			if root != nil {
				t.Fatalf("two turns traced: %v and %v", root, s)
			}
			root = s
		}
	}
	if root == nil || len(root.ParentSpanId) != 0 {
		t.Fatalf("no root span of the turn among %d spans: %v", len(spans), names(spans))
	}
	byID := map[string]*tracepb.Span{}
	var mine []*tracepb.Span
	for _, s := range spans {
		if string(s.TraceId) == string(root.TraceId) {
			mine, byID[string(s.SpanId)] = append(mine, s), s
		}
	}
	count := map[string]int{}
	for _, s := range mine {
		count[s.Name]++
		if s != root && byID[string(s.ParentSpanId)] == nil {
			t.Errorf("span %s has no parent in the turn's trace", s.Name)
		}
	}
	if count["intake"] != 1 || count["model.chat"] != 2 || count["tool lookup"] != 1 || count["deliver"] != 1 {
		t.Fatalf("the turn's spans are %v; want intake, 2 model.chat, tool lookup and deliver", count)
	}
	for _, s := range mine {
		parent := byID[string(s.ParentSpanId)]
		switch {
		case s.Name == "model.chat":
			if attr(s, "server.address").GetStringValue() == "" || attr(s, "gen_ai.request.model").GetStringValue() != "llama3.2" ||
				attr(s, "gen_ai.usage.input_tokens") == nil {
				t.Errorf("model call span without its server, model or tokens: %v", s.Attributes)
			}
		case s.Name == "tool lookup":
			if attr(s, "ryo.tool.status").GetStringValue() != toolbus.StatusOK || attr(s, "ryo.tool.confirmed").GetBoolValue() {
				t.Errorf("tool span = %v", s.Attributes)
			}
		case strings.HasPrefix(s.Name, "telegram ") && parent != nil && parent.Name == "deliver":
			count["delivered by telegram"]++
		}
	}
	for _, s := range mine {
		for _, e := range s.Events {
			if e.Name == "telegram flood control" && strings.HasPrefix(s.Name, "telegram ") {
				count["flood control"]++
			}
		}
	}
	if count["flood control"] != 1 {
		t.Errorf("Telegram's 429 is not an event of its call's span: %v", names(mine))
	}
	if count["delivered by telegram"] == 0 {
		t.Errorf("no Telegram call under the delivery: %v", names(mine))
	}
	if id := attr(root, "ryo.update_id").GetIntValue(); id == 0 || attr(root, "ryo.chat.kind").GetStringValue() != "private" ||
		attr(root, "ryo.outcome").GetStringValue() != "answered" {
		t.Fatalf("root span = %v", root.Attributes)
	}

	secrets := []string{marker, alice.FirstName, testToken}
	if alice.Username != "" {
		secrets = append(secrets, alice.Username)
	}
	c.mu.Lock()
	resource := c.attrs
	c.mu.Unlock()
	for _, s := range spans {
		texts := append([]string{s.Name}, values(s.Attributes)...)
		for _, e := range s.Events {
			texts = append(append(texts, e.Name), values(e.Attributes)...)
		}
		texts = append(texts, s.GetStatus().GetMessage())
		texts = append(texts, values(resource)...)
		for _, text := range texts {
			for _, secret := range secrets {
				if strings.Contains(strings.ToLower(text), strings.ToLower(secret)) {
					t.Errorf("span %s carries %q: %q", s.Name, secret, text)
				}
			}
		}
	}
	if !slices.Contains(values(resource), "ryo-test") {
		t.Errorf("the service is not named by OTEL_SERVICE_NAME: %v", values(resource))
	}

	traceID := hex.EncodeToString(root.TraceId)
	turn := "turn=" + strconv.FormatInt(attr(root, "ryo.update_id").GetIntValue(), 10)
	for _, line := range strings.Split(h.logs.String(), "\n") {
		if strings.Contains(line, "turn answered") && (!strings.Contains(line, turn) || !strings.Contains(line, "trace_id="+traceID)) {
			t.Errorf("the turn's log line does not name the turn (%s) and its trace: %s", turn, line)
		}
	}
	for _, line := range strings.Split(h.logs.String(), "\n") { // the delivery engine's lines too
		if strings.Contains(line, "telegram flood control") && !strings.Contains(line, turn+" ") {
			t.Errorf("the delivery engine's line does not name the turn (%s): %s", turn, line)
		}
	}
	if !strings.Contains(h.logs.String(), "telegram flood control") {
		t.Error("no line about the 429")
	}
}

// A collector that takes an export and never answers holds up no turn:
// with one export stuck for as long as the test runs, the next message
// is answered all the same.
func TestACollectorThatHangsDelaysNoAnswer(t *testing.T) {
	c := newCollector(t, true)
	h := newHarness(t)
	h.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = c.srv.URL + "/v1/traces"
	h.env["OTEL_EXPORTER_OTLP_TIMEOUT"] = "600000" // the export waits for the collector as long as the test runs
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("First answer.")}, ollamatest.Reply{Content: envelope("Second answer.")})
	h.start()
	t.Cleanup(func() { close(c.block) }) // before Main stops: its last flush then ends at once
	q := h.tg.SendText(dm, alice, "first")
	h.answer(dm, q.ID, "First answer.")
	select { // the first turn's spans reach the collector, which holds them
	case <-c.arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no export reached the collector")
	}
	q = h.tg.SendText(dm, alice, "second")
	h.answer(dm, q.ID, "Second answer.")
}

func names(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// values are the attributes' values as text, arrays and maps flattened.
func values(kvs []*commonpb.KeyValue) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, kv.Key)
		out = append(out, anyText(kv.Value)...)
	}
	return out
}

func anyText(v *commonpb.AnyValue) []string {
	switch {
	case v.GetArrayValue() != nil:
		var out []string
		for _, e := range v.GetArrayValue().Values {
			out = append(out, anyText(e)...)
		}
		return out
	case v.GetKvlistValue() != nil:
		return values(v.GetKvlistValue().Values)
	case v.GetBytesValue() != nil:
		return []string{string(v.GetBytesValue())}
	}
	return []string{v.GetStringValue()}
}
