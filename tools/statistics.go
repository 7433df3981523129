package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/ryo-bot/ryo/toolbus"
)

// maxValues is the most numbers statistics and regression take.
const maxValues = 10000

// listed is the most outliers at each end, and the most modes, a result
// lists; the counts are always whole.
const listed = 10

// QuartileMethod says how statistics computes quartiles, in its result.
const QuartileMethod = "linear interpolation between order statistics (Hyndman & Fan type 7: R's default, " +
	"Excel QUARTILE.INC, NumPy's default); the median is the middle value or the mean of the two middle values"

const statisticsSchema = `{
  "type": "object",
  "properties": {
    "values": {
      "type": "array",
      "items": {"type": "number"},
      "minItems": 1,
      "description": "The numbers, 1 to 10,000 of them, as plain JSON numbers, e.g. [12, 15.5, 9, 21]."
    },
    "z_threshold": {
      "type": "number",
      "minimum": 1,
      "maximum": 10,
      "description": "How many sample standard deviations from the mean make a z-score outlier; 3 if left out."
    }
  },
  "required": ["values"],
  "additionalProperties": false
}`

// StatisticsResult is what statistics returns. Fields that are null did
// not fit in a float64 or need more values; Notes says which and why.
type StatisticsResult struct {
	Count              int         `json:"count"`
	Sum                *float64    `json:"sum"`
	Mean               float64     `json:"mean"`
	Median             float64     `json:"median"`
	Modes              []float64   `json:"modes"`          // the most frequent values, smallest first; empty when none repeats
	ModeFrequency      int         `json:"mode_frequency"` // how often each mode occurs
	Min                float64     `json:"min"`
	Max                float64     `json:"max"`
	Range              *float64    `json:"range"`
	SampleVariance     *float64    `json:"sample_variance"` // divides by n − 1
	SampleStdDev       *float64    `json:"sample_std_dev"`
	PopulationVariance *float64    `json:"population_variance"` // divides by n
	PopulationStdDev   *float64    `json:"population_std_dev"`
	Q1                 float64     `json:"q1"`
	Q3                 float64     `json:"q3"`
	IQR                *float64    `json:"iqr"`
	QuartileMethod     string      `json:"quartile_method"`
	OutliersIQR        IQROutliers `json:"outliers_iqr"`
	OutliersZ          ZOutliers   `json:"outliers_z"`
	Notes              []string    `json:"notes,omitempty"`
}

// IQROutliers are the values outside Tukey's fences, Q1 − 1.5·IQR and
// Q3 + 1.5·IQR.
type IQROutliers struct {
	LowerFence *float64  `json:"lower_fence"`
	UpperFence *float64  `json:"upper_fence"`
	Count      int       `json:"count"`
	Values     []float64 `json:"values"` // the most extreme, up to 10 at each end, smallest first
}

// ZOutliers are the values more than Threshold sample standard deviations
// from the mean.
type ZOutliers struct {
	Threshold float64   `json:"threshold"`
	Count     int       `json:"count"`
	Values    []float64 `json:"values"` // the most extreme, up to 10 at each end, smallest first
}

// Statistics returns the statistics tool: descriptive statistics of up to
// 10,000 numbers, computed exactly from the digits given.
func Statistics() toolbus.Spec {
	return readOnly("statistics",
		"Describe up to 10,000 numbers exactly: count, sum, mean, median, mode, variance and standard deviation "+
			"(sample and population), quartiles, IQR and outliers.",
		toolbus.MathFinance, statisticsSchema, statistics,
		example("What are the average and the median of my test scores 72, 85, 90, 66 and 85?", `{"values":[72,85,90,66,85]}`),
		example("Which of these response times in ms are unusual: 120, 131, 118, 125, 940, 122, 119?",
			`{"values":[120,131,118,125,940,122,119],"z_threshold":2}`))
}

