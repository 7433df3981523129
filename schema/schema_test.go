package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/schema"
)

const args = `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string"}},"required":["n"],"additionalProperties":false}`

func TestValidate(t *testing.T) {
	s, err := schema.Compile(json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		doc  string
		want string // "" for valid
	}{
		{`{"n":3}`, ""},
		{`{"n":0}`, "n: Must be greater than or equal to 1"},
		{`{"s":"x"}`, "n is required"},
		{`{"n":1,"x":2}`, "Additional property x is not allowed"},
		{`{"n":"3"}`, "n: Invalid type. Expected: integer, given: string"},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.doc))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Validate(%s) = %v; want %q", tt.doc, err, tt.want)
		}
	}
	if err := s.Validate([]byte(`{"n":`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("Validate(broken) = %v", err)
	}
}

func TestCompileRefusesRemoteRefs(t *testing.T) {
	_, err := schema.Compile(json.RawMessage(`{"$ref":"http://example.invalid/s.json"}`))
	if err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Fatalf("Compile(remote $ref) = %v", err)
	}
	if _, err := schema.Compile(json.RawMessage(`{"definitions":{"a":{"type":"string"}},"$ref":"#/definitions/a"}`)); err != nil {
		t.Fatalf("local $ref refused: %v", err)
	}
}

func TestClosed(t *testing.T) {
	if p, _ := schema.Closed(json.RawMessage(args)); p != "" {
		t.Fatalf("Closed(closed) = %q", p)
	}
	open := `{"type":"object","properties":{"inner":{"type":"object","properties":{"a":{"type":"string"}}}},"additionalProperties":false}`
	if p, _ := schema.Closed(json.RawMessage(open)); p != "$.properties.inner" {
		t.Fatalf("Closed(open inner) = %q; want $.properties.inner", p)
	}
}
