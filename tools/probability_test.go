package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// callProbability runs the probability tool with args.
func callProbability(t *testing.T, args string) any {
	t.Helper()
	out, err := Probability().Tool.Call(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("probability(%s): %v", args, err)
	}
	return out
}

func distributionOf(t *testing.T, args string) *DistributionResult {
	t.Helper()
	return callProbability(t, args).(*DistributionResult)
}

func countOf(t *testing.T, args string) *CountResult {
	t.Helper()
	return callProbability(t, args).(*CountResult)
}

// closeTo checks a result field against a reference to within tol
// (absolute).
func closeTo(t *testing.T, what string, got *float64, want, tol float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > tol {
		t.Errorf("%s = %v; want %v ± %v", what, deref(got), want, tol)
	}
}

// relClose checks a result field against a reference to within rel
// (relative).
func relClose(t *testing.T, what string, got *float64, want, rel float64) {
	t.Helper()
	if got == nil || !within(*got, want, rel) {
		t.Errorf("%s = %.17g; want %.17g within %g relative", what, deref(got), want, rel)
	}
}

// Abramowitz & Stegun, Handbook of Mathematical Functions, Table 26.1:
// the normal probability function P(x) and density Z(x), to 15 decimals,
// and Q(x) = 1 − P(x) for larger x (P(5) = 0.999999713348428, so
// Q(5) = 2.866516e-7; Q(10) = 7.619853024160527e-24 from 26.2's
// asymptotic expansion).
func TestProbabilityNormalTable(t *testing.T) {
	tests := []struct {
		x, p, z float64
	}{
		{0.5, 0.691462461274013, 0.352065326764300},
		{1, 0.841344746068543, 0.241970724519143},
		{1.96, 0.975002104851780, 0.058440944333451},
		{2, 0.977249868051821, 0.053990966513188},
		{2.5, 0.993790334674224, 0.017528300493569},
		{3, 0.998650101968370, 0.004431848411938},
	}
	for _, tt := range tests {
		for _, sign := range []float64{1, -1} {
			x := sign * tt.x
			res := distributionOf(t, fmt.Sprintf(`{"operation":"normal","mean":0,"sd":1,"x":%v}`, x))
			want := tt.p
			if sign < 0 {
				want = 1 - tt.p
			}
			closeTo(t, fmt.Sprintf("P(%v)", x), res.AtMost, want, 1e-15)
			closeTo(t, fmt.Sprintf("P(X < %v)", x), res.LessThan, want, 1e-15)
			closeTo(t, fmt.Sprintf("Q(%v)", x), res.MoreThan, 1-want, 1e-15)
			closeTo(t, fmt.Sprintf("Z(%v)", x), res.Density, tt.z, 1e-15)
		}
	}
	// Far tails keep their relative accuracy: they are not 1 − P.
	res := distributionOf(t, `{"operation":"normal","mean":0,"sd":1,"x":5}`)
	relClose(t, "Q(5)", res.MoreThan, 2.866515718791939e-7, 1e-12)
	res = distributionOf(t, `{"operation":"normal","mean":0,"sd":1,"x":-10}`)
	relClose(t, "P(-10)", res.AtMost, 7.619853024160527e-24, 1e-12)
	if *res.AtLeast != 1 {
		t.Errorf("P(X ≥ -10) = %v; want 1", *res.AtLeast)
	}
	// A textbook use: IQ scores with mean 100 and sd 15; 130 is z = 2.
	res = distributionOf(t, `{"operation":"normal","mean":100,"sd":15,"x":130}`)
	closeTo(t, "P(IQ ≤ 130)", res.AtMost, 0.977249868051821, 1e-15)
	closeTo(t, "z", res.Z, 2, 0)
	closeTo(t, "density", res.Density, 0.053990966513188/15, 1e-16)
}

