package openapi

import (
	"fmt"
	"mime"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// param is how one argument travels: where, under which name, in which
// style.
type param struct {
	name          string // as the document names it
	arg           string // the argument's name in the tool's schema
	in            string // path, query or header
	style         string
	explode       bool
	allowReserved bool
	asJSON        bool // the parameter's content is application/json
	kind          kind
}

// kind is the shape of a parameter's value, which its style serializes.
type kind int

const (
	scalarKind kind = iota
	arrayKind
	objectKind
)

// body is how the request body travels.
type body struct {
	arg       string // the argument holding it
	mediaType string // application/json, application/x-www-form-urlencoded or text/plain
}

// Media types the client sends.
const (
	mediaJSON = "application/json"
	mediaForm = "application/x-www-form-urlencoded"
	mediaText = "text/plain"
)

// arguments is what an operation's arguments became: the schema the model
// sees and how the client sends each one.
type arguments struct {
	schema  *node
	params  []param
	body    *body
	dropped []dropped
}

// ignoredHeaders are header parameters OpenAPI says to ignore: the client
// sets them itself.
var ignoredHeaders = []string{"accept", "content-type", "authorization"}

// argumentsOf merges an operation's path, query and header parameters and
// its body into one closed object schema. auth's parameter is left out:
// the client sends it, and the model never sees it.
func argumentsOf(path string, item *openapi3.PathItem, op *openapi3.Operation, auth Auth) (*arguments, error) {
	c := newConverter()
	a := &arguments{}
	props := newNode()
	var required []string
	for _, p := range mergedParams(item, op) {
		if skipParam(p, auth) {
			continue
		}
		if p.In == openapi3.ParameterInCookie {
			if p.Required {
				return nil, notSupported("it needs the cookie %q, and cookies are not sent", p.Name)
			}
			a.dropped = append(a.dropped, dropped{p.Name, "cookies are not sent"})
			continue
		}
		pp, n, err := c.param(p)
		if err != nil {
			if p.Required || p.In == openapi3.ParameterInPath {
				return nil, err
			}
			a.dropped = append(a.dropped, dropped{p.Name, err.Error()})
			continue
		}
		pp.arg = freeName(props, p.Name, p.In)
		props.set(pp.arg, n)
		if p.Required || p.In == openapi3.ParameterInPath {
			required = append(required, pp.arg)
		}
		a.params = append(a.params, pp)
	}
	if err := c.requestBody(op, props, &required, a); err != nil {
		return nil, err
	}
	if err := undescribed(path, a.params); err != nil {
		return nil, err
	}
	root := newNode()
	root.set("type", "object")
	root.set("properties", props)
	if len(required) > 0 {
		root.set("required", required)
	}
	root.set("additionalProperties", false)
	a.schema = root
	for _, d := range c.dropped {
		if !slices.Contains(a.dropped, d) {
			a.dropped = append(a.dropped, d)
		}
	}
	return a, nil
}

// mergedParams is the path item's parameters with the operation's own in
// their place or after them: an operation's parameter replaces the path's
// of the same name and location.
var pathTemplate = regexp.MustCompile(`\{([^{}]*)\}`)

// undescribed fails an operation whose path has a {template} no
// parameter fills: the request would go to the wrong place.
func undescribed(path string, params []param) error {
	for _, m := range pathTemplate.FindAllStringSubmatch(path, -1) {
		if !slices.ContainsFunc(params, func(p param) bool { return p.in == openapi3.ParameterInPath && p.name == m[1] }) {
			return notSupported("its path names {%s}, which no path parameter describes", m[1])
		}
	}
	return nil
}

// headerName matches what may name a header (RFC 9110's token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func mergedParams(item *openapi3.PathItem, op *openapi3.Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	index := map[string]int{}
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil || ref.Value.Name == "" {
				continue
			}
			p := ref.Value
			key := p.In + "\x00" + p.Name
			if i, ok := index[key]; ok {
				out[i] = p
				continue
			}
			index[key] = len(out)
			out = append(out, p)
		}
	}
	return out
}

