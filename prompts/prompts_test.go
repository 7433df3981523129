package prompts_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestGolden(t *testing.T) {
	set, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		render func() (string, error)
	}{
		{"system_private", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "private"})
		}},
		{"system_tools", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "private", Tools: []prompts.Tool{
				{Name: "calculate", Description: "Evaluate an arithmetic expression.", Schema: json.RawMessage(`{
					"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"], "additionalProperties": false}`)},
			}})
		}},
		{"envelope_calculate", func() (string, error) {
			raw, err := prompts.Envelope([]prompts.Tool{{Name: "calculate", Schema: json.RawMessage(
				`{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"],"additionalProperties":false}`)}})
			var pretty bytes.Buffer
			json.Indent(&pretty, raw, "", "  ")
			return pretty.String(), err
		}},
		{"envelope_forced", func() (string, error) {
			raw, err := prompts.Forced(prompts.Tool{Name: "calculate", Schema: json.RawMessage(
				`{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"],"additionalProperties":false}`)})
			var pretty bytes.Buffer
			json.Indent(&pretty, raw, "", "  ")
			return pretty.String(), err
		}},
		{"system_group_topic", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "supergroup", InTopic: true})
		}},
		{"system_group_persona", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "supergroup",
				Persona: "A cheerful pirate who loves the sea.\nSpeaks in short sentences."})
		}},
		{"now", func() (string, error) {
			return set.Now(prompts.Now{Time: "Sunday, 22 November 2026, 14:05", Timezone: "Europe/Berlin"})
		}},
		{"now_group", func() (string, error) {
			return set.Now(prompts.Now{Time: "Sunday, 22 November 2026, 14:05", Timezone: "Europe/Berlin", Group: "Team"})
		}},
		{"now_memories", func() (string, error) {
			return set.Now(prompts.Now{Time: "Sunday, 22 November 2026, 14:05", Timezone: "Europe/Berlin", Memories: []prompts.Memory{
				{ID: 12, Content: "My dog is called Rex"}, {ID: 7, Content: "I'm allergic to peanuts"}}})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.render()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s (run go test ./prompts -update to accept):\n%s", tt.name, golden, got)
			}
		})
	}
}