// A&S Table 26.5, the percentage points of the normal distribution: the x
// with Q(x) = q, to 10 decimals (and 26.2.23's example, Q = 1e-10 at
// 6.361340902).
func TestProbabilityNormalQuantiles(t *testing.T) {
	tests := []struct {
		p, z float64
	}{
		{0.975, 1.959963985}, {0.95, 1.644853627}, {0.9, 1.281551566}, {0.995, 2.575829304},
		{0.999, 3.090232306}, {0.5, 0}, {0.025, -1.959963985}, {1e-10, -6.361340902},
	}
	for _, tt := range tests {
		res := distributionOf(t, fmt.Sprintf(`{"operation":"normal","mean":0,"sd":1,"cumulative_probability":%v}`, tt.p))
		closeTo(t, fmt.Sprintf("quantile(%v)", tt.p), res.Quantile, tt.z, 5e-10)
		closeTo(t, fmt.Sprintf("quantile_z(%v)", tt.p), res.QuantileZ, tt.z, 5e-10)
	}
	// The 97.5th percentile of IQ: 100 + 15 × 1.959963985.
	res := distributionOf(t, `{"operation":"normal","mean":100,"sd":15,"cumulative_probability":0.975}`)
	closeTo(t, "IQ quantile", res.Quantile, 100+15*1.959963984540054, 1e-12)
	// The quantile undoes the cdf to the last digits, far into the tails.
	for _, p := range []float64{1e-300, 1e-20, 0.01, 0.3, 0.7, 0.99, 1 - 1e-12} {
		z := normalQuantile(p)
		if got := normalBelow(z); !within(got, p, 1e-13) {
			t.Errorf("Φ(Φ⁻¹(%g)) = %.17g", p, got)
		}
	}
}

// Wichura printed a check sum with each set of AS 241's coefficients: the
// sum of their significands (3.387… + 1.331… + …), which catches a
// mistyped digit.
func TestProbabilityAS241Coefficients(t *testing.T) {
	significands := func(sets ...[8]float64) float64 {
		s := 0.0
		for _, set := range sets {
			for _, c := range set {
				if c != 0 {
					s += c / math.Pow(10, math.Floor(math.Log10(c)))
				}
			}
		}
		return s
	}
	for _, tt := range []struct {
		name     string
		num, den [8]float64
		hash     float64
	}{
		{"central", ppndCentralNum, ppndCentralDen, 55.88319288061490144},
		{"near", ppndNearNum, ppndNearDen, 49.33206503301610289},
		{"far", ppndFarNum, ppndFarDen, 47.52583317549289672},
	} {
		den := tt.den
		den[0] = 0 // the constant 1 is not in the sum
		if got := significands(tt.num, den); !within(got, tt.hash, 1e-14) {
			t.Errorf("%s: hash sum %.17g; want %.17g", tt.name, got, tt.hash)
		}
	}
}

// Walpole, Myers, Myers & Ye, Probability and Statistics for Engineers and
// Scientists, Table A.1 (binomial sums, 4 decimals) and its worked example
// of patients recovering from a rare blood disease: with
// n = 15 and p = 0.4, P(X ≥ 10) = 1 − 0.9662 = 0.0338, P(3 ≤ X ≤ 8) =
// 0.9050 − 0.0271 = 0.8779, P(X = 5) = 0.4032 − 0.2173 = 0.1859.
func TestProbabilityBinomialTable(t *testing.T) {
	at := func(x int) *DistributionResult {
		return distributionOf(t, fmt.Sprintf(`{"operation":"binomial","n":15,"p":0.4,"x":%d}`, x))
	}
	for x, want := range map[int]float64{2: 0.0271, 4: 0.2173, 5: 0.4032, 8: 0.9050, 9: 0.9662} {
		closeTo(t, fmt.Sprintf("B(%d; 15, 0.4)", x), at(x).AtMost, want, 5e-5)
	}
	closeTo(t, "P(X ≥ 10)", at(10).AtLeast, 0.0338, 5e-5)
	closeTo(t, "P(X > 9)", at(9).MoreThan, 0.0338, 5e-5)
	closeTo(t, "P(X = 5)", at(5).Exactly, 0.1859, 5e-5)
	closeTo(t, "P(X < 3)", at(3).LessThan, 0.0271, 5e-5)
	res := at(3)
	if res.Mean != 6 || !within(res.SD, math.Sqrt(3.6), 1e-15) {
		t.Errorf("mean, sd = %v, %v; want 6, √3.6", res.Mean, res.SD)
	}
	// Each probability agrees with the others to the last digit.
	for x := -1; x <= 16; x++ {
		r := at(x)
		if s := *r.AtMost + *r.MoreThan; math.Abs(s-1) > 1e-15 {
			t.Errorf("x = %d: P(X ≤ x) + P(X > x) = %v", x, s)
		}
		if d := *r.AtMost - *r.LessThan - *r.Exactly; math.Abs(d) > 1e-15 {
			t.Errorf("x = %d: P(X ≤ x) − P(X < x) − P(X = x) = %v", x, d)
		}
	}
}

