package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo/toolbus"
)

// Limits of the distributions' parameters: a tail sums about ten standard
// deviations of terms, so these keep one call within milliseconds.
const (
	maxTrials      = 1_000_000_000 // binomial n
	maxPoissonMean = 1_000_000_000
	maxCount       = 1 << 53 // |x| of a binomial or Poisson count
)

const probabilitySchema = `{
  "type": "object",
  "properties": {
    "operation": {
      "type": "string",
      "enum": ["binomial", "poisson", "normal", "factorial", "permutations", "combinations"],
      "description": "binomial: n, p, and x or cumulative_probability. poisson: mean, and x or cumulative_probability. normal: mean, sd, and x or cumulative_probability. factorial: n. permutations (order matters) and combinations: n and k."
    },
    "n": {"type": "integer", "description": "binomial: the number of trials. factorial, permutations, combinations: the number of items."},
    "k": {"type": "integer", "description": "permutations and combinations: how many of the n items are taken."},
    "p": {"type": "number", "description": "binomial: the chance of success in one trial, from 0 to 1, e.g. 0.4."},
    "mean": {"type": "number", "description": "poisson: the average count (lambda). normal: the mean."},
    "sd": {"type": "number", "description": "normal: the standard deviation, above 0."},
    "x": {"type": "number", "description": "A value to get P(X = x), P(X ≤ x), P(X < x), P(X ≥ x) and P(X > x) at; a whole count for binomial and poisson."},
    "cumulative_probability": {"type": "number", "description": "For the quantile (inverse cdf): a probability from 0 to 1, e.g. 0.975; the answer is the value with that share at or below it."}
  },
  "required": ["operation"],
  "additionalProperties": false
}`

// probabilityArgs are the probability tool's arguments, kept as the
// digits the model wrote so that each can be checked and named.
type probabilityArgs struct {
	Operation  string       `json:"operation"`
	N          *json.Number `json:"n"`
	K          *json.Number `json:"k"`
	P          *json.Number `json:"p"`
	Mean       *json.Number `json:"mean"`
	SD         *json.Number `json:"sd"`
	X          *json.Number `json:"x"`
	Cumulative *json.Number `json:"cumulative_probability"`
}

// operationFields are the arguments each operation reads, besides
// operation itself.
var operationFields = map[string][]string{
	"binomial":     {"n", "p", "x", "cumulative_probability"},
	"poisson":      {"mean", "x", "cumulative_probability"},
	"normal":       {"mean", "sd", "x", "cumulative_probability"},
	"factorial":    {"n"},
	"permutations": {"n", "k"},
	"combinations": {"n", "k"},
}

