package tools

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		// precedence and associativity
		{"1+2*3", 7},
		{"(1+2)*3", 9},
		{"10-4-3", 3},
		{"100/10/5", 2},
		{"2^3^2", 512},
		{"2**3**2", 512},
		{"2^3*2", 16},
		{"1 - 2 * 3 ^ 2 / 6 + 4 % 3", -1},
		{"((((1))))", 1},
		{strings.Repeat("(", 100) + "7" + strings.Repeat(")", 100), 7},
		// unary
		{"-2^2", -4},
		{"(-2)^2", 4},
		{"-3^2+1", -8},
		{"2^-1", 0.5},
		{"-2^-2", -0.25},
		{"-(-3)", 3},
		{"+5", 5},
		{"--5", 5},
		{"-+-5", 5},
		{"3 - -2", 5},
		{"2*-3", -6},
		{strings.Repeat("-", 100) + "1", 1},
		// numbers
		{".5+1.5", 2},
		{"5.", 5},
		{"007", 7},
		{"1e3", 1000},
		{"1E-2", 0.01},
		{"2.5e+2", 250},
		{"1e-400", 0},
		// operators
		{"7 % 3", 1},
		{"-7 % 3", -1},
		{"5.5 % 2", 1.5},
		{"6×7", 42},
		{"84÷2", 42},
		{"50−8", 42},
		{"−2^2", -4},
		// functions and constants, in any case
		{"sqrt(16)", 4},
		{"SQRT(16)", 4},
		{"Sqrt(2)", math.Sqrt2},
		{"abs(-3)", 3},
		{"round(2.5)", 3},
		{"round(-2.5)", -3},
		{"round(3.14159, 2)", 3.14},
		{"round(1234.5, -2)", 1200},
		{"round(1e300, 3)", 1e300},
		{"min(3, 1, 2)", 1},
		{"min(-1, -2)", -2},
		{"max(3)", 3},
		{"max(1,2,3)*2", 6},
		{"log(1000)", 3},
		{"ln(e)", 1},
		{"ln(1)", 0},
		{"sin(0)", 0},
		{"cos(pi)", -1},
		{"tan(0)", 0},
		{"sin(pi/2)", 1},
		{"pi", math.Pi},
		{"PI", math.Pi},
		{"π", math.Pi},
		{"e", math.E},
		{"E", math.E},
		{"2^0.5", math.Sqrt2},
		{"sqrt(16)^2", 16},
		{"(17.5 * 3) / 4 + sqrt(16)", 17.125},
		{"max(1, min(2, 3)) + abs(-round(2.4))", 4},
	}
	for _, tt := range tests {
		got, err := evaluate(tt.expr)
		if err != nil {
			t.Errorf("evaluate(%q) error: %v", tt.expr, err)
			continue
		}
		if math.Abs(got-tt.want) > 1e-12*math.Max(1, math.Abs(tt.want)) {
			t.Errorf("evaluate(%q) = %v; want %v", tt.expr, got, tt.want)
		}
	}
}

