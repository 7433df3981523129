package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/ryo-bot/ryo/schema"
	"github.com/ryo-bot/ryo/toolbus"
)

// maxOperations bounds how many operations of one document are read.
const maxOperations = 1000

// methods are the methods tools are made for, in the order a path's
// operations are taken.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// Generate reads api's document and makes a tool of every operation it
// can, in the order of the document's paths (sorted) and methods. An
// operation it cannot make a tool of — its description does not start
// with a verb, it needs a cookie or a binary upload, its schema cannot
// be closed — is left out and reported in Skipped, with why; so is an
// optional argument it leaves out, and an operation the allow and deny
// lists leave out. Every spec it returns registers in a toolbus.Registry.
// It fails only when the document cannot be read at all.
func Generate(api API) (Catalog, error) {
	cat := Catalog{API: apiName(api.Name)}
	if strings.TrimSpace(api.Name) == "" {
		return cat, errors.New("openapi: an API needs a name")
	}
	if a := api.Auth; a.In != "" && ((a.In != InHeader && a.In != InQuery) || a.Name == "") {
		return cat, fmt.Errorf("openapi %s: auth goes in %q or %q, under a name", cat.API, InHeader, InQuery)
	}
	doc, err := load(api.Document)
	if err != nil {
		return cat, fmt.Errorf("openapi %s: %w", cat.API, err)
	}
	g := &generator{api: api, name: cat.API, doc: doc, client: newClient(api.Client)}
	ops := g.operations()
	names := assignNames(candidates(cat.API, ops))
	check := toolbus.NewRegistry()
	for i, op := range ops {
		op.name = names[i]
		if reason := g.skippedByLists(op); reason != "" {
			cat.Skipped = append(cat.Skipped, Skipped{Operation: op.label(), Name: op.name, Reason: reason})
			continue
		}
		tool, skipped, err := g.tool(op)
		cat.Skipped = append(cat.Skipped, skipped...)
		if err == nil {
			err = check.Register(tool.Spec)
		}
		if err != nil {
			cat.Skipped = append(cat.Skipped, Skipped{Operation: op.label(), Name: op.name, Reason: err.Error()})
			continue
		}
		cat.Tools = append(cat.Tools, tool)
	}
	return cat, nil
}

// generator holds what making one document's tools needs.
type generator struct {
	api    API
	name   string
	doc    *openapi3.T
	client *http.Client
}

// docOp is one operation of the document.
type docOp struct {
	method, path string
	item         *openapi3.PathItem
	op           *openapi3.Operation
	name         string
	ordinal      int
}

func (o *docOp) label() string { return o.method + " " + o.path }

// operations lists the document's operations in a stable order: paths by
// name, methods in a fixed order.
func (g *generator) operations() []*docOp {
	var ops []*docOp
	for _, path := range sortedKeys(g.doc.Paths.Map()) {
		item := g.doc.Paths.Value(path)
		if item == nil {
			continue
		}
		for _, m := range methods {
			if op := item.GetOperation(m); op != nil && len(ops) < maxOperations {
				ops = append(ops, &docOp{method: m, path: path, item: item, op: op, ordinal: len(ops)})
			}
		}
	}
	return ops
}

func candidates(api string, ops []*docOp) []candidate {
	cs := make([]candidate, len(ops))
	for i, o := range ops {
		c := candidate{method: o.method, path: o.path, ordinal: o.ordinal}
		if id := snake(o.op.OperationID); id != "" {
			c.name, c.fromID = toolName(api, id), true
		} else {
			c.name = toolName(api, pathName(o.method, o.path))
		}
		cs[i] = c
	}
	return cs
}

// matches reports whether entry, from the allow or deny list or the
// overrides, names the operation.
func (g *generator) matches(entry string, o *docOp) bool {
	entry = strings.TrimSpace(entry)
	switch {
	case entry == "":
		return false
	case o.op.OperationID != "" && entry == o.op.OperationID:
		return true
	case entry == o.name || g.name+"_"+entry == o.name:
		return true
	}
	method, path, ok := strings.Cut(entry, " ")
	return ok && strings.EqualFold(method, o.method) && strings.TrimSpace(path) == o.path
}

func (g *generator) skippedByLists(o *docOp) string {
	if len(g.api.Allow) > 0 && !slices.ContainsFunc(g.api.Allow, func(e string) bool { return g.matches(e, o) }) {
		return "not in the allow list"
	}
	if slices.ContainsFunc(g.api.Deny, func(e string) bool { return g.matches(e, o) }) {
		return "in the deny list"
	}
	return ""
}

