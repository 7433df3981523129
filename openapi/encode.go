package openapi

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// Serializing parameters as OpenAPI's styles say
// (https://spec.openapis.org/oas/v3.1.0#style-examples). Values arrive
// as decoded JSON, numbers as json.Number so that they keep their digits.

// text is a scalar as it goes into a URL or header, before escaping.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return ""
	case object:
		parts := make([]string, 0, 2*len(v))
		for _, kv := range v {
			parts = append(parts, kv.k, kv.v)
		}
		return strings.Join(parts, ",")
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// pair is a key and value of an object parameter, in a stable order.
type pair struct{ k, v string }

func pairs(v any) []pair {
	o, _ := v.(object)
	return o
}

func list(v any) []string {
	items, _ := v.([]any)
	out := make([]string, len(items))
	for i, e := range items {
		out[i] = text(e)
	}
	return out
}

// pathEscape escapes a value for a path: everything but RFC 3986's
// unreserved characters, as RFC 6570's simple expansion does, so that
// "a/b" stays one segment and "a,b" one value.
func pathEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// queryEscape escapes a query name or value as RFC 3986 asks: spaces as
// %20, not "+"; with allowReserved, reserved characters stay as they are.
func queryEscape(s string, allowReserved bool) string {
	e := strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
	if !allowReserved {
		return e
	}
	for _, r := range ":/?#[]@!$&'()*+,;=" {
		enc := url.QueryEscape(string(r))
		if r == '+' || r == '&' || r == '=' || r == '#' {
			continue // they would change how the query is read
		}
		e = strings.ReplaceAll(e, enc, string(r))
	}
	return e
}

// pathValue serializes a path parameter in its style: simple ("3",
// "3,4,5", "role,admin,first,Alex"), label (".3") or matrix (";id=3").
func pathValue(p param, v any) string {
	esc := func(s string) string { return pathEscape(s) }
	switch p.kind {
	case arrayKind:
		items := mapStrings(list(v), esc)
		switch p.style {
		case "label":
			return "." + strings.Join(items, sep(p.explode, ".", ","))
		case "matrix":
			if p.explode {
				return ";" + p.name + "=" + strings.Join(items, ";"+p.name+"=")
			}
			return ";" + p.name + "=" + strings.Join(items, ",")
		}
		return strings.Join(items, ",")
	case objectKind:
		var parts []string
		for _, kv := range pairs(v) {
			if p.explode {
				parts = append(parts, esc(kv.k)+"="+esc(kv.v))
			} else {
				parts = append(parts, esc(kv.k), esc(kv.v))
			}
		}
		switch p.style {
		case "label":
			return "." + strings.Join(parts, sep(p.explode, ".", ","))
		case "matrix":
			if p.explode {
				return ";" + strings.Join(parts, ";")
			}
			return ";" + p.name + "=" + strings.Join(parts, ",")
		}
		return strings.Join(parts, ",")
	}
	s := esc(scalarText(p, v))
	switch p.style {
	case "label":
		return "." + s
	case "matrix":
		return ";" + p.name + "=" + s
	}
	return s
}

func sep(explode bool, exploded, joined string) string {
	if explode {
		return exploded
	}
	return joined
}

func mapStrings(ss []string, f func(string) string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

// scalarText is a scalar parameter's text: JSON for a parameter whose
// content is application/json.
func scalarText(p param, v any) string {
	if r, ok := v.(rawJSON); ok {
		return string(r)
	}
	return text(v)
}

// rawJSON is the value of a parameter sent as JSON, compacted.
type rawJSON string

// argValue decodes the argument raw of parameter p: as JSON text for a
// parameter whose content is application/json, else as a value its style
// serializes. A missing or null argument is nil.
func argValue(p param, raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if p.asJSON {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		return rawJSON(b.String()), nil
	}
	return decodeValue(raw)
}

// queryPairs serializes a query parameter in its style into name=value
// pieces, escaped: form (id=3&id=4 exploded, id=3,4 not), spaceDelimited
// (id=3%204), pipeDelimited (id=3|4) and deepObject (color[R]=100).
func queryPairs(p param, v any) []string {
	esc := func(s string) string { return queryEscape(s, p.allowReserved) }
	name := esc(p.name)
	switch p.kind {
	case arrayKind:
		items := mapStrings(list(v), esc)
		if p.explode {
			return mapStrings(items, func(s string) string { return name + "=" + s })
		}
		joiner := map[string]string{"spaceDelimited": "%20", "pipeDelimited": "|"}[p.style]
		if joiner == "" {
			joiner = ","
		}
		return []string{name + "=" + strings.Join(items, joiner)}
	case objectKind:
		var out, joined []string
		for _, kv := range pairs(v) {
			switch {
			case p.style == "deepObject":
				out = append(out, name+"%5B"+esc(kv.k)+"%5D="+esc(kv.v))
			case p.explode:
				out = append(out, esc(kv.k)+"="+esc(kv.v))
			default:
				joined = append(joined, esc(kv.k), esc(kv.v))
			}
		}
		if joined != nil {
			joiner := map[string]string{"spaceDelimited": "%20", "pipeDelimited": "|"}[p.style]
			if joiner == "" {
				joiner = ","
			}
			out = append(out, name+"="+strings.Join(joined, joiner))
		}
		return out
	}
	return []string{name + "=" + esc(scalarText(p, v))}
}

// headerValue serializes a header parameter: simple style.
func headerValue(p param, v any) string {
	switch p.kind {
	case arrayKind:
		return strings.Join(list(v), ",")
	case objectKind:
		var parts []string
		for _, kv := range pairs(v) {
			if p.explode {
				parts = append(parts, kv.k+"="+kv.v)
			} else {
				parts = append(parts, kv.k, kv.v)
			}
		}
		return strings.Join(parts, ",")
	}
	return scalarText(p, v)
}

// formBody encodes a form body: each property a field, arrays repeated
// (form style, exploded, OpenAPI's default for forms).
func formBody(fields []field) string {
	var parts []string
	for _, f := range fields {
		if items, ok := f.v.([]any); ok {
			for _, e := range items {
				parts = append(parts, queryEscape(f.k, false)+"="+queryEscape(text(e), false))
			}
			continue
		}
		parts = append(parts, queryEscape(f.k, false)+"="+queryEscape(text(f.v), false))
	}
	return strings.Join(parts, "&")
}

// field is a member of a form body, whose arrays repeat the field.
type field struct {
	k string
	v any
}

// object is a JSON object with its members in the order they were
// written: an object parameter is serialized in the order the model gave.
type object []pair

// decodeValue decodes an argument: objects in their order, numbers as
// json.Number.
func decodeValue(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return decodeNext(d)
}

func decodeNext(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var o object
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeNext(d)
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			o = append(o, pair{key, text(v)})
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		var a []any
		for d.More() {
			v, err := decodeNext(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return tok, nil
}