// Walpole et al., Table A.2 (Poisson sums) and its worked examples of
// particles through a counter and tankers at a port: with a mean of 4, P(X = 6) = 0.8893 − 0.7851 = 0.1042; with a mean of 10
// tankers a day and room for 15, P(X > 15) = 1 − 0.9513 = 0.0487.
func TestProbabilityPoissonTable(t *testing.T) {
	res := distributionOf(t, `{"operation":"poisson","mean":4,"x":6}`)
	closeTo(t, "P(X = 6)", res.Exactly, 0.1042, 5e-5)
	closeTo(t, "P(X ≤ 6)", res.AtMost, 0.8893, 5e-5)
	closeTo(t, "P(X < 6)", res.LessThan, 0.7851, 5e-5)
	res = distributionOf(t, `{"operation":"poisson","mean":10,"x":15}`)
	closeTo(t, "P(X > 15)", res.MoreThan, 0.0487, 5e-5)
	closeTo(t, "P(X ≤ 15)", res.AtMost, 0.9513, 5e-5)
	if res.Mean != 10 || res.SD != math.Sqrt(10) {
		t.Errorf("mean, sd = %v, %v; want 10, √10", res.Mean, res.SD)
	}
}

// Quantiles of counts are the smallest x with P(X ≤ x) ≥ p: from the same
// tables, B(8; 15, 0.4) = 0.9050 < 0.95 ≤ B(9) = 0.9662, and for a Poisson
// mean of 10, P(X ≤ 14) = 0.9165 < 0.95 ≤ P(X ≤ 15) = 0.9513.
func TestProbabilityDiscreteQuantiles(t *testing.T) {
	tests := []struct {
		args string
		want float64
	}{
		{`{"operation":"binomial","n":15,"p":0.4,"cumulative_probability":0.95}`, 9},
		{`{"operation":"binomial","n":15,"p":0.4,"cumulative_probability":0.9049}`, 8},
		{`{"operation":"binomial","n":15,"p":0.4,"cumulative_probability":0.0272}`, 3},
		{`{"operation":"binomial","n":15,"p":0.4,"cumulative_probability":0.02}`, 2},
		{`{"operation":"poisson","mean":10,"cumulative_probability":0.95}`, 15},
		{`{"operation":"poisson","mean":10,"cumulative_probability":0.9165}`, 14},
		// by hand: one fair coin has P(X ≤ 0) = 0.5 exactly, so its median is 0
		{`{"operation":"binomial","n":1,"p":0.5,"cumulative_probability":0.5}`, 0},
		// by symmetry: with n = 10^6 fair trials P(X ≤ 499999) < 1/2 < P(X ≤ 500000)
		{`{"operation":"binomial","n":1000000,"p":0.5,"cumulative_probability":0.5}`, 500000},
		// the ends: P(X ≤ 0) ≥ 0, and only P(X ≤ n) reaches 1
		{`{"operation":"binomial","n":15,"p":0.4,"cumulative_probability":0}`, 0},
		{`{"operation":"binomial","n":15,"p":0.4,"cumulative_probability":1}`, 15},
		{`{"operation":"binomial","n":15,"p":0.999999,"cumulative_probability":1e-300}`, 0},
		// degenerate: p = 0 never succeeds, p = 1 always does
		{`{"operation":"binomial","n":15,"p":0,"cumulative_probability":0.7}`, 0},
		{`{"operation":"binomial","n":15,"p":1,"cumulative_probability":0.7}`, 15},
		{`{"operation":"poisson","mean":0,"cumulative_probability":0.7}`, 0},
	}
	for _, tt := range tests {
		res := distributionOf(t, tt.args)
		if res.Quantile == nil || *res.Quantile != tt.want {
			t.Errorf("%s: quantile %v; want %v", tt.args, deref(res.Quantile), tt.want)
		}
		if !strings.Contains(res.QuantileRule, "smallest x") {
			t.Errorf("%s: rule %q", tt.args, res.QuantileRule)
		}
	}
	// Every quantile of a moderate distribution, against the cdf itself.
	for _, p := range []float64{1e-12, 0.001, 0.1, 0.37, 0.5, 0.63, 0.9, 0.999, 1 - 1e-12} {
		for _, args := range []string{`"operation":"binomial","n":200,"p":0.03`, `"operation":"poisson","mean":2.5`, `"operation":"binomial","n":1000,"p":0.97`} {
			res := distributionOf(t, fmt.Sprintf(`{%s,"cumulative_probability":%v}`, args, p))
			q := *res.Quantile
			at := distributionOf(t, fmt.Sprintf(`{%s,"x":%v}`, args, q))
			if *at.AtMost < p*(1-1e-12) || *at.LessThan >= p {
				t.Errorf("{%s} p = %v: quantile %v has P(X ≤ q) = %v, P(X < q) = %v", args, p, q, *at.AtMost, *at.LessThan)
			}
		}
	}
}

