package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// benfordOf runs benford on values written as JSON numbers.
func benfordOf(t *testing.T, values []string) *BenfordResult {
	t.Helper()
	out, err := Benford().Tool.Call(t.Context(), json.RawMessage(`{"values":[`+strings.Join(values, ",")+`]}`))
	if err != nil {
		t.Fatalf("benford(%d values): %v", len(values), err)
	}
	return out.(*BenfordResult)
}

// withDigits writes counts[d−1] numbers that lead with d, spread over five
// orders of magnitude, as amounts in data would be.
func withDigits(counts [9]int) []string {
	var vs []string
	for d, c := range counts {
		for i := range c {
			vs = append(vs, fmt.Sprintf("%d.%03de%d", d+1, (i*37)%1000, i%5))
		}
	}
	return vs
}

func countsOf(res *BenfordResult) [9]int {
	var c [9]int
	for i, d := range res.Digits {
		c[i] = d.Count
	}
	return c
}

// The Fibonacci numbers are a standard example of Benford's law (J.
// Wlodarski, "Fibonacci and Lucas numbers tend to obey Benford's law", The
// Fibonacci Quarterly 9, 1971). The first 1000, F(1) … F(1000), lead with
// 1 … 9 301, 177, 125, 96, 80, 67, 56, 53 and 45 times, counted from their
// exact digits. F(1000) has 209 digits, far past what a float64 holds, so
// this also shows that benford reads the digits from the text. The statistics are worked
// by hand from those counts and log10(1 + 1/d): χ² = 0.169462, MAD =
// 0.000820.
func TestBenfordFibonacci(t *testing.T) {
	var fib []string
	a, b := big.NewInt(1), big.NewInt(1)
	for range 1000 {
		fib = append(fib, a.String())
		a.Add(a, b)
		a, b = b, a
	}
	res := benfordOf(t, fib)
	if want := [9]int{301, 177, 125, 96, 80, 67, 56, 53, 45}; countsOf(res) != want {
		t.Errorf("counts = %v; want %v", countsOf(res), want)
	}
	if res.Count != 1000 || !within(res.ChiSquare, 0.169462416291382, 1e-12) || !within(res.MAD, 0.000819876935644331, 1e-12) ||
		res.Conformity != "close conformity" || res.PValue < 0.9999 || len(res.Warnings) != 0 {
		t.Errorf("Fibonacci: %+v", res)
	}
	for _, d := range res.Digits {
		if want := math.Log10(1 + 1/float64(d.Digit)); d.Expected != roundSignificant(want, 15) {
			t.Errorf("digit %d expected %v; want %v", d.Digit, d.Expected, want)
		}
		if d.Proportion != float64(d.Count)/1000 {
			t.Errorf("digit %d proportion %v; want %v", d.Digit, d.Proportion, float64(d.Count)/1000)
		}
	}
}

// Triola, Elementary Statistics, section 11-2, exercises on Benford's law:
// leading digits of IRS tax data from Mark Nigrini, 152 89 63 48 39 40 28
// 25 27, which the book's answer finds consistent with the law at the 0.05
// level (χ² below the critical value 15.507); and the 784 checks of seven
// suspect companies analysed for the Brooklyn District Attorney, 0 12 0 73
// 482 186 8 23 0, which it finds fraudulent. The book's expected
// proportions are rounded to three decimals; with log10(1 + 1/d), worked by
// hand, χ² is 1.822615 and 3703.372, and the MAD 0.004091 and 0.156870.
func TestBenfordTextbookExercises(t *testing.T) {
	res := benfordOf(t, withDigits([9]int{152, 89, 63, 48, 39, 40, 28, 25, 27}))
	if res.Count != 511 || !within(res.ChiSquare, 1.82261478973157, 1e-12) || !within(res.PValue, 0.985975325132528, 1e-12) ||
		!within(res.MAD, 0.00409137326473219, 1e-12) || res.Conformity != "close conformity" || res.DegreesOfFreedom != 8 {
		t.Errorf("tax data: %+v", res)
	}
	if res.ChiSquare >= 15.507 || res.PValue <= 0.05 {
		t.Errorf("tax data: χ² %v, p %v; the book finds no evidence against the law", res.ChiSquare, res.PValue)
	}
	res = benfordOf(t, withDigits([9]int{0, 12, 0, 73, 482, 186, 8, 23, 0}))
	if res.Count != 784 || !within(res.ChiSquare, 3703.37163577755, 1e-12) || res.PValue != 0 ||
		!within(res.MAD, 0.156869506810732, 1e-12) || res.Conformity != "nonconformity" {
		t.Errorf("checks: %+v", res)
	}
}