func statistics(ctx context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		Values     []json.Number `json:"values"`
		ZThreshold *float64      `json:"z_threshold"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if err := checkCount("values", len(args.Values), 1); err != nil {
		return nil, err
	}
	z := 3.0
	if args.ZThreshold != nil {
		z = *args.ZThreshold
	}
	if z < 1 || z > 10 {
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "z_threshold is %v; give a number from 1 to 10, or leave it out for 3", z)
	}
	d, err := readDecimals(ctx, "values", args.Values)
	if err != nil {
		return nil, err
	}
	return describe(ctx, d, z)
}

// checkCount refuses a list of n numbers that is too short or too long.
func checkCount(field string, n, least int) error {
	switch {
	case n < least && least == 1:
		return toolbus.Errorf(toolbus.CodeInvalidArgs, "%s is empty; give at least one number", field)
	case n < least:
		return toolbus.Errorf(toolbus.CodeInvalidArgs, "%s has %d numbers; give at least %d", field, n, least)
	case n > maxValues:
		return toolbus.Errorf(toolbus.CodeInvalidArgs, "%s has %d numbers, more than the %d this tool takes; "+
			"summarize a sample or split the data and combine the parts", field, n, maxValues)
	}
	return nil
}

// sample is a data set read exactly and sorted, with its sums.
type sample struct {
	sorted  []*big.Int // ascending, in units of 10^exp
	exp     int
	n       *big.Int
	sum     *big.Int
	squares *big.Int
	spread  *big.Int // n·Σx² − (Σx)², n² times the population variance
}

func describe(ctx context.Context, d decimals, z float64) (*StatisticsResult, error) {
	s, err := newSample(ctx, d)
	if err != nil {
		return nil, err
	}
	var r rounded
	res := &StatisticsResult{Count: len(s.sorted), QuartileMethod: QuartileMethod}
	res.Sum = r.num("sum", s.value(s.sum, 1))
	res.Mean = s.float(s.sum, len(s.sorted))
	res.Min, res.Max = s.float(s.sorted[0], 1), s.float(s.sorted[len(s.sorted)-1], 1)
	res.Range = r.num("range", s.value(new(big.Int).Sub(s.sorted[len(s.sorted)-1], s.sorted[0]), 1))
	res.Notes = s.variances(res, &r)
	res.Notes = append(res.Notes, s.modes(res)...)
	q1, q2, q3 := s.quarter(1), s.quarter(2), s.quarter(3)
	res.Q1, res.Median, res.Q3 = s.float(q1, 4), s.float(q2, 4), s.float(q3, 4)
	res.IQR = r.num("iqr", s.value(new(big.Int).Sub(q3, q1), 4))
	res.OutliersIQR = s.iqrOutliers(q1, q3, &r)
	res.OutliersZ = s.zOutliers(z)
	if note := r.note(); note != "" {
		res.Notes = append(res.Notes, note)
	}
	return res, ctx.Err()
}

func newSample(ctx context.Context, d decimals) (*sample, error) {
	sorted := slices.Clone(d.ints)
	slices.SortFunc(sorted, (*big.Int).Cmp)
	sum, squares, err := sumInts(ctx, sorted)
	if err != nil {
		return nil, err
	}
	n := big.NewInt(int64(len(sorted)))
	spread := new(big.Int).Mul(n, squares)
	spread.Sub(spread, new(big.Int).Mul(sum, sum))
	return &sample{sorted: sorted, exp: d.exp, n: n, sum: sum, squares: squares, spread: spread}, nil
}

// value is v / den in the sample's units, exactly.
func (s *sample) value(v *big.Int, den int64) *big.Rat {
	return scaled(v, big.NewInt(den), s.exp)
}

// float is v / den in the sample's units, rounded; for values between the
// smallest and the largest, which always fit.
func (s *sample) float(v *big.Int, den int) float64 {
	f, _ := exactFloat(s.value(v, int64(den)))
	return f
}

// variances fills in the variances and standard deviations.
func (s *sample) variances(res *StatisticsResult, r *rounded) []string {
	n := int64(len(s.sorted))
	pop := scaled(s.spread, big.NewInt(n*n), 2*s.exp)
	res.PopulationVariance = r.num("population_variance", pop)
	res.PopulationStdDev = r.sqrt("population_std_dev", pop)
	if n < 2 {
		return []string{"the sample variance and standard deviation need at least two values, and there are no z-scores"}
	}
	smp := scaled(s.spread, big.NewInt(n*(n-1)), 2*s.exp)
	res.SampleVariance = r.num("sample_variance", smp)
	res.SampleStdDev = r.sqrt("sample_std_dev", smp)
	return nil
}

// modes fills in the most frequent values, when any value repeats.
func (s *sample) modes(res *StatisticsResult) []string {
	best, all := 1, []*big.Int(nil)
	for i := 0; i < len(s.sorted); {
		j := i + 1
		for j < len(s.sorted) && s.sorted[j].Cmp(s.sorted[i]) == 0 {
			j++
		}
		switch {
		case j-i > best:
			best, all = j-i, []*big.Int{s.sorted[i]}
		case j-i == best && best > 1:
			all = append(all, s.sorted[i])
		}
		i = j
	}
	res.Modes = []float64{}
	if best == 1 {
		return []string{"no value occurs more than once, so there is no mode"}
	}
	res.ModeFrequency = best
	for _, m := range all[:min(len(all), listed)] {
		res.Modes = append(res.Modes, s.float(m, 1))
	}
	if len(all) > listed {
		return []string{fmt.Sprintf("%d values share the highest frequency; modes lists the %d smallest", len(all), listed)}
	}
	return nil
}

// quarter returns four times the k-th quartile (k = 2 is the median) by
// Hyndman & Fan's type 7: at position h = (n−1)·k/4 counted from 0,
// x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
func (s *sample) quarter(k int) *big.Int {
	pos := (len(s.sorted) - 1) * k
	j, frac := pos/4, int64(pos%4)
	q := new(big.Int).Lsh(s.sorted[j], 2)
	if frac != 0 {
		step := new(big.Int).Sub(s.sorted[j+1], s.sorted[j])
		q.Add(q, step.Mul(step, big.NewInt(frac)))
	}
	return q
}

// iqrOutliers finds the values outside Tukey's fences; q1 and q3 are four
// times the quartiles, so eight times a fence is 2·q1 − 3·(q3 − q1).
func (s *sample) iqrOutliers(q1, q3 *big.Int, r *rounded) IQROutliers {
	iqr3 := new(big.Int).Sub(q3, q1)
	iqr3.Mul(iqr3, big.NewInt(3))
	lower := new(big.Int).Lsh(q1, 1)
	lower.Sub(lower, iqr3)
	upper := new(big.Int).Lsh(q3, 1)
	upper.Add(upper, iqr3)
	var x8 big.Int
	low := s.countFromEnds(func(x *big.Int) bool { return x8.Lsh(x, 3).Cmp(lower) < 0 }, true)
	high := s.countFromEnds(func(x *big.Int) bool { return x8.Lsh(x, 3).Cmp(upper) > 0 }, false)
	return IQROutliers{
		LowerFence: r.num("outliers_iqr.lower_fence", s.value(lower, 8)),
		UpperFence: r.num("outliers_iqr.upper_fence", s.value(upper, 8)),
		Count:      low + high,
		Values:     s.ends(low, high),
	}
}

// zOutliers finds the values more than z sample standard deviations from
// the mean: (n·x − Σx)²·(n − 1) > z²·n·spread, all in integers, with z
// as the exact fraction p/q its float64 is.
func (s *sample) zOutliers(z float64) ZOutliers {
	out := ZOutliers{Threshold: z, Values: []float64{}}
	if len(s.sorted) < 2 || s.spread.Sign() == 0 {
		return out
	}
	t := new(big.Rat).SetFloat64(z)
	limit := new(big.Int).Mul(t.Num(), t.Num())
	limit.Mul(limit, s.n)
	limit.Mul(limit, s.spread)
	scale := new(big.Int).Mul(t.Denom(), t.Denom())
	scale.Mul(scale, new(big.Int).Sub(s.n, big.NewInt(1)))
	var d big.Int
	far := func(x *big.Int) bool {
		d.Mul(s.n, x)
		d.Sub(&d, s.sum)
		d.Mul(&d, &d)
		return d.Mul(&d, scale).Cmp(limit) > 0
	}
	low, high := s.countFromEnds(far, true), s.countFromEnds(far, false)
	out.Count, out.Values = low+high, s.ends(low, high)
	return out
}

// countFromEnds counts the values from the low end (or the high end) for
// which out holds, stopping at the first that is not.
func (s *sample) countFromEnds(out func(*big.Int) bool, fromLow bool) int {
	n := len(s.sorted)
	for i := range n {
		x := s.sorted[i]
		if !fromLow {
			x = s.sorted[n-1-i]
		}
		if !out(x) {
			return i
		}
	}
	return n
}

// ends lists the most extreme of the low outliers and of the high ones, up
// to listed of each, smallest first.
func (s *sample) ends(low, high int) []float64 {
	vs := []float64{}
	for _, x := range s.sorted[:min(low, listed)] {
		vs = append(vs, s.float(x, 1))
	}
	for _, x := range s.sorted[len(s.sorted)-min(high, listed):] {
		vs = append(vs, s.float(x, 1))
	}
	return vs
}
