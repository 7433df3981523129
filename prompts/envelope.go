package prompts

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed envelope.schema.json
var envelopeSchema []byte

// EnvelopeSchema is the JSON schema of the envelope the model answers in, as
// DESIGN states it, with no tools.
func EnvelopeSchema() json.RawMessage { return envelopeSchema }

// Tool is a tool as the model is told about it.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage // the arguments
}

// Envelope returns the envelope schema sent to Ollama as the format for a
// person who may use tools: the command is null, or names one of the tools,
// with an object as the slots. The slots are not held to each tool's
// schema here: the grammar Ollama builds from a format grows with every
// schema in it, and past a few tools' worth the model runner fails on it.
// The tool bus checks the slots against the tool's schema and tells the
// model what to fix; the system prompt shows each tool's arguments. Keys
// keep the order of envelope.schema.json — the grammar makes the model
// write them in that order, so the reply comes first and the tool is
// chosen before its details. With no tools the command can only be null.
func Envelope(tools []Tool) (json.RawMessage, error) {
	variants := []json.RawMessage{json.RawMessage(`{"type":"null"}`)}
	if len(tools) > 0 {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		v, err := commandFor(names, json.RawMessage(`{"type":"object"}`))
		if err != nil {
			return nil, fmt.Errorf("envelope schema: %w", err)
		}
		variants = append(variants, v)
	}
	return withCommand(variants)
}

// Forced returns the envelope schema for a round that must call t: the
// command cannot be null, its intent is t's name and its slots follow t's
// own argument schema, so the grammar makes the model fill in exactly
// that tool's arguments.
func Forced(t Tool) (json.RawMessage, error) {
	v, err := commandFor([]string{t.Name}, t.Schema)
	if err != nil {
		return nil, fmt.Errorf("envelope schema: tool %s: %w", t.Name, err)
	}
	return withCommand([]json.RawMessage{v})
}

// OpenEnvelope is the envelope with any command: its intent any string, its
// slots any object, its confidence any number (grammars do not enforce the
// 0..1 range, and a model writing 90 for 0.9 is not worth a repair; the
// agent brings it into range). Answers are checked against it; the intent and
// the slots are then checked by the tool bus, whose errors the model can act
// on.
func OpenEnvelope() json.RawMessage {
	v, _ := commandFor(nil, json.RawMessage(`{"type":"object"}`))
	out, _ := withCommand([]json.RawMessage{json.RawMessage(`{"type":"null"}`), v})
	return out
}

// withCommand is envelope.schema.json with the command's variants replaced.
func withCommand(variants []json.RawMessage) (json.RawMessage, error) {
	root, err := parseObject(envelopeSchema)
	if err != nil {
		return nil, err
	}
	props, err := parseObject(root.get("properties"))
	if err != nil {
		return nil, err
	}
	anyOf, _ := json.Marshal(map[string]any{"anyOf": variants})
	props.set("command", anyOf)
	root.set("properties", props.marshal())
	return root.marshal(), nil
}

// commandFor is the command object of envelope.schema.json with the intent
// one of names (any string when there are none) and slots as the arguments.
func commandFor(names []string, slots json.RawMessage) (json.RawMessage, error) {
	root, _ := parseObject(envelopeSchema)
	props, _ := parseObject(root.get("properties"))
	var command struct {
		AnyOf []json.RawMessage `json:"anyOf"`
	}
	if err := json.Unmarshal(props.get("command"), &command); err != nil || len(command.AnyOf) != 2 {
		return nil, fmt.Errorf("envelope.schema.json: command must be anyOf [null, object]")
	}
	generic, err := parseObject(command.AnyOf[1])
	if err != nil {
		return nil, err
	}
	fields, err := parseObject(generic.get("properties"))
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		intent, _ := json.Marshal(map[string]any{"type": "string", "enum": names})
		fields.set("intent", intent)
	} else {
		fields.set("confidence", json.RawMessage(`{"type":"number"}`))
	}
	if !json.Valid(slots) {
		return nil, fmt.Errorf("slots: not valid JSON")
	}
	fields.set("slots", slots)
	generic.set("properties", fields.marshal())
	return generic.marshal(), nil
}

// object is a JSON object that keeps the order of its keys.
type object []field

type field struct {
	key   string
	value json.RawMessage
}

func parseObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, field{key: tok.(string), value: v})
	}
	return o, nil
}

func (o object) get(key string) json.RawMessage {
	for _, f := range o {
		if f.key == key {
			return f.value
		}
	}
	return nil
}

func (o *object) set(key string, v json.RawMessage) {
	for i, f := range *o {
		if f.key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, field{key: key, value: v})
}

func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		json.Compact(&b, f.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
