package openapi

import (
	"math"
	"strings"
)

// exampleArgs builds example arguments from an operation's schema: every
// required argument, with the value the document gives as an example or
// default, else the first of its enum, else a value made to fit its type,
// format and bounds. The result is checked against the schema afterwards;
// a value this cannot make fit (a pattern, say) leaves the operation
// without an example, and it is reported.
func exampleArgs(n *node, documented bool) any {
	return (&exampler{documented: documented}).value(n, 0)
}

// exampler builds example values, from the document's own examples and
// defaults or (when those do not fit) from the schema alone.
type exampler struct{ documented bool }

func (x *exampler) value(n *node, depth int) any {
	if n == nil || depth > maxDepth+2 {
		return nil
	}
	if alts, ok := n.get("anyOf").([]*node); ok && len(alts) > 0 {
		return x.value(alts[0], depth+1)
	}
	if x.documented && n.example != nil && !n.is("object") {
		return n.example
	}
	if d := n.get("default"); d != nil && x.documented {
		return d
	}
	if e, ok := n.get("enum").([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch {
	case n.is("object"):
		return x.object(n, depth)
	case n.is("array"):
		items, _ := n.get("items").(*node)
		count := 1
		if m, ok := n.get("minItems").(uint64); ok && m > 1 {
			count = int(min(m, 16))
		}
		out := make([]any, count)
		for i := range out {
			out[i] = x.value(items, depth+1)
		}
		return out
	case n.is("string"):
		return exampleString(n)
	case n.is("integer"):
		return exampleNumber(n, true)
	case n.is("number"):
		return exampleNumber(n, false)
	case n.is("boolean"):
		return true
	}
	return nil
}

// exampleObject fills an object's required properties, from the
// document's example of the whole object where it has them.
func (x *exampler) object(n *node, depth int) any {
	given, _ := n.example.(map[string]any)
	if !x.documented {
		given = nil
	}
	out := map[string]any{}
	props := n.props()
	for _, k := range n.required() {
		if v, ok := given[k]; ok {
			out[k] = v
			continue
		}
		p, _ := props.get(k).(*node)
		out[k] = x.value(p, depth+1)
	}
	return out
}

func exampleString(n *node) string {
	f, _ := n.get("format").(string)
	s := map[string]string{
		"date":      "2026-01-15",
		"time":      "12:00:00Z",
		"date-time": "2026-01-15T12:00:00Z",
		"email":     "someone@example.com",
		"hostname":  "example.com",
		"ipv4":      "192.0.2.1",
		"ipv6":      "2001:db8::1",
		"uri":       "https://example.com/",
		"uuid":      "123e4567-e89b-12d3-a456-426614174000",
	}[f]
	if s == "" {
		s = "example"
	}
	if m, ok := n.get("minLength").(uint64); ok && uint64(len(s)) < m {
		s += strings.Repeat("x", int(min(m, 256))-len(s))
	}
	if m, ok := n.get("maxLength").(uint64); ok && uint64(len(s)) > m {
		s = s[:m]
	}
	return s
}

// exampleNumber is 1 when the bounds allow it, else the nearest value
// inside them.
func exampleNumber(n *node, integer bool) any {
	lo, hi := math.Inf(-1), math.Inf(1)
	if v, ok := n.get("minimum").(float64); ok {
		lo = v
	}
	if v, ok := n.get("maximum").(float64); ok {
		hi = v
	}
	step := 1.0
	if !integer {
		step = 0.5
	}
	if v, ok := n.get("exclusiveMinimum").(float64); ok {
		lo = math.Max(lo, v+step)
	}
	if v, ok := n.get("exclusiveMaximum").(float64); ok {
		hi = math.Min(hi, v-step)
	}
	x := math.Max(lo, math.Min(hi, 1))
	if m, ok := n.get("multipleOf").(float64); ok && m > 0 {
		x = math.Ceil(x/m) * m
	}
	if integer {
		x = math.Ceil(x)
		return int64(x)
	}
	return x
}
