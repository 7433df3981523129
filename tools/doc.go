// Package tools holds ryo's built-in tools: the things the model may do
// without anything outside the process.
//
// Each constructor returns a toolbus.Spec: a lower_snake_case name, a short
// description the model reads, the JSON Schema of the arguments, the tool's
// effect and the tool itself. main registers the result of Builtin in the
// tool registry when it starts; nothing here registers itself.
//
// They are all read-only and pure apart from the injected clock:
//
//   - calculate evaluates an arithmetic expression with a small
//     recursive-descent parser (lex.go, parse.go, eval.go); nothing is ever
//     executed as code.
//   - current_time reads the clock in the owner's time zone or a named one.
//   - unit_convert converts between units of one category, such as length,
//     mass, temperature, volume, speed and data size.
//   - statistics describes up to 10,000 numbers and regression fits a
//     least-squares line; both read the numbers' digits exactly
//     (decimals.go) and round only their results.
//   - finance computes the time value of money from closed formulas, and
//     every IRR of a cash flow by bracketing the NPV's sign changes.
//   - probability gives binomial and Poisson probabilities by Loader's
//     saddle-point method (saddlepoint.go), summing each tail from its small
//     end (discrete.go), normal ones through erfc and AS 241 (normal.go),
//     and exact factorials, permutations and combinations (counting.go).
//   - benford tests the first digits of up to 10,000 numbers, read from
//     their text, against Benford's law.
//
// The bus validates arguments against each Schema before Call; the tools
// decode defensively all the same. A mistake the model can correct, such as
// an unknown unit or a division by zero, comes back as a *toolbus.Error with
// a short code and a message that says what to do instead.
package tools
