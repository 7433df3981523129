package tools

import (
	"fmt"
	"math"
)

// node is a parsed expression that can be evaluated.
type node interface {
	eval() (float64, error)
}

type number float64

func (n number) eval() (float64, error) { return float64(n), nil }

type negation struct{ x node }

func (n *negation) eval() (float64, error) {
	v, err := n.x.eval()
	return -v, err
}

// binary is an operator with two operands; pos is the operator's position.
type binary struct {
	op          rune
	pos         int
	left, right node
}

func (b *binary) eval() (float64, error) {
	l, err := b.left.eval()
	if err != nil {
		return 0, err
	}
	r, err := b.right.eval()
	if err != nil {
		return 0, err
	}
	v, err := b.apply(l, r)
	if err != nil {
		return 0, err
	}
	return finite(v, fmt.Sprintf("'%c' at position %d", b.op, b.pos))
}

func (b *binary) apply(l, r float64) (float64, error) {
	switch b.op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	case '/':
		if r == 0 {
			return 0, mathErrorf("division by zero at position %d", b.pos)
		}
		return l / r, nil
	case '%':
		if r == 0 {
			return 0, mathErrorf("modulo by zero at position %d", b.pos)
		}
		return math.Mod(l, r), nil
	}
	return math.Pow(l, r), nil
}

// call is a function applied to its arguments; pos is the name's position.
type call struct {
	name string
	fn   function
	pos  int
	args []node
}

func (c *call) eval() (float64, error) {
	xs := make([]float64, len(c.args))
	for i, arg := range c.args {
		v, err := arg.eval()
		if err != nil {
			return 0, err
		}
		xs[i] = v
	}
	v, err := c.fn.apply(xs)
	if err != nil {
		return 0, mathErrorf("%s %v (at position %d)", c.name, err, c.pos)
	}
	return finite(v, fmt.Sprintf("%s at position %d", c.name, c.pos))
}

// finite refuses infinities and NaN, naming where they came from.
func finite(v float64, where string) (float64, error) {
	switch {
	case math.IsNaN(v):
		return 0, mathErrorf("the result of %s is not a real number (a fractional power of a negative number?)", where)
	case math.IsInf(v, 0):
		return 0, mathErrorf("the result of %s is too large", where)
	}
	return v, nil
}
