package tools

import (
	"math"
	"strconv"
)

// present cleans up a calculated value for the model. A whole number stays
// exact (2^60 keeps all its digits); otherwise floating-point noise is cut
// to 15 significant digits (0.1+0.2 is 0.3), and a value within 1e-9
// (relative, and never more than 1e-9 absolute, so that 1000000000.5 stays)
// of a whole number becomes that number. -0 becomes 0.
func present(v float64) float64 {
	if v != math.Trunc(v) {
		v = roundSignificant(v, 15)
		if r := math.Round(v); math.Abs(v-r) <= 1e-9*math.Min(1, math.Abs(v)) {
			v = r
		}
	}
	if v == 0 {
		return 0 // not -0
	}
	return v
}

// roundSignificant rounds v to digits significant digits.
func roundSignificant(v float64, digits int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if err != nil {
		return v // rounded past the largest float64; keep it as it is
	}
	return r
}

// formatNumber writes v as a person would, without an exponent unless v is
// very large or very small.
func formatNumber(v float64) string {
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