// Large n, against exact arithmetic. With n fair trials, P(X = n/2) is
// C(n, n/2)/2^n, and by symmetry P(X ≤ n/2) = (1 + P(X = n/2))/2. For
// n = 10^5 the binomial coefficient is computed exactly; beyond, the
// central binomial coefficient's asymptotic series (OEIS A000984; Knuth,
// Concrete Mathematics 9.4) C(2m, m)/4^m = (1 − 1/(8m) + 1/(128m²) +
// 5/(1024m³))/√(πm) gives 20 digits and more.
func TestProbabilityBinomialLargeN(t *testing.T) {
	exact := func(n int64) float64 {
		c := new(big.Int).MulRange(n/2+1, n)
		c.Quo(c, new(big.Int).MulRange(1, n/2))
		f := new(big.Float).SetPrec(200).SetInt(c)
		f.SetMantExp(f, -int(n))
		v, _ := f.Float64()
		return v
	}
	series := func(n int64) float64 {
		m := float64(n / 2)
		return (1 - 1/(8*m) + 1/(128*m*m) + 5/(1024*m*m*m)) / math.Sqrt(math.Pi*m)
	}
	for _, tt := range []struct {
		n    int64
		want float64
	}{{100000, exact(100000)}, {1000000, series(1000000)}, {1000000000, series(1000000000)}} {
		res := distributionOf(t, fmt.Sprintf(`{"operation":"binomial","n":%d,"p":0.5,"x":%d}`, tt.n, tt.n/2))
		relClose(t, fmt.Sprintf("n = %d: P(X = n/2)", tt.n), res.Exactly, tt.want, 1e-14)
		relClose(t, fmt.Sprintf("n = %d: P(X ≤ n/2)", tt.n), res.AtMost, (1+tt.want)/2, 1e-14)
		relClose(t, fmt.Sprintf("n = %d: P(X < n/2)", tt.n), res.LessThan, (1-tt.want)/2, 1e-14)
		relClose(t, fmt.Sprintf("n = %d: P(X > n/2)", tt.n), res.MoreThan, (1-tt.want)/2, 1e-14)
	}
	// A lopsided one, exactly: n = 10^5, p = 0.3, at x = 30100,
	// C(n, x)·3^x·7^(n−x)/10^n.
	n, x := int64(100000), int64(30100)
	num := new(big.Int).MulRange(n-x+1, n)
	num.Quo(num, new(big.Int).MulRange(1, x))
	num.Mul(num, new(big.Int).Exp(big.NewInt(3), big.NewInt(x), nil))
	num.Mul(num, new(big.Int).Exp(big.NewInt(7), big.NewInt(n-x), nil))
	f := new(big.Float).SetPrec(200).SetInt(num)
	f.Quo(f, new(big.Float).SetPrec(200).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)))
	want, _ := f.Float64()
	res := distributionOf(t, fmt.Sprintf(`{"operation":"binomial","n":%d,"p":0.3,"x":%d}`, n, x))
	relClose(t, "P(X = 30100; 10^5, 0.3)", res.Exactly, want, 1e-14)
}