// Percentage points of the chi-square distribution with 8 degrees of
// freedom, as printed in the tables of every statistics text (Walpole et
// al.; Triola), to three decimals: 13.362 (0.10), 15.507 (0.05), 17.535 (0.025),
// 20.090 (0.01), 26.124 (0.001). The tolerance is what three decimals of x
// leave of the probability.
func TestBenfordChiSquarePValue(t *testing.T) {
	for _, tt := range []struct{ x, p float64 }{
		{13.362, 0.10}, {15.507, 0.05}, {17.535, 0.025}, {20.090, 0.01}, {26.124, 0.001},
	} {
		density := math.Pow(tt.x, 3) * math.Exp(-tt.x/2) / 96 // x^(k/2−1)e^(−x/2)/(2^(k/2)Γ(k/2))
		if got := chiSquare8Above(tt.x); math.Abs(got-tt.p) > density*0.0005 {
			t.Errorf("P(χ²₈ > %v) = %v; want %v ± %v", tt.x, got, tt.p, density*0.0005)
		}
	}
	if chiSquare8Above(0) != 1 {
		t.Errorf("P(χ²₈ > 0) = %v; want 1", chiSquare8Above(0))
	}
}

// Nigrini's first-digit MAD ranges, at and across their edges.
func TestBenfordNigriniConformity(t *testing.T) {
	for _, tt := range []struct {
		mad  float64
		want string
	}{
		{0, "close conformity"}, {0.006, "close conformity"}, {0.0061, "acceptable conformity"},
		{0.012, "acceptable conformity"}, {0.0121, "marginally acceptable conformity"},
		{0.015, "marginally acceptable conformity"}, {0.0151, "nonconformity"}, {0.2, "nonconformity"},
	} {
		if got := nigriniConformity(tt.mad); got != tt.want {
			t.Errorf("MAD %v: %q; want %q", tt.mad, got, tt.want)
		}
	}
}

// First digits come from the number as written: the leading digit of
// 0.000123 and of 1e-7 is 1, of -9.5 is 9, and 9.99999999999999999999
// leads with 9 though it rounds to 10 as a float64. Zeros, however
// written, are skipped and counted.
func TestBenfordReadsDigitsFromText(t *testing.T) {
	res := benfordOf(t, strings.Fields("0.000123 1e-7 -9.5 9.99999999999999999999 1e999 -0.0 0e5 0 2E+3 0.5e-400 7.0"))
	if want := [9]int{3, 1, 0, 0, 1, 0, 1, 0, 2}; countsOf(res) != want || res.Count != 8 || res.SkippedZeros != 3 {
		t.Errorf("counts %v, count %d, zeros %d; want %v, 8, 3", countsOf(res), res.Count, res.SkippedZeros, want)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "only 8 usable numbers") {
		t.Errorf("warnings = %q; want the small sample named", res.Warnings)
	}
	for _, tt := range []struct {
		text             string
		digit, magnitude int
	}{
		{"1520.1", 1, 3}, {"0.00042", 4, -4}, {"-87", 8, 1}, {"3e5", 3, 5}, {"0.03e2", 3, 0}, {"600", 6, 2}, {"0", 0, 0},
	} {
		d, m, err := firstDigit(0, json.RawMessage(tt.text))
		if err != nil || d != tt.digit || (d != 0 && m != tt.magnitude) {
			t.Errorf("%s: digit %d at 10^%d, %v; want %d at 10^%d", tt.text, d, m, err, tt.digit, tt.magnitude)
		}
	}
}

// Data confined to a narrow range, such as prices from 100 to 999, is not
// what Benford's law describes; benford says so.
func TestBenfordWarnsOfNarrowData(t *testing.T) {
	var vs []string
	for i := range 500 {
		vs = append(vs, fmt.Sprint(100+i))
	}
	res := benfordOf(t, vs)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "less than two orders of magnitude") {
		t.Errorf("warnings = %q; want the narrow range named", res.Warnings)
	}
	// Many numbers close to the law: the chi-square test rejects what the MAD
	// accepts, and the result says which to trust.
	res = benfordOf(t, withDigits([9]int{3210, 1660, 1290, 930, 810, 650, 540, 480, 430}))
	if res.PValue >= 0.05 || res.Conformity != "close conformity" || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "judges conformity by the MAD") {
		t.Errorf("10,000 near-Benford numbers: p %v, %q, warnings %q", res.PValue, res.Conformity, res.Warnings)
	}
}

