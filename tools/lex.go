package tools

import (
	"strconv"
	"strings"
	"unicode"
)

// maxTokens bounds the work one expression can cause.
const maxTokens = 1000

type tokenKind int

const (
	tokEnd tokenKind = iota
	tokNumber
	tokName
	tokOp // op holds one of + - * / % ^
	tokLParen
	tokRParen
	tokComma
)

// A token is one piece of an expression. pos counts characters from 1, as
// the model would count them.
type token struct {
	kind tokenKind
	text string  // as written, for messages
	op   rune    // tokOp: the operator, with unicode and ** forms normalized
	num  float64 // tokNumber: the value
	pos  int
}

// quoted returns the token as an error message shows it.
func (t token) quoted() string {
	if t.kind == tokEnd {
		return "end of expression"
	}
	return "'" + t.text + "'"
}

// operators maps each operator character to its normal form.
var operators = map[rune]rune{
	'+': '+', '-': '-', '−': '-', '*': '*', '×': '*', '/': '/', '÷': '/', '%': '%', '^': '^',
}

// lex splits an expression into tokens, ending with a tokEnd.
func lex(expr string) ([]token, error) {
	rs := []rune(expr)
	var toks []token
	for i := 0; i < len(rs); {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		if len(toks) == maxTokens {
			return nil, syntaxErrorf("the expression is too long: more than %d tokens; split it into smaller calculations", maxTokens)
		}
		t, err := lexOne(rs, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i += len([]rune(t.text))
	}
	return append(toks, token{kind: tokEnd, pos: len(rs) + 1}), nil
}

// lexOne reads the token that starts at rs[i].
func lexOne(rs []rune, i int) (token, error) {
	c := rs[i]
	switch {
	case isDigit(c) || c == '.':
		return lexNumber(rs, i)
	case isNameStart(c):
		return lexName(rs, i), nil
	case c == '*' && i+1 < len(rs) && rs[i+1] == '*':
		return token{kind: tokOp, text: "**", op: '^', pos: i + 1}, nil
	}
	t := token{text: string(c), pos: i + 1}
	switch c {
	case '(':
		t.kind = tokLParen
	case ')':
		t.kind = tokRParen
	case ',':
		t.kind = tokComma
	default:
		op, ok := operators[c]
		if !ok {
			return token{}, syntaxErrorf("unexpected character %q at position %d; use numbers, + - * / %% ^, parentheses and functions like sqrt(x)", c, i+1)
		}
		t.kind, t.op = tokOp, op
	}
	return t, nil
}

// lexNumber reads digits with at most one dot and an optional exponent.
func lexNumber(rs []rune, i int) (token, error) {
	j, digits := scanDigits(rs, i)
	if j < len(rs) && rs[j] == '.' {
		var more int
		j, more = scanDigits(rs, j+1)
		digits += more
	}
	if digits == 0 {
		return token{}, syntaxErrorf("unexpected '.' at position %d; write decimals like 0.5 or .5", i+1)
	}
	j = scanExponent(rs, j)
	text := string(rs[i:j])
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return token{}, mathErrorf("the number %s at position %d is too large", text, i+1)
	}
	return token{kind: tokNumber, text: text, num: v, pos: i + 1}, nil
}

// scanDigits returns the index after the digits from rs[i] and their count.
func scanDigits(rs []rune, i int) (int, int) {
	j := i
	for j < len(rs) && isDigit(rs[j]) {
		j++
	}
	return j, j - i
}

// scanExponent returns the index after an exponent such as e3 or E-2 at
// rs[i], or i when there is none (so "2e" is the number 2 and the name e).
func scanExponent(rs []rune, i int) int {
	if i >= len(rs) || (rs[i] != 'e' && rs[i] != 'E') {
		return i
	}
	j := i + 1
	if j < len(rs) && (rs[j] == '+' || rs[j] == '-') {
		j++
	}
	end, n := scanDigits(rs, j)
	if n == 0 {
		return i
	}
	return end
}

// lexName reads a function or constant name; names are case-insensitive.
func lexName(rs []rune, i int) token {
	j := i + 1
	for j < len(rs) && (isNameStart(rs[j]) || isDigit(rs[j])) {
		j++
	}
	text := string(rs[i:j])
	return token{kind: tokName, text: text, pos: i + 1}
}

func isDigit(c rune) bool { return '0' <= c && c <= '9' }

func isNameStart(c rune) bool { return c == '_' || unicode.IsLetter(c) }

// name returns a tokName's name in lower case.
func (t token) name() string { return strings.ToLower(t.text) }
