package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ryo-bot/ryo/schema"
)

// Envelope is what the model answers: a reply for the person, and
// optionally a command for the tool bus.
type Envelope struct {
	Reply            string   `json:"reply"`
	Command          *Command `json:"command"`
	Tags             []string `json:"tags"`
	FollowUpQuestion *string  `json:"followUpQuestion"`
}

// Command asks for a tool to run.
type Command struct {
	Intent               string          `json:"intent"`
	Slots                json.RawMessage `json:"slots"`
	Confidence           float64         `json:"confidence"`
	RequiresConfirmation bool            `json:"requiresConfirmation"`
	FollowUpQuestion     *string         `json:"followUpQuestion"`
}

// ErrNoEnvelope is returned when the model's answer holds no JSON object.
var ErrNoEnvelope = errors.New("the answer holds no JSON object")

// ParseEnvelope finds the envelope in a model's answer, checks it against
// the schema s (when not nil) and decodes it. It tolerates what models add
// around JSON — code fences, a sentence before or after — and braces inside
// strings; it refuses unknown fields and missing ones, saying which, so that
// the model can be told what to fix.
func ParseEnvelope(answer string, s *schema.Schema) (Envelope, error) {
	var firstErr error
	firstIsEnvelope := false // whether firstErr is about an object with a "reply"
	for _, candidate := range objects(answer) {
		env, err := decodeEnvelope(candidate, s)
		if err == nil {
			return env, nil
		}
		isEnvelope := strings.Contains(candidate, `"reply"`)
		if firstErr == nil || isEnvelope && !firstIsEnvelope {
			firstErr, firstIsEnvelope = err, isEnvelope
		}
	}
	if firstErr == nil {
		firstErr = ErrNoEnvelope
	}
	return Envelope{}, firstErr
}

func decodeEnvelope(raw string, s *schema.Schema) (Envelope, error) {
	if s != nil {
		if err := s.Validate([]byte(raw)); err != nil {
			return Envelope{}, err
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return Envelope{}, fmt.Errorf("not valid JSON: %w", err)
	}
	for _, name := range []string{"reply", "command", "tags", "followUpQuestion"} {
		if _, ok := fields[name]; !ok {
			return Envelope{}, fmt.Errorf("the field %q is missing", name)
		}
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var env Envelope
	if err := dec.Decode(&env); err != nil {
		return Envelope{}, fmt.Errorf("does not fit the envelope: %w", err)
	}
	if env.Command != nil && (len(env.Command.Slots) == 0 || env.Command.Slots[0] != '{') {
		return Envelope{}, errors.New(`"command.slots" must be an object`)
	}
	if env.Command != nil {
		env.Command.Confidence = inRange(env.Command.Confidence)
	}
	return env, nil
}

// objects returns every balanced top-level {...} in s, in order, skipping
// braces inside JSON strings.
func objects(s string) []string {
	var found []string
	for start := strings.IndexByte(s, '{'); start >= 0; {
		end := matchBrace(s, start)
		if end < 0 {
			break
		}
		found = append(found, s[start:end+1])
		next := strings.IndexByte(s[end+1:], '{')
		if next < 0 {
			break
		}
		start = end + 1 + next
	}
	return found
}

// matchBrace returns the index of the brace closing the one at open, or -1.
func matchBrace(s string, open int) int {
	depth, inString, escaped := 0, false, false
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// inRange brings a confidence into 0..1: a percentage is read as one.
func inRange(c float64) float64 {
	switch {
	case c > 1 && c <= 100:
		return c / 100
	case c > 1:
		return 1
	case c < 0:
		return 0
	}
	return c
}
