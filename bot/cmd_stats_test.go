package bot

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/tools"
)

// statsReport is a month of a group's usage: two models, a name with
// markup and a right-to-left override, a 64-bit id.
func statsReport() memory.UsageReport {
	day1 := time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC)
	t := memory.UsageTotals{Turns: 3, People: 2, PromptTokens: 12345, ReplyTokens: 678, ModelTime: 83 * time.Second, ToolCalls: 4}
	return memory.UsageReport{
		Today: memory.UsageTotals{Turns: 1, People: 1, PromptTokens: 100, ReplyTokens: 20, ModelTime: 4500 * time.Millisecond, ToolCalls: 1},
		Week:  t, Month: t,
		Days: []memory.UsageDay{{Day: day1, Model: "qwen3:8b", Turns: 2, Tokens: 12000},
			{Day: day1.AddDate(0, 0, 1), Model: "llama3.2", Turns: 1, Tokens: 1023}, {Day: day1.AddDate(0, 0, 1), Model: "qwen3:8b", Turns: 1, Tokens: 0}},
		Models: []memory.ModelUsage{{Model: "qwen3:8b", UsageTotals: t}, {Model: "llama3.2\n<b>", UsageTotals: t}},
		People: []memory.PersonUsage{{Person: ryo.User{ID: 8999999999, FirstName: "\u202eCarol <b>&"}, Turns: 2, Tokens: 1200},
			{Person: ryo.User{ID: 9123456789012}, Turns: 1, Tokens: 3}},
		Tools: []memory.ToolUsage{{Tool: "calculate", Calls: 3}, {Tool: "create_chart", Calls: 1}},
	}
}

func TestStatsTextNamesPeopleSafely(t *testing.T) {
	got := statsText(lang.Printer{}, "📊 Usage in this group", statsReport(), true)
	for _, want := range []string{
		"Today: 1 answer · 1 person · 100 tokens in · 20 out · model 4.5s · 1 tool call",
		"30 days: 3 answers · 2 people · 12,345 tokens in · 678 out · model 1m 23s · 4 tool calls",
		"• llama3.2 <b> — 3 answers",
		"• Mon Mar 9 — 2 answers, 1,023 tokens",
		"1. \u2068Carol <b>&\u2069 — 2 answers, 1,200 tokens",
		"2. \u2068user 9123456789012\u2069 — 1 answer, 3 tokens",
		"• calculate — 3 calls",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, '\u202e') {
		t.Error("a right-to-left override got through")
	}
	if own := statsText(lang.Printer{}, "📊 Your usage", statsReport(), false); strings.Contains(own, "Busiest people") || strings.Contains(own, "person") {
		t.Errorf("a person's own usage names people:\n%s", own)
	}
	if none := statsText(lang.Printer{}, "📊 Your usage", memory.UsageReport{}, false); none != "📊 Your usage\nNo answers in the last 30 days." {
		t.Errorf("no usage: %q", none)
	}
}

func TestStatsChartIsAPictureOfThirtyDays(t *testing.T) {
	raw := statsChart(lang.Printer{}, statsReport(), time.Date(2026, 3, 9, 23, 59, 0, 0, time.UTC))
	if !strings.Contains(string(raw), `{"label":"Mar 9","value":1,"value2":1}`) ||
		!strings.Contains(string(raw), `{"label":"Feb 8","value":0,"value2":0}`) {
		t.Errorf("chart arguments: %s", raw)
	}
	data, err := tools.DrawChart(raw)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 300 {
		t.Errorf("a %v picture", b)
	}
}
