package render

import (
	"strings"
)

// fence is the opening line of a fenced code block: three or more
// backticks or tildes, and an info string whose first word is the
// language.
type fence struct {
	char   byte
	n      int // length of the fence
	indent int // columns before it, taken off the code's lines too
	lang   string
}

// openFence reads line as the start of a code block. Fences are
// recognised at any indentation, so that code under a list item works.
func openFence(line string) (fence, bool) {
	cols, rest := indent(line)
	if len(rest) < 3 || rest[0] != '`' && rest[0] != '~' {
		return fence{}, false
	}
	n := runLen(rest, 0)
	info := strings.TrimSpace(rest[n:])
	if n < 3 || rest[0] == '`' && strings.Contains(info, "`") {
		return fence{}, false
	}
	return fence{char: rest[0], n: n, indent: cols, lang: language(info)}, true
}

func isFence(line string) bool {
	_, ok := openFence(line)
	return ok
}

// closes reports whether line ends the block: a fence of the same
// character, at least as long, alone on its line.
func (f fence) closes(line string) bool {
	_, rest := indent(line)
	rest = strings.TrimRight(rest, " \t")
	return len(rest) >= f.n && rest[0] == f.char && runLen(rest, 0) == len(rest)
}

// code reads a fenced code block up to its closing fence or, unclosed, to
// the end. Its content is literal; blank lines at its ends are dropped.
func (p *blockParser) code() {
	f, _ := openFence(p.lines[p.i])
	var body []string
	for p.i++; p.i < len(p.lines); p.i++ {
		if f.closes(p.lines[p.i]) {
			p.i++
			break
		}
		body = append(body, dedent(p.lines[p.i], f.indent))
	}
	for len(body) > 0 && isBlank(body[0]) {
		body = body[1:]
	}
	for len(body) > 0 && isBlank(body[len(body)-1]) {
		body = body[:len(body)-1]
	}
	w := p.writer(mark{kind: markPre, arg: f.lang})
	w.write(strings.Join(body, "\n"))
	p.add(w.result())
}

// language is the first word of an info string when it looks like a
// language name, or "".
func language(info string) string {
	word, _, _ := strings.Cut(info, " ")
	word, _, _ = strings.Cut(word, "\t")
	if len(word) > 32 {
		return ""
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; !isASCIILetter(c) && !('0' <= c && c <= '9') && !strings.ContainsRune("_+#.-", rune(c)) {
			return ""
		}
	}
	return word
}

// dedent removes up to n columns of leading whitespace from line.
func dedent(line string, n int) string {
	cols, i := 0, 0
	for ; i < len(line) && cols < n; i++ {
		switch line[i] {
		case ' ':
			cols++
		case '\t':
			cols += 4 - cols%4
		default:
			return line[i:]
		}
	}
	return line[i:]
}
