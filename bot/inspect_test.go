package bot

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the output")

// Only the form inspectData writes is read: a 64-bit update and chat, no
// signs, spaces or leading zeros, nothing after.
func TestParseInspect(t *testing.T) {
	if u, c, ok := parseInspect(inspectData(9_123_456_789_012, -1001234567890)); !ok || u != 9_123_456_789_012 || c != -1001234567890 {
		t.Fatalf("round trip = %d, %d, %v", u, c, ok)
	}
	for _, data := range []string{"", "i1:", "i1:5", "i1:5:", "i1::5", "i1:05:-100", "i1:+5:-100", "i1:5:-0100",
		"i1:-5:-100", "i1:0:-100", "i1:5:0", "i1:5:-100:", "i1:5:-100 ", " i1:5:-100", "i2:5:-100", "s1:5:-100",
		"i1:9223372036854775808:-100", "i1:5:-1001234567890x", "i1:５:-100"} {
		if u, c, ok := parseInspect(data); ok {
			t.Errorf("parseInspect(%q) = %d, %d; want it refused", data, u, c)
		}
	}
	if n := len(inspectData(9223372036854775807, -9223372036854775808)); n > 64 {
		t.Errorf("the longest data is %d bytes; Telegram takes 64", n)
	}
}

func FuzzParseInspect(f *testing.F) {
	f.Add("i1:987654321:-1001234567890")
	f.Add("i1:01:5")
	f.Fuzz(func(t *testing.T, data string) {
		u, c, ok := parseInspect(data)
		if ok && (inspectData(u, c) != data || u <= 0 || c == 0) {
			t.Fatalf("parseInspect(%q) = %d, %d: not the form inspectData writes", data, u, c)
		}
	})
}

// goldenTrace is a turn with a repair, a tool that answered with hostile
// text, one refused, and one held for a yes.
func goldenTrace() memory.Trace {
	at := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	return memory.Trace{UpdateID: 9_000_000_001, ChatID: -1001234567890, AskerID: 7_123_456_789, Model: "qwen3:8b",
		Outcome: "held", Took: 4200 * time.Millisecond, PromptTokens: 3100, ReplyTokens: 240,
		Steps: []memory.TraceStep{
			{Kind: memory.TraceModel, Started: at, TookMS: 900, Model: "qwen3:8b", PromptTokens: 1000, ReplyTokens: 60},
			{Kind: memory.TraceModel, Started: at.Add(900 * time.Millisecond), TookMS: 700, Model: "qwen3:8b", Repair: true,
				PromptTokens: 1050, ReplyTokens: 80},
			{Kind: memory.TraceTool, Started: at.Add(1600 * time.Millisecond), TookMS: 41.5, Tool: "web_fetch",
				Args:   `{"url":"https://news.example/<b>"}`,
				Result: "<b>bold</b> **md** `x` \u202Eevil\u202C zero\u200Bwidth </pre><a href=\"tg://user?id=1\">x</a>", Status: "ok"},
			{Kind: memory.TraceTool, Started: at.Add(1700 * time.Millisecond), TookMS: 0.2, Tool: "forget_any",
				Args: `{"id":5}`, Result: `__tool_result__ forget_any {"status":"denied"}`, Status: "denied"},
			{Kind: memory.TraceModel, Started: at.Add(1800 * time.Millisecond), TookMS: 1200, Model: "qwen3:8b",
				PromptTokens: 1050, ReplyTokens: 100},
			{Kind: memory.TraceTool, Started: at.Add(3000 * time.Millisecond), Tool: "memory_forget", Args: `{"id":7}`, Status: "held"},
		}}
}

// The rendered trace is valid Telegram HTML whatever the tools wrote: what
// they wrote shows as text, its invisible characters as code points.
func TestRenderTraceGolden(t *testing.T) {
	msg, file := renderTrace(goldenTrace())
	if file != nil {
		t.Errorf("a short trace came with a file")
	}
	if _, _, err := telegramtest.CheckMessageHTML(msg.HTML); err != nil {
		t.Fatalf("Telegram would refuse the message: %v\n%s", err, msg.HTML)
	}
	if strings.ContainsAny(msg.Plain, "\u202E\u200B") {
		t.Errorf("invisible characters reach the message: %q", msg.Plain)
	}
	golden := "testdata/inspect.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(msg.HTML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if msg.HTML != string(want) {
		t.Errorf("rendered trace differs from %s (go test -run TestRenderTraceGolden -update):\n%s", golden, msg.HTML)
	}
}