// The envelope schemas are closed at every level but the slots of a free
// round, which the tool bus holds to each tool's schema; a forced round's
// format is closed all through.
func TestEnvelopeSchemasAreClosed(t *testing.T) {
	tool := prompts.Tool{Name: "t", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`)}
	free, err := prompts.Envelope([]prompts.Tool{tool})
	if err != nil {
		t.Fatal(err)
	}
	forced, err := prompts.Forced(tool)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		raw  json.RawMessage
		open string
	}{
		{prompts.EnvelopeSchema(), ""},
		{forced, ""},
		{free, "$.properties.command.anyOf[1].properties.slots"},
	} {
		if open, err := schema.Closed(tt.raw); err != nil || open != tt.open {
			t.Fatalf("open object at %q (%v); want %q", open, err, tt.open)
		}
		if _, err := schema.Compile(tt.raw); err != nil {
			t.Fatal(err)
		}
	}
}

// The format of a free round names the tools and does not grow with their
// schemas: Ollama's model runner fails on a grammar built from many large
// ones.
func TestEnvelopeSizeDoesNotGrowWithSchemas(t *testing.T) {
	big := json.RawMessage(`{"type":"object","properties":{` + strings.Repeat(`"p":{"type":"array","items":{"type":"number"}},`, 50) +
		`"q":{"type":"string"}},"additionalProperties":false}`)
	var tools []prompts.Tool
	for i := range 40 {
		tools = append(tools, prompts.Tool{Name: fmt.Sprintf("tool_%02d", i), Schema: big})
	}
	raw, err := prompts.Envelope(tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 2048 {
		t.Fatalf("the format for 40 tools is %d bytes; want it under 2 KiB", len(raw))
	}
	s, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		answer string
		ok     bool
	}{
		{`{"reply":"r","command":{"intent":"tool_39","slots":{"anything":1},"confidence":1,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`, true},
		{`{"reply":"r","command":{"intent":"tool_40","slots":{},"confidence":1,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`, false},
		{`{"reply":"r","command":null,"tags":[],"followUpQuestion":null}`, true},
	} {
		if err := s.Validate([]byte(tt.answer)); (err == nil) != tt.ok {
			t.Errorf("Validate(%s) = %v; want ok=%v", tt.answer, err, tt.ok)
		}
	}
}

// A forced round's format admits only a call of that tool, with arguments
// that fit its schema.
func TestForcedEnvelope(t *testing.T) {
	raw, err := prompts.Forced(prompts.Tool{Name: "statistics", Schema: json.RawMessage(
		`{"type":"object","properties":{"numbers":{"type":"array","items":{"type":"number"}}},"required":["numbers"],"additionalProperties":false}`)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		answer string
		ok     bool
	}{
		{`{"reply":"r","command":{"intent":"statistics","slots":{"numbers":[1,2]},"confidence":1,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`, true},
		{`{"reply":"r","command":null,"tags":[],"followUpQuestion":null}`, false},
		{`{"reply":"r","command":{"intent":"calculate","slots":{"numbers":[1,2]},"confidence":1,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`, false},
		{`{"reply":"r","command":{"intent":"statistics","slots":{"numbers":"1 2"},"confidence":1,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`, false},
	} {
		if err := s.Validate([]byte(tt.answer)); (err == nil) != tt.ok {
			t.Errorf("Validate(%s) = %v; want ok=%v", tt.answer, err, tt.ok)
		}
	}
}

// A system prompt is rendered once for the same data, and a change of any
// field renders it anew: each answer is what a fresh Set renders.
func TestSystemKept(t *testing.T) {
	kept, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	calc := prompts.Tool{Name: "calculate", Description: "Evaluate an expression.", Schema: json.RawMessage(`{"type":"object"}`)}
	base := prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "private", Tools: []prompts.Tool{calc}}
	variants := []func(s *prompts.System){
		func(*prompts.System) {},
		func(s *prompts.System) { s.BotName = "Ryo2" },
		func(s *prompts.System) { s.BotUsername = "" },
		func(s *prompts.System) { s.ChatType = "supergroup" },
		func(s *prompts.System) { s.ChatType, s.InTopic = "supergroup", true },
		func(s *prompts.System) { s.Persona = "A pirate." },
		func(s *prompts.System) { s.Persona = "Ryo" }, // the same bytes, shifted between fields
		func(s *prompts.System) { s.BotName, s.Persona = "", "Ryo" },
		func(s *prompts.System) { s.Tools = nil },
		func(s *prompts.System) {
			s.Tools = []prompts.Tool{{Name: calc.Name, Description: calc.Description, Schema: json.RawMessage(`{"type":"string"}`)}}
		},
		func(s *prompts.System) { s.Tools = []prompts.Tool{calc, calc} },
	}
	for round := range 2 {
		for i, vary := range variants {
			data := base
			vary(&data)
			fresh, _ := prompts.Load()
			want, err := fresh.System(data)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := kept.System(data); got != want {
				t.Fatalf("round %d, variant %d: the kept prompt differs from a fresh one:\n%s\n---\n%s", round, i, got, want)
			}
		}
	}
}

// The envelope schema a Set keeps is the one Envelope makes for the same
// tool names, and each caller has a copy of its own.
func TestEnvelopeKept(t *testing.T) {
	set, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	tool := func(name string) prompts.Tool {
		return prompts.Tool{Name: name, Schema: json.RawMessage(`{"type":"object"}`)}
	}
	for round := range 2 {
		for i, tools := range [][]prompts.Tool{nil, {tool("a")}, {tool("ab")}, {tool("a"), tool("b")}, {tool("b"), tool("a")}, {tool("a"), tool("b"), tool("")}} {
			want, err := prompts.Envelope(tools)
			if err != nil {
				t.Fatal(err)
			}
			got, err := set.Envelope(tools)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("round %d, tools %d: kept %s, %v; want %s", round, i, got, err, want)
			}
			clear(got) // a caller's copy is its own
		}
	}
}

// BenchmarkEnvelope: the envelope schema of a turn with ten tools, made
// anew and kept by a Set.
func BenchmarkEnvelope(b *testing.B) {
	set, _ := prompts.Load()
	var tools []prompts.Tool
	for i := range 10 {
		tools = append(tools, prompts.Tool{Name: fmt.Sprintf("tool_%d", i), Schema: json.RawMessage(`{"type":"object"}`)})
	}
	for _, tt := range []struct {
		name string
		make func([]prompts.Tool) (json.RawMessage, error)
	}{{"made", prompts.Envelope}, {"kept", set.Envelope}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tt.make(tools); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
