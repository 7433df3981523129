package render

import (
	"slices"
	"strings"
)

func isQuote(line string) bool {
	cols, rest := indent(line)
	return cols <= 3 && strings.HasPrefix(rest, ">")
}

// unquote strips every level of ">" from line, each with the space after
// it: Telegram cannot nest quotes, so nested ones are flattened.
func unquote(line string) string {
	for isQuote(line) {
		_, rest := indent(line)
		line = rest[1:]
		if line != "" && (line[0] == ' ' || line[0] == '\t') {
			line = line[1:]
		}
	}
	return line
}

// quote reads consecutive ">" lines and renders what they hold as blocks
// inside one blockquote.
func (p *blockParser) quote() {
	var inner []string
	for ; p.i < len(p.lines) && isQuote(p.lines[p.i]); p.i++ {
		inner = append(inner, unquote(p.lines[p.i]))
	}
	marks := p.base
	if !slices.ContainsFunc(marks, func(m mark) bool { return m.kind == markQuote }) {
		marks = append(slices.Clip(marks), mark{kind: markQuote})
	}
	p.add(join(parseBlocks(inner, marks), marks))
}
