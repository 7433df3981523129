package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/schema"
	"github.com/ryo-bot/ryo/toolbus"
)

const typical = "```json\n" + `{"reply":"Let me calculate that for you.","command":{"intent":"calculate","slots":{"expression":"(17.5 * 3) / 4 + sqrt(16)"},` +
	`"confidence":0.92,"requiresConfirmation":false,"followUpQuestion":null},"tags":["math","calculation"],"followUpQuestion":null}` + "\n```"

// BenchmarkParseEnvelope: extracting, validating and decoding a typical
// envelope (goal: at most 50 µs).
func BenchmarkParseEnvelope(b *testing.B) {
	s, err := schema.Compile(prompts.OpenEnvelope())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := agent.ParseEnvelope(typical, s); err != nil {
			b.Fatal(err)
		}
	}
}

// instant is a model with no latency: a command, then an answer, in turn.
type instant struct{ n int }

func (m *instant) Chat(context.Context, ryo.ModelRequest) (ryo.ModelReply, error) {
	m.n++
	if m.n%2 == 1 {
		return ryo.ModelReply{Content: add("6", "36")}, nil
	}
	return ryo.ModelReply{Content: reply("42")}, nil
}

// BenchmarkLoopRound: one tool round of the loop — a model call, the tool,
// storing the result in a real PostgreSQL — with a model that takes no time
// (goal: median at most 2 ms). Each op is a whole turn of two rounds — the
// tool round, with its store lookup and write, and the answering round — so
// the median of a turn is an upper bound for one round.
func BenchmarkLoopRound(b *testing.B) {
	db := memorytest.Open(b)
	place := ryo.Place{ChatID: 7123456789}
	if _, err := db.SaveUserMessage(context.Background(), ryo.Chat{ID: place.ChatID, Type: ryo.ChatPrivate},
		ryo.Message{Place: place, Kind: ryo.KindUser, Text: "what is 6+36?", TelegramID: 4821}); err != nil {
		b.Fatal(err)
	}
	reg := toolbus.NewRegistry()
	reg.Register(toolbus.Spec{Name: "add", Description: "Add two numbers", Schema: json.RawMessage(addSchema), Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "2 plus 3?", Arguments: json.RawMessage(`{"a":2,"b":3}`)}},
		Tool: toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return 42, nil })})
	set, _ := prompts.Load()
	a, err := agent.New(agent.Config{Model: &instant{}, Prompts: set, Tools: reg, Store: db, Location: time.UTC})
	if err != nil {
		b.Fatal(err)
	}
	in := private("what is 6+36?")
	in.Place = place
	var turns []time.Duration
	for i := 0; b.Loop(); i++ {
		in.UpdateID = int64(987654321 + i) // a new turn: the tool runs and its result is stored
		start := time.Now()
		if _, err := a.Run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
		turns = append(turns, time.Since(start))
	}
	slices.Sort(turns)
	b.ReportMetric(float64(turns[len(turns)/2].Microseconds())/1000, "median-turn-ms")
}

// BenchmarkPrompt: the messages of a turn in a private chat with ten
// tools, whose system prompt is the same from turn to turn.
func BenchmarkPrompt(b *testing.B) {
	reg := toolbus.NewRegistry()
	for i := range 10 {
		err := reg.Register(toolbus.Spec{Name: fmt.Sprintf("tool_%d", i), Description: "Does one thing of many, described in a sentence or two for the model.",
			Schema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "what to look for"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20}
  },
  "required": ["query"],
  "additionalProperties": false
}`), Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "find cats", Arguments: json.RawMessage(`{"query":"cats"}`)}},
			Tool: toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return 42, nil })})
		if err != nil {
			b.Fatal(err)
		}
	}
	set, _ := prompts.Load()
	a, err := agent.New(agent.Config{Model: &instant{}, Prompts: set, Tools: reg, Store: &results{byKey: map[string]ryo.Message{}}, Location: time.UTC})
	if err != nil {
		b.Fatal(err)
	}
	in := private("what is 6+36?")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Prompt(in); err != nil {
			b.Fatal(err)
		}
	}
}
