package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo/toolbus"
)

// fewForBenford is the count of usable numbers below which benford warns
// that its test says little.
const fewForBenford = 100

const benfordSchema = `{
  "type": "object",
  "properties": {
    "values": {
      "type": "array",
      "items": {"type": "number"},
      "minItems": 1,
      "description": "The numbers to test, 1 to 10,000 plain JSON numbers such as amounts, e.g. [1250.5, 87, 0.0042]. Zeros are skipped; a negative number counts by its digits."
    }
  },
  "required": ["values"],
  "additionalProperties": false
}`

// BenfordResult is what benford returns: how often each first digit leads,
// against Benford's law, and how far apart the two are.
type BenfordResult struct {
	Count            int            `json:"count"` // numbers with a first digit
	SkippedZeros     int            `json:"skipped_zeros"`
	SkippedNonFinite int            `json:"skipped_non_finite"`
	Digits           []BenfordDigit `json:"digits"`
	ChiSquare        float64        `json:"chi_square"`
	DegreesOfFreedom int            `json:"degrees_of_freedom"`
	PValue           float64        `json:"p_value"` // of the chi-square statistic
	MAD              float64        `json:"mad"`     // mean absolute deviation of the proportions
	Conformity       string         `json:"conformity"`
	ConformityRule   string         `json:"conformity_rule"`
	Warnings         []string       `json:"warnings,omitempty"`
}

// BenfordDigit is one first digit's count.
type BenfordDigit struct {
	Digit      int     `json:"digit"`
	Count      int     `json:"count"`
	Proportion float64 `json:"proportion"`
	Expected   float64 `json:"expected"` // log10(1 + 1/digit), Benford's proportion
}

// conformityRule is Nigrini's scale for the first-digit MAD (M. J. Nigrini,
// Benford's Law: Applications for Forensic Accounting, Auditing, and Fraud
// Detection, Wiley 2012).
const conformityRule = "Nigrini's first-digit MAD ranges: 0 to 0.006 close conformity, 0.006 to 0.012 acceptable conformity, " +
	"0.012 to 0.015 marginally acceptable conformity, above 0.015 nonconformity"

// Benford returns the benford tool: the first-digit test of Benford's law
// on up to 10,000 numbers, each digit read from the number as written.
func Benford() toolbus.Spec {
	return readOnly("benford",
		"Test whether numbers follow Benford's law of first digits: counts of 1–9 against log10(1+1/d), chi-square "+
			"and p-value, MAD and Nigrini's verdict. Up to 10,000 numbers.",
		toolbus.MathFinance, benfordSchema, benford,
		example("Do these invoice amounts look natural by Benford's law: 1520.10, 243.00, 118.75, 3920, 1045.50, 87.20, 1999, 612.40?",
			`{"values":[1520.10,243.00,118.75,3920,1045.50,87.20,1999,612.40]}`))
}

