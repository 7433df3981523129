package tools

import (
	"context"
	"math"
)

// LoanResult is what the finance tool's loan operation returns.
type LoanResult struct {
	Operation      string     `json:"operation"`
	Payment        float64    `json:"payment_per_period"`
	Payments       int        `json:"number_of_payments"`
	TotalPaid      float64    `json:"total_paid"`
	TotalInterest  float64    `json:"total_interest"`
	RatePerPeriod  float64    `json:"rate_per_period_percent"`
	YearlySchedule []LoanYear `json:"yearly_schedule"`
	Terms          string     `json:"terms"`
}

// LoanYear sums one year of a loan's payments.
type LoanYear struct {
	Year          int     `json:"year"`
	PrincipalPaid float64 `json:"principal_paid"`
	InterestPaid  float64 `json:"interest_paid"`
	Balance       float64 `json:"balance_after"`
}

// loan is the level payment that repays principal with interest over the
// term, paid at the end of each period, and what each year of it repays.
func loan(ctx context.Context, a financeArgs) (any, error) {
	if a.PaymentsAtStart {
		return nil, invalidArgs("a loan's payments fall at the end of each period; leave out payments_at_start")
	}
	if a.Years != nil && *a.Years > maxLoanYears {
		return nil, invalidArgs("a loan runs at most %d years here", maxLoanYears)
	}
	if !(a.Principal > 0) {
		return nil, invalidArgs(`loan needs the principal borrowed, above 0, as in {"operation":"loan","principal":200000,"rate":6,"years":30}`)
	}
	t, err := termsOf(a, 12, "principal")
	if err != nil {
		return nil, err
	}
	a.Payment = 0 // the loan's own payment is the result, not an input
	pmt := a.Principal / t.annuity(-math.Expm1(-t.periods*math.Log1p(t.rate)))
	n := int(t.periods)
	if err := allFinite(pmt, pmt*float64(n)); err != nil {
		return nil, err
	}
	years, err := amortize(ctx, a.Principal, pmt, t.rate, n, t.periodsPerYear)
	if err != nil {
		return nil, err
	}
	return LoanResult{Operation: a.Operation, Payment: money(pmt), Payments: n, TotalPaid: money(pmt * float64(n)),
		TotalInterest: money(pmt*float64(n) - a.Principal), RatePerPeriod: percent(t.rate),
		YearlySchedule: years, Terms: t.describe(a) + ", payments at the end of each period"}, nil
}

// amortize runs the loan period by period, as a bank's schedule does, and
// sums each year.
func amortize(ctx context.Context, balance, pmt, rate float64, n, perYear int) ([]LoanYear, error) {
	var years []LoanYear
	for start := 0; start < n; start += perYear {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		y := LoanYear{Year: len(years) + 1}
		for k := start; k < n && k < start+perYear; k++ {
			interest := balance * rate
			balance -= pmt - interest
			y.InterestPaid += interest
			y.PrincipalPaid += pmt - interest
		}
		y.PrincipalPaid, y.InterestPaid, y.Balance = money(y.PrincipalPaid), money(y.InterestPaid), money(balance)
		years = append(years, y)
	}
	years[len(years)-1].Balance = 0 // what is left is rounding
	return years, nil
}
