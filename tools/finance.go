package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/ryo-bot/ryo/toolbus"
)

// Limits of the finance tool's inputs.
const (
	maxFinanceYears = 1000 // of compounding
	maxLoanYears    = 100  // one schedule row a year
	maxCashFlows    = 1000
)

const financeSchema = `{
  "type": "object",
  "properties": {
    "operation": {
      "type": "string",
      "enum": ["compound_interest", "future_value", "present_value", "loan", "npv", "irr", "cagr"],
      "description": "compound_interest (same as future_value): principal, rate, years, optional payment. present_value: future_amount and/or payment, rate, years. loan: principal, rate, years. npv: rate, cash_flows. irr: cash_flows. cagr: start_value, end_value, years."
    },
    "rate": {"type": "number", "description": "Yearly interest rate in percent, e.g. 5 for 5%. For npv: the discount rate per cash-flow period, in percent."},
    "years": {"type": "number", "description": "How long, in years, e.g. 30 or 2.5."},
    "periods_per_year": {"type": "integer", "minimum": 1, "maximum": 365, "description": "Compounding and payment periods a year: 12 monthly, 4 quarterly, 1 yearly. Default 12 for loan, 1 otherwise."},
    "principal": {"type": "number", "description": "The amount today: invested (compound_interest) or borrowed (loan)."},
    "payment": {"type": "number", "description": "An amount added every period, e.g. a monthly saving of 200 (compound_interest, present_value)."},
    "payments_at_start": {"type": "boolean", "description": "True when each payment is made at the start of its period; default false, at the end."},
    "future_amount": {"type": "number", "description": "For present_value: a sum received at the end, e.g. 10000."},
    "cash_flows": {"type": "array", "items": {"type": "number"}, "description": "For npv and irr: up to 1,000 amounts, one per period, the first one now, money paid out negative, e.g. [-1000, 300, 400, 500]."},
    "start_value": {"type": "number", "description": "For cagr: the value at the start, e.g. 1000."},
    "end_value": {"type": "number", "description": "For cagr: the value at the end, e.g. 1500."}
  },
  "required": ["operation"],
  "additionalProperties": false
}`

// financeArgs are the finance tool's arguments; each operation reads some.
type financeArgs struct {
	Operation       string    `json:"operation"`
	Rate            *float64  `json:"rate"`
	Years           *float64  `json:"years"`
	PeriodsPerYear  int       `json:"periods_per_year"`
	Principal       float64   `json:"principal"`
	Payment         float64   `json:"payment"`
	PaymentsAtStart bool      `json:"payments_at_start"`
	FutureAmount    float64   `json:"future_amount"`
	CashFlows       []float64 `json:"cash_flows"`
	StartValue      *float64  `json:"start_value"`
	EndValue        *float64  `json:"end_value"`
}

// Finance returns the finance tool: the time value of money computed from
// the closed formulas, and IRR found by bracketing every sign change of the
// NPV rather than by Newton's method alone.
func Finance() toolbus.Spec {
	return readOnly("finance",
		"Calculate money over time: compound interest with regular payments, present and future value, loan payment "+
			"and yearly amortization, NPV, IRR (every one when there are several) and CAGR.",
		toolbus.MathFinance, financeSchema, finance,
		example("I invest 10,000 at 5% a year and add 200 every month. How much do I have after 10 years?",
			`{"operation":"compound_interest","principal":10000,"rate":5,"years":10,"periods_per_year":12,"payment":200}`),
		example("A project costs 1,000 now and returns 300, 400 and 500 over three years. What is its IRR?",
			`{"operation":"irr","cash_flows":[-1000,300,400,500]}`))
}

func finance(ctx context.Context, raw json.RawMessage) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var a financeArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	switch a.Operation {
	case "compound_interest", "future_value":
		return futureValue(a)
	case "present_value":
		return presentValue(a)
	case "loan":
		return loan(ctx, a)
	case "npv":
		return npv(a)
	case "irr":
		return irr(ctx, a)
	case "cagr":
		return cagr(a)
	}
	return nil, invalidArgs("unknown operation %q; use one of compound_interest, future_value, present_value, loan, npv, irr, cagr", a.Operation)
}

