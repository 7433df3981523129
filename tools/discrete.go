package tools

import (
	"context"
	"math"
)

// discrete is a binomial or Poisson distribution on the whole numbers
// low … high.
type discrete struct {
	low, high      int64
	mean, sd, skew float64
	logPMF         func(x float64) float64
	// ratio is P(X = x+1)/P(X = x); the ratio downwards is its inverse at
	// x − 1.
	ratio func(x float64) float64
}

func binomial(n int64, p float64) *discrete {
	q := 1 - p
	nf := float64(n)
	d := &discrete{low: 0, high: n, mean: nf * p, sd: math.Sqrt(nf * p * q),
		logPMF: func(x float64) float64 { return binomialLogPMF(x, nf, p, q) },
		ratio:  func(x float64) float64 { return (nf - x) / (x + 1) * (p / q) }}
	if d.sd > 0 {
		d.skew = (q - p) / d.sd
	}
	switch {
	case p == 0:
		d.high = 0
	case p == 1:
		d.low = n
	}
	return d
}

func poisson(m float64) *discrete {
	d := &discrete{low: 0, high: math.MaxInt64, mean: m, sd: math.Sqrt(m),
		logPMF: func(x float64) float64 { return poissonLogPMF(x, m) },
		ratio:  func(x float64) float64 { return m / (x + 1) }}
	if m == 0 {
		d.high = 0
	} else {
		d.skew = 1 / d.sd
	}
	return d
}

func (d *discrete) pmf(x int64) float64 { return math.Exp(d.logPMF(float64(x))) }

// Summing a tail stops when what is left is below tailTolerance of the sum;
// every anchorEvery terms the running product is replaced by a fresh
// saddle-point value, so rounding cannot pile up over a long tail, and the
// sum itself is compensated (Neumaier), as a tail near the mean has
// hundreds of thousands of terms.
const (
	tailTolerance = 1e-17
	anchorEvery   = 16
)

// tail is P(X ≤ x) when dir is −1, or P(X ≥ x) when dir is +1, summed from x
// away from it. Binomial and Poisson probabilities are log-concave: past the
// mode each term is a smaller fraction r of the one before, so what is left
// after a term t is below t·r/(1 − r), and the sum stops when that is
// negligible.
func (d *discrete) tail(ctx context.Context, x int64, dir int64) (float64, error) {
	switch {
	case dir < 0 && x < d.low, dir > 0 && x > d.high:
		return 0, nil
	case dir < 0 && x >= d.high, dir > 0 && x <= d.low:
		return 1, nil
	}
	var sum compensated
	t := d.pmf(x)
	for i := 1; ; i++ {
		sum.add(t)
		if x == d.low && dir < 0 || x == d.high && dir > 0 {
			return sum.value(), nil
		}
		r := d.ratio(float64(x))
		if dir < 0 {
			r = 1 / d.ratio(float64(x-1))
		}
		if r < 1 && t*r <= (1-r)*sum.value()*tailTolerance {
			return sum.value(), nil
		}
		x += dir
		if i%anchorEvery == 0 {
			t = d.pmf(x)
		} else {
			t *= r
		}
		if i%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
}

// compensated is a sum that carries its rounding errors along (Neumaier's
// improvement of Kahan's summation).
type compensated struct{ sum, carry float64 }

func (c *compensated) add(v float64) {
	s := c.sum + v
	if math.Abs(c.sum) >= math.Abs(v) {
		c.carry += (c.sum - s) + v
	} else {
		c.carry += (v - s) + c.sum
	}
	c.sum = s
}

func (c *compensated) value() float64 { return c.sum + c.carry }

// split returns P(X ≤ x) and P(X > x). The smaller of the two is summed
// and the other is 1 minus it; the side of the mean says which is
// smaller, and a sum past one half is checked by summing the other side.
func (d *discrete) split(ctx context.Context, x int64) (atMost, above float64, err error) {
	if float64(x) < d.mean {
		if atMost, err = d.tail(ctx, x, -1); err != nil || atMost <= 0.5 {
			return atMost, 1 - atMost, err
		}
		above, err = d.tail(ctx, x+1, 1)
		return atMost, above, err
	}
	if above, err = d.tail(ctx, x+1, 1); err != nil || above <= 0.5 {
		return 1 - above, above, err
	}
	atMost, err = d.tail(ctx, x, -1)
	return atMost, above, err
}

// quantile is the smallest x with P(X ≤ x) ≥ p, for 0 < p < 1. A
// Cornish–Fisher guess is bracketed by doubling steps and narrowed by
// bisection. As in R's qbinom, p is eased by 64 units of rounding so that
// a cumulative probability that is p exactly is not missed through its
// last bit; above one half the upper tail is compared, where the digits
// are.
func (d *discrete) quantile(ctx context.Context, p float64) (int64, error) {
	if d.low == d.high {
		return d.low, nil
	}
	meets := func(x int64) (bool, error) {
		atMost, above, err := d.split(ctx, x)
		if p <= 0.5 {
			return atMost >= p*(1-64*epsilon), err
		}
		return above <= (1-p)*(1+64*epsilon), err
	}
	z := normalQuantile(p)
	guess := math.Round(d.mean + d.sd*(z+d.skew*(z*z-1)/6))
	x := int64(math.Max(float64(d.low), math.Min(guess, float64(d.high))))
	ok, err := meets(x)
	if err != nil {
		return 0, err
	}
	if ok { // step down until a value falls short
		hi := x
		for step := int64(1); hi > d.low; step *= 2 {
			lo := max(d.low, hi-step)
			if ok, err := meets(lo); err != nil || !ok {
				return bisect(lo, hi, meets, err)
			}
			hi = lo
		}
		return d.low, nil
	}
	lo := x // step up until a value meets p; P(X ≤ high) = 1 always does
	for step := int64(1); ; step *= 2 {
		hi := min(d.high, saturatingAdd(lo, step))
		if ok, err := meets(hi); err != nil || ok {
			return bisect(lo, hi, meets, err)
		}
		lo = hi
	}
}

// bisect narrows lo < hi, where meets(hi) holds and meets(lo) does not, to
// the smallest value that meets.
func bisect(lo, hi int64, meets func(int64) (bool, error), err error) (int64, error) {
	for err == nil && hi-lo > 1 {
		mid := lo + (hi-lo)/2
		var ok bool
		if ok, err = meets(mid); ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, err
}

// epsilon is the spacing of float64s just above 1.
const epsilon = 0x1p-52

func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
