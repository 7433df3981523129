package tools

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
)

// The IRR search looks for roots of the NPV in x = 1/(1+r) on a geometric
// grid from irrMinX (r = 99,999,900%) to irrMaxX (r = -99.9%): irrGrid
// points, about 0.35% apart, so two IRRs closer than about a third of a
// percentage point (near 0%) may be seen as one.
const (
	irrMinX = 1e-6
	irrMaxX = 1e3
	irrGrid = 6000
)

// npvConvention is how npv and irr read cash_flows.
const npvConvention = "cash_flows[0] is now and not discounted; cash_flows[t] is discounted by (1+rate)^t. " +
	"(A spreadsheet's NPV() discounts its first value too.)"

// NPVResult is what npv returns.
type NPVResult struct {
	Operation  string  `json:"operation"`
	NPV        float64 `json:"npv"`
	Rate       float64 `json:"rate_per_period_percent"`
	Periods    int     `json:"periods"`
	Convention string  `json:"convention"`
}

func npv(a financeArgs) (any, error) {
	if a.Rate == nil || len(a.CashFlows) == 0 {
		return nil, invalidArgs(`npv needs rate (per period, in percent) and cash_flows, as in {"operation":"npv","rate":8,"cash_flows":[-1000,300,400,500]}`)
	}
	if err := checkCashFlows(a.CashFlows); err != nil {
		return nil, err
	}
	if !(*a.Rate > -100) {
		return nil, invalidArgs("rate must be above -100 percent; give it in percent, e.g. 8 for 8%%")
	}
	v := 0.0
	for t, c := range a.CashFlows {
		v += c * math.Exp(-float64(t)*math.Log1p(*a.Rate/100))
	}
	if err := allFinite(v); err != nil {
		return nil, err
	}
	return NPVResult{Operation: a.Operation, NPV: money(v), Rate: *a.Rate, Periods: len(a.CashFlows) - 1, Convention: npvConvention}, nil
}

// IRRResult is what irr returns. IRR is set only when there is exactly
// one; IRRs lists every one found.
type IRRResult struct {
	Operation   string    `json:"operation"`
	IRR         *float64  `json:"irr_percent,omitempty"`
	IRRs        []float64 `json:"irrs_percent"`
	YearlyIRR   *float64  `json:"yearly_irr_percent,omitempty"` // when periods_per_year is given and there is one IRR
	SignChanges int       `json:"sign_changes"`
	Note        string    `json:"note"`
	Convention  string    `json:"convention"`
}

func irr(ctx context.Context, a financeArgs) (any, error) {
	if err := checkCashFlows(a.CashFlows); err != nil {
		return nil, err
	}
	changes := signChanges(a.CashFlows)
	if changes == 0 {
		return nil, invalidArgs("cash_flows need money paid out (negative) and money coming in (positive) for an IRR, e.g. [-1000, 300, 400, 500]")
	}
	roots, err := irrRoots(ctx, a.CashFlows)
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return nil, mathErrorf("these cash flows have no IRR between -99.9%% and 99,999,900%%: their NPV is never 0 there; compare projects by npv instead")
	}
	res := IRRResult{Operation: a.Operation, SignChanges: changes, Convention: npvConvention}
	for _, r := range roots {
		res.IRRs = append(res.IRRs, irrPercent(r))
	}
	res.Note = irrNote(res.IRRs, changes)
	if len(roots) == 1 {
		res.IRR = &res.IRRs[0]
		if y := math.Expm1(float64(a.PeriodsPerYear) * math.Log1p(roots[0])); a.PeriodsPerYear > 1 && !math.IsInf(y, 0) {
			y = percent(y)
			res.YearlyIRR = &y
		}
	}
	return res, nil
}

// irrPercent is an IRR in percent to 6 decimals: a root of multiplicity m
// is only as sure as the m-th root of the rounding, so a triple one at 0%
// comes out 1e-13% off, and that is noise.
func irrPercent(r float64) float64 {
	return present(math.Round(r*1e8) / 1e6)
}

// irrNote says how far the IRRs found can be trusted.
func irrNote(irrs []float64, changes int) string {
	list := make([]string, len(irrs))
	for i, v := range irrs {
		list[i] = formatNumber(v) + "%"
	}
	switch {
	case len(irrs) > 1:
		return fmt.Sprintf("the cash flows change sign %d times and have %d IRRs: %s; no single IRR describes them, so judge them by npv at your own discount rate",
			changes, len(irrs), strings.Join(list, ", "))
	case changes == 1:
		return "the cash flows change sign once, so this IRR is the only one"
	}
	return fmt.Sprintf("the cash flows change sign %d times, so there could be several IRRs, but only %s was found", changes, list[0])
}

func checkCashFlows(flows []float64) error {
	switch {
	case len(flows) < 2:
		return invalidArgs("cash_flows needs at least two amounts, the first one now, e.g. [-1000, 300, 400, 500]")
	case len(flows) > maxCashFlows:
		return invalidArgs("cash_flows has %d amounts; at most %d fit, so use yearly instead of monthly amounts", len(flows), maxCashFlows)
	}
	return nil
}

