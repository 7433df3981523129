package render

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// inline renders the Markdown of one paragraph, heading, list item or
// table cell into w at the marks open there.
func inline(w *spanWriter, src string) {
	emit(w, lexInline(src, true))
}

// plainInline is the display text of inline Markdown with its formatting
// dropped, as table cells show it.
func plainInline(src string) string { return displayText(lexInline(src, true)) }

type tokKind uint8

const (
	tokText  tokKind = iota // literal text
	tokCode                 // a code span; text is its content
	tokDelim                // a run of *, _ or ~ that may open or close emphasis
	tokLink                 // a link; text is the URL, children its text
)

type token struct {
	kind     tokKind
	text     string
	run      delimRun // tokDelim
	children []token  // tokLink
}

// lexer splits inline Markdown into tokens. Code spans and links are
// recognised here, left to right, so they take precedence over emphasis;
// emphasis is resolved afterwards over the delimiter runs.
type lexer struct {
	src   string
	pos   int
	links bool // false inside a link's text: links do not nest
	toks  []token
	lit   strings.Builder // literal text not yet made a token
}

// lexInline tokenizes src and pairs its emphasis delimiters.
func lexInline(src string, links bool) []token {
	l := lexer{src: src, links: links}
	for l.pos < len(l.src) {
		l.next()
	}
	l.flush()
	matchEmphasis(l.toks)
	return l.toks
}

func (l *lexer) next() {
	switch c := l.src[l.pos]; {
	case c == '\\':
		l.escape()
	case c == '`':
		l.codeSpan()
	case c == '*' || c == '_' || c == '~':
		l.delimiter()
	case c == '[' && l.links:
		l.linkAt(l.pos)
	case c == '!' && l.links && strings.HasPrefix(l.src[l.pos:], "!["):
		l.linkAt(l.pos + 1) // an image shows as a link to it
	case c == '<' && l.links:
		l.autolink()
	case l.bareURLAt():
		l.bareURL()
	default:
		l.text()
	}
}

// literal makes the next n bytes literal text.
func (l *lexer) literal(n int) {
	l.lit.WriteString(l.src[l.pos : l.pos+n])
	l.pos += n
}

func (l *lexer) flush() {
	if l.lit.Len() > 0 {
		l.toks = append(l.toks, token{kind: tokText, text: l.lit.String()})
		l.lit.Reset()
	}
}

func (l *lexer) push(t token) {
	l.flush()
	l.toks = append(l.toks, t)
}

// text consumes plain text up to the next byte that may start markup.
func (l *lexer) text() {
	start := l.pos
	for l.pos++; l.pos < len(l.src) && !l.special(); l.pos++ {
	}
	l.lit.WriteString(l.src[start:l.pos])
}

func (l *lexer) special() bool {
	switch l.src[l.pos] {
	case '\\', '`', '*', '_', '~', '[', '!', '<':
		return true
	case 'h', 'H', 't', 'T':
		return l.bareURLAt()
	}
	return false
}

// escape handles a backslash: before ASCII punctuation it makes that
// character literal; before a line break it is a hard break, which is a
// line break anyway; elsewhere it is itself.
func (l *lexer) escape() {
	if l.pos+1 < len(l.src) && (isASCIIPunct(l.src[l.pos+1]) || l.src[l.pos+1] == '\n') {
		l.pos++
	}
	l.literal(1)
}

// codeSpan reads a backtick run and, if a run of the same length closes
// it, the code span between. Line breaks inside become spaces, and one
// space is stripped from each end when both ends have one.
func (l *lexer) codeSpan() {
	n := runLen(l.src, l.pos)
	end := closingTicks(l.src, l.pos+n, n)
	if end < 0 {
		l.literal(n)
		return
	}
	content := strings.ReplaceAll(l.src[l.pos+n:end], "\n", " ")
	if len(content) > 1 && content[0] == ' ' && content[len(content)-1] == ' ' && !isBlank(content) {
		content = content[1 : len(content)-1]
	}
	l.push(token{kind: tokCode, text: content})
	l.pos = end + n
}