// DistributionResult is what binomial, poisson and normal return: the
// probabilities at x, the quantile of cumulative_probability, or both.
// Probabilities have 15 significant digits.
type DistributionResult struct {
	Operation    string   `json:"operation"`
	Distribution string   `json:"distribution"`
	Mean         float64  `json:"mean"`
	SD           float64  `json:"sd"`
	X            *float64 `json:"x,omitempty"`
	Exactly      *float64 `json:"p_exactly,omitempty"` // P(X = x), binomial and poisson
	Density      *float64 `json:"density,omitempty"`   // the normal density at x
	Z            *float64 `json:"z,omitempty"`         // normal: (x − mean)/sd
	AtMost       *float64 `json:"p_at_most,omitempty"` // P(X ≤ x), the cdf
	LessThan     *float64 `json:"p_less_than,omitempty"`
	AtLeast      *float64 `json:"p_at_least,omitempty"`
	MoreThan     *float64 `json:"p_more_than,omitempty"`
	Cumulative   *float64 `json:"cumulative_probability,omitempty"`
	Quantile     *float64 `json:"quantile,omitempty"`
	QuantileZ    *float64 `json:"quantile_z,omitempty"` // normal: the quantile in standard deviations
	QuantileRule string   `json:"quantile_rule,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

// Probability returns the probability tool: binomial, Poisson and normal
// probabilities and quantiles, and exact counts of arrangements.
func Probability() toolbus.Spec {
	s := readOnly("probability",
		"Calculate binomial, Poisson and normal probabilities (P(X = x), P(X ≤ x), tails, quantiles) and exact "+
			"factorials, permutations and combinations.",
		toolbus.MathFinance, probabilitySchema, probability,
		example("A test has 15 questions; guessing, each is right with chance 0.4. What is the chance of at least 10 right?",
			`{"operation":"binomial","n":15,"p":0.4,"x":10}`),
		example("How many different 5-card hands can be dealt from 52 cards?", `{"operation":"combinations","n":52,"k":5}`))
	s.MaxResult = 24 << 10 // 20,000 digits and their field
	return s
}

func probability(ctx context.Context, raw json.RawMessage) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var a probabilityArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := a.onlyFields(); err != nil {
		return nil, err
	}
	switch a.Operation {
	case "binomial", "poisson":
		return a.discrete(ctx)
	case "normal":
		return a.normal()
	}
	n, err := wholeArg("n", a.N, 0, maxCountN, a.Operation+" needs n, the number of items")
	if err != nil {
		return nil, err
	}
	if a.Operation == "factorial" {
		return count(a.Operation, n, nil)
	}
	k, err := wholeArg("k", a.K, 0, maxCountN, a.Operation+" needs k, how many of the n items are taken")
	if err != nil {
		return nil, err
	}
	return count(a.Operation, n, &k)
}

// onlyFields refuses an argument the operation does not read, so that a
// count given as k to binomial is not silently dropped.
func (a probabilityArgs) onlyFields() error {
	allowed, ok := operationFields[a.Operation]
	if !ok {
		ops := make([]string, 0, len(operationFields))
		for op := range operationFields {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		return invalidArgs("unknown operation %q; use one of %s", a.Operation, strings.Join(ops, ", "))
	}
	given := map[string]bool{"n": a.N != nil, "k": a.K != nil, "p": a.P != nil, "mean": a.Mean != nil,
		"sd": a.SD != nil, "x": a.X != nil, "cumulative_probability": a.Cumulative != nil}
	for _, f := range allowed {
		delete(given, f)
	}
	var extra []string
	for f, ok := range given {
		if ok {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return invalidArgs("%s does not take %s; it takes %s", a.Operation, strings.Join(extra, " or "), strings.Join(allowed, ", "))
	}
	return nil
}

func (a probabilityArgs) discrete(ctx context.Context) (any, error) {
	if a.X == nil && a.Cumulative == nil {
		return nil, invalidArgs(`%s needs x (a count, for its probabilities) or cumulative_probability (for a quantile), as in %s`,
			a.Operation, exampleCall(a.Operation))
	}
	d, res, err := a.distribution()
	if err != nil {
		return nil, err
	}
	if a.X != nil {
		if err := a.discreteAt(ctx, d, res); err != nil {
			return nil, err
		}
	}
	if a.Cumulative != nil {
		p, err := probabilityArg("cumulative_probability", a.Cumulative, "the share of the distribution at or below the answer", "")
		if err != nil {
			return nil, err
		}
		q, err := a.discreteQuantile(ctx, d, p)
		if err != nil {
			return nil, err
		}
		res.Cumulative, res.Quantile = &p, &q
		res.QuantileRule = "the smallest x with P(X ≤ x) ≥ cumulative_probability"
	}
	return res, nil
}

// distribution reads the binomial's or the Poisson's parameters.
func (a probabilityArgs) distribution() (*discrete, *DistributionResult, error) {
	res := &DistributionResult{Operation: a.Operation}
	if a.Operation == "poisson" {
		m, err := realArg("mean", a.Mean, "poisson needs mean, the average count (lambda), as in "+exampleCall("poisson"))
		if err != nil {
			return nil, nil, err
		}
		if m < 0 || m > maxPoissonMean {
			return nil, nil, invalidArgs("mean is %s; give the Poisson mean (the average count) as a number from 0 to %s", formatNumber(m), groupDigits(maxPoissonMean))
		}
		d := poisson(m)
		res.Distribution = "Poisson with mean " + formatNumber(m)
		res.Mean, res.SD = m, d.sd
		return d, res, nil
	}
	n, err := wholeArg("n", a.N, 0, maxTrials, "binomial needs n, the number of trials, as in "+exampleCall("binomial"))
	if err != nil {
		return nil, nil, err
	}
	p, err := probabilityArg("p", a.P, "the chance of success in one trial",
		"binomial needs p, the chance of success in one trial, from 0 to 1, as in "+exampleCall("binomial"))
	if err != nil {
		return nil, nil, err
	}
	d := binomial(n, p)
	res.Distribution = fmt.Sprintf("binomial with n = %d trials and p = %s", n, formatNumber(p))
	res.Mean, res.SD = d.mean, d.sd
	return d, res, nil
}

// discreteAt fills in the five probabilities at x.
func (a probabilityArgs) discreteAt(ctx context.Context, d *discrete, res *DistributionResult) error {
	xf, err := realArg("x", a.X, "")
	if err != nil {
		return err
	}
	if xf != math.Trunc(xf) || math.Abs(xf) > maxCount {
		return invalidArgs("x is %s; %s counts are whole numbers, so give e.g. x = %s for P(X ≤ %s) or x = %s for P(X ≥ %s)",
			formatNumber(xf), a.Operation, formatNumber(math.Floor(xf)), formatNumber(xf), formatNumber(math.Ceil(xf)), formatNumber(xf))
	}
	x := int64(xf)
	atMost, above, err := d.split(ctx, x)
	if err != nil {
		return err
	}
	below, atLeast, err := d.split(ctx, x-1)
	if err != nil {
		return err
	}
	exactly := 0.0
	if x >= d.low && x <= d.high {
		exactly = d.pmf(x)
	}
	res.X = &xf
	res.Exactly, res.AtMost, res.LessThan = prob(exactly), prob(atMost), prob(below)
	res.AtLeast, res.MoreThan = prob(atLeast), prob(above)
	if exactly == 0 && x >= d.low && x <= d.high {
		res.Notes = append(res.Notes, fmt.Sprintf("P(X = %d) is about 10^%s, below the smallest number a result can hold (about 1e-308), so it shows as 0; "+
			"probabilities shown as 0 here are tiny, not impossible", x, strconv.FormatFloat(d.logPMF(xf)/math.Ln10, 'f', 1, 64)))
	} else if anyZero(atMost, below, atLeast, above) && x > d.low && x < d.high {
		res.Notes = append(res.Notes, "probabilities shown as 0 are below about 1e-308, the smallest number a result can hold; they are tiny, not impossible")
	}
	return nil
}

func (a probabilityArgs) discreteQuantile(ctx context.Context, d *discrete, p float64) (float64, error) {
	switch {
	case p == 0:
		return float64(d.low), nil
	case p == 1 && d.high == math.MaxInt64:
		return 0, invalidArgs("cumulative_probability is 1, and a Poisson count has no largest value, so no quantile reaches it; give a probability below 1, e.g. 0.999")
	case p == 1:
		return float64(d.high), nil
	}
	q, err := d.quantile(ctx, p)
	return float64(q), err
}

func (a probabilityArgs) normal() (any, error) {
	if a.X == nil && a.Cumulative == nil {
		return nil, invalidArgs(`normal needs x (for its probabilities) or cumulative_probability (for a quantile), as in %s`, exampleCall("normal"))
	}
	mean, err := realArg("mean", a.Mean, "normal needs mean and sd, as in "+exampleCall("normal"))
	if err != nil {
		return nil, err
	}
	sd, err := realArg("sd", a.SD, "normal needs sd, the standard deviation, as in "+exampleCall("normal"))
	if err != nil {
		return nil, err
	}
	if !(sd > 0) {
		return nil, invalidArgs("sd is %s; the standard deviation must be above 0", formatNumber(sd))
	}
	res := &DistributionResult{Operation: a.Operation, Mean: mean, SD: sd,
		Distribution: "normal with mean " + formatNumber(mean) + " and standard deviation " + formatNumber(sd)}
	if a.X != nil {
		x, err := realArg("x", a.X, "")
		if err != nil {
			return nil, err
		}
		z := (x - mean) / sd
		below, above := normalBelow(z), normalAbove(z)
		res.X = &x
		res.AtMost, res.LessThan, res.AtLeast, res.MoreThan = prob(below), prob(below), prob(above), prob(above)
		if anyZero(below, above) {
			res.Notes = append(res.Notes, "probabilities shown as 0 are below about 1e-308, the smallest number a result can hold; they are tiny, not impossible")
		}
		if density := normalDensity(z) / sd; math.IsInf(z, 0) || math.IsInf(density, 0) {
			res.Notes = append(res.Notes, "z and the density are beyond the largest number a result can hold, as sd is so small; they are left out")
		} else {
			res.Z, res.Density = prob(z), prob(density)
		}
	}
	if a.Cumulative != nil {
		p, err := probabilityArg("cumulative_probability", a.Cumulative, "the share of the distribution at or below the answer", "")
		if err != nil {
			return nil, err
		}
		if p == 0 || p == 1 {
			return nil, invalidArgs("cumulative_probability is %s; a normal distribution has no lowest or highest value, so give a probability strictly between 0 and 1, e.g. 0.999", formatNumber(p))
		}
		z := normalQuantile(p)
		q := mean + sd*z
		if math.IsInf(q, 0) {
			return nil, invalidArgs("the quantile is beyond the largest number a result can hold (about 1.8e308); use a smaller mean or sd")
		}
		res.Cumulative, res.Quantile, res.QuantileZ = &p, prob(q), prob(z)
		res.QuantileRule = "the x with P(X ≤ x) = cumulative_probability, found by Wichura's AS 241"
	}
	return res, nil
}

// wholeArg reads a whole-number argument from low to high; missing says
// what to do when it is absent.
func wholeArg(field string, v *json.Number, low, high int64, missing string) (int64, error) {
	if v == nil {
		return 0, invalidArgs("%s", missing)
	}
	outside := invalidArgs("%s is %s; give a whole number from %s to %s", field, v.String(), groupDigits(low), groupDigits(high))
	if n, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
		if n < low || n > high {
			return 0, outside
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(v.String(), 64)
	switch {
	case err != nil && !math.IsInf(f, 0):
		return 0, invalidArgs("%s is %q, not a number; give a whole number from %s to %s", field, v.String(), groupDigits(low), groupDigits(high))
	case math.IsInf(f, 0) || f < float64(low) || f > float64(high):
		return 0, outside
	case f != math.Trunc(f):
		return 0, invalidArgs("%s is %s; it counts, so give a whole number such as %s", field, v.String(), formatNumber(math.Round(f)))
	case math.Abs(f) > 1<<53:
		return 0, invalidArgs("%s is %s, too large to hold every digit of; write it out in full, e.g. 1000000 rather than 1e6", field, v.String())
	}
	return int64(f), nil
}

// realArg reads a number argument; missing says what to do when it is
// absent, and is "" when it cannot be.
func realArg(field string, v *json.Number, missing string) (float64, error) {
	if v == nil {
		return 0, invalidArgs("%s", missing)
	}
	f, err := strconv.ParseFloat(v.String(), 64)
	switch {
	case math.IsInf(f, 0):
		return 0, invalidArgs("%s is %s, beyond the largest number ryo computes with (about 1.8e308)", field, v.String())
	case err != nil:
		return 0, invalidArgs("%s is %q, not a number; send a plain JSON number such as 2.5", field, v.String())
	}
	return f, nil
}

// probabilityArg reads a probability, from 0 to 1; what says what it is
// the probability of.
func probabilityArg(field string, v *json.Number, what, missing string) (float64, error) {
	p, err := realArg(field, v, missing)
	if err != nil {
		return 0, err
	}
	if p < 0 || p > 1 {
		hint := ""
		if p > 1 && p <= 100 {
			hint = fmt.Sprintf("; if you meant %s%%, give %s", formatNumber(p), formatNumber(p/100))
		}
		return 0, invalidArgs("%s is %s; give %s as a probability from 0 to 1%s", field, formatNumber(p), what, hint)
	}
	return p, nil
}

// exampleCall is a call of the operation that works, for error messages.
func exampleCall(op string) string {
	switch op {
	case "binomial":
		return `{"operation":"binomial","n":15,"p":0.4,"x":5}`
	case "poisson":
		return `{"operation":"poisson","mean":4,"x":6}`
	}
	return `{"operation":"normal","mean":100,"sd":15,"x":130}`
}

// prob rounds a probability (or a value beside one) to 15 significant
// digits, for the model.
func prob(v float64) *float64 {
	v = roundSignificant(v, 15) + 0 // + 0 turns -0 into 0
	return &v
}

func anyZero(vs ...float64) bool {
	for _, v := range vs {
		if v == 0 {
			return true
		}
	}
	return false
}
