package tools

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// maxExactDigits is the most digits a factorial, permutation or
// combination count is written out with.
const maxExactDigits = 20000

// maxCountN is the largest n factorial, permutations and combinations take.
const maxCountN = 1_000_000_000_000_000_000

// CountResult is what factorial, permutations and combinations return: an
// exact whole number, all its digits.
type CountResult struct {
	Operation     string   `json:"operation"`
	N             int64    `json:"n"`
	K             *int64   `json:"k,omitempty"`
	Formula       string   `json:"formula"`
	Value         string   `json:"value"` // exact, every digit
	Digits        int      `json:"digits"`
	Approximately string   `json:"approximately,omitempty"` // in scientific notation, when Value is long
	Notes         []string `json:"notes,omitempty"`
}

// count works out n!, nPr or nCr exactly. Its size is estimated from
// logarithms first, so that a count with millions of digits is refused
// before any of them is computed.
func count(op string, n int64, k *int64) (*CountResult, error) {
	res := &CountResult{Operation: op, N: n, K: k, Formula: countFormulas[op]}
	if k != nil && *k > n {
		res.Value, res.Digits = "0", 1
		res.Notes = []string{fmt.Sprintf("k = %d is more than n = %d: there is no way to take %d of %d items. Swap them if you meant %d of %d.", *k, n, *k, n, n, *k)}
		return res, nil
	}
	var ln float64 // the natural logarithm of the result
	var exact func() *big.Int
	switch op {
	case "factorial":
		ln = lnFactorial(n)
		exact = func() *big.Int { return new(big.Int).MulRange(1, n) }
	case "permutations":
		ln = lnChoose(n, *k) + lnFactorial(*k)
		exact = func() *big.Int { return new(big.Int).MulRange(n-*k+1, n) }
	default:
		ln = lnChoose(n, *k)
		exact = func() *big.Int { return choose(n, *k) }
	}
	log10 := ln / math.Ln10
	if log10 >= maxExactDigits {
		return nil, invalidArgs("%s has about %s digits, more than the %s this tool writes out; it is %s. Ask for a smaller n, or use the logarithm.",
			countName(op, n, k), groupDigits(int64(log10)+1), groupDigits(maxExactDigits), approxPower(log10))
	}
	v := exact().String()
	if len(v) > maxExactDigits {
		return nil, invalidArgs("%s has %s digits, more than the %s this tool writes out; it is %s",
			countName(op, n, k), groupDigits(int64(len(v))), groupDigits(maxExactDigits), approxPower(log10))
	}
	res.Value, res.Digits = v, len(v)
	if len(v) > 15 {
		res.Approximately = v[:1] + "." + v[1:10] + "e" + strconv.Itoa(len(v)-1)
	}
	return res, nil
}

var countFormulas = map[string]string{
	"factorial":    "n! = 1 × 2 × … × n",
	"permutations": "P(n, k) = n!/(n − k)!: ordered selections of k of n items",
	"combinations": "C(n, k) = n!/(k!·(n − k)!): unordered selections of k of n items",
}

// choose is C(n, k) for k ≤ n, as n·(n−1)·…·(n−k+1) / k!: two products
// and one division, where big.Int's Binomial divides k times and takes a
// second for C(66000, 33000).
func choose(n, k int64) *big.Int {
	k = min(k, n-k)
	num := new(big.Int).MulRange(n-k+1, n)
	return num.Quo(num, new(big.Int).MulRange(1, k))
}

// lnFactorial is ln(n!).
func lnFactorial(n int64) float64 {
	v, _ := math.Lgamma(float64(n) + 1)
	return v
}

// lnChoose is ln C(n, k) for 0 ≤ k ≤ n, written so that no two large terms
// cancel: k·ln(n/k) + (n−k)·ln(n/(n−k)) + ½·ln(n/(2πk(n−k))) plus the
// Stirling errors of n, k and n − k. Where n is 10^18 and k is 2, log-gamma
// differences would have no digit left.
func lnChoose(n, k int64) float64 {
	if k > n {
		return 0
	}
	k = min(k, n-k)
	if k == 0 {
		return 0
	}
	nf, kf, rf := float64(n), float64(k), float64(n-k)
	v := kf*math.Log(nf/kf) - rf*math.Log1p(-kf/nf) + math.Log(nf/(2*math.Pi*kf*rf))/2
	return v + stirlingError(nf) - stirlingError(kf) - stirlingError(rf)
}

// countName writes the count asked for, as "25!" or "C(100, 50)".
func countName(op string, n int64, k *int64) string {
	switch op {
	case "factorial":
		return strconv.FormatInt(n, 10) + "!"
	case "permutations":
		return fmt.Sprintf("P(%d, %d)", n, *k)
	}
	return fmt.Sprintf("C(%d, %d)", n, *k)
}

// approxPower writes 10^log10 in scientific notation, with as many digits
// of the mantissa as the logarithm's own rounding leaves.
func approxPower(log10 float64) string {
	exp := math.Floor(log10)
	digits := int(-math.Log10(math.Max(math.Abs(log10), 1)*1e-15)) - 1 // an estimate of what is left exact
	if digits < 1 {
		return "about 10^" + strconv.FormatFloat(log10, 'g', 6, 64)
	}
	mant := math.Pow(10, log10-exp)
	return "about " + strconv.FormatFloat(mant, 'f', min(digits, 6), 64) + "e" + strconv.FormatFloat(exp, 'f', 0, 64)
}

// groupDigits writes n with thousands separators, as 5,565,709.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
