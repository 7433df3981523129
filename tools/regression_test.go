package tools

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// fitJSON runs regression with args.
func fitJSON(t *testing.T, args string) *RegressionResult {
	t.Helper()
	out, err := Regression().Tool.Call(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("regression(%.80s): %v", args, err)
	}
	return out.(*RegressionResult)
}

// fitLists fits y on x, both written as space-separated numbers.
func fitLists(t *testing.T, x, y, extra string) *RegressionResult {
	t.Helper()
	list := func(s string) string { return "[" + strings.Join(strings.Fields(s), ",") + "]" }
	return fitJSON(t, `{"x":`+list(x)+`,"y":`+list(y)+extra+`}`)
}

// NIST StRD linear least squares, Norris (lower difficulty,
// https://www.itl.nist.gov/div898/strd/lls/data/Norris.shtml): certified
// B0 = -0.262323073774029, B1 = 1.00211681802045, residual standard
// deviation 0.884796396144373, R² = 0.999993745883712, to 15 digits.
func TestRegressionNorris(t *testing.T) {
	res := fitLists(t, norrisX, norrisY, `,"predict_x":500`)
	const b0, b1 = -0.262323073774029, 1.00211681802045
	checks := []struct {
		name      string
		got, want float64
	}{
		{"slope", deref(res.Slope), b1},
		{"intercept", deref(res.Intercept), b0},
		{"r²", deref(res.RSquared), 0.999993745883712},
		{"r", deref(res.R), math.Sqrt(0.999993745883712)},
		{"residual standard deviation", deref(res.ResidualStdError), 0.884796396144373},
		// The certified line at x = 500: B0 + 500·B1.
		{"prediction", deref(res.Prediction.Y), b0 + 500*b1},
	}
	for _, c := range checks {
		if !within(c.got, c.want, 1e-14) {
			t.Errorf("%s = %.17g; want %.15g", c.name, c.got, c.want)
		}
	}
	if res.Count != 36 || res.Prediction.X != 500 || res.Equation != "y = 1.00212x − 0.262323" {
		t.Errorf("count %d, prediction at %v, equation %q", res.Count, res.Prediction.X, res.Equation)
	}
}

// Anscombe's quartet (F. J. Anscombe, "Graphs in Statistical Analysis",
// The American Statistician 27, 1973): four data sets with the same fitted
// line, Y = 3 + 0.5X, the same multiple R², 0.667, and the same residual
// sum of squares, 13.75 on 9 degrees of freedom (a residual standard error
// of √(13.75/9) ≈ 1.236) — equal, the paper says, to two or three
// significant figures, which the tolerances below allow.
func TestRegressionAnscombe(t *testing.T) {
	for i, set := range [][2]string{{anscombeX, anscombeY1}, {anscombeX, anscombeY2}, {anscombeX, anscombeY3}, {anscombeX4, anscombeY4}} {
		res := fitLists(t, set[0], set[1], `,"predict_x":10`)
		if math.Abs(deref(res.Slope)-0.5) > 0.0005 || math.Abs(deref(res.Intercept)-3) > 0.005 ||
			math.Abs(deref(res.RSquared)-0.667) > 0.001 || math.Abs(deref(res.ResidualStdError)-1.236) > 0.0025 {
			t.Errorf("set %d: slope %v, intercept %v, r² %v, residual SE %v; want 0.500, 3.00, 0.667, 1.236",
				i+1, deref(res.Slope), deref(res.Intercept), deref(res.RSquared), deref(res.ResidualStdError))
		}
		if y := deref(res.Prediction.Y); math.Abs(y-8) > 0.01 {
			t.Errorf("set %d: predicted y at 10 = %v; want 3 + 0.5·10 = 8.00", i+1, y)
		}
	}
}