// FutureValueResult is what compound_interest and future_value return.
type FutureValueResult struct {
	Operation     string  `json:"operation"`
	FutureValue   float64 `json:"future_value"`
	TotalPaidIn   float64 `json:"total_paid_in"` // the principal and every payment
	Interest      float64 `json:"interest_earned"`
	Periods       float64 `json:"periods"`
	RatePerPeriod float64 `json:"rate_per_period_percent"`
	Terms         string  `json:"terms"`
}

func futureValue(a financeArgs) (any, error) {
	if a.Principal == 0 && a.Payment == 0 {
		return nil, invalidArgs(`%s needs a principal, a payment or both, as in {"operation":%q,"principal":1000,"payment":50,"rate":5,"years":10,"periods_per_year":12}`, a.Operation, a.Operation)
	}
	t, err := termsOf(a, 1, "principal")
	if err != nil {
		return nil, err
	}
	growth := t.growth()
	fv := a.Principal*growth + a.Payment*t.annuity(math.Expm1(t.periods*math.Log1p(t.rate)))
	paidIn := a.Principal + a.Payment*t.periods
	if err := allFinite(fv, paidIn, fv-paidIn); err != nil {
		return nil, err
	}
	return FutureValueResult{Operation: a.Operation, FutureValue: money(fv), TotalPaidIn: money(paidIn),
		Interest: money(fv - paidIn), Periods: t.periods, RatePerPeriod: percent(t.rate), Terms: t.describe(a)}, nil
}

// PresentValueResult is what present_value returns.
type PresentValueResult struct {
	Operation     string  `json:"operation"`
	PresentValue  float64 `json:"present_value"`
	Periods       float64 `json:"periods"`
	RatePerPeriod float64 `json:"rate_per_period_percent"`
	Terms         string  `json:"terms"`
}

func presentValue(a financeArgs) (any, error) {
	if a.FutureAmount == 0 && a.Payment == 0 {
		return nil, invalidArgs(`present_value needs a future_amount, a payment or both, as in {"operation":"present_value","future_amount":10000,"rate":5,"years":10}`)
	}
	t, err := termsOf(a, 1, "future_amount")
	if err != nil {
		return nil, err
	}
	discount := math.Exp(-t.periods * math.Log1p(t.rate)) // (1+i)^-n
	pv := a.FutureAmount*discount + a.Payment*t.annuity(-math.Expm1(-t.periods*math.Log1p(t.rate)))
	if err := allFinite(pv); err != nil {
		return nil, err
	}
	return PresentValueResult{Operation: a.Operation, PresentValue: money(pv), Periods: t.periods,
		RatePerPeriod: percent(t.rate), Terms: t.describe(a)}, nil
}

// CAGRResult is what cagr returns.
type CAGRResult struct {
	Operation  string  `json:"operation"`
	CAGR       float64 `json:"cagr_percent"`
	StartValue float64 `json:"start_value"`
	EndValue   float64 `json:"end_value"`
	Years      float64 `json:"years"`
}

func cagr(a financeArgs) (any, error) {
	switch {
	case a.StartValue == nil || a.EndValue == nil || a.Years == nil:
		return nil, invalidArgs(`cagr needs start_value, end_value and years, as in {"operation":"cagr","start_value":1000,"end_value":1500,"years":5}`)
	case *a.StartValue <= 0 || *a.EndValue < 0:
		return nil, invalidArgs("cagr needs a start_value above 0 and an end_value of 0 or more; a growth rate of a value that changes sign is not defined")
	case !(*a.Years > 0) || *a.Years > maxFinanceYears:
		return nil, invalidArgs("years must be above 0 and at most %d", maxFinanceYears)
	}
	// Logarithms, since end/start overflows for a huge end over a tiny start.
	g := math.Expm1((math.Log(*a.EndValue) - math.Log(*a.StartValue)) / *a.Years)
	if err := allFinite(g); err != nil {
		return nil, err
	}
	return CAGRResult{Operation: a.Operation, CAGR: percent(g), StartValue: *a.StartValue, EndValue: *a.EndValue, Years: *a.Years}, nil
}

