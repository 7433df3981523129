package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// callFinance runs the finance tool with args and decodes its result into
// a map, as the model would read it.
func callFinance(t *testing.T, args string) map[string]any {
	t.Helper()
	out, err := runTool(t, Finance(), args)
	if err != nil {
		t.Fatalf("finance(%s): %v", args, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// near checks a result field against a published value to within tol.
func near(t *testing.T, args string, res map[string]any, field string, want, tol float64) {
	t.Helper()
	got, ok := res[field].(float64)
	if !ok || math.Abs(got-want) > tol {
		t.Errorf("finance(%s).%s = %v; want %v ± %v", args, field, res[field], want, tol)
	}
}

// Interest factor tables: the "future value of $1", "present value of $1"
// and annuity tables printed at the back of finance textbooks (e.g.
// Brealey, Myers & Allen, Principles of Corporate Finance, Appendix),
// given to four decimals, so the tolerance is half a unit of the fourth
// decimal times the amount.
func TestFinanceInterestFactorTables(t *testing.T) {
	tests := []struct {
		args, field string
		want, tol   float64
	}{
		// FVIF(5%, 10) = 1.6289
		{`{"operation":"compound_interest","principal":10000,"rate":5,"years":10}`, "future_value", 16289, 0.5},
		{`{"operation":"future_value","principal":10000,"rate":5,"years":10}`, "future_value", 16289, 0.5},
		// FVIFA(10%, 5) = 6.1051
		{`{"operation":"compound_interest","payment":1000,"rate":10,"years":5}`, "future_value", 6105.1, 0.05},
		// annuity due: FVIFA(10%, 5) × 1.10 = 6.7156
		{`{"operation":"compound_interest","payment":1000,"rate":10,"years":5,"payments_at_start":true}`, "future_value", 6715.6, 0.06},
		// PVIF(10%, 5) = 0.6209
		{`{"operation":"present_value","future_amount":10000,"rate":10,"years":5}`, "present_value", 6209, 0.5},
		// PVIFA(10%, 5) = 3.7908 and PVIFA(8%, 10) = 6.7101
		{`{"operation":"present_value","payment":1000,"rate":10,"years":5}`, "present_value", 3790.8, 0.05},
		{`{"operation":"present_value","payment":1000,"rate":8,"years":10}`, "present_value", 6710.1, 0.05},
		// CAGR: FVIF(5%, 10) read backwards
		{`{"operation":"cagr","start_value":10000,"end_value":16289,"years":10}`, "cagr_percent", 5, 0.001},
		// by hand: a value that halves in a year fell 50%; one that ends at nothing fell 100%
		{`{"operation":"cagr","start_value":10,"end_value":5,"years":1}`, "cagr_percent", -50, 0},
		{`{"operation":"cagr","start_value":10,"end_value":0,"years":3}`, "cagr_percent", -100, 0},
		// near the float limit: FVIF(5%, 10) = 1.6289 of 1e308 still fits
		{`{"operation":"compound_interest","principal":1e308,"rate":5,"years":10}`, "future_value", 1.6289e308, 0.00005e308},
		// by hand: at 0% the future value is what was paid in
		{`{"operation":"compound_interest","principal":500,"payment":100,"rate":0,"years":2,"periods_per_year":12}`, "future_value", 2900, 0},
	}
	for _, tt := range tests {
		near(t, tt.args, callFinance(t, tt.args), tt.field, tt.want, tt.tol)
	}
}

// A worked mortgage example found in many textbooks and course notes
// (e.g. mathondemand.com, "Monthly loan payment on a $200,000 loan for 30
// years with a 6% interest rate"): $200,000 over 30 years at 6% costs
// $1,199.10 a month, $231,676.38 of interest in all; in its first-year
// table the balance after month 11 is $197,754.31 and month 12 repays
// $210.33, leaving $197,543.98. Over 15 years the payment is $1,687.71.
func TestFinanceLoanWorkedExample(t *testing.T) {
	args := `{"operation":"loan","principal":200000,"rate":6,"years":30}`
	res := callFinance(t, args)
	near(t, args, res, "payment_per_period", 1199.10, 0)
	near(t, args, res, "total_interest", 231676.38, 0)
	near(t, args, res, "number_of_payments", 360, 0)
	schedule := res["yearly_schedule"].([]any)
	if len(schedule) != 30 {
		t.Fatalf("schedule has %d years; want 30", len(schedule))
	}
	first := schedule[0].(map[string]any)
	near(t, args, first, "balance_after", 197543.98, 0)
	near(t, args, first, "principal_paid", 200000-197543.98, 0.005)
	near(t, args, schedule[29].(map[string]any), "balance_after", 0, 0)

	args = `{"operation":"loan","principal":200000,"rate":6,"years":15,"periods_per_year":12}`
	near(t, args, callFinance(t, args), "payment_per_period", 1687.71, 0)

	// by hand: 12,000 at 0% over a year is 1,000 a month
	args = `{"operation":"loan","principal":12000,"rate":0,"years":1}`
	near(t, args, callFinance(t, args), "payment_per_period", 1000, 0)
}

// The examples of NPV in Microsoft's Excel documentation. Excel's NPV
// discounts its first value, so its flows are ours after a 0 for now.
func TestFinanceNPVExcelExamples(t *testing.T) {
	tests := []struct {
		args string
		want float64
	}{
		// 10%; -10,000 after a year, then 3,000, 4,200, 6,800: $1,188.44
		{`{"operation":"npv","rate":10,"cash_flows":[0,-10000,3000,4200,6800]}`, 1188.44},
		// 8%; -40,000 now, then 8,000, 9,200, 10,000, 12,000, 14,500: $1,922.06
		{`{"operation":"npv","rate":8,"cash_flows":[-40000,8000,9200,10000,12000,14500]}`, 1922.06},
		// the same with a loss of 9,000 in the sixth year: -$3,749.47
		{`{"operation":"npv","rate":8,"cash_flows":[-40000,8000,9200,10000,12000,14500,-9000]}`, -3749.47},
	}
	for _, tt := range tests {
		near(t, tt.args, callFinance(t, tt.args), "npv", tt.want, 0)
	}
}

// The examples of IRR in Microsoft's Excel documentation: -70,000 then
// 12,000, 15,000, 18,000, 21,000, 26,000 gives 8.7% after five years and
// -2.1% after four; after two years it gives -44.4%, which Excel finds
// only with a guess, because Newton's method from 10% fails there.
func TestFinanceIRRExcelExamples(t *testing.T) {
	tests := []struct {
		flows string
		want  float64
	}{
		{"[-70000,12000,15000,18000,21000,26000]", 8.7},
		{"[-70000,12000,15000,18000,21000]", -2.1},
		{"[-70000,12000,15000]", -44.4},
	}
	for _, tt := range tests {
		args := `{"operation":"irr","cash_flows":` + tt.flows + `}`
		res := callFinance(t, args)
		near(t, args, res, "irr_percent", tt.want, 0.05)
		if irrs := res["irrs_percent"].([]any); len(irrs) != 1 {
			t.Errorf("finance(%s) found IRRs %v; want one", args, irrs)
		}
	}
}

// Several IRRs and none, from Brealey, Myers & Allen, Principles of
// Corporate Finance, on the IRR rule's pitfalls: the Lorie–Savage pump,
// -1,600 then +10,000 then -10,000, has IRRs of 25% and 400%. Others by
// hand: [-100, 230, -132] is -100(1-1.1x)(1-1.2x) in x = 1/(1+r), so 10%
// and 20%; [-1, 2, -1] is -(1-x)², one IRR of 0% that the NPV only
// touches; [-1, 3, -3, 1] is -(1-x)³; [-1e308, 1e308, 1e308] is x² + x - 1 scaled, x = (√5-1)/2, so
// r = (1+√5)/2 - 1.
func TestFinanceIRRRoots(t *testing.T) {
	tests := []struct {
		flows  string
		want   []float64
		unique bool
	}{
		{"[-1600,10000,-10000]", []float64{25, 400}, false},
		{"[-100,230,-132]", []float64{10, 20}, false},
		{"[-1,2,-1]", []float64{0}, true},
		{"[-1,3,-3,1]", []float64{0}, true},
		{"[-1e308,1e308,1e308]", []float64{(1+math.Sqrt(5))/2*100 - 100}, true},
		// by hand: 1.1^5 = 1.61051
		{"[-100,0,0,0,0,161.051]", []float64{10}, true},
	}
	for _, tt := range tests {
		args := `{"operation":"irr","cash_flows":` + tt.flows + `}`
		res := callFinance(t, args)
		irrs := res["irrs_percent"].([]any)
		if len(irrs) != len(tt.want) {
			t.Errorf("finance(%s) found IRRs %v; want %v", args, irrs, tt.want)
			continue
		}
		for i, w := range tt.want {
			if got := irrs[i].(float64); math.Abs(got-w) > 1e-6 {
				t.Errorf("finance(%s) IRR %d = %v; want %v", args, i, got, w)
			}
		}
		if _, ok := res["irr_percent"]; ok != tt.unique {
			t.Errorf("finance(%s) irr_percent set = %v; want %v (note %q)", args, ok, tt.unique, res["note"])
		}
	}
	res := callFinance(t, `{"operation":"irr","cash_flows":[-1600,10000,-10000]}`)
	if note := res["note"].(string); !strings.Contains(note, "2 IRRs: 25%, 400%") {
		t.Errorf("pump note = %q; want it to name both IRRs", note)
	}
	// 1% a month is 12.68% a year (1.01^12 = 1.126825...), by hand
	args := `{"operation":"irr","cash_flows":[-100,1,1,1,1,1,1,1,1,1,1,1,101],"periods_per_year":12}`
	near(t, args, callFinance(t, args), "yearly_irr_percent", 12.682503, 1e-6)
	// 99,900% a day compounds past any number in a year: no yearly figure
	args = `{"operation":"irr","cash_flows":[-1,1000],"periods_per_year":365}`
	res = callFinance(t, args)
	near(t, args, res, "irr_percent", 99900, 1e-6)
	if y, ok := res["yearly_irr_percent"]; ok {
		t.Errorf("finance(%s).yearly_irr_percent = %v; want none", args, y)
	}
}

func TestFinanceRefuses(t *testing.T) {
	tests := []struct {
		name, args, code, message string
	}{
		{"no operation", `{}`, toolbus.CodeInvalidArgs, "unknown operation"},
		{"nothing to grow", `{"operation":"compound_interest","rate":5,"years":1}`, toolbus.CodeInvalidArgs, "a principal, a payment or both"},
		{"nothing to discount", `{"operation":"present_value","rate":5,"years":1}`, toolbus.CodeInvalidArgs, "a future_amount, a payment or both"},
		{"no rate", `{"operation":"loan","principal":1000,"years":1}`, toolbus.CodeInvalidArgs, "needs rate"},
		{"no principal", `{"operation":"loan","rate":5,"years":1}`, toolbus.CodeInvalidArgs, "principal borrowed"},
		{"rate -100", `{"operation":"compound_interest","principal":1,"rate":-100,"years":1}`, toolbus.CodeInvalidArgs, "above -100"},
		{"zero years", `{"operation":"present_value","future_amount":1,"rate":5,"years":0}`, toolbus.CodeInvalidArgs, "years must be above 0"},
		{"part periods", `{"operation":"compound_interest","payment":10,"rate":5,"years":1.5}`, toolbus.CodeInvalidArgs, "whole number of periods"},
		{"long loan", `{"operation":"loan","principal":1,"rate":5,"years":101}`, toolbus.CodeInvalidArgs, "at most 100 years"},
		{"loan due", `{"operation":"loan","principal":1,"rate":5,"years":1,"payments_at_start":true}`, toolbus.CodeInvalidArgs, "payments_at_start"},
		{"no flows", `{"operation":"irr"}`, toolbus.CodeInvalidArgs, "at least two"},
		{"one flow", `{"operation":"npv","rate":5,"cash_flows":[-5]}`, toolbus.CodeInvalidArgs, "at least two"},
		{"same signs", `{"operation":"irr","cash_flows":[-1,-2,0]}`, toolbus.CodeInvalidArgs, "money paid out"},
		// 3000² < 4·1000·2500: the NPV never reaches zero
		{"no irr", `{"operation":"irr","cash_flows":[1000,-3000,2500]}`, CodeMathError, "no IRR"},
		// the IRR is 999,999,900%, beyond the search
		{"huge irr", `{"operation":"irr","cash_flows":[-1,1e7]}`, CodeMathError, "no IRR"},
		{"cagr sign", `{"operation":"cagr","start_value":-5,"end_value":10,"years":2}`, toolbus.CodeInvalidArgs, "start_value above 0"},
		{"fv overflow", `{"operation":"compound_interest","principal":1e308,"rate":5,"years":20}`, CodeMathError, "too large"},
		{"npv overflow", `{"operation":"npv","rate":0,"cash_flows":[1e308,1e308]}`, CodeMathError, "too large"},
		{"loan overflow", `{"operation":"loan","principal":1e308,"rate":5,"years":30}`, CodeMathError, "too large"},
		{"rate overflow", `{"operation":"compound_interest","principal":1,"rate":1e300,"years":1000}`, CodeMathError, "too large"},
		{"huge value", `{"operation":"npv","rate":5,"cash_flows":[1e400,1]}`, toolbus.CodeInvalidArgs, "schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runTool(t, Finance(), tt.args)
			var te *toolbus.Error
			if !errors.As(err, &te) || te.Code != tt.code || !strings.Contains(te.Message, tt.message) {
				t.Errorf("finance(%s) error = %v; want %s mentioning %q", tt.args, err, tt.code, tt.message)
			}
		})
	}
}

func TestFinanceRefusesTooManyCashFlows(t *testing.T) {
	flows := make([]string, maxCashFlows+1)
	for i := range flows {
		flows[i] = "1"
	}
	flows[0] = "-1000"
	args := `{"operation":"irr","cash_flows":[` + strings.Join(flows, ",") + `]}`
	_, err := runTool(t, Finance(), args)
	wantError(t, "1001 cash flows", err, toolbus.CodeInvalidArgs, "")
	if !strings.Contains(err.Error(), "1001 amounts; at most 1000") {
		t.Errorf("error = %v; want it to say how many fit", err)
	}
	// through the bus, whose schema refuses them first
	r := toolbus.NewRegistry()
	if err := r.Register(Finance()); err != nil {
		t.Fatal(err)
	}
	res := r.Run(t.Context(), toolbus.Call{ID: "c1", Key: "k1", Tool: "finance", Args: json.RawMessage(args)})
	if res.Error == nil || res.Error.Code != toolbus.CodeInvalidArgs {
		t.Errorf("bus run with 1001 cash flows = %+v; want invalid_arguments", res)
	}
}

// The longest search: 1000 cash flows changing sign at every step, with
// a cancelled context, stops with the context's error.
func TestFinanceIRRRespectsContext(t *testing.T) {
	flows := make([]float64, maxCashFlows)
	for i := range flows {
		flows[i] = float64(1 - 2*(i%2))
	}
	raw, _ := json.Marshal(map[string]any{"operation": "irr", "cash_flows": flows})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Finance().Tool.Call(ctx, raw); !errors.Is(err, context.Canceled) {
		t.Errorf("irr with a cancelled context: %v; want context.Canceled", err)
	}
	if _, err := irrRoots(ctx, flows); !errors.Is(err, context.Canceled) {
		t.Errorf("irrRoots with a cancelled context: %v; want context.Canceled", err)
	}
}

func BenchmarkFinanceIRR1000(b *testing.B) {
	flows := make([]float64, maxCashFlows)
	flows[0] = -50000
	for i := 1; i < len(flows); i++ {
		flows[i] = 60
	}
	raw := json.RawMessage(fmt.Sprintf(`{"operation":"irr","cash_flows":%s}`, mustJSON(b, flows)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Finance().Tool.Call(b.Context(), raw); err != nil {
			b.Fatal(err)
		}
	}
}

func mustJSON(b *testing.B, v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return string(out)
}
