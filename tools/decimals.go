package tools

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo/toolbus"
)

// decimals are numbers exactly as the model wrote them: value i is
// ints[i] × 10^exp. Sums, variances and least-squares fits over them are
// computed in integers and rounded once, at the end, to the nearest float64,
// so the mean of 0.1 and 0.2 is 0.15 and NIST's NumAcc4 (10000000.1,
// 10000000.3, … ) has a standard deviation of exactly 0.1.
type decimals struct {
	ints []*big.Int
	exp  int
}

// maxDigits is the most significant digits one number may have.
const maxDigits = 64

// readDecimals reads the numbers of the argument field exactly. It refuses a
// number beyond float64's range, one too close to zero for it, and one with
// more than maxDigits significant digits, saying which.
func readDecimals(ctx context.Context, field string, nums []json.Number) (decimals, error) {
	mants := make([]*big.Int, len(nums))
	exps := make([]int, len(nums))
	minExp := math.MaxInt
	for i, n := range nums {
		if i%1024 == 0 && ctx.Err() != nil {
			return decimals{}, ctx.Err()
		}
		m, e, err := readDecimal(field, i, string(n))
		if err != nil {
			return decimals{}, err
		}
		mants[i], exps[i] = m, e
		if m.Sign() != 0 {
			minExp = min(minExp, e)
		}
	}
	if minExp == math.MaxInt {
		minExp = 0 // all zero
	}
	var pow powersOfTen
	for i, m := range mants {
		if m.Sign() != 0 && exps[i] > minExp {
			m.Mul(m, pow.get(exps[i]-minExp))
		}
	}
	return decimals{ints: mants, exp: minExp}, nil
}

// readDecimal splits s, the text of a JSON number, into an integer m and a
// power of ten e with s = m × 10^e, trailing zeros moved into e. s is
// field[i] of the arguments, or field itself when i < 0.
func readDecimal(field string, i int, s string) (*big.Int, int, error) {
	if i >= 0 {
		field = field + "[" + strconv.Itoa(i) + "]"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s is %q, not a number; send plain JSON numbers such as 12.5 or -3e6", field, s)
	}
	mant, expText, _ := strings.Cut(strings.ToLower(s), "e")
	neg := strings.HasPrefix(mant, "-")
	whole, frac, _ := strings.Cut(strings.TrimLeft(mant, "-+"), ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return new(big.Int), 0, nil
	}
	switch {
	case math.IsInf(f, 0):
		return nil, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s is %s, beyond the largest number ryo computes with (about 1.8e308); scale the values down, e.g. to millions", field, s)
	case f == 0:
		return nil, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s is %s, closer to zero than the smallest number ryo computes with (about 5e-324); scale the values up or write it as 0", field, s)
	}
	e, err := strconv.Atoi(expText)
	if expText == "" {
		e, err = 0, nil
	}
	if err != nil {
		return nil, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s has the exponent %q, which is out of range", field, expText)
	}
	e -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed)
	if len(trimmed) > maxDigits {
		return nil, 0, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s has %d significant digits; round it to at most %d", field, len(trimmed), maxDigits)
	}
	m, _ := new(big.Int).SetString(trimmed, 10)
	if neg {
		m.Neg(m)
	}
	return m, e, nil
}

// powersOfTen caches the powers of ten one reading needs.
type powersOfTen map[int]*big.Int

func (p *powersOfTen) get(n int) *big.Int {
	if *p == nil {
		*p = powersOfTen{}
	}
	if v, ok := (*p)[n]; ok {
		return v
	}
	v := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	(*p)[n] = v
	return v
}

// scaled returns num × 10^exp / den as an exact rational. den must not be 0.
func scaled(num, den *big.Int, exp int) *big.Rat {
	var pow powersOfTen
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if exp >= 0 {
		n.Mul(n, pow.get(exp))
	} else {
		d.Mul(d, pow.get(-exp))
	}
	return new(big.Rat).SetFrac(n, d)
}

// exactFloat rounds r to the nearest float64; ok is false when r is beyond
// float64's range.
func exactFloat(r *big.Rat) (v float64, ok bool) {
	v, _ = r.Float64()
	if math.IsInf(v, 0) {
		return 0, false
	}
	return v + 0, true // + 0 turns -0 into 0
}

// exactSqrt rounds the square root of r ≥ 0 to a float64, by way of 128
// bits; ok is false when it is beyond float64's range.
func exactSqrt(r *big.Rat) (float64, bool) {
	f := new(big.Float).SetPrec(128).SetRat(r)
	v, _ := f.Sqrt(f).Float64()
	return v, !math.IsInf(v, 0)
}

// sumInts returns the sum of xs, and the sum of their squares.
func sumInts(ctx context.Context, xs []*big.Int) (sum, squares *big.Int, err error) {
	sum, squares = new(big.Int), new(big.Int)
	var sq big.Int
	for i, x := range xs {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		sum.Add(sum, x)
		squares.Add(squares, sq.Mul(x, x))
	}
	return sum, squares, nil
}

// rounded collects exact results as float64s for a tool's answer, and the
// names of those beyond float64's range, which stay null.
type rounded struct{ tooLarge []string }

func (r *rounded) num(name string, v *big.Rat) *float64 {
	f, ok := exactFloat(v)
	if !ok {
		r.tooLarge = append(r.tooLarge, name)
		return nil
	}
	return &f
}

func (r *rounded) sqrt(name string, v *big.Rat) *float64 {
	f, ok := exactSqrt(v)
	if !ok {
		r.tooLarge = append(r.tooLarge, name)
		return nil
	}
	return &f
}

// note says which results were too large, or "" when none was.
func (r *rounded) note() string {
	if len(r.tooLarge) == 0 {
		return ""
	}
	return strings.Join(r.tooLarge, ", ") + " exceed the largest number ryo can answer with (about 1.8e308) and are null; divide the values by a power of ten to get them"
}
