package tools

import "math"

// Binomial and Poisson probabilities by Catherine Loader's saddle-point
// method ("Fast and Accurate Computation of Binomial Probabilities", 2000;
// the method R's dbinom and dpois use). Writing n! through Stirling's
// formula and its error term, and x·ln(x/m) + m − x through a series when x
// is near m, keeps every term small, so P(X = x) stays accurate to about
// 15 digits for n in the billions, where n!/(x!(n−x)!)·p^x·q^(n−x) and
// even log-gamma differences lose most of their digits.

// stirlingErrors are ln(n!) − ln(√(2πn)·(n/e)^n) for n = 0 … 15.
var stirlingErrors = [16]float64{
	0,
	0.0810614667953272582196702, 0.0413406959554092940938221, 0.02767792568499833914878929,
	0.02079067210376509311152277, 0.01664469118982119216319487, 0.01387612882307074799874573,
	0.01189670994589177009505572, 0.01041126526197209649747856, 0.009255462182712732917728637,
	0.008330563433362871256469318, 0.007573675487951840794972024, 0.006942840107209529865664152,
	0.006408994188004207068439631, 0.005951370112758847735624416, 0.005554733551962801371038690,
}

// stirlingError is ln(n!) − ln(√(2πn)·(n/e)^n) for a whole n ≥ 0: the
// table up to 15, and the asymptotic series 1/(12n) − 1/(360n³) + … above.
func stirlingError(n float64) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= 15 {
		return stirlingErrors[int(n)]
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// deviance is x·ln(x/m) + m − x, the saddle-point exponent, computed by its
// series in v = (x−m)/(x+m) when x is near m, where the direct formula
// would cancel.
func deviance(x, m float64) float64 {
	if math.Abs(x-m) >= 0.1*(x+m) {
		return x*math.Log(x/m) + m - x
	}
	v := (x - m) / (x + m)
	s := (x - m) * v
	ej := 2 * x * v
	v *= v
	for j := 3.0; j < 1000; j += 2 {
		ej *= v
		next := s + ej/j
		if next == s {
			break
		}
		s = next
	}
	return s
}

// binomialLogPMF is ln P(X = x) for X binomial with n trials and success
// chance p (q = 1 − p, given separately so that neither loses digits); −Inf
// where the probability is 0.
func binomialLogPMF(x, n, p, q float64) float64 {
	switch {
	case x < 0 || x > n:
		return math.Inf(-1)
	case p == 0:
		return zeroUnless(x == 0)
	case q == 0:
		return zeroUnless(x == n)
	case x == 0:
		if p < 0.1 {
			return -deviance(n, n*q) - n*p
		}
		return n * math.Log(q)
	case x == n:
		if q < 0.1 {
			return -deviance(n, n*p) - n*q
		}
		return n * math.Log(p)
	}
	lc := stirlingError(n) - stirlingError(x) - stirlingError(n-x) - deviance(x, n*p) - deviance(n-x, n*q)
	lf := math.Log(2*math.Pi) + math.Log(x) + math.Log1p(-x/n)
	return lc - lf/2
}

// poissonLogPMF is ln P(X = x) for X Poisson with mean m.
func poissonLogPMF(x, m float64) float64 {
	switch {
	case x < 0:
		return math.Inf(-1)
	case m == 0:
		return zeroUnless(x == 0)
	case x == 0:
		return -m
	}
	return -stirlingError(x) - deviance(x, m) - math.Log(2*math.Pi*x)/2
}

// zeroUnless is the log of a probability that is 1 when certain and 0
// otherwise.
func zeroUnless(certain bool) float64 {
	if certain {
		return 0
	}
	return math.Inf(-1)
}