// Large Poisson means, against Ramanujan's expansion (his problem on
// e^n/2, proved by Szegő and Watson): for a whole mean n,
// P(X ≤ n − 1) = 1/2 − θ(n)·P(X = n), θ(n) = 1/3 + 4/(135n) − 8/(2835n²)
// − 16/(8505n³) + …, and P(X = n) = n^n·e^−n/n! from Stirling's series
// (A&S 6.1.37): (1 − 1/(12n) + 1/(288n²) + 139/(51840n³))/√(2πn).
func TestProbabilityPoissonLargeMean(t *testing.T) {
	for _, n := range []float64{1e4, 1e6, 1e9} {
		pn := (1 - 1/(12*n) + 1/(288*n*n) + 139/(51840*n*n*n)) / math.Sqrt(2*math.Pi*n)
		theta := 1.0/3 + 4/(135*n) - 8/(2835*n*n) - 16/(8505*n*n*n)
		res := distributionOf(t, fmt.Sprintf(`{"operation":"poisson","mean":%v,"x":%v}`, n, n))
		relClose(t, fmt.Sprintf("mean %g: P(X = n)", n), res.Exactly, pn, 1e-14)
		relClose(t, fmt.Sprintf("mean %g: P(X < n)", n), res.LessThan, 0.5-theta*pn, 1e-14)
		relClose(t, fmt.Sprintf("mean %g: P(X ≥ n)", n), res.AtLeast, 0.5+theta*pn, 1e-14)
	}
}

// Far tails: tiny but not zero when a float64 holds them, and a note when
// it cannot. By hand: with 1000 fair coins P(X ≤ 1) = 1001/2^1000. A
// probability near 1e-298 is e^−685, and a float64 holds 685 only to
// 1.1e-13, so no float64 computation by way of its logarithm is closer
// than that: a few units of it are allowed.
func TestProbabilityFarTails(t *testing.T) {
	res := distributionOf(t, `{"operation":"binomial","n":1000,"p":0.5,"x":1}`)
	logUnits := 4 * 685 * epsilon
	relClose(t, "P(X ≤ 1)", res.AtMost, 1001*math.Pow(2, -1000), logUnits)
	relClose(t, "P(X = 1)", res.Exactly, 1000*math.Pow(2, -1000), logUnits)
	if *res.AtLeast != 1 || *res.MoreThan != 1 {
		t.Errorf("P(X ≥ 1), P(X > 1) = %v, %v; want 1, 1", *res.AtLeast, *res.MoreThan)
	}
	res = distributionOf(t, `{"operation":"binomial","n":1000000,"p":0.5,"x":10}`)
	if *res.AtMost != 0 || *res.Exactly != 0 || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "P(X = 10) is about 10^-300976.6") {
		t.Errorf("n = 10^6, x = 10: P(X ≤ x) = %v, notes %q; want 0 with the size in a note", *res.AtMost, res.Notes)
	}
	res = distributionOf(t, `{"operation":"normal","mean":0,"sd":1,"x":40}`)
	if *res.AtMost != 1 || *res.MoreThan != 0 || len(res.Notes) == 0 {
		t.Errorf("z = 40: P = %v, Q = %v, notes %q", *res.AtMost, *res.MoreThan, res.Notes)
	}
	// p = 0 and p = 1 are certain outcomes, not errors.
	res = distributionOf(t, `{"operation":"binomial","n":10,"p":0,"x":0}`)
	if *res.Exactly != 1 || *res.AtMost != 1 || *res.MoreThan != 0 || res.SD != 0 {
		t.Errorf("p = 0: %+v", res)
	}
	res = distributionOf(t, `{"operation":"binomial","n":10,"p":1,"x":9}`)
	if *res.Exactly != 0 || *res.AtMost != 0 || *res.MoreThan != 1 || len(res.Notes) != 0 {
		t.Errorf("p = 1, x = 9: %+v", res)
	}
	res = distributionOf(t, `{"operation":"binomial","n":0,"p":0.3,"x":0}`)
	if *res.Exactly != 1 {
		t.Errorf("n = 0: P(X = 0) = %v", *res.Exactly)
	}
}

