package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// describeJSON runs statistics with args.
func describeJSON(t *testing.T, args string) *StatisticsResult {
	t.Helper()
	out, err := Statistics().Tool.Call(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("statistics(%.80s): %v", args, err)
	}
	return out.(*StatisticsResult)
}

// describeValues runs statistics on values written as JSON numbers.
func describeValues(t *testing.T, values ...string) *StatisticsResult {
	t.Helper()
	return describeJSON(t, `{"values":[`+strings.Join(values, ",")+`]}`)
}

// repeat returns the words of list, each as often as its count says.
func repeat(list string, count int) []string {
	var out []string
	for range count {
		out = append(out, strings.Fields(list)...)
	}
	return out
}

// within reports whether got is within rel (relative) of want.
func within(got, want, rel float64) bool {
	if want == 0 {
		return math.Abs(got) <= rel
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// The NIST Statistical Reference Datasets for univariate summary
// statistics (https://www.itl.nist.gov/div898/strd/univ/), with their
// certified means and sample standard deviations, given to 15 significant
// digits. NumAcc1–4 are built to make a naive computation lose digits:
// values near 1e7 that differ only in the first decimal. Computed exactly,
// NumAcc2–4 have a standard deviation of 0.1 to the last bit.
func TestStatisticsNISTCertified(t *testing.T) {
	numAcc := func(first, low, high string) []string {
		return append([]string{first}, repeat(low+" "+high, 500)...)
	}
	tests := []struct {
		name       string
		values     []string
		mean, sd   float64
		exactly    bool // the certified values are exact decimals
		maxRelDiff float64
	}{
		{"NumAcc1", strings.Fields("10000001 10000003 10000002"), 10000002, 1, true, 0},
		{"NumAcc2", numAcc("1.2", "1.1", "1.3"), 1.2, 0.1, true, 0},
		{"NumAcc3", numAcc("1000000.2", "1000000.1", "1000000.3"), 1000000.2, 0.1, true, 0},
		{"NumAcc4", numAcc("10000000.2", "10000000.1", "10000000.3"), 10000000.2, 0.1, true, 0},
		{"Michelso", strings.Fields(michelso), 299.852400000000, 0.0790105478190518, false, 1e-14},
		{"Mavro", strings.Fields(mavro), 2.00185600000000, 0.000429123454003053, false, 1e-14},
		{"Lew", strings.Fields(lew), -177.435000000000, 277.332168044316, false, 1e-14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := describeValues(t, tt.values...)
			if res.Count != len(tt.values) {
				t.Errorf("count = %d; want %d", res.Count, len(tt.values))
			}
			sd := deref(res.SampleStdDev)
			if tt.exactly && (res.Mean != tt.mean || sd != tt.sd) {
				t.Errorf("mean, sd = %v, %v; want exactly %v, %v", res.Mean, sd, tt.mean, tt.sd)
			}
			if !within(res.Mean, tt.mean, tt.maxRelDiff) || !within(sd, tt.sd, tt.maxRelDiff) {
				t.Errorf("mean, sd = %.17g, %.17g; want %.15g, %.15g", res.Mean, sd, tt.mean, tt.sd)
			}
			// The sample variance is the certified deviation squared; the
			// population variance is that times (n−1)/n.
			n := float64(len(tt.values))
			if v := deref(res.SampleVariance); !within(v, tt.sd*tt.sd, 1e-13) {
				t.Errorf("sample variance = %.17g; want %.15g", v, tt.sd*tt.sd)
			}
			if v := deref(res.PopulationVariance); !within(v, tt.sd*tt.sd*(n-1)/n, 1e-13) {
				t.Errorf("population variance = %.17g; want %.15g", v, tt.sd*tt.sd*(n-1)/n)
			}
		})
	}
}

// The textbook example of the standard deviation (Wikipedia, "Standard
// deviation", and most introductory texts): 2, 4, 4, 4, 5, 5, 7, 9 has mean
// 5 and population standard deviation 2; its sample variance is 32/7.
func TestStatisticsTextbookExample(t *testing.T) {
	res := describeValues(t, "2", "4", "4", "4", "5", "5", "7", "9")
	checks := []struct {
		name      string
		got, want float64
	}{
		{"sum", deref(res.Sum), 40},
		{"mean", res.Mean, 5},
		{"median", res.Median, 4.5},
		{"population variance", deref(res.PopulationVariance), 4},
		{"population sd", deref(res.PopulationStdDev), 2},
		{"sample variance", deref(res.SampleVariance), 32.0 / 7},
		{"sample sd", deref(res.SampleStdDev), math.Sqrt(32.0 / 7)},
		{"min", res.Min, 2},
		{"max", res.Max, 9},
		{"range", deref(res.Range), 7},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if len(res.Modes) != 1 || res.Modes[0] != 4 || res.ModeFrequency != 3 {
		t.Errorf("modes = %v ×%d; want [4] ×3", res.Modes, res.ModeFrequency)
	}
}

// Quartiles by type 7, checked against spreadsheet manuals' worked
// examples of QUARTILE.INC, which is type 7.
func TestStatisticsQuartiles(t *testing.T) {
	tests := []struct {
		source      string
		values      string
		q1, med, q3 float64
	}{
		// GrapeCity Spread for Windows Forms 11, QUARTILE.INC:
		// QUARTILE.INC({11,21,42,27,18,29,32,52},1) gives 20.25. The median
		// is the mean of the middle two, 27 and 29; Q3 = 32 + 0.25·(42 − 32).
		{"GrapeCity", "11 21 42 27 18 29 32 52", 20.25, 28, 34.5},
		// SoftMaker PlanMaker 2024, QUARTILE.INC: for 1 … 9,
		// QUARTILE.INC(A1:A9, 3) returns 7 (and Q1 is 3, the median 5).
		{"SoftMaker", "1 2 3 4 5 6 7 8 9", 3, 5, 7},
		// One value is every quartile of itself.
		{"one value", "42", 42, 42, 42},
	}
	for _, tt := range tests {
		res := describeValues(t, strings.Fields(tt.values)...)
		if res.Q1 != tt.q1 || res.Median != tt.med || res.Q3 != tt.q3 || deref(res.IQR) != tt.q3-tt.q1 {
			t.Errorf("%s: q1, median, q3, iqr = %v, %v, %v, %v; want %v, %v, %v, %v", tt.source,
				res.Q1, res.Median, res.Q3, deref(res.IQR), tt.q1, tt.med, tt.q3, tt.q3-tt.q1)
		}
		if !strings.Contains(res.QuartileMethod, "type 7") {
			t.Errorf("quartile method = %q; want it named", res.QuartileMethod)
		}
	}
}

// Tukey's fences. Anscombe's third data set (F. J. Anscombe, "Graphs in
// Statistical Analysis", The American Statistician 27, 1973) lies on a
// line but for one point, y = 12.74. Worked by hand from the definitions:
// sorted, its type-7 quartiles are 6.25 and 7.98, the IQR 1.73, so the
// fences are 6.25 − 2.595 = 3.655 and 7.98 + 2.595 = 10.575.
func TestStatisticsIQROutliers(t *testing.T) {
	res := describeValues(t, strings.Fields(anscombeY3)...)
	o := res.OutliersIQR
	if deref(o.LowerFence) != 3.655 || deref(o.UpperFence) != 10.575 || o.Count != 1 || fmt.Sprint(o.Values) != "[12.74]" {
		t.Errorf("fences %v, %v, outliers %d %v; want 3.655, 10.575, 1 [12.74]", deref(o.LowerFence), deref(o.UpperFence), o.Count, o.Values)
	}
	// A value exactly on a fence is not outside it: -1 2 2 3 4 4 7 has
	// quartiles 2 and 4 and fences -1 and 7.
	res = describeValues(t, "-1", "2", "3", "4", "7", "2", "4")
	if res.OutliersIQR.Count != 0 {
		t.Errorf("values on the fences: %d outliers %v; want none", res.OutliersIQR.Count, res.OutliersIQR.Values)
	}
	// Many outliers: the 10 most extreme at each end are listed, all counted.
	values := append(repeat("0", 100), repeat("-1000", 15)...)
	values = append(values, repeat("1000", 12)...)
	res = describeValues(t, values...)
	if res.OutliersIQR.Count != 27 || len(res.OutliersIQR.Values) != 20 ||
		res.OutliersIQR.Values[0] != -1000 || res.OutliersIQR.Values[19] != 1000 {
		t.Errorf("outliers %d %v; want 27 counted, 20 listed", res.OutliersIQR.Count, res.OutliersIQR.Values)
	}
}

// z-scores. By Samuelson's inequality (P. A. Samuelson, "How Deviant Can
// You Be?", JASA 63, 1968) no z-score in n values exceeds (n−1)/√n, and one
// value apart from n − 1 equal ones reaches it: in 0 ×9 and 10, the 10 has
// z = 9/√10 ≈ 2.846.
func TestStatisticsZOutliers(t *testing.T) {
	values := `[0,0,0,0,0,0,0,0,0,10]`
	for _, tt := range []struct {
		threshold string
		count     int
	}{{"2.84", 1}, {"2.85", 0}, {"3", 0}} {
		res := describeJSON(t, `{"values":`+values+`,"z_threshold":`+tt.threshold+`}`)
		if res.OutliersZ.Count != tt.count || res.OutliersZ.Threshold != mustFloat(tt.threshold) {
			t.Errorf("threshold %s: %d outliers %v; want %d", tt.threshold, res.OutliersZ.Count, res.OutliersZ.Values, tt.count)
		}
	}
	res := describeValues(t, strings.Fields(values[1:len(values)-1])...)
	if res.OutliersZ.Threshold != 3 {
		t.Errorf("default threshold = %v; want 3", res.OutliersZ.Threshold)
	}
	// All equal: no spread, no z-scores, no outliers.
	res = describeValues(t, "7", "7", "7")
	if res.OutliersZ.Count != 0 || deref(res.SampleStdDev) != 0 || res.ModeFrequency != 3 {
		t.Errorf("7 7 7: z outliers %d, sd %v, mode ×%d", res.OutliersZ.Count, deref(res.SampleStdDev), res.ModeFrequency)
	}
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return f
}

// Decimal fractions are added as written: 0.1 + 0.2 is 0.3.
func TestStatisticsExactDecimals(t *testing.T) {
	res := describeValues(t, "0.1", "0.2")
	if deref(res.Sum) != 0.3 || res.Mean != 0.15 || deref(res.PopulationVariance) != 0.0025 {
		t.Errorf("0.1, 0.2: sum %v, mean %v, variance %v; want 0.3, 0.15, 0.0025", deref(res.Sum), res.Mean, deref(res.PopulationVariance))
	}
	// Values that are equal as float64s but not as written are told apart.
	res = describeValues(t, "1000000000.2", "1000000000.20000000001")
	if res.ModeFrequency != 0 || deref(res.Range) != 1e-11 {
		t.Errorf("mode ×%d, range %v; want no mode and a range of 1e-11", res.ModeFrequency, deref(res.Range))
	}
	// Trailing zeros and exponents do not change a value.
	res = describeValues(t, "1.50", "15e-1", "0.15E1", "1.5")
	if res.ModeFrequency != 4 || deref(res.SampleVariance) != 0 {
		t.Errorf("1.5 four ways: mode ×%d, variance %v; want ×4, 0", res.ModeFrequency, deref(res.SampleVariance))
	}
}

func TestStatisticsOneValue(t *testing.T) {
	res := describeValues(t, "-3.5")
	if res.Count != 1 || res.Mean != -3.5 || res.Median != -3.5 || deref(res.PopulationVariance) != 0 ||
		res.SampleVariance != nil || res.SampleStdDev != nil || len(res.Modes) != 0 {
		t.Errorf("one value: %+v", res)
	}
	if !strings.Contains(strings.Join(res.Notes, "; "), "at least two values") {
		t.Errorf("notes = %q; want the sample variance explained", res.Notes)
	}
	out, _ := json.Marshal(res)
	if !strings.Contains(string(out), `"sample_variance":null`) {
		t.Errorf("JSON = %s; want sample_variance null", out)
	}
}

// Values near float64's limits: the results that fit are exact, those that
// do not are null with a note, and nothing is ever Inf or NaN (JSON has no
// way to carry them).
func TestStatisticsNearFloatLimits(t *testing.T) {
	const max = "1.7976931348623157e308"
	res := describeValues(t, max, max)
	if res.Mean != math.MaxFloat64 || res.Sum != nil || deref(res.PopulationVariance) != 0 {
		t.Errorf("max, max: mean %v, sum %v, variance %v", res.Mean, res.Sum, deref(res.PopulationVariance))
	}
	res = describeValues(t, max, "-"+max)
	if res.Mean != 0 || res.Range != nil || res.SampleVariance != nil || res.SampleStdDev != nil || deref(res.IQR) != math.MaxFloat64 {
		t.Errorf("max, -max: %+v", res)
	}
	if !strings.Contains(strings.Join(res.Notes, "; "), "range, population_variance, sample_variance, sample_std_dev") {
		t.Errorf("notes = %q; want the null fields named", res.Notes)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("the result does not encode: %v", err)
	}
	// The smallest float64 and the largest, together.
	res = describeValues(t, "4.9e-324", "4.9e-324", "1e308")
	if res.Min != 5e-324 || res.Median != 5e-324 || res.Max != 1e308 || !within(res.Mean, 1e308/3, 1e-15) {
		t.Errorf("tiny and huge: min %v, median %v, max %v, mean %v", res.Min, res.Median, res.Max, res.Mean)
	}
}

func TestStatisticsErrors(t *testing.T) {
	many := `{"values":[` + strings.Repeat("1,", maxValues) + `1]}`
	digits65 := "1." + strings.Repeat("3", 64)
	tests := []struct {
		args, message string
	}{
		{`{"values":[]}`, "values is empty; give at least one number"},
		{`{}`, "values is empty; give at least one number"},
		{many, "values has 10001 numbers, more than the 10000 this tool takes; summarize a sample or split the data and combine the parts"},
		{`{"values":[1,1e309]}`, "values[1] is 1e309, beyond the largest number ryo computes with (about 1.8e308); scale the values down, e.g. to millions"},
		{`{"values":[-1e400]}`, "values[0] is -1e400, beyond the largest number ryo computes with (about 1.8e308); scale the values down, e.g. to millions"},
		{`{"values":[1e-400]}`, "values[0] is 1e-400, closer to zero than the smallest number ryo computes with (about 5e-324); scale the values up or write it as 0"},
		{`{"values":[` + digits65 + `]}`, "values[0] has 65 significant digits; round it to at most 64"},
		{`{"values":[1],"z_threshold":0.5}`, "z_threshold is 0.5; give a number from 1 to 10, or leave it out for 3"},
	}
	for _, tt := range tests {
		_, err := Statistics().Tool.Call(t.Context(), json.RawMessage(tt.args))
		wantError(t, fmt.Sprintf("%.60s", tt.args), err, toolbus.CodeInvalidArgs, tt.message)
	}
	// Zero is zero however it is written, even with an exponent no float
	// could hold.
	if res := describeValues(t, "0e99999999999999999999", "-0.000"); res.Mean != 0 || deref(res.Sum) != 0 {
		t.Errorf("zeros: mean %v, sum %v", res.Mean, deref(res.Sum))
	}
}

// The schemas leave the 10,000 limit to the tools: Ollama turns a tool's
// schema into a grammar for the model's reply, and a maxItems of 10,000
// unrolled there stops its model runner (TestLiveEnvelopeFormat in
// package ollama).
func TestArraySchemasHaveNoMaxItems(t *testing.T) {
	for _, s := range []toolbus.Spec{Statistics(), Regression(), Finance(), Benford()} {
		if strings.Contains(string(s.Schema), "maxItems") {
			t.Errorf("%s: the schema sets maxItems; check the count in the tool instead", s.Name)
		}
	}
}

// Through the bus, 10,001 numbers and a string are refused, and 10,000
// numbers give a whole result.
func TestStatisticsThroughTheBus(t *testing.T) {
	r := toolbus.NewRegistry()
	if err := r.Register(Statistics()); err != nil {
		t.Fatal(err)
	}
	run := func(args string) toolbus.Result {
		return r.Run(t.Context(), toolbus.Call{ID: "c", Key: args[:min(len(args), 40)] + strconv.Itoa(len(args)), Tool: "statistics", Args: json.RawMessage(args)})
	}
	res := run(`{"values":[` + strings.Repeat("1,", maxValues) + `1]}`)
	if res.Error == nil || !strings.Contains(res.Error.Message, "more than the 10000 this tool takes") {
		t.Errorf("10,001 numbers: %+v; want the limit", res.Error)
	}
	res = run(`{"values":["12"]}`)
	if res.Error == nil || res.Error.Code != toolbus.CodeInvalidArgs {
		t.Errorf("a string: %+v; want invalid arguments", res.Error)
	}
	res = run(`{"values":[` + strings.TrimSuffix(strings.Repeat("123456.789,", maxValues), ",") + `]}`)
	if res.Status != toolbus.StatusOK || res.Truncated {
		t.Fatalf("10,000 numbers: status %s, truncated %v, error %+v", res.Status, res.Truncated, res.Error)
	}
	var out StatisticsResult
	if err := json.Unmarshal(res.Output, &out); err != nil || out.Count != maxValues || out.Mean != 123456.789 {
		t.Errorf("10,000 numbers: %v, count %d, mean %v", err, out.Count, out.Mean)
	}
}

func TestStatisticsCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Statistics().Tool.Call(ctx, json.RawMessage(`{"values":[1,2,3]}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v; want context.Canceled", err)
	}
}

func BenchmarkStatistics10000(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"values":[`)
	for i := range maxValues {
		if i > 0 {
			sb.WriteByte(',')
		}
		// Prices with cents, spread over a range, some repeated.
		fmt.Fprintf(&sb, "%d.%02d", 10+(i*7919)%5000, (i*31)%100)
	}
	sb.WriteString(`]}`)
	args := json.RawMessage(sb.String())
	spec := Statistics()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.Tool.Call(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

// Data sets from NIST StRD, univariate summary statistics, and Anscombe.
const (
	michelso = `299.85 299.74 299.90 300.07 299.93 299.85 299.95 299.98 299.98 299.88 300.00 299.98 299.93 299.65
	299.76 299.81 300.00 300.00 299.96 299.96 299.96 299.94 299.96 299.94 299.88 299.80 299.85 299.88 299.90 299.84
	299.83 299.79 299.81 299.88 299.88 299.83 299.80 299.79 299.76 299.80 299.88 299.88 299.88 299.86 299.72 299.72
	299.62 299.86 299.97 299.95 299.88 299.91 299.85 299.87 299.84 299.84 299.85 299.84 299.84 299.84 299.89 299.81
	299.81 299.82 299.80 299.77 299.76 299.74 299.75 299.76 299.91 299.92 299.89 299.86 299.88 299.72 299.84 299.85
	299.85 299.78 299.89 299.84 299.78 299.81 299.76 299.81 299.79 299.81 299.82 299.85 299.87 299.87 299.81 299.74
	299.81 299.94 299.95 299.80 299.81 299.87`
	mavro = `2.00180 2.00170 2.00180 2.00190 2.00180 2.00170 2.00150 2.00140 2.00150 2.00150 2.00170 2.00180 2.00180
	2.00190 2.00190 2.00210 2.00200 2.00160 2.00140 2.00130 2.00130 2.00150 2.00150 2.00160 2.00150 2.00140 2.00130
	2.00140 2.00150 2.00140 2.00150 2.00160 2.00150 2.00160 2.00190 2.00200 2.00200 2.00210 2.00220 2.00230 2.00240
	2.00250 2.00270 2.00260 2.00260 2.00260 2.00270 2.00260 2.00250 2.00240`
	lew = `-213 -564 -35 -15 141 115 -420 -360 203 -338 -431 194 -220 -513 154 -125 -559 92 -21 -579 -52 99 -543
	-175 162 -457 -346 204 -300 -474 164 -107 -572 -8 83 -541 -224 180 -420 -374 201 -236 -531 83 27 -564 -112 131
	-507 -254 199 -311 -495 143 -46 -579 -90 136 -472 -338 202 -287 -477 169 -124 -568 17 48 -568 -135 162 -430
	-422 172 -74 -577 -13 92 -534 -243 194 -355 -465 156 -81 -578 -64 139 -449 -384 193 -198 -538 110 -44 -577
	-6 66 -552 -164 161 -460 -344 205 -281 -504 134 -28 -576 -118 156 -437 -381 200 -220 -540 83 11 -568 -160
	172 -414 -408 188 -125 -572 -32 139 -492 -321 205 -262 -504 142 -83 -574 0 48 -571 -106 137 -501 -266 190
	-391 -406 194 -186 -553 83 -13 -577 -49 103 -515 -280 201 300 -506 131 -45 -578 -80 138 -462 -361 201 -211
	-554 32 74 -533 -235 187 -372 -442 182 -147 -566 25 68 -535 -244 194 -351 -463 174 -125 -570 15 72 -550
	-190 172 -424 -385 198 -218 -536 96`
	anscombeX  = `10 8 13 9 11 14 6 4 12 7 5`
	anscombeY1 = `8.04 6.95 7.58 8.81 8.33 9.96 7.24 4.26 10.84 4.82 5.68`
	anscombeY2 = `9.14 8.14 8.74 8.77 9.26 8.10 6.13 3.10 9.13 7.26 4.74`
	anscombeY3 = `7.46 6.77 12.74 7.11 7.81 8.84 6.08 5.39 8.15 6.42 5.73`
	anscombeX4 = `8 8 8 8 8 8 8 19 8 8 8`
	anscombeY4 = `6.58 5.76 7.71 8.84 8.47 7.04 5.25 12.50 5.56 7.91 6.89`
)
