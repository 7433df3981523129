package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

// Schema is a compiled JSON Schema.
type Schema struct {
	s *gojsonschema.Schema
}

var remoteRef = regexp.MustCompile(`"\$ref"\s*:\s*"[^#"]`)

// Compile parses and compiles a schema.
func Compile(raw json.RawMessage) (*Schema, error) {
	if !json.Valid(raw) {
		return nil, errors.New("schema: not valid JSON")
	}
	if remoteRef.Match(raw) {
		return nil, errors.New("schema: $ref to another document is not allowed; keep schemas self-contained")
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return &Schema{s: s}, nil
}

// Invalid lists the ways a document breaks a schema, each a short sentence
// naming the field, fit to show a model.
type Invalid struct {
	Problems []string
}

func (e *Invalid) Error() string { return strings.Join(e.Problems, "; ") }

// Validate returns nil for a document that fits the schema, an *Invalid that
// says why for one that does not, and another error for one that is not
// JSON at all.
func (s *Schema) Validate(doc []byte) error {
	res, err := s.s.Validate(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if res.Valid() {
		return nil
	}
	inv := &Invalid{}
	for _, e := range res.Errors() {
		inv.Problems = append(inv.Problems, problem(e))
	}
	return inv
}

func problem(e gojsonschema.ResultError) string {
	field := strings.TrimPrefix(e.Field(), "(root).")
	if field == "(root)" || field == "" {
		return e.Description()
	}
	return field + ": " + e.Description()
}

// Closed reports the first object schema inside raw that does not set
// "additionalProperties": false, as a JSON path, or "" when every one does.
// Open objects let a model invent fields that nothing checks.
func Closed(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	return openObject(v, "$"), nil
}

func openObject(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		if isObjectSchema(v) && v["additionalProperties"] != false {
			return path
		}
		for k, child := range v {
			if p := openObject(child, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, child := range v {
			if p := openObject(child, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func isObjectSchema(m map[string]any) bool {
	if m["type"] == "object" {
		return true
	}
	if types, ok := m["type"].([]any); ok {
		for _, t := range types {
			if t == "object" {
				return true
			}
		}
	}
	_, hasProps := m["properties"].(map[string]any)
	return hasProps
}
