package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo/toolbus"
)

// decodeArgs decodes a tool's arguments into v. The bus has validated them
// already; this only guards against a caller that did not. A whole number
// JSON writes as 5.0 or 1e1, which JSON Schema calls an integer, fills an
// integer field.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	err := strictDecode(raw, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		if whole, ok := wholeNumbers(raw); ok {
			err = strictDecode(whole, v)
		}
	}
	if err != nil {
		return toolbus.Errorf(toolbus.CodeInvalidArgs, "the arguments do not fit the tool's schema (%v); send a JSON object with the listed fields", err)
	}
	return nil
}

func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// wholeNumbers is raw with every number whose value is whole written as an
// integer (5.0 and 5e0 as 5), when it holds one that changes.
func wholeNumbers(raw json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	changed := false
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case json.Number:
			if n, ok := wholeNumber(x); ok && n != x {
				changed = true
				return n
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// wholeNumber is n written as an integer, when its value is a whole number
// a float64 holds exactly (up to 2⁵³).
func wholeNumber(n json.Number) (json.Number, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return n, false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}
