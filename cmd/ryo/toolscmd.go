package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ryo-bot/ryo/openapi"
)

// toolsCommand prints what each API of RYO_APIS becomes (`ryo tools`), or
// what one document would become (`ryo tools lint <document>`), which
// fails when an operation would be left out: for the API's owners' CI.
func toolsCommand(ctx context.Context, lookup func(string) (string, bool), args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "lint" {
		return lintDocument(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: ryo tools [lint [-name api] [-base-url URL] <document file or URL>]")
		return exitConfig
	}
	r := &reader{lookup: lookup}
	apis := r.apis("RYO_APIS")
	if r.err != nil {
		fmt.Fprintln(stderr, "ryo: config:", r.err)
		return exitConfig
	}
	if len(apis) == 0 {
		fmt.Fprintln(stdout, "No API configured: RYO_APIS names no file (see README, \"Tools from your own APIs\").")
		return exitOK
	}
	code := exitOK
	for _, l := range loadAPIs(ctx, apis) {
		if l.Err != nil {
			fmt.Fprintf(stdout, "%s: left out, its document cannot be loaded (%s): %v\n\n", l.Config.Name, l.Config.Document, l.Err)
			code = exitFailed
			continue
		}
		printCatalog(stdout, l.Catalog)
	}
	return code
}

func lintDocument(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ryo tools lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "", "the API's name, the tools' prefix (default: from the document's file name)")
	baseURL := fs.String("base-url", "", "the base URL, for a document whose servers are relative or missing")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: ryo tools lint [-name api] [-base-url URL] <document file or URL>")
		return exitConfig
	}
	where := fs.Arg(0)
	if *name == "" {
		*name = strings.TrimSuffix(path.Base(where), path.Ext(where))
	}
	doc, docURL, err := fetchDocument(ctx, where)
	if err != nil {
		fmt.Fprintln(stdout, "✗", err)
		return exitFailed
	}
	cat, err := openapi.Generate(openapi.API{Name: *name, Document: doc, DocumentURL: docURL, BaseURL: *baseURL})
	if err != nil {
		fmt.Fprintln(stdout, "✗", err)
		return exitFailed
	}
	printCatalog(stdout, cat)
	if n := skippedOperations(cat); n > 0 {
		fmt.Fprintf(stdout, "✗ %d operation(s) would be left out\n", n)
		return exitFailed
	}
	fmt.Fprintln(stdout, "✓ every operation becomes a tool")
	return exitOK
}

func skippedOperations(cat openapi.Catalog) int {
	n := 0
	for _, s := range cat.Skipped {
		if s.Argument == "" {
			n++
		}
	}
	return n
}

// printCatalog writes an API's tools, each with its effect, description
// and arguments, then what was left out and why.
func printCatalog(w io.Writer, cat openapi.Catalog) {
	fmt.Fprintf(w, "%s: %d tool(s), %d operation(s) left out\n", cat.API, len(cat.Tools), skippedOperations(cat))
	for _, t := range cat.Tools {
		fmt.Fprintf(w, "  %s  [%s]  %s\n", t.Spec.Name, t.Spec.Effect, t.Operation)
		fmt.Fprintf(w, "    %s\n", t.Spec.Description)
		for _, a := range arguments(t.Spec.Schema) {
			fmt.Fprintf(w, "      - %s\n", a)
		}
	}
	if len(cat.Skipped) > 0 {
		fmt.Fprintln(w, "  left out:")
	}
	for _, s := range cat.Skipped {
		what := s.Operation + " (" + s.Name + ")"
		if s.Argument != "" {
			what = "argument " + s.Argument + " of " + s.Name
		}
		fmt.Fprintf(w, "    %s: %s\n", what, s.Reason)
	}
	fmt.Fprintln(w)
}

// arguments describes a tool's arguments in a line each: name, type,
// whether required, and the schema's description.
func arguments(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Enum        []any  `json:"enum"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		kind := "any"
		switch t := p.Type.(type) {
		case string:
			kind = t
		case []any:
			kinds := make([]string, len(t))
			for i, k := range t {
				kinds[i] = fmt.Sprint(k)
			}
			kind = strings.Join(kinds, " or ")
		}
		if len(p.Enum) > 0 {
			kind += fmt.Sprintf(" of %v", p.Enum)
		}
		if slices.Contains(s.Required, name) {
			kind += ", required"
		}
		line := fmt.Sprintf("%s (%s)", name, kind)
		if p.Description != "" {
			line += ": " + p.Description
		}
		out = append(out, line)
	}
	return out
}