// closingTicks is the offset of the first run of exactly n backticks in s
// at or after from, or -1.
func closingTicks(s string, from, n int) int {
	for from < len(s) {
		i := strings.IndexByte(s[from:], '`')
		if i < 0 {
			return -1
		}
		at := from + i
		m := runLen(s, at)
		if m == n {
			return at
		}
		from = at + m
	}
	return -1
}

// runLen is the length of the run of the byte at s[i].
func runLen(s string, i int) int {
	n := 1
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// delimiter reads a run of *, _ or ~. Whether it can open or close
// emphasis depends on its neighbours: an opener is followed by a
// non-space, a closer preceded by one, and _ does not work inside a word
// (snake_case). Only ~~ strikes through; a lone ~ means "about".
func (l *lexer) delimiter() {
	c, n := l.src[l.pos], runLen(l.src, l.pos)
	if c == '~' && n != 2 {
		l.literal(n)
		return
	}
	before, hasBefore := lastRune(l.src[:l.pos])
	after, hasAfter := firstRune(l.src[l.pos+n:])
	canOpen := hasAfter && !unicode.IsSpace(after)
	canClose := hasBefore && !unicode.IsSpace(before)
	if c == '_' {
		canOpen = canOpen && !(hasBefore && isAlnum(before))
		canClose = canClose && !(hasAfter && isAlnum(after))
	}
	if !canOpen && !canClose {
		l.literal(n)
		return
	}
	l.push(token{kind: tokDelim, run: delimRun{ch: c, n: n, rest: n, canOpen: canOpen, canClose: canClose, active: true}})
	l.pos += n
}

// bareSchemes are the addresses Telegram links by itself when they stand
// bare in a message's text.
var bareSchemes = [...]string{"http://", "https://", "tg://", "ton://", "tonsite://"}

// bareURLAt reports whether an address Telegram links by itself starts
// here at the start of a word. A web address stays text, which Telegram
// links; reading it whole keeps the underscores in it from becoming
// emphasis.
func (l *lexer) bareURLAt() bool {
	rest := l.src[l.pos:]
	if !slices.ContainsFunc(bareSchemes[:], func(scheme string) bool { return hasPrefixFold(rest, scheme) }) {
		return false
	}
	before, ok := lastRune(l.src[:l.pos])
	return !ok || !isAlnum(before)
}

// bareURL consumes a URL up to whitespace or a character that is markup
// around it rather than part of it.
func (l *lexer) bareURL() {
	end := l.pos
	for end < len(l.src) && !strings.ContainsRune(" \t\n<>*`", rune(l.src[end])) {
		end++
	}
	for end > l.pos && (l.src[end-1] == '_' || l.src[end-1] == '~') {
		end--
	}
	if url := l.src[l.pos:end]; l.links && (!isWeb(url) || hidesItsHost(url)) {
		l.push(token{kind: tokCode, text: url})
		l.pos = end
		return
	}
	l.literal(end - l.pos)
}

// isWeb reports whether url is an http or https address.
func isWeb(url string) bool { return hasPrefixFold(url, "http://") || hasPrefixFold(url, "https://") }

// hidesItsHost reports whether bare web address url names its host in one
// of the forms readers and browsers do not agree on (see webHost): a user
// name before "@" (Telegram links "https://bank.com@evil.example" whole,
// to evil.example), a backslash, a percent-escape in the host. Such an
// address is shown as code, which Telegram does not link.
func hidesItsHost(url string) bool {
	if strings.Contains(url, `\`) {
		return true
	}
	_, rest, _ := strings.Cut(url, "://")
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	return strings.ContainsAny(rest, "@%")
}

func firstRune(s string) (rune, bool) {
	r, n := utf8.DecodeRuneInString(s)
	return r, n > 0
}

func lastRune(s string) (rune, bool) {
	r, n := utf8.DecodeLastRuneInString(s)
	return r, n > 0
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