// Points on a line give it back exactly, as written: y = 0.1x + 0.2 through
// x = 1, 2, 3 has slope 0.1, intercept 0.2 and r = 1, and predicts 1.2 at
// x = 10; a falling line has r = -1.
func TestRegressionExactLine(t *testing.T) {
	res := fitLists(t, "1 2 3", "0.3 0.4 0.5", `,"predict_x":10`)
	if deref(res.Slope) != 0.1 || deref(res.Intercept) != 0.2 || deref(res.R) != 1 || deref(res.RSquared) != 1 ||
		deref(res.ResidualStdError) != 0 || deref(res.Prediction.Y) != 1.2 {
		t.Errorf("rising line: %+v, prediction %v", res, deref(res.Prediction.Y))
	}
	res = fitLists(t, "0 1", "5 3", "")
	if deref(res.Slope) != -2 || deref(res.Intercept) != 5 || deref(res.R) != -1 || res.ResidualStdError != nil || res.Prediction != nil {
		t.Errorf("two falling points: %+v", res)
	}
	if !strings.Contains(strings.Join(res.Notes, "; "), "at least three") {
		t.Errorf("notes = %q; want the residual standard error explained", res.Notes)
	}
}

func TestRegressionFlatAndHuge(t *testing.T) {
	res := fitLists(t, "1 2 3", "4 4 4", "")
	if deref(res.Slope) != 0 || deref(res.Intercept) != 4 || res.R != nil || res.RSquared != nil {
		t.Errorf("flat: %+v", res)
	}
	if !strings.Contains(strings.Join(res.Notes, "; "), "r and r² are undefined") {
		t.Errorf("flat: notes = %q", res.Notes)
	}
	// A slope of 1e300 / 1e-300 is beyond float64: null, and said so.
	res = fitLists(t, "0 1e-300", "0 1e300", `,"predict_x":1e-300`)
	if res.Slope != nil || deref(res.Intercept) != 0 || deref(res.Prediction.Y) != 1e300 || deref(res.R) != 1 {
		t.Errorf("huge slope: %+v", res)
	}
	if !strings.Contains(strings.Join(res.Notes, "; "), "slope exceed") {
		t.Errorf("huge slope: notes = %q", res.Notes)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("the result does not encode: %v", err)
	}
}

func TestRegressionErrors(t *testing.T) {
	many := "[" + strings.Repeat("1,", maxValues) + "2]"
	tests := []struct {
		args, message string
	}{
		{`{"x":[1,2,3],"y":[1,2]}`, "x has 3 numbers and y has 2; give exactly one y for each x"},
		{`{"x":[1],"y":[1]}`, "x has 1 numbers; give at least 2"},
		{`{"x":[],"y":[]}`, "x has 0 numbers; give at least 2"},
		{`{"x":[1,2]}`, "y has 0 numbers; give at least 2"},
		{`{"x":` + many + `,"y":` + many + `}`, "x has 10001 numbers, more than the 10000 this tool takes; summarize a sample or split the data and combine the parts"},
		{`{"x":[2.5,2.50,25e-1],"y":[1,2,3]}`, "every x is 2.5, so no line can be fitted (it would be vertical); give points with at least two different x values"},
		{`{"x":[1,2],"y":[1,1e309]}`, "y[1] is 1e309, beyond the largest number ryo computes with (about 1.8e308); scale the values down, e.g. to millions"},
		{`{"x":[1,2],"y":[1,2],"predict_x":-1e999}`, "predict_x is -1e999, beyond the largest number ryo computes with (about 1.8e308); scale the values down, e.g. to millions"},
	}
	for _, tt := range tests {
		_, err := Regression().Tool.Call(t.Context(), json.RawMessage(tt.args))
		wantError(t, tt.args[:min(len(tt.args), 60)], err, toolbus.CodeInvalidArgs, tt.message)
	}
}

func TestRegressionCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Regression().Tool.Call(ctx, json.RawMessage(`{"x":[1,2,3],"y":[1,2,4]}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v; want context.Canceled", err)
	}
}

// NIST StRD Norris data: y is the first column, x the second.
const (
	norrisY = `0.1 338.8 118.1 888.0 9.2 228.1 668.5 998.5 449.1 778.9 559.2 0.3 0.1 778.1 668.8 339.3 448.9 10.8
	557.7 228.3 998.0 888.8 119.6 0.3 0.6 557.6 339.3 888.0 998.5 778.9 10.2 117.6 228.9 668.4 449.2 0.2`
	norrisX = `0.2 337.4 118.2 884.6 10.1 226.5 666.3 996.3 448.6 777.0 558.2 0.4 0.6 775.5 666.9 338.0 447.5 11.6
	556.0 228.1 995.8 887.6 120.2 0.3 0.3 556.8 339.1 887.2 999.0 779.0 11.1 118.3 229.2 669.1 448.9 0.5`
)
