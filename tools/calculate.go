package tools

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/ryo-bot/ryo/toolbus"
)

// Error codes of the calculate tool.
const (
	CodeInvalidExpression = "invalid_expression" // the expression cannot be parsed
	CodeMathError         = "math_error"         // it parses but has no finite value
)

// maxExpression is the longest expression calculate accepts, in characters.
const maxExpression = 500

const calculateSchema = `{
  "type": "object",
  "properties": {
    "expression": {
      "type": "string",
      "maxLength": 500,
      "description": "Arithmetic only, no variables or units, e.g. \"(17.5 * 3) / 4 + sqrt(16)\" or \"round(2^0.5, 3)\". ^ is power; log is base 10, ln is natural."
    }
  },
  "required": ["expression"],
  "additionalProperties": false
}`

// CalculateResult is what calculate returns.
type CalculateResult struct {
	Expression string  `json:"expression"`
	Result     float64 `json:"result"`
}

// Calculate returns the calculate tool: it evaluates an arithmetic
// expression with a small parser, never as code.
func Calculate() toolbus.Spec {
	return readOnly("calculate",
		"Evaluate an arithmetic expression such as (2+3)*4^2 and return the number. Knows + - * / % ^, parentheses, "+
			"sqrt abs round min max log ln sin cos tan, pi and e.",
		toolbus.MathFinance, calculateSchema, calculate,
		example("What is 17.5% of 2,340?", `{"expression":"2340 * 17.5 / 100"}`),
		example("How long is the diagonal of a 3 by 4 metre room?", `{"expression":"sqrt(3^2 + 4^2)"}`))
}

func calculate(ctx context.Context, raw json.RawMessage) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var args struct {
		Expression string `json:"expression"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(args.Expression) > maxExpression {
		return nil, syntaxErrorf("the expression is longer than %d characters; split it into smaller calculations", maxExpression)
	}
	v, err := evaluate(args.Expression)
	if err != nil {
		return nil, err
	}
	return CalculateResult{Expression: args.Expression, Result: present(v)}, nil
}

// evaluate parses expr and computes its value, which is always finite.
func evaluate(expr string) (float64, error) {
	n, err := parse(expr)
	if err != nil {
		return 0, err
	}
	v, err := n.eval()
	if err != nil {
		return 0, err
	}
	return finite(v, "the expression")
}

func syntaxErrorf(format string, args ...any) error {
	return toolbus.Errorf(CodeInvalidExpression, format, args...)
}

func mathErrorf(format string, args ...any) error {
	return toolbus.Errorf(CodeMathError, format, args...)
}
