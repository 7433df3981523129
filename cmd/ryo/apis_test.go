package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

const weatherKey = "wk-7f3a9c1e5b2d4086a1c3e5f7"

// writeAPIs writes a RYO_APIS file and returns its path.
func writeAPIs(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "apis.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A whole file: a document by URL with its key from the environment, one
// by file path read next to the config file, lists and overrides.
func TestAPIsFile(t *testing.T) {
	path := writeAPIs(t, `
apis:
  - name: weather
    document: https://weather.example/openapi.json
    base_url: https://weather.example/v2
    auth: {header: X-Api-Key, env: WEATHER_KEY}
    deny: ["GET /v1/elevation"]
    overrides:
      get_forecast:
        description: Get the weather forecast for a place, by its coordinates.
        timeout: 20s
        question: What's the weather in Lisbon tomorrow?
        example: {latitude: 38.72, longitude: -9.14}
  - name: home
    document: home.yaml
    auth: {query: token, env: HOME_TOKEN}
    allow: [list_lights, setLight]
    overrides:
      setLight: {effect: destructive}
`)
	env := map[string]string{"WEATHER_KEY": weatherKey, "HOME_TOKEN": "ht-1"}
	apis, err := readAPIs(path, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if len(apis) != 2 {
		t.Fatalf("%d APIs", len(apis))
	}
	w, h := apis[0], apis[1]
	if w.Auth.In != openapi.InHeader || w.Auth.Name != "X-Api-Key" || w.Auth.Value.Reveal() != weatherKey || w.Line != 3 {
		t.Errorf("weather = %+v", w)
	}
	f := w.Overrides["get_forecast"]
	if f.Timeout != 20*time.Second || string(f.Example) != `{"latitude":38.72,"longitude":-9.14}` || f.Question == "" {
		t.Errorf("override = %+v", f)
	}
	if h.Document != filepath.Join(filepath.Dir(path), "home.yaml") || h.Auth.In != openapi.InQuery || h.Auth.Name != "token" {
		t.Errorf("home = %+v", h)
	}
	if e := h.Overrides["setLight"].Effect; e == nil || *e != toolbus.Destructive {
		t.Errorf("effect = %v", e)
	}
}

// A malformed file stops start-up with one line naming RYO_APIS and the
// line of the file, and never quotes a credential.
func TestAPIsFileErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"unknown key", "apis:\n  - name: weather\n    document: w.yaml\n    bse_url: https://x\n", "apis.yaml: line 4: unknown key bse_url"},
		{"not YAML", "apis:\n  - name: [weather\n", "apis.yaml: line 2:"},
		{"no API", "apis: []\n", "apis.yaml: lists no API"},
		{"bad name", "apis:\n  - document: a.yaml\n  - name: Weather API\n    document: w.yaml\n", `apis.yaml line 2: name ""`},
		{"no document", "apis:\n  - name: weather\n", "apis.yaml line 2: weather has no document"},
		{"unset key", "apis:\n  - name: weather\n    document: w.yaml\n    auth: {header: X-Api-Key, env: NOT_SET}\n", "apis.yaml line 2: weather: auth reads NOT_SET, which is not set"},
		{"both places", "apis:\n  - name: weather\n    document: w.yaml\n    auth: {header: X-Api-Key, query: key, env: WEATHER_KEY}\n", "auth needs one of header or query"},
		{"bad effect", "apis:\n  - name: weather\n    document: w.yaml\n    overrides:\n      x: {effect: harmless}\n", `override x: effect "harmless"`},
		{"bad timeout", "apis:\n  - name: weather\n    document: w.yaml\n    overrides:\n      x: {timeout: soon}\n", `override x: timeout "soon"`},
		{"twice", "apis:\n  - name: weather\n    document: w.yaml\n  - name: weather\n    document: v.yaml\n", "apis.yaml line 4: the name weather is used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := minimal()
			vars["RYO_APIS"] = writeAPIs(t, tc.text)
			vars["WEATHER_KEY"] = weatherKey
			_, err := LoadConfig(func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, true)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "RYO_APIS: ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, weatherKey) {
				t.Errorf("error %q; want one line with %q", msg, tc.want)
			}
		})
	}
}

// ryo tools lint prints the catalog of a document and fails when an
// operation would be left out; with the override the document lacks
// (there is none on the command line) the weather document fails on
// /v1/elevation, whose summary starts with "This endpoint".
func TestToolsLint(t *testing.T) {
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"tools", "lint", "../../openapi/testdata/weather.yaml"}, &out, &errs)
	if code != exitFailed {
		t.Errorf("exit %d; want %d\n%s%s", code, exitFailed, out.String(), errs.String())
	}
	for _, want := range []string{
		"weather: 5 tool(s), 1 operation(s) left out",
		"  weather_get_forecast  [read-only]  GET /v1/forecast\n    Get 7 day weather forecast for coordinates\n",
		"      - latitude (number, required): WGS84 coordinate\n",
		"    GET /v1/elevation (weather_get_elevation): its summary does not start with a verb",
		"✗ 1 operation(s) would be left out",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	clean := filepath.Join(t.TempDir(), "clean.yaml")
	os.WriteFile(clean, []byte(weatherAPI), 0o600)
	if code := run(context.Background(), []string{"tools", "lint", "-base-url", "https://weather.example", clean}, &out, &errs); code != exitOK {
		t.Errorf("exit %d for a clean document:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "✓ every operation becomes a tool") {
		t.Errorf("report:\n%s", out.String())
	}
	if code := run(context.Background(), []string{"tools", "lint", filepath.Join(t.TempDir(), "missing.yaml")}, &out, &errs); code != exitFailed {
		t.Errorf("exit %d for a missing document", code)
	}
}