// OEIS A000142 (factorials), A000984 (central binomial coefficients) and
// A007318 (Pascal's triangle), and the poker count C(52, 5) = 2,598,960.
func TestProbabilityExactCounts(t *testing.T) {
	const fact100 = "93326215443944152681699238856266700490715968264381621468592963895217599993229915608941463976156518286253697920827223758251185210916864000000000000000000000000"
	tests := []struct {
		args, want string
	}{
		{`{"operation":"factorial","n":0}`, "1"},
		{`{"operation":"factorial","n":20}`, "2432902008176640000"},
		{`{"operation":"factorial","n":100}`, fact100},
		{`{"operation":"combinations","n":100,"k":50}`, "100891344545564193334812497256"},
		{`{"operation":"combinations","n":52,"k":5}`, "2598960"},
		{`{"operation":"combinations","n":10,"k":0}`, "1"},
		{`{"operation":"permutations","n":10,"k":3}`, "720"},
		{`{"operation":"permutations","n":52,"k":5}`, "311875200"},
		{`{"operation":"permutations","n":5,"k":5}`, "120"},
		// by hand: C(10^18, 2) = 10^18·(10^18 − 1)/2
		{`{"operation":"combinations","n":1000000000000000000,"k":2}`, "499999999999999999500000000000000000"},
		// more than n: no way at all
		{`{"operation":"combinations","n":5,"k":7}`, "0"},
		{`{"operation":"permutations","n":5,"k":7}`, "0"},
	}
	for _, tt := range tests {
		res := countOf(t, tt.args)
		if res.Value != tt.want || res.Digits != len(tt.want) {
			t.Errorf("%s = %s (%d digits); want %s", tt.args, res.Value, res.Digits, tt.want)
		}
	}
	res := countOf(t, `{"operation":"factorial","n":100}`)
	if res.Approximately != "9.332621544e157" {
		t.Errorf("100! approximately %q", res.Approximately)
	}
	if res := countOf(t, `{"operation":"combinations","n":5,"k":7}`); len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "5 of 7") {
		t.Errorf("k > n: notes %q; want the swap suggested", res.Notes)
	}
}

