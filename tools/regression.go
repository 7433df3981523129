package tools

import (
	"context"
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/ryo-bot/ryo/toolbus"
)

const regressionSchema = `{
  "type": "object",
  "properties": {
    "x": {
      "type": "array",
      "items": {"type": "number"},
      "minItems": 2,
      "description": "The x values (the predictor), 2 to 10,000 plain JSON numbers."
    },
    "y": {
      "type": "array",
      "items": {"type": "number"},
      "minItems": 2,
      "description": "The y values (what is predicted), one for each x, in the same order."
    },
    "predict_x": {
      "type": "number",
      "description": "An x to predict y at with the fitted line, e.g. a future year."
    }
  },
  "required": ["x", "y"],
  "additionalProperties": false
}`

// RegressionResult is what regression returns: the least-squares line
// y = intercept + slope·x. Fields that are null did not fit in a float64
// or need more points; Notes says which and why.
type RegressionResult struct {
	Count            int         `json:"count"`
	Slope            *float64    `json:"slope"`
	Intercept        *float64    `json:"intercept"`
	Equation         string      `json:"equation"` // rounded to 6 significant digits, for reading
	R                *float64    `json:"r"`        // Pearson's correlation coefficient
	RSquared         *float64    `json:"r_squared"`
	ResidualStdError *float64    `json:"residual_std_error"` // √(Σ residual² / (n − 2))
	Prediction       *Prediction `json:"prediction,omitempty"`
	Notes            []string    `json:"notes,omitempty"`
}

// Prediction is the line's y at an x.
type Prediction struct {
	X float64  `json:"x"`
	Y *float64 `json:"y"`
}

// Regression returns the regression tool: the least-squares line through
// up to 10,000 points, computed exactly from the digits given.
func Regression() toolbus.Spec {
	return readOnly("regression",
		"Fit a least-squares straight line to points (x, y): slope, intercept, r and r², and y predicted at an x. "+
			"Up to 10,000 points, computed exactly.",
		toolbus.MathFinance, regressionSchema, regression,
		example("Sales were 120, 135, 149 and 160 in 2021 to 2024; what does the trend give for 2026?",
			`{"x":[2021,2022,2023,2024],"y":[120,135,149,160],"predict_x":2026}`))
}

