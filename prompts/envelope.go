package prompts

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed envelope.schema.json
var envelopeSchema []byte

// EnvelopeSchema is the JSON schema of the envelope the model answers in, as
// DESIGN states it, with no tools.
func EnvelopeSchema() json.RawMessage { return envelopeSchema }

// OpenEnvelope is the envelope with any command: its intent a string and
// its slots any object. Answers are checked against it; the intent and the
// slots are then checked by the tool bus, whose errors the model can act on.
func OpenEnvelope() json.RawMessage {
	var root map[string]any
	json.Unmarshal(envelopeSchema, &root)
	command := root["properties"].(map[string]any)["command"].(map[string]any)
	generic := command["anyOf"].([]any)[1].(map[string]any)
	command["anyOf"] = []any{map[string]any{"type": "null"}, commandFor(generic, "", map[string]any{"type": "object"})}
	out, _ := json.Marshal(root)
	return out
}

// Tool is a tool as the model is told about it.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage // the arguments
}

// Envelope returns the envelope schema for a person who may use tools: the
// command is null, or one of the tools with its own argument schema as the
// slots. Sent to Ollama as the format, it lets the model produce only calls
// of tools that exist, with arguments of the right shape.
func Envelope(tools []Tool) (json.RawMessage, error) {
	var root map[string]any
	if err := json.Unmarshal(envelopeSchema, &root); err != nil {
		return nil, fmt.Errorf("envelope schema: %w", err)
	}
	command := root["properties"].(map[string]any)["command"].(map[string]any)
	generic := command["anyOf"].([]any)[1].(map[string]any)
	variants := []any{map[string]any{"type": "null"}}
	for _, t := range tools {
		var slots any
		if err := json.Unmarshal(t.Schema, &slots); err != nil {
			return nil, fmt.Errorf("envelope schema: tool %s: %w", t.Name, err)
		}
		variants = append(variants, commandFor(generic, t.Name, slots))
	}
	command["anyOf"] = variants
	return json.Marshal(root)
}

// commandFor is the generic command object with the intent fixed to name
// and the tool's arguments as slots.
func commandFor(generic map[string]any, name string, slots any) map[string]any {
	props := map[string]any{}
	for k, v := range generic["properties"].(map[string]any) {
		props[k] = v
	}
	if name != "" {
		props["intent"] = map[string]any{"type": "string", "enum": []string{name}}
	}
	props["slots"] = slots
	variant := map[string]any{}
	for k, v := range generic {
		variant[k] = v
	}
	variant["properties"] = props
	return variant
}