func signChanges(flows []float64) int {
	n, last := 0, 0.0
	for _, c := range flows {
		if c == 0 {
			continue
		}
		if last != 0 && (c > 0) != (last > 0) {
			n++
		}
		last = c
	}
	return n
}

// irrRoots finds the rates at which the NPV of flows is zero, ascending.
// With x = 1/(1+r) the NPV is the polynomial sum c_t x^t; its roots are
// bracketed on a grid, where it changes sign, and bisected to full
// precision, so the search never diverges as Newton's method can. A root
// where the NPV only touches zero, such as the double one of [-1, 2, -1],
// is found as a minimum of |NPV| that is zero to rounding.
func irrRoots(ctx context.Context, flows []float64) ([]float64, error) {
	p := newNPVPoly(flows)
	xs, vs := make([]float64, irrGrid+1), make([]float64, irrGrid+1)
	step := math.Log(irrMaxX/irrMinX) / irrGrid
	for k := range xs {
		if k%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		xs[k] = irrMinX * math.Exp(float64(k)*step)
		vs[k] = p.at(xs[k])
	}
	var roots []float64
	for k := range xs {
		switch {
		case vs[k] == 0:
			roots = append(roots, xs[k])
		case k > 0 && vs[k-1] != 0 && (vs[k] > 0) != (vs[k-1] > 0):
			roots = append(roots, p.bisect(xs[k-1], xs[k]))
		case k > 0 && k < irrGrid && touches(vs[k-1], vs[k], vs[k+1]):
			if x, ok := p.touch(xs[k-1], xs[k+1]); ok {
				roots = append(roots, x)
			}
		}
	}
	rates := make([]float64, len(roots))
	for i, x := range roots {
		rates[i] = 1/x - 1
	}
	sort.Float64s(rates)
	return rates, nil
}

// touches says whether the middle of three same-signed values is the
// nearest to zero.
func touches(a, b, c float64) bool {
	return a != 0 && c != 0 && (a > 0) == (b > 0) && (b > 0) == (c > 0) && math.Abs(b) < math.Abs(a) && math.Abs(b) < math.Abs(c)
}

// npvPoly is the NPV as a polynomial in x = 1/(1+r), its coefficients
// scaled to at most 1 in size so that no sum overflows.
type npvPoly struct{ c []float64 }

func newNPVPoly(flows []float64) npvPoly {
	scale := 0.0
	for _, c := range flows {
		scale = math.Max(scale, math.Abs(c))
	}
	c := make([]float64, len(flows))
	for i, v := range flows {
		c[i] = v / scale
	}
	return npvPoly{c}
}

// at is the NPV at x, divided by x^T when x > 1: the same sign and roots,
// without overflow.
func (p npvPoly) at(x float64) float64 {
	v, _ := p.atWithScale(x)
	return v
}

// atWithScale also returns the sum of the terms' sizes, against which a
// value counts as zero.
func (p npvPoly) atWithScale(x float64) (v, size float64) {
	if x <= 1 {
		for t := len(p.c) - 1; t >= 0; t-- {
			v, size = v*x+p.c[t], size*x+math.Abs(p.c[t])
		}
		return v, size
	}
	y := 1 / x
	for _, c := range p.c {
		v, size = v*y+c, size*y+math.Abs(c)
	}
	return v, size
}

// bisect narrows a sign change of p in [lo, hi] to adjacent floats.
func (p npvPoly) bisect(lo, hi float64) float64 {
	vlo := p.at(lo)
	for i := 0; i < 200; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		vm := p.at(mid)
		if vm == 0 {
			return mid
		}
		if (vm > 0) == (vlo > 0) {
			lo, vlo = mid, vm
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// touch finds the minimum of |p| in [lo, hi] by golden-section search and
// reports it when it is zero to within rounding. The root is then pinned
// where the slope changes sign, which rounding blurs far less than the
// value near a double root.
func (p npvPoly) touch(lo, hi float64) (float64, bool) {
	const g = 0.6180339887498949
	a, b := lo, hi
	for i := 0; i < 200 && b-a > 1e-15*b; i++ {
		c, d := b-g*(b-a), a+g*(b-a)
		if math.Abs(p.at(c)) < math.Abs(p.at(d)) {
			b = d
		} else {
			a = c
		}
	}
	x := a + (b-a)/2
	if v, size := p.atWithScale(x); math.Abs(v) > 1e-9*size {
		return 0, false
	}
	slo, shi := p.slope(lo), p.slope(hi)
	if slo == 0 || shi == 0 || (slo > 0) == (shi > 0) {
		return x, true
	}
	for i := 0; i < 200; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		s := p.slope(mid)
		if s == 0 {
			return mid, true
		}
		if (s > 0) == (slo > 0) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2, true
}

// slope is the derivative in x of what at returns.
func (p npvPoly) slope(x float64) float64 {
	var v, d float64
	if x <= 1 {
		for t := len(p.c) - 1; t >= 0; t-- {
			d, v = d*x+v, v*x+p.c[t]
		}
		return d
	}
	y := 1 / x
	for _, c := range p.c {
		d, v = d*y+v, v*y+c
	}
	return -d * y * y // d/dx = d/dy · dy/dx
}