func (g *generator) override(o *docOp) Override {
	for _, k := range sortedKeys(g.api.Overrides) {
		if g.matches(k, o) {
			return g.api.Overrides[k]
		}
	}
	return Override{}
}

// tool makes the tool of one operation, or says why it cannot.
func (g *generator) tool(o *docOp) (Generated, []Skipped, error) {
	gen := Generated{Operation: o.label(), OperationID: o.op.OperationID}
	ov := g.override(o)
	description := ov.Description
	if description == "" {
		d, err := describe(o.method, o.op.Summary, o.op.Description)
		if err != nil {
			return gen, nil, err
		}
		description = d
	}
	if !strings.HasPrefix(o.path, "/") {
		// Its arguments would follow the server's host name.
		return gen, nil, errors.New(`its path does not start with "/"`)
	}
	server, err := g.server(o)
	if err != nil {
		return gen, nil, err
	}
	args, err := argumentsOf(o.path, o.item, o.op, g.api.Auth)
	if err != nil {
		return gen, nil, err
	}
	var skipped []Skipped
	for _, d := range args.dropped {
		skipped = append(skipped, Skipped{Operation: o.label(), Name: o.name, Argument: d.path, Reason: d.reason})
	}
	raw, err := json.Marshal(args.schema)
	if err != nil {
		return gen, skipped, fmt.Errorf("the schema cannot be written: %w", err)
	}
	example, err := g.example(args.schema, raw, ov)
	if err != nil {
		return gen, skipped, err
	}
	question := ov.Question
	if question == "" {
		question = description
	}
	call, err := g.call(o, server, args, raw, ov)
	if err != nil {
		return gen, skipped, err
	}
	gen.Spec = toolbus.Spec{
		Name:        o.name,
		Description: description,
		Category:    toolbus.Category(cut(g.api.Name, 32)),
		Examples:    []toolbus.Example{{Question: cut(question, 200), Arguments: example}},
		Schema:      raw,
		Effect:      effectOf(o.method, ov),
		Timeout:     call.timeout,
		MaxResult:   MaxResult,
		Tool:        call,
		Doing:       cut("calling "+g.api.Name+": "+description, 100),
	}
	return gen, skipped, nil
}

// call is the client of one operation.
func (g *generator) call(o *docOp, server string, args *arguments, raw json.RawMessage, ov Override) (*call, error) {
	c := &call{
		api: g.name, method: o.method, path: o.path, server: server,
		params: args.params, body: args.body, auth: g.api.Auth, client: g.client,
		timeout: DefaultTimeout,
	}
	if ov.Timeout > 0 {
		c.timeout = ov.Timeout
	}
	if strict := args.schema.strict(); string(strict) != string(raw) {
		var err error
		if c.strict, err = schema.Compile(strict); err != nil {
			return nil, fmt.Errorf("the schema does not compile: %w", err)
		}
	}
	return c, nil
}

// example is the override's example arguments or one built from the
// schema, checked against it.
func (g *generator) example(n *node, raw json.RawMessage, ov Override) (json.RawMessage, error) {
	compiled, err := schema.Compile(raw)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %w", err)
	}
	if ov.Example != nil {
		if err := compiled.Validate(ov.Example); err != nil {
			return nil, fmt.Errorf("the example in the overrides does not fit the schema: %v", err)
		}
		return ov.Example, nil
	}
	// The document's examples first; when they do not fit its own
	// schema, values made from the schema alone.
	var last error
	for _, documented := range []bool{true, false} {
		example, err := json.Marshal(exampleArgs(n, documented))
		if err != nil {
			return nil, fmt.Errorf("no example can be made: %w", err)
		}
		if last = compiled.Validate(example); last == nil {
			return example, nil
		}
	}
	return nil, fmt.Errorf("no example that fits its schema can be made (%v); give one in the overrides", last)
}

// effectOf is what a method changes: GET and HEAD nothing, DELETE
// something for good, the others something that can be changed back.
func effectOf(method string, ov Override) toolbus.Effect {
	if ov.Effect != nil {
		return *ov.Effect
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		return toolbus.ReadOnly
	case http.MethodDelete:
		return toolbus.Destructive
	}
	return toolbus.Mutating
}
