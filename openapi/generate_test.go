package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtures are the documents of testdata, with what the configuration
// would say about each.
var fixtures = []openapi.API{
	{Name: "petstore", DocumentURL: "https://petstore3.example/api/v3/openapi.json", Auth: openapi.Auth{In: openapi.InHeader, Name: "api_key", Value: "special-key"}},
	{Name: "weather"},
	{Name: "notes", Auth: openapi.Auth{In: openapi.InHeader, Name: "X-API-Key", Value: "k-123456"}},
	{Name: "constructs"},
}

var fixtureFiles = map[string]string{
	"petstore": "petstore.yaml", "weather": "weather.yaml", "notes": "swagger2.json", "constructs": "constructs.yaml",
}

func load(t testing.TB, api openapi.API) openapi.API {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", fixtureFiles[api.Name]))
	if err != nil {
		t.Fatal(err)
	}
	api.Document = data
	return api
}

// TestCatalogsMatchGolden pins what each fixture becomes: names,
// descriptions, effects, schemas, examples, and what was skipped with
// why. Run with -update to rewrite, then read the diff.
func TestCatalogsMatchGolden(t *testing.T) {
	for _, api := range fixtures {
		t.Run(api.Name, func(t *testing.T) {
			cat, err := openapi.Generate(load(t, api))
			if err != nil {
				t.Fatal(err)
			}
			got := render(cat)
			path := filepath.Join("testdata", "golden", api.Name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("catalog differs from %s (run with -update and read the diff):\n%s", path, got)
			}
		})
	}
}

// TestEverySpecRegisters runs the registry's own checks on every
// generated tool, and makes sure the schema the model sees has no
// maxItems and the credential appears nowhere.
func TestEverySpecRegisters(t *testing.T) {
	for _, api := range fixtures {
		cat, err := openapi.Generate(load(t, api))
		if err != nil {
			t.Fatal(err)
		}
		if len(cat.Tools) == 0 {
			t.Fatalf("%s: no tools", api.Name)
		}
		reg := toolbus.NewRegistry()
		for _, spec := range cat.Specs() {
			if err := reg.Register(spec); err != nil {
				t.Errorf("%s: %v", api.Name, err)
			}
			if bytes.Contains(spec.Schema, []byte("maxItems")) {
				t.Errorf("%s: schema carries maxItems: %s", spec.Name, spec.Schema)
			}
			if string(spec.Category) != api.Name {
				t.Errorf("%s: category %q", spec.Name, spec.Category)
			}
			if secret := api.Auth.Value.Reveal(); secret != "" && strings.Contains(fmt.Sprint(spec.Schema, spec.Examples, spec.Description), secret) {
				t.Errorf("%s: the credential is in the spec", spec.Name)
			}
		}
	}
}

// TestNamesAreStableAcrossLoads: the same document gives the same names,
// whatever else happens in between.
func TestNamesAreStableAcrossLoads(t *testing.T) {
	api := load(t, fixtures[3])
	first, _ := openapi.Generate(api)
	second, _ := openapi.Generate(api)
	if render(first) != render(second) {
		t.Fatal("two loads of one document differ")
	}
}

func render(cat openapi.Catalog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "api %s: %d tools, %d skipped\n", cat.API, len(cat.Tools), len(cat.Skipped))
	for _, tool := range cat.Tools {
		s := tool.Spec
		fmt.Fprintf(&b, "\n%s\n", s.Name)
		fmt.Fprintf(&b, "  operation:   %s (%s)\n", tool.Operation, tool.OperationID)
		fmt.Fprintf(&b, "  effect:      %s, timeout %v\n", s.Effect, s.Timeout)
		fmt.Fprintf(&b, "  description: %s\n", s.Description)
		for _, e := range s.Examples {
			fmt.Fprintf(&b, "  example:     %s → %s\n", e.Question, e.Arguments)
		}
		var schema bytes.Buffer
		_ = json.Indent(&schema, s.Schema, "  ", "  ")
		fmt.Fprintf(&b, "  schema:      %s\n", schema.String())
	}
	if len(cat.Skipped) > 0 {
		b.WriteString("\nskipped\n")
	}
	for _, s := range cat.Skipped {
		what := s.Operation
		if s.Argument != "" {
			what += " argument " + s.Argument
		}
		fmt.Fprintf(&b, "  %s (%s): %s\n", what, s.Name, s.Reason)
	}
	return b.String()
}
