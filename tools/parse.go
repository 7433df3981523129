package tools

// The grammar, loosest binding first:
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("+" | "-") unary | power
//	power   = primary [ "^" unary ]
//	primary = number | constant | function "(" [ expr { "," expr } ] ")" | "(" expr ")"
//
// so ^ is right-associative and binds tighter than a leading minus
// (-2^2 = -4) while still taking a signed exponent (2^-1 = 0.5).

// maxDepth bounds nesting: parentheses, function calls, signs and powers.
const maxDepth = 100

// parser turns tokens into a tree; it evaluates nothing, so every syntax
// error is found before any math error.
type parser struct {
	toks  []token
	i     int
	depth int
}

// parse parses a whole expression.
func parse(expr string) (node, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	if toks[0].kind == tokEnd {
		return nil, syntaxErrorf("the expression is empty; write one such as (2+3)*4")
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEnd {
		return nil, unexpected(t)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEnd {
		p.i++
	}
	return t
}

// isOp reports whether the next token is one of the operators ops.
func (p *parser) isOp(ops string) bool {
	t := p.peek()
	for _, op := range ops {
		if t.kind == tokOp && t.op == op {
			return true
		}
	}
	return false
}

// enter counts one level of nesting at t; leave undoes it.
func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > maxDepth {
		return syntaxErrorf("the expression is nested more than %d levels deep at position %d; simplify it", maxDepth, t.pos)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) expr() (node, error) { return p.binaryLevel("+-", p.term) }

func (p *parser) term() (node, error) { return p.binaryLevel("*/%", p.unary) }

// binaryLevel parses operands joined left-associatively by ops.
func (p *parser) binaryLevel(ops string, operand func() (node, error)) (node, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for p.isOp(ops) {
		t := p.next()
		right, err := operand()
		if err != nil {
			return nil, err
		}
		left = &binary{op: t.op, pos: t.pos, left: left, right: right}
	}
	return left, nil
}

func (p *parser) unary() (node, error) {
	if !p.isOp("+-") {
		return p.power()
	}
	t := p.next()
	if err := p.enter(t); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.unary()
	if err != nil || t.op == '+' {
		return x, err
	}
	return &negation{x: x}, nil
}

func (p *parser) power() (node, error) {
	base, err := p.primary()
	if err != nil || !p.isOp("^") {
		return base, err
	}
	t := p.next()
	if err := p.enter(t); err != nil {
		return nil, err
	}
	defer p.leave()
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &binary{op: '^', pos: t.pos, left: base, right: exp}, nil
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tokNumber:
		return number(t.num), nil
	case tokName:
		return p.name(t)
	case tokLParen:
		return p.group(t)
	}
	return nil, unexpected(t)
}

// group parses "(" expr ")" after its "(".
func (p *parser) group(open token) (node, error) {
	if err := p.enter(open); err != nil {
		return nil, err
	}
	defer p.leave()
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.close(open); err != nil {
		return nil, err
	}
	return n, nil
}

// close consumes the ")" that matches open.
func (p *parser) close(open token) error {
	switch t := p.next(); t.kind {
	case tokRParen:
		return nil
	case tokEnd:
		return syntaxErrorf("missing ')' for the '(' at position %d", open.pos)
	default:
		return syntaxErrorf("unexpected %s at position %d; expected ')' to close the '(' at position %d", t.quoted(), t.pos, open.pos)
	}
}

// name resolves a constant or parses a function call.
func (p *parser) name(t token) (node, error) {
	if v, ok := constants[t.name()]; ok {
		return number(v), nil
	}
	fn, ok := functions[t.name()]
	if !ok {
		return nil, syntaxErrorf("unknown name '%s' at position %d; supported: %s", t.text, t.pos, supportedNames)
	}
	open := p.next()
	if open.kind != tokLParen {
		return nil, syntaxErrorf("%s at position %d is a function; write it as %s(x)", t.text, t.pos, t.name())
	}
	if err := p.enter(open); err != nil {
		return nil, err
	}
	defer p.leave()
	args, err := p.args(open)
	if err != nil {
		return nil, err
	}
	if err := fn.checkArity(t, len(args)); err != nil {
		return nil, err
	}
	return &call{name: t.name(), fn: fn, pos: t.pos, args: args}, nil
}

// args parses comma-separated arguments up to and including the ")".
func (p *parser) args(open token) ([]node, error) {
	if p.peek().kind == tokRParen {
		p.next()
		return nil, nil
	}
	var args []node
	for {
		arg, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
		if p.peek().kind != tokComma {
			return args, p.close(open)
		}
		p.next()
	}
}

// unexpected reports a token where it cannot stand, with a hint when the
// model probably meant something else.
func unexpected(t token) error {
	hint := ""
	switch t.kind {
	case tokEnd:
		return syntaxErrorf("unexpected end of expression at position %d; a number is missing at the end", t.pos)
	case tokRParen:
		hint = "; check that every ')' has a matching '(' and something inside"
	case tokNumber, tokName, tokLParen:
		hint = "; use '*' to multiply"
	case tokComma:
		hint = "; commas only separate function arguments, as in max(1, 2)"
	}
	return syntaxErrorf("unexpected %s at position %d%s", t.quoted(), t.pos, hint)
}
