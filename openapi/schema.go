package openapi

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Bounds on the work one operation's schema may take, whatever the
// document: it is read from outside.
const (
	maxDepth    = 10  // levels of nesting
	maxNodes    = 400 // schemas converted per operation
	maxVariants = 8   // alternatives of a oneOf or anyOf
	maxProps    = 200 // properties of one object
)

// unsupported says why a schema cannot become an argument.
type unsupported struct{ reason string }

func (u *unsupported) Error() string { return u.reason }

func notSupported(format string, args ...any) *unsupported {
	return &unsupported{reason: fmt.Sprintf(format, args...)}
}

// converter turns the document's schemas into closed JSON Schemas for
// one operation's arguments.
type converter struct {
	budget  int
	stack   []*openapi3.Schema // the schemas being converted, to stop at cycles
	dropped []dropped          // optional properties left out, and why
}

type dropped struct{ path, reason string }

func newConverter() *converter { return &converter{budget: maxNodes} }

// where says what a schema is converted for: the body is sent as JSON, so
// it may take alternatives (anyOf); a parameter is serialized by its
// style, so it may not.
type where int

const (
	inParam where = iota
	inBody
)

// convert converts the schema at path ("body.category.name").
func (c *converter) convert(ref *openapi3.SchemaRef, path string, w where, depth int) (*node, error) {
	if ref == nil || ref.Value == nil {
		n := newNode()
		if w == inParam {
			n.set("type", "string")
		}
		return n, nil
	}
	s := ref.Value
	c.budget--
	switch {
	case c.budget < 0:
		return nil, notSupported("the schema is too large (more than %d parts)", maxNodes)
	case depth > maxDepth:
		return nil, notSupported("%s is nested deeper than %d levels", path, maxDepth)
	case slices.Contains(c.stack, s):
		return nil, notSupported("%s refers to itself (%s)", path, refName(ref))
	}
	c.stack = append(c.stack, s)
	defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	if len(s.AllOf) > 0 {
		merged, err := c.mergeAllOf(s, path)
		if err != nil {
			return nil, err
		}
		s = merged
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return c.alternatives(s, path, w, depth)
	}
	return c.plain(s, path, w, depth)
}

func refName(ref *openapi3.SchemaRef) string {
	if ref.Ref != "" {
		return ref.Ref
	}
	return "a cycle of references"
}

