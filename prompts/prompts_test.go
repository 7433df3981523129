package prompts_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
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
		{"system_group_topic", func() (string, error) {
			return set.System(prompts.System{BotName: "Ryo", BotUsername: "ryo_bot", ChatType: "supergroup", InTopic: true})
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

// The envelope schemas are closed at every level, as DESIGN requires.
func TestEnvelopeSchemasAreClosed(t *testing.T) {
	for _, raw := range []json.RawMessage{prompts.EnvelopeSchema(), mustEnvelope(t)} {
		if open, err := schema.Closed(raw); err != nil || open != "" {
			t.Fatalf("open object at %q (%v)", open, err)
		}
		if _, err := schema.Compile(raw); err != nil {
			t.Fatal(err)
		}
	}
}

func mustEnvelope(t *testing.T) json.RawMessage {
	raw, err := prompts.Envelope([]prompts.Tool{{Name: "t", Schema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
