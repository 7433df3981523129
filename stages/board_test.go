package stages

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// moment is a step of a scripted turn: after `at`, the step happens (or
// nothing, for a mere tick), and the status message is rendered.
type moment struct {
	at   time.Duration
	step ryo.Step
}

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// tick is no step: only time passes.
var tick = ryo.Step{}

func thinking(call int) ryo.Step { return ryo.Step{Kind: ryo.StepThinking, Call: call} }
func writing(s string) ryo.Step  { return ryo.Step{Kind: ryo.StepWriting, Reply: s} }
func tool(name, args string) ryo.Step {
	return ryo.Step{Kind: ryo.StepTool, Tool: name, Args: json.RawMessage(args)}
}
func toolDone(name, status string, took time.Duration) ryo.Step {
	return ryo.Step{Kind: ryo.StepToolDone, Tool: name, Status: status, Took: took}
}

// The status message through whole turns, pinned by golden files: each
// section is the message as it reads at that moment.
func TestStatusGolden(t *testing.T) {
	long := strings.Repeat("Всё идёт по плану, and the plan is long. 🚀 ", 120)
	scripts := map[string]struct {
		resumed bool
		preview bool
		moments []moment
	}{
		"quick": {preview: true, moments: []moment{
			{0, thinking(1)}, {1200 * time.Millisecond, writing("Hello")}, {1300 * time.Millisecond, writing("Hello, Alice! How can I help?")},
		}},
		"tools": {preview: true, moments: []moment{
			{0, thinking(1)},
			{3 * time.Second, tool("calculate", `{"expression":"6*7"}`)},
			{3*time.Second + 12*time.Millisecond, toolDone("calculate", "ok", 12*time.Millisecond)},
			{7 * time.Second, tool("unit_convert", `{"value":5,"from":"km","to":"mi","note":"a very long note that goes on and on and does not stop"}`)},
			{9500 * time.Millisecond, toolDone("unit_convert", "error", 2500*time.Millisecond)},
			{10 * time.Second, tick},
			{16 * time.Second, writing("6 × 7 = **42**, and 5 km is about 3.1 miles.")},
		}},
		"confirmation": {preview: true, moments: []moment{
			{0, thinking(1)},
			{2 * time.Second, ryo.Step{Kind: ryo.StepConfirm, Tool: "forget", Args: json.RawMessage(`{"memory_id":12}`)}},
			{40 * time.Second, toolDone("forget", "cancelled", 0)},
			{41 * time.Second, toolDone("forget", "denied", 0)},
		}},
		"slow model": {preview: true, moments: []moment{
			{0, thinking(1)}, {4 * time.Second, tick}, {5 * time.Second, tick}, {59 * time.Second, tick}, {61 * time.Second, tick},
			{76 * time.Second, thinking(2)}, {3*time.Minute + 5*time.Second, tick},
		}},
		"thinking hidden": {preview: true, moments: []moment{
			{0, thinking(1)}, {time.Second, writing("<think>the person wants")}, {1500 * time.Millisecond, writing("<think>the person wants a name</think>Ali")},
			{2 * time.Second, writing("<think>the person wants a name</think>Alice <thi")},
		}},
		"chart": {preview: true, moments: []moment{
			{0, thinking(1)},
			{2 * time.Second, ryo.Step{Kind: ryo.StepTool, Tool: "create_chart", Doing: "📊 drawing a chart",
				Args: json.RawMessage(`{"kind":"bar","points":[{"label":"Week 1","value":12},{"label":"Week 2","value":40}]}`)}},
			{2*time.Second + 140*time.Millisecond, toolDone("create_chart", "ok", 140*time.Millisecond)},
			{3 * time.Second, writing("Your spending peaked in week 2.")},
		}},
		"long reply": {preview: true, moments: []moment{{0, thinking(1)}, {20 * time.Second, writing(long)}}},
		"draft":      {preview: false, moments: []moment{{0, thinking(1)}, {6 * time.Second, writing("streams into the draft, not here")}}},
		"forced": {preview: true, moments: []moment{
			{0, ryo.Step{Kind: ryo.StepForced, Tool: "statistics"}}, {0, thinking(1)},
			{2 * time.Second, tool("statistics", `{"numbers":[12,15,9,30,11]}`)},
			{2*time.Second + 3*time.Millisecond, toolDone("statistics", "ok", 3*time.Millisecond)},
			{5 * time.Second, writing("The mean is 15.4.")},
		}},
		"resumed": {resumed: true, preview: true, moments: []moment{{0, thinking(1)}, {30 * time.Second, thinking(2)}}},
	}
	for name, sc := range scripts {
		t.Run(name, func(t *testing.T) {
			b := board{began: t0, resumed: sc.resumed}
			var out strings.Builder
			for _, m := range sc.moments {
				if m.step.Kind != 0 {
					b.observe(m.step)
				}
				fmt.Fprintf(&out, "----- at %v -----\n%s\n", m.at, b.text(t0.Add(m.at), sc.preview))
			}
			golden(t, strings.ReplaceAll(name, " ", "_"), out.String())
		})
	}
}

