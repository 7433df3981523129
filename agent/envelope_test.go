package agent_test

import (
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/schema"
)

const plain = `{"reply":"42","command":null,"tags":["math"],"followUpQuestion":null}`

func TestParseEnvelope(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		reply  string
		intent string
		errHas string
	}{
		{name: "bare", answer: plain, reply: "42"},
		{name: "code fence", answer: "```json\n" + plain + "\n```", reply: "42"},
		{name: "text around", answer: "Sure! Here it is: " + plain + " Hope that helps {", reply: "42"},
		{name: "braces in strings", answer: `{"reply":"use {x} and \"}\" freely","command":null,"tags":[],"followUpQuestion":null}`,
			reply: `use {x} and "}" freely`},
		{name: "command", answer: `{"reply":"","command":{"intent":"calculate","slots":{"expression":"6*7"},"confidence":0.9,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`,
			intent: "calculate"},
		{name: "first object broken, second fine", answer: `{"oops": 1} then ` + plain, reply: "42"},
		{name: "no JSON", answer: "I think the answer is 42.", errHas: "no JSON object"},
		{name: "missing field", answer: `{"reply":"x","command":null,"tags":[]}`, errHas: `"followUpQuestion" is missing`},
		{name: "unknown field", answer: `{"reply":"x","command":null,"tags":[],"followUpQuestion":null,"mood":"happy"}`, errHas: `unknown field "mood"`},
		{name: "slots not an object", answer: `{"reply":"","command":{"intent":"x","slots":[1],"confidence":1,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`,
			errHas: "slots"},
		{name: "cut off", answer: `{"reply":"4`, errHas: "no JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := agent.ParseEnvelope(tt.answer, nil)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("ParseEnvelope = %+v, %v; want an error saying %q", env, err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if env.Reply != tt.reply || (tt.intent != "" && (env.Command == nil || env.Command.Intent != tt.intent)) {
				t.Fatalf("ParseEnvelope = %+v; want reply %q, intent %q", env, tt.reply, tt.intent)
			}
		})
	}
}

// FuzzParseEnvelope runs parsing and validation together; its seeds run as
// unit tests.
func FuzzParseEnvelope(f *testing.F) {
	s, err := schema.Compile(prompts.OpenEnvelope())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(plain)
	f.Add("```json\n" + plain + "\n```")
	f.Add(`{"reply":"}{","command":null,"tags":[],"followUpQuestion":null}`)
	f.Add(`{"reply":"","command":{"intent":"calculate","slots":{"expression":"1+1"},"confidence":0.5,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`)
	f.Add(`{"reply":"x","command":{"intent":"x","slots":{},"confidence":7,"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`)
	f.Fuzz(func(t *testing.T, answer string) {
		env, err := agent.ParseEnvelope(answer, s) // must not panic
		if err != nil {
			return
		}
		if env.Command != nil && (len(env.Command.Slots) == 0 || env.Command.Confidence < 0 || env.Command.Confidence > 1) {
			t.Fatalf("accepted an invalid command: %q", answer)
		}
	})
}