func TestEvaluateErrors(t *testing.T) {
	const (
		syntax = CodeInvalidExpression
		math   = CodeMathError
	)
	tests := []struct {
		expr, code, message string
	}{
		{"", syntax, "the expression is empty; write one such as (2+3)*4"},
		{"   ", syntax, "the expression is empty; write one such as (2+3)*4"},
		// syntax, with positions
		{"(1+2))", syntax, "unexpected ')' at position 6; check that every ')' has a matching '(' and something inside"},
		{"()", syntax, "unexpected ')' at position 2; check that every ')' has a matching '(' and something inside"},
		{"(1+2", syntax, "missing ')' for the '(' at position 1"},
		{"1 + (2 * (3)", syntax, "missing ')' for the '(' at position 5"},
		{"1 +", syntax, "unexpected end of expression at position 4; a number is missing at the end"},
		{"2 3", syntax, "unexpected '3' at position 3; use '*' to multiply"},
		{"2(3)", syntax, "unexpected '(' at position 2; use '*' to multiply"},
		{"2pi", syntax, "unexpected 'pi' at position 2; use '*' to multiply"},
		{"pi(2)", syntax, "unexpected '(' at position 3; use '*' to multiply"},
		{"1,2", syntax, "unexpected ',' at position 2; commas only separate function arguments, as in max(1, 2)"},
		{"2 * / 3", syntax, "unexpected '/' at position 5"},
		{"1 $ 2", syntax, "unexpected character '$' at position 3; use numbers, + - * / % ^, parentheses and functions like sqrt(x)"},
		{"1 . 2", syntax, "unexpected '.' at position 3; write decimals like 0.5 or .5"},
		{"1.2.3", syntax, "unexpected '.3' at position 4; use '*' to multiply"},
		{"2 ^^ 3", syntax, "unexpected '^' at position 4"},
		{"max(1 2)", syntax, "unexpected '2' at position 7; expected ')' to close the '(' at position 4"},
		{"max(1,", syntax, "unexpected end of expression at position 7; a number is missing at the end"},
		// names and arguments
		{"foo(2)", syntax, "unknown name 'foo' at position 1; supported: " + supportedNames},
		{"2 + X", syntax, "unknown name 'X' at position 5; supported: " + supportedNames},
		{"sqrt 4", syntax, "sqrt at position 1 is a function; write it as sqrt(x)"},
		{"2*Tan", syntax, "Tan at position 3 is a function; write it as tan(x)"},
		{"sqrt()", syntax, "sqrt takes 1 argument, got 0 (at position 1)"},
		{"sqrt(1, 2)", syntax, "sqrt takes 1 argument, got 2 (at position 1)"},
		{"round(1,2,3)", syntax, "round takes 1 or 2 arguments, got 3 (at position 1)"},
		{"1 + min()", syntax, "min takes at least 1 argument, got 0 (at position 5)"},
		// math
		{"1/0", math, "division by zero at position 2"},
		{"1/(2-2)", math, "division by zero at position 2"},
		{"5 % 0", math, "modulo by zero at position 3"},
		{"sqrt(-4)", math, "sqrt needs a number >= 0, got -4 (at position 1)"},
		{"log(0)", math, "log needs a number > 0, got 0 (at position 1)"},
		{"1 + ln(-1)", math, "ln needs a number > 0, got -1 (at position 5)"},
		{"round(2, 0.5)", math, "round needs whole-number digits from -15 to 15, as in round(x, 2); got 0.5 (at position 1)"},
		{"round(2, 16)", math, "round needs whole-number digits from -15 to 15, as in round(x, 2); got 16 (at position 1)"},
		{"10^400", math, "the result of '^' at position 3 is too large"},
		{"max(1e308, 1e308)*10", math, "the result of '*' at position 18 is too large"},
		{"1e400", math, "the number 1e400 at position 1 is too large"},
		{"(-8)^(1/3)", math, "the result of '^' at position 5 is not a real number (a fractional power of a negative number?)"},
		{"1/0 + sqrt(-1)", math, "division by zero at position 2"},
		// syntax errors are found before math errors
		{"1/0 + (", syntax, "unexpected end of expression at position 8; a number is missing at the end"},
		// limits
		{strings.Repeat("(", 101) + "1" + strings.Repeat(")", 101), syntax,
			"the expression is nested more than 100 levels deep at position 101; simplify it"},
		{strings.Repeat("-", 101) + "1", syntax, "the expression is nested more than 100 levels deep at position 101; simplify it"},
		{strings.Repeat("2^", 101) + "1", syntax, "the expression is nested more than 100 levels deep at position 202; simplify it"},
		{strings.Repeat("sqrt(", 101) + "1" + strings.Repeat(")", 101), syntax,
			"the expression is nested more than 100 levels deep at position 505; simplify it"},
		{strings.Repeat("1+", 500) + "1", syntax, "the expression is too long: more than 1000 tokens; split it into smaller calculations"},
	}
	for _, tt := range tests {
		_, err := evaluate(tt.expr)
		wantError(t, "evaluate("+abbreviate(tt.expr)+")", err, tt.code, tt.message)
	}
}