func regression(ctx context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		X        []json.Number `json:"x"`
		Y        []json.Number `json:"y"`
		PredictX *json.Number  `json:"predict_x"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		field string
		n     int
	}{{"x", len(args.X)}, {"y", len(args.Y)}} {
		if err := checkCount(c.field, c.n, 2); err != nil {
			return nil, err
		}
	}
	if len(args.X) != len(args.Y) {
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "x has %d numbers and y has %d; give exactly one y for each x", len(args.X), len(args.Y))
	}
	xs, err := readDecimals(ctx, "x", args.X)
	if err != nil {
		return nil, err
	}
	ys, err := readDecimals(ctx, "y", args.Y)
	if err != nil {
		return nil, err
	}
	f, err := newFit(ctx, xs, ys)
	if err != nil {
		return nil, err
	}
	return f.result(args.PredictX)
}

// fit holds the exact sums of a least-squares fit, in the units of xs and
// ys: with n points, dxx = n·Σx² − (Σx)², dyy likewise and
// dxy = n·Σxy − Σx·Σy.
type fit struct {
	n             int
	xExp, yExp    int
	sx, sy        *big.Int
	dxx, dyy, dxy *big.Int
	slope, interc *big.Rat
}

func newFit(ctx context.Context, xs, ys decimals) (*fit, error) {
	sx, sxx, err := sumInts(ctx, xs.ints)
	if err != nil {
		return nil, err
	}
	sy, syy, err := sumInts(ctx, ys.ints)
	if err != nil {
		return nil, err
	}
	sxy, p := new(big.Int), new(big.Int)
	for i, x := range xs.ints {
		sxy.Add(sxy, p.Mul(x, ys.ints[i]))
	}
	n := big.NewInt(int64(len(xs.ints)))
	f := &fit{n: len(xs.ints), xExp: xs.exp, yExp: ys.exp, sx: sx, sy: sy,
		dxx: spread(n, sxx, sx, sx), dyy: spread(n, syy, sy, sy), dxy: spread(n, sxy, sx, sy)}
	if f.dxx.Sign() == 0 {
		x, _ := exactFloat(scaled(xs.ints[0], big.NewInt(1), xs.exp))
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "every x is %v, so no line can be fitted (it would be vertical); give points with at least two different x values", x)
	}
	// slope = dxy/dxx · 10^(yExp−xExp); intercept = (Σy·dxx − dxy·Σx)/(n·dxx) · 10^yExp
	f.slope = scaled(f.dxy, f.dxx, ys.exp-xs.exp)
	num := new(big.Int).Mul(sy, f.dxx)
	num.Sub(num, new(big.Int).Mul(f.dxy, sx))
	f.interc = scaled(num, new(big.Int).Mul(n, f.dxx), ys.exp)
	return f, ctx.Err()
}

// spread returns n·sab − sa·sb.
func spread(n, sab, sa, sb *big.Int) *big.Int {
	v := new(big.Int).Mul(n, sab)
	return v.Sub(v, new(big.Int).Mul(sa, sb))
}

func (f *fit) result(predictX *json.Number) (*RegressionResult, error) {
	var r rounded
	res := &RegressionResult{Count: f.n}
	res.Slope = r.num("slope", f.slope)
	res.Intercept = r.num("intercept", f.interc)
	res.Equation = equation(f.slope, f.interc)
	if f.dyy.Sign() == 0 {
		res.Notes = append(res.Notes, "every y is the same, so the line is flat and fits exactly; r and r² are undefined")
	} else {
		r2 := new(big.Rat).SetFrac(new(big.Int).Mul(f.dxy, f.dxy), new(big.Int).Mul(f.dxx, f.dyy))
		res.RSquared = r.num("r_squared", r2)
		res.R = r.sqrt("r", r2)
		if f.dxy.Sign() < 0 {
			*res.R = -*res.R
		}
	}
	res.ResidualStdError = f.residualStdError(&r, res)
	if predictX != nil {
		p, err := f.predict(*predictX, &r)
		if err != nil {
			return nil, err
		}
		res.Prediction = p
	}
	if note := r.note(); note != "" {
		res.Notes = append(res.Notes, note)
	}
	return res, nil
}

// residualStdError is √(Σ residual² / (n−2)), where Σ residual² =
// (dyy − dxy²/dxx) / n in y's units squared.
func (f *fit) residualStdError(r *rounded, res *RegressionResult) *float64 {
	if f.n < 3 {
		res.Notes = append(res.Notes, "two points fit a line exactly; the residual standard error needs at least three")
		return nil
	}
	num := new(big.Int).Mul(f.dyy, f.dxx)
	num.Sub(num, new(big.Int).Mul(f.dxy, f.dxy))
	den := new(big.Int).Mul(f.dxx, big.NewInt(int64(f.n)*int64(f.n-2)))
	return r.sqrt("residual_std_error", scaled(num, den, 2*f.yExp))
}

func (f *fit) predict(x json.Number, r *rounded) (*Prediction, error) {
	m, e, err := readDecimal("predict_x", -1, string(x))
	if err != nil {
		return nil, err
	}
	xv := scaled(m, big.NewInt(1), e)
	y := new(big.Rat).Mul(f.slope, xv)
	y.Add(y, f.interc)
	xf, _ := exactFloat(xv)
	return &Prediction{X: xf, Y: r.num("prediction.y", y)}, nil
}

// equation writes the line for reading, as "y = 1.00212x − 0.262323".
func equation(slope, intercept *big.Rat) string {
	s, _ := slope.Float64()
	i, _ := intercept.Float64()
	sign := "+"
	if i < 0 {
		sign, i = "−", -i
	}
	return "y = " + strconv.FormatFloat(s, 'g', 6, 64) + "x " + sign + " " + strconv.FormatFloat(i, 'g', 6, 64)
}