// The 20,000-digit bound. OEIS A034886 gives the number of digits of n!:
// 5,565,709 for 10^6!. The largest factorial within the bound is found by
// the tool's own refusals, and checked against the digit count itself.
func TestProbabilityCountBounds(t *testing.T) {
	_, err := Probability().Tool.Call(t.Context(), json.RawMessage(`{"operation":"factorial","n":1000000}`))
	wantError(t, "10^6!", err, toolbus.CodeInvalidArgs, "1000000! has about 5,565,709 digits, more than the 20,000 this tool writes out; "+
		"it is about 8.263932e5565708. Ask for a smaller n, or use the logarithm.")
	// 5982! has 19,998 digits and 5983! 20,002.
	largest := int64(0)
	for n := int64(5975); n < 5990; n++ {
		out, err := Probability().Tool.Call(t.Context(), json.RawMessage(fmt.Sprintf(`{"operation":"factorial","n":%d}`, n)))
		if err != nil {
			if !strings.Contains(err.Error(), "more than the 20,000 this tool writes out") {
				t.Fatalf("%d!: %v", n, err)
			}
			continue
		}
		res := out.(*CountResult)
		if res.Digits > maxExactDigits || len(res.Value) != res.Digits {
			t.Fatalf("%d! has %d digits", n, res.Digits)
		}
		largest = n
	}
	if largest != 5982 {
		t.Errorf("the largest factorial written out is %d!; want 5982!", largest)
	}
	for _, args := range []string{
		`{"operation":"combinations","n":1000000000000000000,"k":500000000000000000}`,
		`{"operation":"permutations","n":1000000000000000000,"k":3000}`,
		`{"operation":"combinations","n":70000,"k":35000}`,
	} {
		_, err := Probability().Tool.Call(t.Context(), json.RawMessage(args))
		if err == nil || !strings.Contains(err.Error(), "more than the 20,000 this tool writes out") {
			t.Errorf("%s: %v; want the bound", args, err)
		}
	}
	// Just within: C(66000, 33000) has 19,866 digits.
	if res := countOf(t, `{"operation":"combinations","n":66000,"k":33000}`); res.Digits != 19866 {
		t.Errorf("C(66000, 33000) has %d digits", res.Digits)
	}
}

func TestProbabilityErrors(t *testing.T) {
	tests := []struct {
		args, message string
	}{
		{`{"operation":"binomial","n":10,"p":1.5,"x":3}`, "p is 1.5; give the chance of success in one trial as a probability from 0 to 1; if you meant 1.5%, give 0.015"},
		{`{"operation":"binomial","n":10,"p":-0.1,"x":3}`, "p is -0.1; give the chance of success in one trial as a probability from 0 to 1"},
		{`{"operation":"binomial","n":-1,"p":0.5,"x":3}`, "n is -1; give a whole number from 0 to 1,000,000,000"},
		{`{"operation":"binomial","n":1000000001,"p":0.5,"x":3}`, "n is 1000000001; give a whole number from 0 to 1,000,000,000"},
		{`{"operation":"binomial","n":1e400,"p":0.5,"x":3}`, "n is 1e400; give a whole number from 0 to 1,000,000,000"},
		{`{"operation":"binomial","n":2.5,"p":0.5,"x":3}`, "n is 2.5; it counts, so give a whole number such as 3"},
		{`{"operation":"binomial","n":10,"p":0.5,"x":2.5}`, "x is 2.5; binomial counts are whole numbers, so give e.g. x = 2 for P(X ≤ 2.5) or x = 3 for P(X ≥ 2.5)"},
		{`{"operation":"binomial","p":0.5,"x":3}`, `binomial needs n, the number of trials, as in {"operation":"binomial","n":15,"p":0.4,"x":5}`},
		{`{"operation":"binomial","n":10,"x":3}`, `binomial needs p, the chance of success in one trial, from 0 to 1, as in {"operation":"binomial","n":15,"p":0.4,"x":5}`},
		{`{"operation":"binomial","n":10,"p":0.5}`, `binomial needs x (a count, for its probabilities) or cumulative_probability (for a quantile), as in {"operation":"binomial","n":15,"p":0.4,"x":5}`},
		{`{"operation":"binomial","n":10,"p":0.5,"k":3}`, "binomial does not take k; it takes n, p, x, cumulative_probability"},
		{`{"operation":"binomial","n":10,"p":0.5,"cumulative_probability":1.2}`, "cumulative_probability is 1.2; give the share of the distribution at or below the answer as a probability from 0 to 1; if you meant 1.2%, give 0.012"},
		{`{"operation":"poisson","mean":-2,"x":1}`, "mean is -2; give the Poisson mean (the average count) as a number from 0 to 1,000,000,000"},
		{`{"operation":"poisson","mean":3,"cumulative_probability":1}`, "cumulative_probability is 1, and a Poisson count has no largest value, so no quantile reaches it; give a probability below 1, e.g. 0.999"},
		{`{"operation":"normal","mean":0,"sd":0,"x":1}`, "sd is 0; the standard deviation must be above 0"},
		{`{"operation":"normal","mean":0,"sd":-2,"x":1}`, "sd is -2; the standard deviation must be above 0"},
		{`{"operation":"normal","mean":1e999,"sd":1,"x":1}`, "mean is 1e999, beyond the largest number ryo computes with (about 1.8e308)"},
		{`{"operation":"normal","mean":0,"sd":1,"cumulative_probability":0}`, "cumulative_probability is 0; a normal distribution has no lowest or highest value, so give a probability strictly between 0 and 1, e.g. 0.999"},
		{`{"operation":"normal","mean":0,"sd":1,"n":5,"k":2,"x":1}`, "normal does not take k or n; it takes mean, sd, x, cumulative_probability"},
		{`{"operation":"normal","mean":1e308,"sd":1e308,"cumulative_probability":0.99}`, "the quantile is beyond the largest number a result can hold (about 1.8e308); use a smaller mean or sd"},
		{`{"operation":"factorial","n":-3}`, "n is -3; give a whole number from 0 to 1,000,000,000,000,000,000"},
		{`{"operation":"combinations","n":10}`, "combinations needs k, how many of the n items are taken"},
		{`{"operation":"gamma","n":10}`, `unknown operation "gamma"; use one of binomial, combinations, factorial, normal, permutations, poisson`},
		{`{"operation":"binomial","n":10,"p":"NaN","x":1}`, ""},
	}
	for _, tt := range tests {
		_, err := Probability().Tool.Call(t.Context(), json.RawMessage(tt.args))
		wantError(t, tt.args, err, toolbus.CodeInvalidArgs, tt.message)
	}
}