func TestEvaluateAtLimits(t *testing.T) {
	// 1000 tokens exactly.
	if _, err := evaluate("-" + strings.Repeat("1+", 499) + "1"); err != nil {
		t.Errorf("1000 tokens: %v", err)
	}
	if _, err := evaluate(strings.Repeat("sqrt(", 100) + "1" + strings.Repeat(")", 100)); err != nil {
		t.Errorf("100 nested calls: %v", err)
	}
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func TestCalculateTool(t *testing.T) {
	spec := Calculate()
	tests := []struct{ args, want string }{
		{`{"expression":"6*7"}`, `{"expression":"6*7","result":42}`},
		{`{"expression":"0.1+0.2"}`, `{"expression":"0.1+0.2","result":0.3}`},
		{`{"expression":"sqrt(2)^2"}`, `{"expression":"sqrt(2)^2","result":2}`},
		{`{"expression":"log(1000)"}`, `{"expression":"log(1000)","result":3}`},
		{`{"expression":"10/4"}`, `{"expression":"10/4","result":2.5}`},
		{`{"expression":"1/3"}`, `{"expression":"1/3","result":0.333333333333333}`},
		{`{"expression":"-0"}`, `{"expression":"-0","result":0}`},
		{`{"expression":"2^60"}`, `{"expression":"2^60","result":1152921504606847000}`},
		{`{"expression":"1000000000.5"}`, `{"expression":"1000000000.5","result":1000000000.5}`},
		{`{"expression":"2^0.5"}`, `{"expression":"2^0.5","result":1.4142135623731}`},
		{`{"expression":"1e-12"}`, `{"expression":"1e-12","result":1e-12}`},
	}
	for _, tt := range tests {
		got, err := runTool(t, spec, tt.args)
		if err != nil || got != tt.want {
			t.Errorf("calculate(%s) = %s, %v; want %s", tt.args, got, err, tt.want)
		}
	}
}

func TestCalculateToolErrors(t *testing.T) {
	spec := Calculate()
	long, _ := json.Marshal(map[string]string{"expression": strings.Repeat("1", 501)})
	tests := []struct{ args, code, message string }{
		{`{"expression":"1/0"}`, CodeMathError, "division by zero at position 2"},
		{string(long), CodeInvalidExpression, "the expression is longer than 500 characters; split it into smaller calculations"},
		{`{"expression":5}`, toolbus.CodeInvalidArgs, ""},
		{`{"expr":"5"}`, toolbus.CodeInvalidArgs, ""},
		{`[1]`, toolbus.CodeInvalidArgs, ""},
		{``, CodeInvalidExpression, "the expression is empty; write one such as (2+3)*4"},
	}
	for _, tt := range tests {
		_, err := runTool(t, spec, tt.args)
		wantError(t, "calculate("+abbreviate(tt.args)+")", err, tt.code, tt.message)
	}
}

func TestCalculateCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Calculate().Tool.Call(ctx, json.RawMessage(`{"expression":"1"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled call: %v", err)
	}
}

func TestSupportedNamesListsEveryName(t *testing.T) {
	for name := range functions {
		if !strings.Contains(supportedNames, name+",") && !strings.Contains(supportedNames, name+" (") {
			t.Errorf("supportedNames misses function %s", name)
		}
	}
	for name := range constants {
		if name != "π" && !strings.Contains(supportedNames, name) {
			t.Errorf("supportedNames misses constant %s", name)
		}
	}
}

func FuzzCalculate(f *testing.F) {
	for _, seed := range []string{
		"1+2*3", "-2^2", "2^3^2", "2**-1", "(1+2))", "((", "6×7÷2−1", "sqrt(-1)", "round(2.5, 1)",
		"min(1,2,3)", "max()", "log(0)", "ln(e)", "sin(pi)", "1e308*10", "1e400", ".5", "5.", "1.2.3",
		"1/0", "5%0", "(-8)^(1/3)", "tan(pi/2)", "π", "2pi", ",", "", "   ", "x", "1 $ 2",
		strings.Repeat("(", 101) + "1", strings.Repeat("-", 200) + "1", strings.Repeat("1+", 600) + "1",
		"round(1e300, 15)", "round(-1e-300, -15)", "0^-1", "(-1)^0.5", "abs(-0)",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := evaluate(expr)
		if err != nil {
			var te *toolbus.Error
			if !errors.As(err, &te) || (te.Code != CodeInvalidExpression && te.Code != CodeMathError) || te.Message == "" {
				t.Fatalf("evaluate(%q) error %#v is not a calculator *toolbus.Error", expr, err)
			}
			return
		}
		if p := present(v); math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(p) || math.IsInf(p, 0) {
			t.Fatalf("evaluate(%q) = %v (presented %v); want a finite number", expr, v, p)
		}
		if _, err := json.Marshal(CalculateResult{Expression: expr, Result: present(v)}); err != nil {
			t.Fatalf("evaluate(%q): result does not encode: %v", expr, err)
		}
	})
}
