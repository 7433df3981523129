package tools

import "math"

// The standard normal distribution: its density, its two tails through the
// complementary error function (so that a far tail keeps its relative
// accuracy instead of being 1 minus something close to 1), and its quantile
// by Wichura's algorithm AS 241.

// normalDensity is φ(z) = exp(−z²/2)/√(2π).
func normalDensity(z float64) float64 {
	return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
}

// normalBelow is Φ(z) = P(Z ≤ z).
func normalBelow(z float64) float64 { return math.Erfc(-z/math.Sqrt2) / 2 }

// normalAbove is 1 − Φ(z) = P(Z > z).
func normalAbove(z float64) float64 { return math.Erfc(z/math.Sqrt2) / 2 }

// Coefficients of AS 241 PPND16 (M. J. Wichura, "Algorithm AS 241: The
// Percentage Points of the Normal Distribution", Applied Statistics 37,
// 1988), lowest power first; the denominators' constant term is 1. Accurate
// to about 1 part in 10^16.
var (
	// |p − 0.5| ≤ 0.425
	ppndCentralNum = [8]float64{3.387132872796366608, 133.14166789178437745, 1971.5909503065514427,
		13731.693765509461125, 45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727}
	ppndCentralDen = [8]float64{1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
		21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852545925}
	// r = √(−ln min(p, 1−p)) ≤ 5, in r − 1.6
	ppndNearNum = [8]float64{1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055,
		3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833,
		7.7454501427834140764e-4}
	ppndNearDen = [8]float64{1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
		0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9}
	// r > 5, in r − 5
	ppndFarNum = [8]float64{6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358,
		0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5,
		2.01033439929228813265e-7}
	ppndFarDen = [8]float64{1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
		7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15}
)

// normalQuantile is the z with Φ(z) = p, for 0 < p < 1.
func normalQuantile(p float64) float64 {
	q := p - 0.5
	if math.Abs(q) <= 0.425 {
		r := 0.180625 - q*q
		return q * polynomial(ppndCentralNum, r) / polynomial(ppndCentralDen, r)
	}
	r := p
	if q > 0 {
		r = 1 - p // exact for p ≥ 0.5
	}
	r = math.Sqrt(-math.Log(r))
	var z float64
	if r <= 5 {
		r -= 1.6
		z = polynomial(ppndNearNum, r) / polynomial(ppndNearDen, r)
	} else {
		r -= 5
		z = polynomial(ppndFarNum, r) / polynomial(ppndFarDen, r)
	}
	if q < 0 {
		return -z
	}
	return z
}

// polynomial evaluates c[0] + c[1]·x + … by Horner's rule.
func polynomial(c [8]float64, x float64) float64 {
	v := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		v = v*x + c[i]
	}
	return v
}
