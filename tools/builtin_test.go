package tools

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ryo-bot/ryo/toolbus"
)

// verbs are the imperative verbs the descriptions may start with.
var verbs = map[string]bool{"Evaluate": true, "Get": true, "Convert": true, "Describe": true, "Fit": true, "Calculate": true, "Test": true, "Draw": true, "Search": true, "Read": true}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func TestBuiltinSpecs(t *testing.T) {
	specs := Builtin(time.UTC, nil)
	if len(specs) != 9 {
		t.Fatalf("Builtin returned %d specs; want 9", len(specs))
	}
	specs = append(specs, HistorySearch(nil), WebFetch(pages{})) // wired apart: they need the store, a fetcher
	names := map[string]bool{}
	for _, s := range specs {
		if !snakeCase.MatchString(s.Name) || names[s.Name] {
			t.Errorf("name %q is not lower_snake_case or not unique", s.Name)
		}
		names[s.Name] = true
		if s.Effect != toolbus.ReadOnly || s.Tool == nil {
			t.Errorf("%s: effect %v, tool %v; want read-only with a tool", s.Name, s.Effect, s.Tool)
		}
		checkDescription(t, s.Name, s.Description)
		checkSchema(t, s.Name, s.Schema)
	}
}

func checkDescription(t *testing.T, name, d string) {
	t.Helper()
	first, _, _ := strings.Cut(d, " ")
	if n := utf8.RuneCountInString(d); n == 0 || n > 200 {
		t.Errorf("%s: description has %d characters; want 1 to 200", name, n)
	}
	if !verbs[first] {
		t.Errorf("%s: description starts with %q; want a capitalized imperative verb", name, first)
	}
}

func checkSchema(t *testing.T, name string, raw json.RawMessage) {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatalf("%s: schema is not a JSON object: %v", name, err)
	}
	if root["type"] != "object" {
		t.Errorf("%s: schema type is %v; want object", name, root["type"])
	}
	if strings.Contains(string(raw), "$ref") {
		t.Errorf("%s: schema uses $ref; keep it self-contained", name)
	}
	walkSchema(t, name+": $", root)
}

// walkSchema checks every object schema inside s: closed, with properties
// that are described and required fields that exist.
func walkSchema(t *testing.T, path string, s map[string]any) {
	t.Helper()
	if s["type"] == "object" || s["properties"] != nil {
		checkObject(t, path, s)
	}
	for key, v := range s {
		switch v := v.(type) {
		case map[string]any:
			walkSchema(t, path+"."+key, v)
		case []any:
			for _, item := range v {
				if m, ok := item.(map[string]any); ok {
					walkSchema(t, path+"."+key+"[]", m)
				}
			}
		}
	}
}

func checkObject(t *testing.T, path string, s map[string]any) {
	t.Helper()
	if s["additionalProperties"] != false {
		t.Errorf(`%s: object schema without "additionalProperties": false`, path)
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		t.Errorf(`%s: object schema without "properties"`, path)
	}
	for key, p := range props {
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("%s.properties.%s: no description", path, key)
		}
	}
	required, ok := s["required"].([]any)
	if !ok {
		t.Errorf(`%s: object schema without a "required" list`, path)
	}
	for _, r := range required {
		if _, ok := props[r.(string)]; !ok {
			t.Errorf("%s: required %v is not a property", path, r)
		}
	}
}

// Every tool ryo ships registers: its category is a known one, and its
// examples' arguments are ones the tool accepts — run, they succeed.
func TestEveryToolIsInTheCatalog(t *testing.T) {
	known := map[toolbus.Category]bool{toolbus.MathFinance: true, toolbus.Charts: true, toolbus.Memory: true, toolbus.TimeUnits: true, toolbus.Web: true}
	specs := append(Builtin(time.UTC, nil), Memory(Recaller{}, nil)...)
	specs = append(specs, AdminForget(Recaller{}), HistorySearch(nil), WebFetch(pages{}))
	r := toolbus.NewRegistry()
	for _, s := range specs {
		if err := r.Register(s); err != nil {
			t.Fatal(err)
		}
		if !known[s.Category] {
			t.Errorf("%s: category %q is none of the catalog's", s.Name, s.Category)
		}
		if s.Effect != toolbus.ReadOnly || s.Category == toolbus.Memory {
			continue // they need a conversation and a store
		}
		for _, e := range s.Examples {
			if _, err := s.Tool.Call(t.Context(), e.Arguments); err != nil {
				t.Errorf("%s: the example %q fails: %v", s.Name, e.Question, err)
			}
		}
	}
}
