package openapi

import (
	"bytes"
	"encoding/json"
	"slices"
)

// node is a JSON Schema being built: an object that keeps its keys in the
// order they were set, so that generated schemas read the same on every
// run. Hidden keywords (maxItems) go only into the client's own, stricter
// copy: the model's schema must not carry them.
type node struct {
	keys   []string
	vals   map[string]any // *node, []*node, or any JSON value
	hidden map[string]any
	// example is a value the document offers for this schema, used to
	// build the tool's example call; it is not a schema keyword.
	example any
}

func newNode() *node { return &node{vals: map[string]any{}} }

func (n *node) set(k string, v any) {
	if _, ok := n.vals[k]; !ok {
		n.keys = append(n.keys, k)
	}
	n.vals[k] = v
}

func (n *node) get(k string) any { return n.vals[k] }

func (n *node) del(k string) {
	if _, ok := n.vals[k]; ok {
		delete(n.vals, k)
		n.keys = slices.DeleteFunc(n.keys, func(s string) bool { return s == k })
	}
}

func (n *node) hide(k string, v any) {
	if n.hidden == nil {
		n.hidden = map[string]any{}
	}
	n.hidden[k] = v
}

// types returns the node's "type" as a list.
func (n *node) types() []string {
	switch t := n.get("type").(type) {
	case string:
		return []string{t}
	case []string:
		return t
	}
	return nil
}

// is reports whether the node allows type t.
func (n *node) is(t string) bool { return slices.Contains(n.types(), t) }

// props returns the properties of an object node.
func (n *node) props() *node {
	p, _ := n.get("properties").(*node)
	return p
}

func (n *node) required() []string {
	r, _ := n.get("required").([]string)
	return r
}

// MarshalJSON writes the model's schema.
func (n *node) MarshalJSON() ([]byte, error) { return n.encode(false) }

// strict writes the client's schema, hidden keywords included.
func (n *node) strict() json.RawMessage {
	out, _ := n.encode(true)
	return out
}

func (n *node) encode(strict bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	keys, vals := n.keys, n.vals
	if strict && len(n.hidden) > 0 {
		keys = append(slices.Clone(keys), sortedKeys(n.hidden)...)
		vals = make(map[string]any, len(keys))
		for k, v := range n.vals {
			vals[k] = v
		}
		for k, v := range n.hidden {
			vals[k] = v
		}
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		v, err := encodeValue(vals[k], strict)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func encodeValue(v any, strict bool) ([]byte, error) {
	switch v := v.(type) {
	case *node:
		return v.encode(strict)
	case []*node:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			out, err := e.encode(strict)
			if err != nil {
				return nil, err
			}
			b.Write(out)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	}
	return json.Marshal(v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