func benford(ctx context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		Values []json.RawMessage `json:"values"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if err := checkCount("values", len(args.Values), 1); err != nil {
		return nil, err
	}
	var counts [10]int
	res := &BenfordResult{DegreesOfFreedom: 8, ConformityRule: conformityRule}
	lowest, highest := math.MaxInt, math.MinInt // powers of ten
	for i, v := range args.Values {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d, magnitude, err := firstDigit(i, v)
		switch {
		case err != nil:
			return nil, err
		case d < 0:
			res.SkippedNonFinite++
		case d == 0:
			res.SkippedZeros++
		default:
			counts[d]++
			lowest, highest = min(lowest, magnitude), max(highest, magnitude)
		}
	}
	for _, c := range counts {
		res.Count += c
	}
	if res.Count == 0 {
		return nil, invalidArgs("none of the %d values has a first digit: %d are zero and %d not finite; Benford's law needs nonzero numbers",
			len(args.Values), res.SkippedZeros, res.SkippedNonFinite)
	}
	res.fill(counts)
	res.Warnings = res.warnings(highest - lowest)
	return res, nil
}

// fill computes the proportions, the statistics and the verdict.
func (r *BenfordResult) fill(counts [10]int) {
	n := float64(r.Count)
	var chi, mad float64
	for d := 1; d <= 9; d++ {
		expected := math.Log10(1 + 1/float64(d))
		share := float64(counts[d]) / n
		chi += (float64(counts[d]) - n*expected) * (float64(counts[d]) - n*expected) / (n * expected)
		mad += math.Abs(share - expected)
		r.Digits = append(r.Digits, BenfordDigit{Digit: d, Count: counts[d], Proportion: roundSignificant(share, 15),
			Expected: roundSignificant(expected, 15)})
	}
	r.ChiSquare = roundSignificant(chi, 15)
	r.PValue = roundSignificant(chiSquare8Above(chi), 15)
	r.MAD = roundSignificant(mad/9, 15)
	r.Conformity = nigriniConformity(mad / 9)
}

func (r *BenfordResult) warnings(orders int) []string {
	var w []string
	if r.Count < fewForBenford {
		w = append(w, fmt.Sprintf("only %d usable numbers: the test can tell little at this size (a chi-square test wants each digit's expected count "+
			"to be at least 5, which takes about 110 numbers); treat the verdict as weak", r.Count))
	}
	if orders < 2 {
		w = append(w, "the numbers span less than two orders of magnitude; Benford's law describes data spread over several (amounts, populations), "+
			"not data confined to a narrow range or assigned numbers")
	}
	if r.Count >= 3000 && r.PValue < 0.05 && r.MAD <= 0.012 {
		w = append(w, "with this many numbers the chi-square test flags even small deviations; Nigrini judges conformity by the MAD")
	}
	return w
}

// nigriniConformity places a first-digit MAD on Nigrini's scale.
func nigriniConformity(mad float64) string {
	switch {
	case mad <= 0.006:
		return "close conformity"
	case mad <= 0.012:
		return "acceptable conformity"
	case mad <= 0.015:
		return "marginally acceptable conformity"
	}
	return "nonconformity"
}

// chiSquare8Above is P(χ² > x) with 8 degrees of freedom. For an even
// number 2m of degrees of freedom the survival function is exactly
// e^(−x/2)·Σ_{j<m} (x/2)^j/j!.
func chiSquare8Above(x float64) float64 {
	h := x / 2
	return math.Exp(-h) * (1 + h*(1+h/2*(1+h/3)))
}

// firstDigit reads the first significant digit of values[i] from its text,
// and the power of ten it stands at (3 for 1520.1, −4 for 0.00042): 0 for
// a zero, −1 for NaN or an infinity given as a string. No digit passes
// through a float64, so 9.9999999999999999999 leads with 9.
func firstDigit(i int, raw json.RawMessage) (digit, magnitude int, err error) {
	text := strings.TrimSpace(string(raw))
	if strings.HasPrefix(text, `"`) {
		var s string
		if json.Unmarshal(raw, &s) == nil && isNonFinite(s) {
			return -1, 0, nil
		}
		return 0, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "values[%d] is the text %s; send plain JSON numbers such as 1520.5", i, text)
	}
	if text == "" || text[0] != '-' && (text[0] < '0' || text[0] > '9') { // the decoder has checked the rest of a number's syntax
		return 0, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "values[%d] is %s, not a number; send plain JSON numbers such as 1520.5", i, text)
	}
	mant, exp, _ := strings.Cut(strings.ToLower(strings.TrimLeft(text, "-+")), "e")
	whole, _, _ := strings.Cut(mant, ".")
	digits := strings.Replace(mant, ".", "", 1)
	lead := strings.IndexFunc(digits, func(r rune) bool { return r >= '1' && r <= '9' })
	if lead < 0 {
		return 0, 0, nil
	}
	e := 0
	if exp != "" {
		var err error
		if e, err = strconv.Atoi(exp); err != nil { // an exponent past int's range; its sign is what counts
			e = math.MaxInt32
			if strings.HasPrefix(exp, "-") {
				e = math.MinInt32
			}
		}
		e = max(math.MinInt32, min(math.MaxInt32, e))
	}
	return int(digits[lead] - '0'), len(whole) - 1 - lead + e, nil
}

// isNonFinite reports whether s names NaN or an infinity.
func isNonFinite(s string) bool {
	switch strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "+-")) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}