// mergeAllOf folds allOf into one schema: properties and required lists
// joined, types intersected, and other keywords taken from the first part
// that sets them.
func (c *converter) mergeAllOf(s *openapi3.Schema, path string) (*openapi3.Schema, error) {
	out := *s
	out.AllOf = nil
	out.Properties = openapi3.Schemas{}
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	for _, part := range s.AllOf {
		if part == nil || part.Value == nil {
			continue
		}
		if c.budget--; c.budget < 0 {
			return nil, notSupported("the schema is too large (more than %d parts)", maxNodes)
		}
		if slices.Contains(c.stack, part.Value) {
			return nil, notSupported("%s refers to itself (%s)", path, refName(part))
		}
		p := part.Value
		if len(p.AllOf) > 0 {
			c.stack = append(c.stack, p)
			inner, err := c.mergeAllOf(p, path)
			c.stack = c.stack[:len(c.stack)-1]
			if err != nil {
				return nil, err
			}
			p = inner
		}
		if err := mergeInto(&out, p, path); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

func mergeInto(out, p *openapi3.Schema, path string) error {
	types, err := intersectTypes(out.Type, p.Type, path)
	if err != nil {
		return err
	}
	out.Type = types
	for k, v := range p.Properties {
		if _, ok := out.Properties[k]; !ok {
			out.Properties[k] = v
		}
	}
	for _, r := range p.Required {
		if !slices.Contains(out.Required, r) {
			out.Required = append(slices.Clone(out.Required), r)
		}
	}
	if len(p.OneOf) > 0 || len(p.AnyOf) > 0 {
		if len(out.OneOf) > 0 || len(out.AnyOf) > 0 {
			return notSupported("%s: allOf joins more than one oneOf or anyOf", path)
		}
		out.OneOf, out.AnyOf = p.OneOf, p.AnyOf
	}
	mergeKeywords(out, p)
	return nil
}

// intersectTypes is the types both a and b allow (an integer is a
// number); no types means any.
func intersectTypes(a, b *openapi3.Types, path string) (*openapi3.Types, error) {
	switch {
	case a == nil || len(*a) == 0:
		return b, nil
	case b == nil || len(*b) == 0:
		return a, nil
	}
	both := openapi3.Types{}
	for _, t := range *a {
		switch {
		case b.Includes(t) || (t == "integer" && b.Includes("number")):
			both = append(both, t)
		case t == "number" && b.Includes("integer"):
			both = append(both, "integer")
		}
	}
	if len(both) == 0 {
		return nil, notSupported("%s: allOf joins types that exclude each other (%v and %v)", path, *a, *b)
	}
	return &both, nil
}

// mergeKeywords takes from p each keyword out does not set, and the
// stricter of the lower bounds on lengths and counts.
func mergeKeywords(out, p *openapi3.Schema) {
	first(&out.Description, p.Description)
	first(&out.Format, p.Format)
	first(&out.Pattern, p.Pattern)
	if out.Enum == nil {
		out.Enum = p.Enum
	}
	if out.Default == nil {
		out.Default = p.Default
	}
	if out.Example == nil {
		out.Example = p.Example
	}
	if out.Items == nil {
		out.Items = p.Items
	}
	if out.Min == nil {
		out.Min, out.ExclusiveMin = p.Min, p.ExclusiveMin
	}
	if out.Max == nil {
		out.Max, out.ExclusiveMax = p.Max, p.ExclusiveMax
	}
	if out.MaxLength == nil {
		out.MaxLength = p.MaxLength
	}
	if out.MaxItems == nil {
		out.MaxItems = p.MaxItems
	}
	out.MinLength = max(out.MinLength, p.MinLength)
	out.MinItems = max(out.MinItems, p.MinItems)
	out.Nullable = out.Nullable && p.Nullable
	out.ReadOnly = out.ReadOnly || p.ReadOnly
}

func first(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// alternatives handles oneOf and anyOf: a "null" alternative makes the
// rest nullable; one alternative left is that schema; plain scalars join
// into a list of types; in a body, objects stay alternatives (anyOf),
// each closed. Anything else is not supported.
func (c *converter) alternatives(s *openapi3.Schema, path string, w where, depth int) (*node, error) {
	if len(s.OneOf) > 0 && len(s.AnyOf) > 0 {
		return nil, notSupported("%s has both oneOf and anyOf", path)
	}
	if len(s.Properties) > 0 {
		return nil, notSupported("%s has properties beside oneOf or anyOf", path)
	}
	refs := s.OneOf
	if len(refs) == 0 {
		refs = s.AnyOf
	}
	if len(refs) > maxVariants {
		return nil, notSupported("%s has %d alternatives, more than %d", path, len(refs), maxVariants)
	}
	nullable := s.Nullable
	var variants []*node
	for _, r := range refs {
		if r != nil && r.Value != nil && r.Value.Type != nil && r.Value.Type.Is("null") {
			nullable = true
			continue
		}
		v, err := c.convert(r, path, w, depth+1)
		if err != nil {
			return nil, err
		}
		variants = append(variants, v)
	}
	var n *node
	switch {
	case len(variants) == 0:
		n = newNode()
		n.set("type", "null")
		return n, nil
	case len(variants) == 1:
		n = variants[0]
	case allScalars(variants):
		n = joinScalars(variants)
	case w == inBody:
		n = newNode()
		n.set("anyOf", variants)
	default:
		return nil, notSupported("%s: a parameter that is one of several objects or arrays is not supported", path)
	}
	if d := shortText(s.Description, maxArgDescription); d != "" && n.get("description") == nil {
		n.set("description", d)
	}
	if nullable {
		makeNullable(n)
	}
	return n, nil
}

// allScalars reports whether every variant is a bare string, number,
// integer or boolean, with at most a format and an enum.
func allScalars(vs []*node) bool {
	for _, v := range vs {
		for _, k := range v.keys {
			if k != "type" && k != "format" && k != "enum" && k != "description" {
				return false
			}
		}
		for _, t := range v.types() {
			if t == "object" || t == "array" {
				return false
			}
		}
		if len(v.types()) == 0 {
			return false
		}
	}
	return true
}

// joinScalars is a schema that takes any of the scalar variants: a list
// of types, with the enums joined when every variant has one.
func joinScalars(vs []*node) *node {
	n := newNode()
	var types []string
	var enum []any
	allEnums := true
	for _, v := range vs {
		for _, t := range v.types() {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		e, ok := v.get("enum").([]any)
		allEnums = allEnums && ok
		enum = append(enum, e...)
	}
	n.set("type", typeValue(types))
	if allEnums {
		n.set("enum", enum)
	}
	return n
}

func typeValue(types []string) any {
	if len(types) == 1 {
		return types[0]
	}
	return types
}

// makeNullable lets n be null as well.
func makeNullable(n *node) {
	if alts, ok := n.get("anyOf").([]*node); ok {
		null := newNode()
		null.set("type", "null")
		n.set("anyOf", append(alts, null))
		return
	}
	types := n.types()
	if len(types) == 0 || slices.Contains(types, "null") {
		return
	}
	n.set("type", append(slices.Clone(types), "null"))
	if e, ok := n.get("enum").([]any); ok && !slices.Contains(e, any(nil)) {
		n.set("enum", append(e, nil))
	}
}

// plain converts a schema with no allOf, oneOf or anyOf.
func (c *converter) plain(s *openapi3.Schema, path string, w where, depth int) (*node, error) {
	var types []string
	nullable := s.Nullable
	if s.Type != nil {
		for _, t := range *s.Type {
			if t == "null" {
				nullable = true
				continue
			}
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		switch {
		case len(s.Properties) > 0 || s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil:
			types = []string{"object"}
		case s.Items != nil:
			types = []string{"array"}
		case w == inParam:
			types = []string{"string"}
		}
	}
	if len(types) > 1 && (slices.Contains(types, "object") || slices.Contains(types, "array")) {
		return nil, notSupported("%s may be an object or array and something else (%v)", path, types)
	}
	n := newNode()
	if len(types) > 0 {
		n.set("type", typeValue(types))
	}
	if d := shortText(firstNonEmpty(s.Description, s.Title), maxArgDescription); d != "" {
		n.set("description", d)
	}
	var err error
	switch {
	case slices.Contains(types, "object"):
		err = c.object(n, s, path, w, depth)
	case slices.Contains(types, "array"):
		err = c.array(n, s, path, w, depth)
	default:
		scalar(n, s, types)
	}
	if err != nil {
		return nil, err
	}
	if nullable {
		makeNullable(n)
	}
	return n, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// object converts an object's properties. Read-only properties are left
// out (a request does not send them); an optional property that cannot be
// converted is left out and noted; a required one fails the object. An
// object with no properties of its own is free-form, which a closed
// schema cannot express.
func (c *converter) object(n *node, s *openapi3.Schema, path string, w where, depth int) error {
	if len(s.Properties) == 0 {
		return notSupported("%s is a free-form object (no properties listed)", path)
	}
	if len(s.Properties) > maxProps || len(s.Required) > maxProps {
		return notSupported("%s has more than %d properties", path, maxProps)
	}
	props := newNode()
	var required []string
	for _, name := range propertyOrder(s) {
		ref := s.Properties[name]
		if ref != nil && ref.Value != nil && ref.Value.ReadOnly {
			continue
		}
		sub := joinPath(path, name)
		p, err := c.convert(ref, sub, w, depth+1)
		if err != nil {
			if slices.Contains(s.Required, name) {
				return err
			}
			c.dropped = append(c.dropped, dropped{sub, err.Error()})
			continue
		}
		props.set(name, p)
		if slices.Contains(s.Required, name) {
			required = append(required, name)
		}
	}
	n.set("properties", props)
	if len(required) > 0 {
		n.set("required", required)
	}
	n.set("additionalProperties", false)
	n.example = exampleOf(s)
	return nil
}

// propertyOrder lists an object's properties: the required ones in the
// order the document requires them, then the rest by name. (The parser
// does not keep the document's order; this one is stable.)
func propertyOrder(s *openapi3.Schema) []string {
	var names []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	return names
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// array converts an array. maxItems stays out of the model's schema (the
// grammar Ollama builds from it breaks on it): the client checks it, and
// the description says it.
func (c *converter) array(n *node, s *openapi3.Schema, path string, w where, depth int) error {
	items, err := c.convert(s.Items, path+"[]", w, depth+1)
	if err != nil {
		return err
	}
	if s.Items == nil && w == inBody {
		return notSupported("%s is an array of anything (no items schema)", path)
	}
	n.set("items", items)
	if s.MinItems > 0 {
		n.set("minItems", s.MinItems)
	}
	if s.MaxItems != nil {
		n.hide("maxItems", *s.MaxItems)
		note := fmt.Sprintf("At most %d items.", *s.MaxItems)
		if d, _ := n.get("description").(string); d != "" {
			note = strings.TrimRight(d, ".") + ". " + note
		}
		n.set("description", note)
	}
	if s.UniqueItems {
		n.set("uniqueItems", true)
	}
	n.example = exampleOf(s)
	return nil
}

// scalar copies a string's, number's or boolean's constraints.
func scalar(n *node, s *openapi3.Schema, types []string) {
	str := slices.Contains(types, "string")
	num := slices.Contains(types, "number") || slices.Contains(types, "integer")
	if str {
		if s.Format != "" && s.Format != "binary" && s.Format != "byte" && knownFormat(s.Format) {
			n.set("format", s.Format)
		}
		if s.MinLength > 0 {
			n.set("minLength", s.MinLength)
		}
		if s.MaxLength != nil {
			n.set("maxLength", *s.MaxLength)
		}
		if s.Pattern != "" && compiles(s.Pattern) {
			n.set("pattern", s.Pattern)
		}
	}
	if num {
		bounds(n, s)
	}
	var enum []any
	for _, e := range s.Enum {
		if fitsTypes(e, types) {
			enum = append(enum, e)
		}
	}
	if s.Const != nil && fitsTypes(s.Const, types) {
		enum = []any{s.Const}
	}
	if len(enum) > 0 {
		n.set("enum", enum)
	}
	if s.Default != nil && fitsTypes(s.Default, types) && (len(enum) == 0 || slices.Contains(enum, s.Default)) {
		n.set("default", s.Default)
	}
	n.example = exampleOf(s)
}

// bounds copies minimum and maximum; an OpenAPI 3.0 exclusive flag
// becomes the exclusive bound itself, as JSON Schema now writes it.
func bounds(n *node, s *openapi3.Schema) {
	if s.Min != nil && !isBad(*s.Min) {
		if s.ExclusiveMin.IsTrue() {
			n.set("exclusiveMinimum", *s.Min)
		} else {
			n.set("minimum", *s.Min)
		}
	}
	if v := s.ExclusiveMin.Value; v != nil && !isBad(*v) {
		n.set("exclusiveMinimum", *v)
	}
	if s.Max != nil && !isBad(*s.Max) {
		if s.ExclusiveMax.IsTrue() {
			n.set("exclusiveMaximum", *s.Max)
		} else {
			n.set("maximum", *s.Max)
		}
	}
	if v := s.ExclusiveMax.Value; v != nil && !isBad(*v) {
		n.set("exclusiveMaximum", *v)
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 && !isBad(*s.MultipleOf) {
		n.set("multipleOf", *s.MultipleOf)
	}
}

func isBad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }

// knownFormat reports whether the validator checks format f; others
// (int64, double, password) say nothing a model needs.
func knownFormat(f string) bool {
	switch f {
	case "date", "time", "date-time", "email", "hostname", "ipv4", "ipv6", "uri", "uuid":
		return true
	}
	return false
}

func compiles(pattern string) bool {
	_, err := regexp.Compile(pattern)
	return err == nil
}

// fitsTypes reports whether v, a value decoded from the document, is of
// one of the types.
func fitsTypes(v any, types []string) bool {
	if len(types) == 0 {
		return true
	}
	for _, t := range types {
		switch v := v.(type) {
		case string:
			if t == "string" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case float64:
			if t == "number" || (t == "integer" && v == math.Trunc(v) && !isBad(v)) {
				return true
			}
		case int, int64, uint64:
			if t == "number" || t == "integer" {
				return true
			}
		case nil:
			if t == "null" {
				return true
			}
		}
	}
	return false
}

// exampleOf is the example the document gives for a schema, if any.
func exampleOf(s *openapi3.Schema) any {
	if s.Example != nil {
		return s.Example
	}
	if len(s.Examples) > 0 {
		return s.Examples[0]
	}
	return nil
}