func TestResolvedTexts(t *testing.T) {
	var out strings.Builder
	for _, s := range []struct {
		took  time.Duration
		tools []string
	}{{9 * time.Second, nil}, {14 * time.Second, []string{"calculate", "unit_convert", "calculate"}}, {125 * time.Second, []string{"current_time"}}} {
		fmt.Fprintln(&out, summary(lang.Printer{}, s.took, s.tools))
	}
	fmt.Fprintln(&out, pausedText)
	fmt.Fprintln(&out, failedPrefix+"The model is not installed.")
	golden(t, "resolved", out.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"expression":"6*7"}`, "expression: 6*7"},
		{`{"b":2,"a":"x"}`, "a: x, b: 2"},
		{`{"text":"line one\nline two"}`, "text: line one line two"},
		{`{"list":[1, 2, 3],"obj":{"k": true}}`, `list: [1,2,3], obj: {"k":true}`},
		{`{"q":"` + strings.Repeat("x", 60) + `"}`, "q: " + strings.Repeat("x", 39) + "…"},
		{`not json`, "not json"},
		{`{}`, ""},
	}
	for _, tt := range tests {
		if got := summarize(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("summarize(%s) = %q; want %q", tt.args, got, tt.want)
		}
	}
}

func TestPreviewHidesThinking(t *testing.T) {
	for reply, want := range map[string]string{
		"<think>the person wants":          "",
		"<think>wants a name</think>Alice": "Alice",
		"Hello <THINK>hmm":                 "Hello",
		"Hello <thi":                       "Hello",
		"Hello <":                          "Hello",
		"a <b> c":                          "a <b> c",
		"<think>a</think>Bob <think>second thoughts": "Bob",
		"Write `<think>` to":                         "Write `<think>` to",
	} {
		if got := preview(reply); got != want {
			t.Errorf("preview(%q) = %q; want %q", reply, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		12 * time.Millisecond: "12 ms", 2400 * time.Millisecond: "2.4s", 12 * time.Second: "12s",
		65 * time.Second: "1m 05s", 3 * time.Minute: "3m 00s",
	} {
		if got := duration(lang.Printer{}, d); got != want {
			t.Errorf("duration(%v) = %q; want %q", d, got, want)
		}
	}
}

func TestPace(t *testing.T) {
	p := newPace(true, t0, t0)
	if p.due(t0.Add(time.Second)) || !p.due(t0.Add(privateBase)) {
		t.Fatal("the first progress must wait one base interval, so a quick turn shows none")
	}
	p.shown(t0.Add(2*time.Second), false)
	if got := p.next.Sub(t0.Add(2 * time.Second)); got != privateBase {
		t.Fatalf("private interval = %v; want %v", got, privateBase)
	}
	// A slow model: 10 units a second needs 8 s for a useful piece, capped at 6 s.
	p.grew(t0.Add(2*time.Second), 0)
	p.grew(t0.Add(4*time.Second), 20)
	p.shown(t0.Add(4*time.Second), true)
	if got := p.next.Sub(t0.Add(4 * time.Second)); got != privateCap {
		t.Fatalf("slow-model interval = %v; want the cap %v", got, privateCap)
	}
	// A fast model streams at the base interval; after a minute, twice as far apart.
	p.grew(t0.Add(5*time.Second), 1020)
	p.shown(t0.Add(5*time.Second), true)
	if got := p.next.Sub(t0.Add(5 * time.Second)); got != privateBase {
		t.Fatalf("fast-model interval = %v; want %v", got, privateBase)
	}
	p.shown(t0.Add(2*time.Minute), true)
	if got := p.next.Sub(t0.Add(2 * time.Minute)); got != 2*privateBase {
		t.Fatalf("interval after a minute = %v; want %v", got, 2*privateBase)
	}
	g := newPace(false, t0, t0)
	g.shown(t0.Add(groupBase), false)
	if got := g.next.Sub(t0.Add(groupBase)); got != groupBase {
		t.Fatalf("group interval = %v; want %v", got, groupBase)
	}
}