// Through the bus, strings such as "NaN" and a fractional n are refused
// by the schema before the tool runs, and a 20,000-digit count fits the
// tool's result.
func TestProbabilityThroughTheBus(t *testing.T) {
	r := toolbus.NewRegistry()
	if err := r.Register(Probability()); err != nil {
		t.Fatal(err)
	}
	run := func(args string) toolbus.Result {
		return r.Run(t.Context(), toolbus.Call{ID: "c", Key: args, Tool: "probability", Args: json.RawMessage(args)})
	}
	for _, args := range []string{
		`{"operation":"normal","mean":"NaN","sd":1,"x":1}`,
		`{"operation":"normal","mean":0,"sd":"Infinity","x":1}`,
		`{"operation":"binomial","n":2.5,"p":0.5,"x":1}`,
		`{"operation":"beta","n":2}`,
	} {
		if res := run(args); res.Error == nil || res.Error.Code != toolbus.CodeInvalidArgs {
			t.Errorf("%s: %+v; want invalid arguments", args, res.Error)
		}
	}
	res := run(`{"operation":"factorial","n":5982}`)
	if res.Status != toolbus.StatusOK || res.Truncated {
		t.Fatalf("5982!: status %s, truncated %v, error %+v", res.Status, res.Truncated, res.Error)
	}
	var out CountResult
	if err := json.Unmarshal(res.Output, &out); err != nil || out.Digits != len(out.Value) || out.Digits != 19998 {
		t.Errorf("5982!: %v, %d digits", err, out.Digits)
	}
}

func TestProbabilityCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Probability().Tool.Call(ctx, json.RawMessage(`{"operation":"binomial","n":1000000000,"p":0.5,"x":500000000}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v; want context.Canceled", err)
	}
}

func BenchmarkBinomialCDFMillion(b *testing.B) {
	args := json.RawMessage(`{"operation":"binomial","n":1000000,"p":0.5,"x":499000}`)
	spec := Probability()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.Tool.Call(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBinomialQuantileMillion(b *testing.B) {
	args := json.RawMessage(`{"operation":"binomial","n":1000000,"p":0.3,"cumulative_probability":0.975}`)
	spec := Probability()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.Tool.Call(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFactorial5982(b *testing.B) {
	args := json.RawMessage(`{"operation":"factorial","n":` + strconv.Itoa(5982) + `}`)
	spec := Probability()
	for b.Loop() {
		if _, err := spec.Tool.Call(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}