// terms are the rate and length of a time-value calculation.
type terms struct {
	rate           float64 // per period, as a fraction
	periods        float64
	periodsPerYear int
	atStart        bool
}

// termsOf reads rate, years and periods_per_year. A payment needs a whole
// number of periods; a single sum compounds over a fraction too.
func termsOf(a financeArgs, defaultPerYear int, amount string) (terms, error) {
	if a.Rate == nil || a.Years == nil {
		return terms{}, invalidArgs(`%s needs rate (yearly, in percent) and years, as in {"operation":%q,%q:1000,"rate":5,"years":10}`, a.Operation, a.Operation, amount)
	}
	t := terms{periodsPerYear: a.PeriodsPerYear, atStart: a.PaymentsAtStart}
	if t.periodsPerYear == 0 {
		t.periodsPerYear = defaultPerYear
	}
	if t.periodsPerYear < 1 || t.periodsPerYear > 365 {
		return terms{}, invalidArgs("periods_per_year must be 1 to 365, e.g. 12 for monthly")
	}
	if !(*a.Rate > -100) {
		return terms{}, invalidArgs("rate must be above -100 percent; give it in percent, e.g. 5 for 5%%")
	}
	if !(*a.Years > 0) || *a.Years > maxFinanceYears {
		return terms{}, invalidArgs("years must be above 0 and at most %d", maxFinanceYears)
	}
	t.rate = *a.Rate / 100 / float64(t.periodsPerYear)
	t.periods = *a.Years * float64(t.periodsPerYear)
	if r := math.Round(t.periods); math.Abs(t.periods-r) < 1e-9*t.periods {
		t.periods = r
	} else if a.Payment != 0 || a.Operation == "loan" {
		return terms{}, invalidArgs("%s years at %d periods a year is %s periods; payments need a whole number of periods, so change years or periods_per_year",
			formatNumber(*a.Years), t.periodsPerYear, formatNumber(present(t.periods)))
	}
	if t.rate <= -1 {
		return terms{}, invalidArgs("a rate of %s%% a year split over %d periods leaves nothing each period; give a yearly rate above -100%%", formatNumber(*a.Rate), t.periodsPerYear)
	}
	return t, nil
}

// growth is (1+i)^n.
func (t terms) growth() float64 { return math.Exp(t.periods * math.Log1p(t.rate)) }

// annuity is the value of one per period: for a future value, factor is
// (1+i)^n - 1 and the result is ((1+i)^n - 1)/i; for a present value,
// factor is 1 - (1+i)^-n. Payments at the start earn one period more.
func (t terms) annuity(factor float64) float64 {
	v := t.periods
	if t.rate != 0 {
		v = factor / t.rate
	}
	if t.atStart {
		v *= 1 + t.rate
	}
	return v
}

// describe says in words what the calculation assumed.
func (t terms) describe(a financeArgs) string {
	s := fmt.Sprintf("%s%% a year compounded %s", formatNumber(*a.Rate), timesAYear(t.periodsPerYear))
	if a.Payment != 0 {
		when := "end"
		if t.atStart {
			when = "start"
		}
		s += fmt.Sprintf(", a payment of %s at the %s of each period", formatNumber(a.Payment), when)
	}
	return s
}

func timesAYear(n int) string {
	switch n {
	case 1:
		return "once a year"
	case 2:
		return "twice a year"
	}
	return fmt.Sprintf("%d times a year", n)
}

// money rounds an amount to cents, unless it is so large that cents are
// below what a float64 can tell apart.
func money(v float64) float64 {
	if math.Abs(v) < 1e13 {
		v = math.Round(v*100) / 100
	}
	return present(v)
}

// percent turns a fraction into a percentage with 10 significant digits.
func percent(fraction float64) float64 {
	return present(roundSignificant(fraction*100, 10))
}

// allFinite refuses results that overflowed.
func allFinite(vs ...float64) error {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return mathErrorf("the result is too large for a number; use smaller amounts, a lower rate or fewer years")
		}
	}
	return nil
}

func invalidArgs(format string, args ...any) error {
	return toolbus.Errorf(toolbus.CodeInvalidArgs, format, args...)
}
