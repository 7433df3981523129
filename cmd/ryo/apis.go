package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

// APIConfig is one API of the RYO_APIS file: where its OpenAPI document
// is and what to change about it. Its credential was read from the
// environment variable the file names.
type APIConfig struct {
	Name      string // snake_case; the prefix of its tools and their category
	Document  string // an http(s) URL or a file path (relative to the config file)
	BaseURL   string // "" for the document's servers
	Auth      openapi.Auth
	Allow     []string
	Deny      []string
	Overrides map[string]openapi.Override
	Line      int // where the file names it, for messages
}

// API returns what openapi.Generate needs, given the document's bytes and
// the URL it was fetched from ("" for a file).
func (a APIConfig) API(document []byte, documentURL string) openapi.API {
	return openapi.API{Name: a.Name, Document: document, DocumentURL: documentURL, BaseURL: a.BaseURL,
		Auth: a.Auth, Allow: a.Allow, Deny: a.Deny, Overrides: a.Overrides}
}

// The file's shape. Unknown keys are refused.
type (
	apisFile struct {
		APIs []apiEntry `yaml:"apis"`
	}
	apiEntry struct {
		Name      string                   `yaml:"name"`
		Document  string                   `yaml:"document"`
		BaseURL   string                   `yaml:"base_url"`
		Auth      *authEntry               `yaml:"auth"`
		Allow     []string                 `yaml:"allow"`
		Deny      []string                 `yaml:"deny"`
		Overrides map[string]overrideEntry `yaml:"overrides"`
	}
	authEntry struct {
		Header string `yaml:"header"` // the header's name, such as X-Api-Key
		Query  string `yaml:"query"`  // or the query parameter's name, such as apikey
		Env    string `yaml:"env"`    // the environment variable holding the value
	}
	overrideEntry struct {
		Description string         `yaml:"description"`
		Effect      string         `yaml:"effect"` // read-only, mutating or destructive
		Timeout     string         `yaml:"timeout"`
		Question    string         `yaml:"question"`
		Example     map[string]any `yaml:"example"`
	}
)