func skipParam(p *openapi3.Parameter, auth Auth) bool {
	switch {
	case p.In == openapi3.ParameterInHeader && slices.Contains(ignoredHeaders, strings.ToLower(p.Name)):
		return true
	case auth.In == InHeader && p.In == openapi3.ParameterInHeader && strings.EqualFold(p.Name, auth.Name):
		return true
	case auth.In == InQuery && p.In == openapi3.ParameterInQuery && p.Name == auth.Name:
		return true
	}
	return false
}

// freeName is name, or name prefixed with its location when an argument
// of that name exists already (an "id" in the path and in the query).
func freeName(props *node, name, in string) string {
	if props.get(name) == nil {
		return name
	}
	for i := 0; ; i++ {
		alt := in + "_" + name
		if i > 0 {
			alt = fmt.Sprintf("%s_%s_%d", in, name, i+1)
		}
		if props.get(alt) == nil {
			return alt
		}
	}
}

// param converts one parameter: its schema (or its JSON content's), its
// description and example, and its style.
func (c *converter) param(p *openapi3.Parameter) (param, *node, error) {
	pp := param{name: p.Name, in: p.In, style: p.Style, allowReserved: p.AllowReserved}
	ref := p.Schema
	w := inParam
	if ref == nil && len(p.Content) > 0 {
		mt := p.Content.Get(mediaJSON)
		if mt == nil {
			return pp, nil, notSupported("parameter %q is sent as %s, which is not supported", p.Name, firstKey(p.Content))
		}
		ref, pp.asJSON, w = mt.Schema, true, inBody
	}
	n, err := c.convert(ref, p.Name, w, 0)
	if err != nil {
		return pp, nil, err
	}
	if d := shortText(p.Description, maxArgDescription); d != "" {
		n.set("description", d)
	}
	if n.example == nil {
		n.example = paramExample(p)
	}
	if err := pp.setStyle(p, n); err != nil {
		return pp, nil, err
	}
	return pp, n, nil
}

func paramExample(p *openapi3.Parameter) any {
	if p.Example != nil {
		return p.Example
	}
	for _, k := range sortedKeys(p.Examples) {
		if e := p.Examples[k]; e != nil && e.Value != nil && e.Value.Value != nil {
			return e.Value.Value
		}
	}
	return nil
}

// setStyle checks the parameter's style against its location and shape,
// filling in OpenAPI's defaults.
func (pp *param) setStyle(p *openapi3.Parameter, n *node) error {
	switch {
	case pp.asJSON:
		pp.kind = scalarKind
	case n.is("array"):
		pp.kind = arrayKind
		if items, _ := n.get("items").(*node); items == nil || items.is("object") || items.is("array") {
			return notSupported("parameter %q is an array of objects or arrays", p.Name)
		}
	case n.is("object"):
		pp.kind = objectKind
		for _, k := range n.props().keys {
			if v := n.props().get(k).(*node); v.is("object") || v.is("array") {
				return notSupported("parameter %q is an object with nested objects or arrays", p.Name)
			}
		}
	}
	if p.In == openapi3.ParameterInHeader && !headerName.MatchString(p.Name) {
		return notSupported("header %q is not a valid header name", p.Name)
	}
	allowed := map[string][]string{
		openapi3.ParameterInPath:   {"simple", "label", "matrix"},
		openapi3.ParameterInQuery:  {"form", "spaceDelimited", "pipeDelimited", "deepObject"},
		openapi3.ParameterInHeader: {"simple"},
	}[p.In]
	if allowed == nil {
		return notSupported("parameter %q is in %q, which is not a place parameters go", p.Name, p.In)
	}
	if pp.style == "" {
		pp.style = allowed[0]
	}
	if !slices.Contains(allowed, pp.style) {
		return notSupported("parameter %q has style %q, which does not go in the %s", p.Name, pp.style, p.In)
	}
	pp.explode = pp.style == "form"
	if p.Explode != nil {
		pp.explode = *p.Explode
	}
	switch {
	case pp.style == "deepObject" && pp.kind != objectKind:
		return notSupported("parameter %q has style deepObject but is not an object", p.Name)
	case (pp.style == "spaceDelimited" || pp.style == "pipeDelimited") && pp.kind == scalarKind:
		pp.style = "form" // the style says nothing for a single value
	case (pp.style == "spaceDelimited" || pp.style == "pipeDelimited") && pp.kind == objectKind && pp.explode:
		return notSupported("parameter %q: %s does not say how to explode an object", p.Name, pp.style)
	}
	return nil
}

