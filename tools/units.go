package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/ryo-bot/ryo/toolbus"
)

// CodeInvalidUnit is unit_convert's error for a unit it does not know, a
// pair it cannot convert, or a temperature below absolute zero.
const CodeInvalidUnit = "invalid_unit"

const unitConvertSchema = `{
  "type": "object",
  "properties": {
    "value": {"type": "number", "description": "The amount to convert, e.g. 5."},
    "from": {"type": "string", "maxLength": 40, "description": "The unit of value, e.g. \"km\", \"lb\", \"C\", \"gal\", \"km/h\", \"MB\" (b is bit, B is byte)."},
    "to": {"type": "string", "maxLength": 40, "description": "The unit to convert to, of the same kind as from, e.g. \"mi\"."}
  },
  "required": ["value", "from", "to"],
  "additionalProperties": false
}`

// UnitConvertResult is what unit_convert returns; From and To are the
// units' symbols, Result is rounded to 6 significant digits.
type UnitConvertResult struct {
	Value  float64 `json:"value"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Result float64 `json:"result"`
	Text   string  `json:"text"` // "5 km = 3.10686 mi"
}

// UnitConvert returns the unit_convert tool.
func UnitConvert() toolbus.Spec {
	return readOnly("unit_convert",
		"Convert a value from one unit to another of the same kind: length, mass, temperature, volume, speed or data size, "+
			"e.g. 5 km to mi. Returns the result to 6 significant digits.",
		toolbus.TimeUnits, unitConvertSchema, unitConvert,
		example("How many miles is a 10 km run?", `{"value":10,"from":"km","to":"mi"}`),
		example("What is 350 °F in Celsius?", `{"value":350,"from":"F","to":"C"}`))
}

func unitConvert(ctx context.Context, raw json.RawMessage) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var args struct {
		Value *float64 `json:"value"`
		From  string   `json:"from"`
		To    string   `json:"to"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.Value == nil {
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, `value is required: the number to convert, as in {"value": 5, "from": "km", "to": "mi"}`)
	}
	return convert(*args.Value, args.From, args.To)
}

// convert converts v from one unit to another.
func convert(v float64, fromName, toName string) (UnitConvertResult, error) {
	from, fromCat, fromOK := lookupUnit(fromName)
	to, toCat, toOK := lookupUnit(toName)
	switch {
	case !fromOK:
		return UnitConvertResult{}, unknownUnit(fromName, toCat, toOK)
	case !toOK:
		return UnitConvertResult{}, unknownUnit(toName, fromCat, fromOK)
	case fromCat.name != toCat.name:
		return UnitConvertResult{}, toolbus.Errorf(CodeInvalidUnit, "cannot convert %s to %s: %s vs %s",
			from.symbol, to.symbol, fromCat.name, toCat.name)
	}
	base := (v + from.offset) * from.factor
	if base < 0 && fromCat.absolute {
		return UnitConvertResult{}, toolbus.Errorf(CodeInvalidUnit, "%s %s is below absolute zero (%s %s)",
			formatNumber(v), from.symbol, formatNumber(present(-from.offset)), from.symbol)
	}
	out := roundSignificant(fromBase(base, to), 6)
	if math.IsInf(out, 0) || math.IsNaN(out) {
		return UnitConvertResult{}, toolbus.Errorf(toolbus.CodeInvalidArgs, "the result is too large; convert a smaller value")
	}
	out = present(out)
	return UnitConvertResult{Value: v, From: from.symbol, To: to.symbol, Result: out,
		Text: fmt.Sprintf("%s %s = %s %s", formatNumber(v), from.symbol, formatNumber(out), to.symbol)}, nil
}

// fromBase converts a value in the base unit to u. When u's offset all but
// cancels the value (32 F in C), what is left is floating-point noise.
func fromBase(base float64, u unit) float64 {
	scaled := base / u.factor
	v := scaled - u.offset
	if math.Abs(v) < 1e-12*math.Abs(scaled) {
		return 0
	}
	return v
}

// unknownUnit reports an unknown unit, listing the units of the other
// unit's category when that one is known, else all of them.
func unknownUnit(name string, other category, otherOK bool) error {
	if otherOK {
		return toolbus.Errorf(CodeInvalidUnit, "unknown unit %q; %s units are: %s", name, other.name, other.symbols())
	}
	list := make([]string, len(categories))
	for i, c := range categories {
		list[i] = c.name + " (" + c.symbols() + ")"
	}
	return toolbus.Errorf(CodeInvalidUnit, "unknown unit %q; known units: %s", name, strings.Join(list, "; "))
}

// symbols lists the category's unit symbols.
func (c category) symbols() string {
	s := make([]string, len(c.units))
	for i, u := range c.units {
		s[i] = u.symbol
	}
	return strings.Join(s, ", ")
}

// lookupUnit finds a unit by symbol or name, also in the plural. Case
// matters only for data sizes, where b is a bit and B a byte.
func lookupUnit(name string) (unit, category, bool) {
	name = strings.TrimSpace(name)
	if u, c, ok := lookupSingular(name); ok {
		return u, c, true
	}
	if len(name) >= 3 && strings.HasSuffix(strings.ToLower(name), "s") {
		return lookupSingular(name[:len(name)-1])
	}
	return unit{}, category{}, false
}

func lookupSingular(name string) (unit, category, bool) {
	if symbol, ok := dataSymbol(name); ok {
		return findSymbol(symbol)
	}
	key := normalizeUnit(name)
	if symbol, ok := unitAliases[key]; ok {
		return findSymbol(symbol)
	}
	return findCaseless(key)
}

// dataSymbol reads the short data-size symbols: "b" and "B", a decimal
// prefix before b or B ("kb" is a kilobit, "KB" a kilobyte), and the binary
// ones, which are always bytes ("kib" is KiB).
func dataSymbol(s string) (string, bool) {
	switch {
	case s == "b" || s == "B":
		return s, true
	case len(s) == 2 && dataPrefixes[s[0]] != "" && strings.ToLower(s[1:]) == "b":
		return dataPrefixes[s[0]] + s[1:], true
	case len(s) == 3 && dataPrefixes[s[0]] != "" && strings.ToLower(s[1:]) == "ib":
		return strings.ToUpper(dataPrefixes[s[0]]) + "iB", true
	}
	return "", false
}

// findSymbol finds a unit by its exact symbol.
func findSymbol(symbol string) (unit, category, bool) {
	for _, c := range categories {
		for _, u := range c.units {
			if u.symbol == symbol {
				return u, c, true
			}
		}
	}
	return unit{}, category{}, false
}

// findCaseless finds a unit whose normalized symbol is key, outside the
// categories where case matters.
func findCaseless(key string) (unit, category, bool) {
	for _, c := range categories {
		for _, u := range c.units {
			if !c.cased && normalizeUnit(u.symbol) == key {
				return u, c, true
			}
		}
	}
	return unit{}, category{}, false
}

// normalizeUnit writes a unit name in lower case with single spaces, "_"
// counting as a space.
func normalizeUnit(name string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.ToLower(name), "_", " ")), " ")
}
