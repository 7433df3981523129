package openapi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

// FuzzGenerate feeds the generator random documents, starting from the
// fixtures and a few hostile shapes: it must never panic, and whatever
// it makes must be tools the registry takes.
//
//	go test ./openapi -run '^$' -fuzz FuzzGenerate -fuzztime 60s
func FuzzGenerate(f *testing.F) {
	for _, name := range []string{"petstore.yaml", "weather.yaml", "swagger2.json", "constructs.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, doc := range []string{
		`{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/a":{"post":{"summary":"Creates a.","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},"components":{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/B"}]},"B":{"allOf":[{"$ref":"#/components/schemas/A"}]}}}}`,
		`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/{x}":{"get":{"summary":"Gets x.","parameters":[{"name":"x","in":"path","required":true,"schema":{"type":["object","null"],"properties":{"a":{"oneOf":[{"type":"string"},{"type":"object","properties":{"b":{}}}]}}}}]}}}}`,
		"openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      summary: Gets a.\n      parameters:\n        - {name: a, in: query, schema: {type: array, items: {type: array, items: {}}}}\n",
		`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"summary":"Gets a.","parameters":[{"name":"q","in":"query","type":"array","items":{"type":"string"},"collectionFormat":"tsv"}]}}}}`,
		`{"openapi":"4.0"}`, `not a document`, ``,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A document that keeps the generator busy this long is a bug:
		// crash with every goroutine's stack, so that the engine keeps
		// the input (it has no deadline of its own).
		hung := time.AfterFunc(10*time.Second, func() {
			debug.SetTraceback("all")
			panic(fmt.Sprintf("Generate has run for 10s on a %d-byte document", len(data)))
		})
		defer hung.Stop()
		cat, err := openapi.Generate(openapi.API{Name: "fuzz", Document: data, BaseURL: "http://127.0.0.1:1"})
		if err != nil {
			return
		}
		reg := toolbus.NewRegistry()
		for _, s := range cat.Specs() {
			if !json.Valid(s.Schema) {
				t.Fatalf("%s: schema is not JSON", s.Name)
			}
			if err := reg.Register(s); err != nil {
				t.Fatalf("generated a spec the registry refuses: %v", err)
			}
		}
	})
}
