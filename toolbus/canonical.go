package toolbus

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// canonical is args in one form whatever their order, spacing or the
// spelling of their numbers: keys sorted, and each number written the same
// way for the same value. A number keeps every digit it was given, so that
// 9007199254740993 and 9007199254740992 — one float64 apart — stay two
// arguments, not one; a number a float64 holds exactly is written as
// encoding/json writes that float64, as it always was.
func canonical(args json.RawMessage) []byte {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return args
	}
	out, err := json.Marshal(exactNumbers(v)) // maps marshal with sorted keys
	if err != nil {
		return args
	}
	return out
}

// exactNumbers replaces every number in v with its canonical spelling.
func exactNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = exactNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = exactNumbers(e)
		}
	case json.Number:
		return canonicalNumber(x)
	}
	return v
}

func canonicalNumber(n json.Number) json.Number {
	exact, ok := decimalOf(string(n))
	switch {
	case !ok:
		return n
	case exact.digits == "":
		return "0" // minus zero too
	}
	if f, err := strconv.ParseFloat(string(n), 64); err == nil {
		if short, err := json.Marshal(f); err == nil {
			if back, ok := decimalOf(string(short)); ok && back == exact {
				return json.Number(short)
			}
		}
	}
	return json.Number(exact.String())
}

// decimal is a number's exact value: digits × 10^exp, the digits without
// leading or trailing zeros ("" for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// decimalOf reads a JSON number, or reports false for an exponent too
// large to bother with.
func decimalOf(s string) (decimal, bool) {
	var d decimal
	s, d.neg = strings.CutPrefix(s, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		e, err := strconv.Atoi(expText)
		if err != nil || e > 1e6 || e < -1e6 {
			return decimal{}, false
		}
		d.exp = e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	d.exp -= len(frac)
	digits := strings.TrimLeft(whole+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	d.exp += len(digits) - len(trimmed)
	d.digits = trimmed
	if d.digits == "" {
		return decimal{}, true // zero, and minus zero
	}
	return d, true
}

func (d decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	if d.exp >= 0 && d.exp <= 21 {
		return sign + d.digits + strings.Repeat("0", d.exp)
	}
	return sign + d.digits + "e" + strconv.Itoa(d.exp)
}
