package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

// Whatever a turn's steps hold — emoji outside the basic plane, which
// count twice in Telegram's units, control characters, invalid UTF-8, a
// long line, markup — the message stays one Telegram would take.
func TestRenderHostileTraceFits(t *testing.T) {
	astral := strings.Repeat("😀", 400)
	for name, step := range map[string]memory.TraceStep{
		"astral fields": {Kind: memory.TraceTool, Tool: "calculate", Args: astral, Result: astral, Err: astral, Status: "error"},
		"hidden fields": {Kind: memory.TraceTool, Tool: "calculate", Args: strings.Repeat("\u202E\x00\u200B", 400),
			Result: strings.Repeat("\xff</pre><b>", 400), Err: strings.Repeat("\u2066", 400), Status: "error"},
		"one long line": {Kind: memory.TraceTool, Tool: "calculate", Result: strings.Repeat("x", 5000), Status: "ok"},
		"small fields":  {Kind: memory.TraceTool, Tool: "calculate", Args: "1", Result: "2", Err: "3", Status: "error"},
		"long tool":     {Kind: memory.TraceTool, Tool: strings.Repeat("t😀", 2000), Args: astral, Result: astral, Status: "ok"},
		"long names":    {Kind: memory.TraceModel, Model: strings.Repeat("m😀", 1000), Err: astral, Status: "failed"},
	} {
		for _, n := range []int{1, 3, 15, 40} {
			tr := goldenTrace()
			tr.Model = step.Model
			tr.Steps = nil
			for range n {
				tr.Steps = append(tr.Steps, step)
			}
			msg, _ := renderTrace(tr)
			_, entities, err := telegramtest.CheckMessageHTML(msg.HTML)
			if u := render.Units(msg.Plain); err != nil || u > render.MaxUnits || entities > render.MaxEntities {
				t.Errorf("%s × %d: %d units, %d entities, %v", name, n, u, entities, err)
			}
		}
	}
}

// A trace is sent to each presser once a minute; one that could not be
// sent may be sent at the next press.
func TestSentTracesOnceAMinute(t *testing.T) {
	var s sentTraces
	at := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	const turn, alice, carol = 9_123_456_789_012, 7_123_456_789, 7_987_654_321
	for i, c := range []struct {
		presser int64
		after   time.Duration
		want    bool
	}{{alice, 0, true}, {alice, time.Second, false}, {carol, time.Second, true}, {alice, 59 * time.Second, false},
		{alice, time.Minute, true}} {
		if got := s.claim(turn, c.presser, at.Add(c.after)); got != c.want {
			t.Errorf("press %d: claim = %v; want %v", i, got, c.want)
		}
	}
	s.release(turn, carol)
	if !s.claim(turn, carol, at.Add(2*time.Second)) {
		t.Error("a trace that could not be sent is held")
	}
}

// Whatever a tool is called and answers, the trace's message is one
// Telegram takes.
func FuzzRenderTrace(f *testing.F) {
	f.Add("calculate", `{"q":"</pre>"}`, "\u202Eevil\x00", 3)
	f.Fuzz(func(t *testing.T, tool, args, result string, n int) {
		tr := goldenTrace()
		tr.Steps = nil
		for range min(max(n, 1), memory.MaxTraceSteps) {
			tr.Steps = append(tr.Steps, memory.TraceStep{Kind: memory.TraceTool, Tool: tool, Args: args, Result: result, Err: result})
		}
		msg, _ := renderTrace(tr)
		_, entities, err := telegramtest.CheckMessageHTML(msg.HTML)
		if u := render.Units(msg.Plain); err != nil || u > render.MaxUnits || entities > render.MaxEntities {
			t.Fatalf("%d units, %d entities, %v", u, entities, err)
		}
	})
}
