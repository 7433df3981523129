package tools

import (
	"fmt"
	"math"
)

// function is a function the calculator knows; max < 0 means no limit.
// apply's errors follow the name in messages: "sqrt needs a number >= 0 …".
type function struct {
	min, max int
	apply    func(xs []float64) (float64, error)
}

// supportedNames lists every name in functions and constants, for messages.
const supportedNames = "functions sqrt, abs, round, min, max, log (base 10), ln, sin, cos, tan (radians); constants pi, e"

var functions = map[string]function{
	"sqrt":  {1, 1, domain(math.Sqrt, func(x float64) bool { return x >= 0 }, "a number >= 0")},
	"abs":   {1, 1, one(math.Abs)},
	"round": {1, 2, round},
	"min":   {1, -1, fold(math.Min)},
	"max":   {1, -1, fold(math.Max)},
	"log":   {1, 1, domain(math.Log10, positive, "a number > 0")},
	"ln":    {1, 1, domain(math.Log, positive, "a number > 0")},
	"sin":   {1, 1, one(math.Sin)},
	"cos":   {1, 1, one(math.Cos)},
	"tan":   {1, 1, one(math.Tan)},
}

var constants = map[string]float64{"pi": math.Pi, "π": math.Pi, "e": math.E}

func positive(x float64) bool { return x > 0 }

// one adapts a function of one argument.
func one(f func(float64) float64) func([]float64) (float64, error) {
	return func(xs []float64) (float64, error) { return f(xs[0]), nil }
}

// domain adapts a function of one argument defined only where ok holds.
func domain(f func(float64) float64, ok func(float64) bool, want string) func([]float64) (float64, error) {
	return func(xs []float64) (float64, error) {
		if !ok(xs[0]) {
			return 0, fmt.Errorf("needs %s, got %s", want, formatNumber(xs[0]))
		}
		return f(xs[0]), nil
	}
}

// fold adapts a function of two arguments to any number of them.
func fold(f func(a, b float64) float64) func([]float64) (float64, error) {
	return func(xs []float64) (float64, error) {
		v := xs[0]
		for _, x := range xs[1:] {
			v = f(v, x)
		}
		return v, nil
	}
}

// round rounds half away from zero, to whole numbers or to digits decimals
// (negative digits round to tens, hundreds, …).
func round(xs []float64) (float64, error) {
	x, digits := xs[0], 0.0
	if len(xs) == 2 {
		digits = xs[1]
	}
	if digits != math.Trunc(digits) || math.Abs(digits) > 15 {
		return 0, fmt.Errorf("needs whole-number digits from -15 to 15, as in round(x, 2); got %s", formatNumber(digits))
	}
	scale := math.Pow(10, math.Abs(digits))
	if digits < 0 {
		return math.Round(x/scale) * scale, nil
	}
	if math.Abs(x*scale) >= 1<<53 {
		return x, nil // no fractional digits left to round at this size
	}
	return math.Round(x*scale) / scale, nil
}

// checkArity reports a call at name with the wrong number of arguments.
func (f function) checkArity(name token, n int) error {
	if n >= f.min && (f.max < 0 || n <= f.max) {
		return nil
	}
	return syntaxErrorf("%s takes %s, got %d (at position %d)", name.name(), f.arity(), n, name.pos)
}

// arity says how many arguments f takes: "1 argument", "1 or 2 arguments".
func (f function) arity() string {
	switch {
	case f.max < 0:
		return "at least " + arguments(f.min)
	case f.min == f.max:
		return arguments(f.min)
	}
	return fmt.Sprintf("%d or %s", f.min, arguments(f.max))
}

func arguments(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