func TestBenfordErrors(t *testing.T) {
	tests := []struct {
		args, message string
	}{
		{`{"values":[]}`, "values is empty; give at least one number"},
		{`{"values":[` + strings.Repeat("1,", maxValues) + `1]}`, "values has 10001 numbers, more than the 10000 this tool takes; summarize a sample or split the data and combine the parts"},
		{`{"values":[0,0.0,-0]}`, "none of the 3 values has a first digit: 3 are zero and 0 not finite; Benford's law needs nonzero numbers"},
		{`{"values":[12,"NaN","Infinity","-inf"]}`, ""},
		{`{"values":[12,"1,200"]}`, `values[1] is the text "1,200"; send plain JSON numbers such as 1520.5`},
		{`{"values":[12,null]}`, "values[1] is null, not a number; send plain JSON numbers such as 1520.5"},
		{`{"values":[12],"digits":2}`, ""},
	}
	for _, tt := range tests {
		out, err := Benford().Tool.Call(t.Context(), json.RawMessage(tt.args))
		if tt.message == "" && strings.Contains(tt.args, "NaN") {
			// Called directly, NaN and infinities as strings are skipped and counted.
			if res, ok := out.(*BenfordResult); err != nil || !ok || res.Count != 1 || res.SkippedNonFinite != 3 {
				t.Errorf("%s: %+v, %v; want 1 counted and 3 skipped as not finite", tt.args, out, err)
			}
			continue
		}
		wantError(t, fmt.Sprintf("%.60s", tt.args), err, toolbus.CodeInvalidArgs, tt.message)
	}
}

// Through the bus, 10,001 numbers and a string are refused, and 10,000
// numbers give a whole result.
func TestBenfordThroughTheBus(t *testing.T) {
	r := toolbus.NewRegistry()
	if err := r.Register(Benford()); err != nil {
		t.Fatal(err)
	}
	run := func(args string) toolbus.Result {
		return r.Run(t.Context(), toolbus.Call{ID: "c", Key: fmt.Sprint(len(args), args[:min(len(args), 40)]), Tool: "benford", Args: json.RawMessage(args)})
	}
	if res := run(`{"values":[` + strings.Repeat("1,", maxValues) + `1]}`); res.Error == nil || !strings.Contains(res.Error.Message, "more than the 10000") {
		t.Errorf("10,001 numbers: %+v; want the limit", res.Error)
	}
	if res := run(`{"values":[12,"NaN"]}`); res.Error == nil || res.Error.Code != toolbus.CodeInvalidArgs {
		t.Errorf("a string: %+v; want invalid arguments", res.Error)
	}
	res := run(`{"values":[` + strings.Join(benchmarkAmounts(), ",") + `]}`)
	if res.Status != toolbus.StatusOK || res.Truncated {
		t.Fatalf("10,000 numbers: status %s, truncated %v, error %+v", res.Status, res.Truncated, res.Error)
	}
	var out BenfordResult
	if err := json.Unmarshal(res.Output, &out); err != nil || out.Count != maxValues || len(out.Digits) != 9 {
		t.Errorf("10,000 numbers: %v, count %d", err, out.Count)
	}
}

func TestBenfordCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Benford().Tool.Call(ctx, json.RawMessage(`{"values":[1,2,3]}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v; want context.Canceled", err)
	}
}

// benchmarkAmounts are 10,000 amounts with cents, growing geometrically
// over six orders of magnitude, as invoice totals do.
func benchmarkAmounts() []string {
	vs := make([]string, maxValues)
	for i := range vs {
		vs[i] = fmt.Sprintf("%.2f", 1.5*math.Pow(10, 6*float64(i)/maxValues)*float64(1+i%7))
	}
	return vs
}

func BenchmarkBenford10000(b *testing.B) {
	args := json.RawMessage(`{"values":[` + strings.Join(benchmarkAmounts(), ",") + `]}`)
	spec := Benford()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.Tool.Call(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}