var apiName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,23}$`)

// varName is what an environment variable's name looks like, and a key
// rarely does: upper case, with an underscore or short. A key written
// in place of the name (hex, mixed case, AKIA…) is not quoted back.
var varName = regexp.MustCompile(`^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][A-Z0-9]{0,11})$`)

// readAPIs reads the RYO_APIS file at path; the credentials' values come
// through lookup. Its errors are one line that names the file's line.
func readAPIs(path string, lookup func(string) (string, bool)) ([]APIConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, errors.Unwrap(err))
	}
	var root yaml.Node
	if err := yaml.Load(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %s", filepath.Base(path), yamlProblem(err))
	}
	var file apisFile
	if err := root.Load(&file, yaml.WithKnownFields()); err != nil {
		return nil, fmt.Errorf("%s: %s", filepath.Base(path), yamlProblem(err))
	}
	entries := entryNodes(&root)
	if len(file.APIs) == 0 {
		return nil, fmt.Errorf("%s: lists no API (want apis: with a name and a document each)", filepath.Base(path))
	}
	var apis []APIConfig
	for i, e := range file.APIs {
		line := 1
		if i < len(entries) {
			line = entries[i].Line
		}
		a, err := e.config(filepath.Dir(path), lookup)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", filepath.Base(path), line, err)
		}
		if slices.ContainsFunc(apis, func(b APIConfig) bool { return b.Name == a.Name }) {
			return nil, fmt.Errorf("%s line %d: the name %s is used twice", filepath.Base(path), line, a.Name)
		}
		a.Line = line
		apis = append(apis, a)
	}
	return apis, nil
}

// entryNodes are the nodes of the apis list, for their lines.
func entryNodes(root *yaml.Node) []*yaml.Node {
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "apis" {
			return doc.Content[i+1].Content
		}
	}
	return nil
}

var (
	yamlAtLine   = regexp.MustCompile(`line (\d+): (.*)`)
	yamlAtColumn = regexp.MustCompile(`at L(\d+)\.C\d+(?:-L\d+\.C\d+)?: (.*)`)
	unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)
)

// yamlProblem rewrites the parser's error as one line, "line N: what".
func yamlProblem(err error) string {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "yaml: "), "construct errors:"))
		if l = strings.TrimSpace(strings.TrimPrefix(l, "construct errors:")); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "not YAML"
	}
	msg := lines[0]
	for _, re := range []*regexp.Regexp{yamlAtLine, yamlAtColumn} {
		if m := re.FindStringSubmatch(msg); m != nil {
			msg = "line " + m[1] + ": " + m[2]
			break
		}
	}
	return unknownField.ReplaceAllString(msg, "unknown key $1")
}

func (e apiEntry) config(dir string, lookup func(string) (string, bool)) (APIConfig, error) {
	a := APIConfig{Name: e.Name, Document: e.Document, BaseURL: e.BaseURL, Allow: e.Allow, Deny: e.Deny}
	switch {
	case !apiName.MatchString(e.Name):
		return a, fmt.Errorf("name %q: want lower_snake_case, a letter first, at most 24 characters", e.Name)
	case e.Document == "":
		return a, fmt.Errorf("%s has no document (a URL or a file path)", e.Name)
	case e.BaseURL != "" && !isHTTPURL(e.BaseURL):
		return a, fmt.Errorf("%s: base_url %q is not an http(s) URL", e.Name, e.BaseURL)
	}
	if !isHTTPURL(e.Document) && !filepath.IsAbs(e.Document) {
		a.Document = filepath.Join(dir, e.Document)
	}
	var err error
	if a.Auth, err = e.Auth.auth(e.Name, lookup); err != nil {
		return a, err
	}
	if a.Overrides, err = overrides(e.Name, e.Overrides); err != nil {
		return a, err
	}
	return a, nil
}

func isHTTPURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// auth reads the credential's value from the variable the file names; the
// value itself is never in the file.
func (e *authEntry) auth(api string, lookup func(string) (string, bool)) (openapi.Auth, error) {
	if e == nil {
		return openapi.Auth{}, nil
	}
	a := openapi.Auth{In: openapi.InHeader, Name: e.Header}
	switch {
	case (e.Header == "") == (e.Query == ""):
		return a, fmt.Errorf("%s: auth needs one of header or query (the name the API expects)", api)
	case e.Query != "":
		a = openapi.Auth{In: openapi.InQuery, Name: e.Query}
	}
	if !keyShape.MatchString(e.Env) {
		return a, fmt.Errorf("%s: auth needs env, the environment variable that holds the value", api)
	}
	v, ok := lookup(e.Env)
	if v = strings.TrimSpace(v); !ok || v == "" {
		if !varName.MatchString(e.Env) {
			// It may be the key itself, written in by mistake: not quoted.
			return a, fmt.Errorf("%s: auth's env is not set; it names the environment variable that holds the value (such as WEATHER_KEY), never the value", api)
		}
		return a, fmt.Errorf("%s: auth reads %s, which is not set", api, e.Env)
	}
	a.Value = ryo.Secret(v)
	return a, nil
}

func overrides(api string, entries map[string]overrideEntry) (map[string]openapi.Override, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	out := make(map[string]openapi.Override, len(entries))
	for name, e := range entries {
		o := openapi.Override{Description: e.Description, Question: e.Question}
		if e.Effect != "" {
			effect, ok := effects[e.Effect]
			if !ok {
				return nil, fmt.Errorf("%s: override %s: effect %q: want read-only, mutating or destructive", api, name, e.Effect)
			}
			o.Effect = &effect
		}
		if e.Timeout != "" {
			d, err := time.ParseDuration(e.Timeout)
			if err != nil || d <= 0 || d > 10*time.Minute {
				return nil, fmt.Errorf("%s: override %s: timeout %q: want a duration such as 30s, at most 10m", api, name, e.Timeout)
			}
			o.Timeout = d
		}
		if e.Example != nil {
			raw, err := json.Marshal(e.Example)
			if err != nil {
				return nil, fmt.Errorf("%s: override %s: example: %w", api, name, err)
			}
			o.Example = raw
		}
		out[name] = o
	}
	return out, nil
}

var effects = map[string]toolbus.Effect{"read-only": toolbus.ReadOnly, "mutating": toolbus.Mutating, "destructive": toolbus.Destructive}