func firstKey[V any](m map[string]V) string {
	if keys := sortedKeys(m); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// requestBody adds the body as one argument, "body", when it is JSON, a
// form or plain text. Binary and multipart uploads are not supported,
// and fail the operation. A body that cannot be converted fails it when
// it is required, and is left out when it is not.
func (c *converter) requestBody(op *openapi3.Operation, props *node, required *[]string, a *arguments) error {
	if op.RequestBody == nil || op.RequestBody.Value == nil || len(op.RequestBody.Value.Content) == 0 {
		return nil
	}
	rb := op.RequestBody.Value
	mediaType, mt := chooseMedia(rb.Content)
	if mt == nil {
		// An upload is what the operation is for: without it, the
		// tool would do something else than it says.
		return unsupportedMedia(rb.Content)
	}
	n, err := c.convert(mt.Schema, "body", inBody, 0)
	if err == nil && mediaType == mediaForm {
		err = formShape(n)
	}
	if err == nil && mediaType == mediaText && !n.is("string") {
		n = newNode()
		n.set("type", "string")
	}
	if err != nil {
		if rb.Required {
			return err
		}
		a.dropped = append(a.dropped, dropped{"body", err.Error()})
		return nil
	}
	if d := shortText(rb.Description, maxArgDescription); d != "" {
		n.set("description", d)
	}
	if n.example == nil && mt.Example != nil {
		n.example = mt.Example
	}
	arg := "body"
	if props.get(arg) != nil {
		arg = "request_body"
	}
	props.set(arg, n)
	if rb.Required {
		*required = append(*required, arg)
	}
	a.body = &body{arg: arg, mediaType: mediaType}
	return nil
}

// chooseMedia picks the body's media type the client sends best: JSON,
// then a form, then plain text.
func chooseMedia(content openapi3.Content) (string, *openapi3.MediaType) {
	keys := sortedKeys(content)
	for _, want := range []func(string) bool{
		func(m string) bool { return m == mediaJSON },
		func(m string) bool { return strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "/json") },
		func(m string) bool { return m == mediaForm },
		func(m string) bool { return m == mediaText },
	} {
		for _, k := range keys {
			if m := baseMedia(k); want(m) && content[k] != nil {
				if m != mediaForm && m != mediaText {
					m = mediaJSON
				}
				return m, content[k]
			}
		}
	}
	return "", nil
}

func baseMedia(m string) string {
	base, _, err := mime.ParseMediaType(m)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(m))
	}
	return base
}

func unsupportedMedia(content openapi3.Content) error {
	keys := sortedKeys(content)
	for _, k := range keys {
		if baseMedia(k) == "multipart/form-data" {
			return notSupported("its body is a multipart upload (%s), which is not supported", k)
		}
	}
	return notSupported("its body is a binary upload (%s), which is not supported", strings.Join(keys, ", "))
}

// formShape checks that a form body is an object of scalars and arrays
// of scalars: a form has no way to nest.
func formShape(n *node) error {
	if !n.is("object") {
		return notSupported("its form body is not an object")
	}
	for _, k := range n.props().keys {
		v := n.props().get(k).(*node)
		if items, _ := v.get("items").(*node); v.is("object") || (items != nil && (items.is("object") || items.is("array"))) {
			return notSupported("its form body nests objects (%s)", k)
		}
	}
	return nil
}
