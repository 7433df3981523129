package render

import (
	"slices"
	"strings"
)

// blockParser reads the lines of a Markdown document into blocks. A
// block quote parses its inside with a parser of its own.
type blockParser struct {
	lines  []string
	i      int    // the next line to read
	base   []mark // open around every block: nothing, or a quote
	blocks []block
}

// block is a rendered paragraph, heading, list, code block, table, rule
// or quote.
type block struct {
	spans   []span
	heading bool // belongs with the block after it
}

// parseBlocks renders lines into blocks with base marks around each.
// Blocks that would show nothing are left out.
func parseBlocks(lines []string, base []mark) []block {
	p := &blockParser{lines: lines, base: base}
	for p.i < len(p.lines) {
		p.block()
	}
	return p.blocks
}

// join puts blocks one after another with a blank line between, the
// blank line carrying marks (a quote's, inside a quote). The blank line
// is where a message is best cut, unless it follows a heading.
func join(blocks []block, marks []mark) []span {
	var out []span
	for i, b := range blocks {
		if i > 0 {
			out = append(out, span{text: "\n\n", marks: marks, brk: !blocks[i-1].heading})
		}
		out = append(out, b.spans...)
	}
	return out
}

func (p *blockParser) block() {
	line := p.lines[p.i]
	switch {
	case isBlank(line):
		p.i++
	case isFence(line):
		p.code()
	case isHeading(line):
		p.heading()
	case isRule(line):
		p.rule()
	case isQuote(line):
		p.quote()
	case p.tableAt(p.i):
		p.table()
	case isItem(line):
		p.list()
	default:
		p.paragraph()
	}
}

// interrupts reports whether line i starts a block that ends the
// paragraph or list item before it.
func (p *blockParser) interrupts(i int) bool {
	line := p.lines[i]
	return isFence(line) || isHeading(line) || isRule(line) || isQuote(line) || p.tableAt(i)
}

// writer starts a block with the base marks and then extra open.
func (p *blockParser) writer(extra ...mark) *spanWriter {
	return newWriter(append(slices.Clip(p.base), extra...))
}

func (p *blockParser) add(spans []span) { p.addBlock(block{spans: spans}) }

func (p *blockParser) addBlock(b block) {
	if !blank(b.spans) {
		p.blocks = append(p.blocks, b)
	}
}

// paragraph reads lines up to a blank line or the start of another block.
// Its line breaks stay: models break lines on purpose. A line of = or -
// under it makes it a heading instead.
func (p *blockParser) paragraph() {
	lines := []string{clean(p.lines[p.i])}
	for p.i++; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		if isUnderline(line) {
			p.i++
			p.headingOf(strings.Join(lines, "\n"))
			return
		}
		if isBlank(line) || p.interrupts(p.i) || startsList(line) {
			break
		}
		lines = append(lines, clean(line))
	}
	w := p.writer()
	inline(w, strings.Join(lines, "\n"))
	p.add(w.result())
}

// heading shows an ATX heading (# to ######) as a bold line.
func (p *blockParser) heading() {
	text := atxText(p.lines[p.i])
	p.i++
	p.headingOf(text)
}

func (p *blockParser) headingOf(text string) {
	w := p.writer(mark{kind: markBold})
	inline(w, text)
	p.addBlock(block{spans: w.result(), heading: true})
}

// rule shows a thematic break as a short line.
func (p *blockParser) rule() {
	p.i++
	w := p.writer()
	w.write("———")
	p.add(w.result())
}

func isHeading(line string) bool {
	cols, rest := indent(line)
	n := strings.IndexFunc(rest, func(r rune) bool { return r != '#' })
	if n < 0 {
		n = len(rest)
	}
	return cols <= 3 && n >= 1 && n <= 6 && (n == len(rest) || rest[n] == ' ' || rest[n] == '\t')
}

// atxText is a heading's text without its opening and closing #s.
func atxText(line string) string {
	_, rest := indent(line)
	text := strings.Trim(strings.TrimLeft(rest, "#"), " \t")
	if closed := strings.TrimRight(text, "#"); closed == "" || strings.HasSuffix(closed, " ") || strings.HasSuffix(closed, "\t") {
		text = strings.Trim(closed, " \t")
	}
	return text
}

// isRule reports whether line is a thematic break: three or more of the
// same -, * or _, maybe with spaces between, and nothing else.
func isRule(line string) bool {
	cols, rest := indent(line)
	if cols > 3 || rest == "" || !strings.ContainsRune("-*_", rune(rest[0])) {
		return false
	}
	n := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case rest[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// isUnderline reports whether line turns the paragraph above into a
// heading (a setext underline).
func isUnderline(line string) bool {
	cols, rest := indent(line)
	rest = strings.TrimRight(rest, " \t")
	return cols <= 3 && rest != "" && (rest[0] == '=' || rest[0] == '-') && runLen(rest, 0) == len(rest)
}

// indent is the width of line's leading whitespace, a tab reaching the
// next multiple of 4, and the rest of the line.
func indent(line string) (int, string) {
	cols := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			cols++
		case '\t':
			cols += 4 - cols%4
		default:
			return cols, line[i:]
		}
	}
	return cols, ""
}

// clean trims a paragraph line: Markdown ignores its leading indentation,
// and trailing spaces (a hard break) show nothing.
func clean(line string) string { return strings.Trim(line, " \t") }