// A trace too long for one message shows its start in the message, within
// Telegram's limits, and comes whole as a file.
func TestRenderLongTraceComesAsAFile(t *testing.T) {
	tr := goldenTrace()
	for len(tr.Steps) < memory.MaxTraceSteps {
		tr.Steps = append(tr.Steps, memory.TraceStep{Kind: memory.TraceTool, Tool: "calculate",
			Args: strings.Repeat("<x>", 400), Result: strings.Repeat("é", 4000), ResultBytes: 1 << 20, Status: "ok"})
	}
	tr.StepsLeftOut = 3
	msg, file := renderTrace(tr)
	if file == nil {
		t.Fatal("no file")
	}
	if render.Units(msg.Plain) > render.MaxUnits || strings.Count(msg.HTML, "<") > 2*render.MaxEntities {
		t.Errorf("the message is %d units with %d tags", render.Units(msg.Plain), strings.Count(msg.HTML, "<"))
	}
	if _, _, err := telegramtest.CheckMessageHTML(msg.HTML); err != nil {
		t.Fatalf("Telegram would refuse the message: %v", err)
	}
	if !strings.Contains(string(file), "40. 🔧 calculate") || !strings.Contains(string(file), "1.0 MB in all") ||
		!strings.Contains(string(file), "3 more steps not kept") {
		t.Errorf("the file lacks the last step or the notes:\n%.600s", file)
	}
}

// The recorder keeps the steps in order — model calls with their figures,
// tools with what the model was shown, a held command — fills in the
// turn's model, marks what a stop cut short, and counts steps past the cap.
func TestTracerRecordsSteps(t *testing.T) {
	clock := clocktest.New(time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC))
	r := &tracer{clock: clock, model: "qwen3:8b"}
	observe := r.observing(func(ryo.Step) {})
	observe(ryo.Step{Kind: ryo.StepThinking, Call: 1})
	clock.Advance(time.Second)
	observe(ryo.Step{Kind: ryo.StepAnswered, Took: time.Second, Usage: ryo.Usage{PromptTokens: 900, ReplyTokens: 40}})
	observe(ryo.Step{Kind: ryo.StepTool, Tool: "web_fetch", Args: json.RawMessage(`{"url":"https://a.example"}`)})
	clock.Advance(300 * time.Millisecond)
	observe(ryo.Step{Kind: ryo.StepToolDone, Tool: "web_fetch", Args: json.RawMessage(`{"url":"https://a.example"}`),
		Status: "cancelled", Took: 300 * time.Millisecond, Result: "__tool_result__ web_fetch {}"})
	observe(ryo.Step{Kind: ryo.StepAnswered, Model: "llava", Err: "context canceled"})
	observe(ryo.Step{Kind: ryo.StepConfirm, Tool: "forget", Args: json.RawMessage(`{"id":1}`)})
	tk := talk{id: 9_000_000_001, place: ryo.Place{ChatID: -1001234567890, Thread: 7}, person: ryo.User{ID: 7_123_456_789}}
	tr := r.trace(tk, agent.Output{Usage: ryo.Usage{PromptTokens: 900, ReplyTokens: 40}}, json.RawMessage(`{"stopped":true}`), 2*time.Second)
	got := []string{}
	for _, s := range tr.Steps {
		got = append(got, s.Kind+":"+s.Model+s.Tool+":"+s.Status)
	}
	want := "model:qwen3:8b:|tool:web_fetch:stopped|model:llava:stopped|tool:forget:held"
	if strings.Join(got, "|") != want {
		t.Errorf("steps %s; want %s", strings.Join(got, "|"), want)
	}
	if tr.Outcome != TurnStopped || tr.AskerID != 7_123_456_789 || tr.ChatID != -1001234567890 || tr.Thread != 7 ||
		tr.Steps[0].PromptTokens != 900 || tr.Steps[1].TookMS != 300 || !tr.Steps[1].Started.Equal(clock.Now().Add(-300*time.Millisecond)) {
		t.Errorf("trace = %+v", tr)
	}
	for range memory.MaxTraceSteps {
		observe(ryo.Step{Kind: ryo.StepAnswered})
	}
	if tr := r.trace(tk, agent.Output{}, nil, 0); len(tr.Steps) != memory.MaxTraceSteps || tr.StepsLeftOut != 4 {
		t.Errorf("%d steps kept, %d left out; want %d and 4", len(tr.Steps), tr.StepsLeftOut, memory.MaxTraceSteps)
	}
}
