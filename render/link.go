package render

import (
	"strings"
	"unicode"
)

// linkAt reads [text](url) with its "[" at open, after an optional "!"
// at the lexer's position. What does not parse as a link leaves the
// bracket as text.
func (l *lexer) linkAt(open int) {
	end := matchBracket(l.src, open)
	if end < 0 || end+1 >= len(l.src) || l.src[end+1] != '(' {
		l.literal(open - l.pos + 1)
		return
	}
	url, next, ok := destination(l.src, end+2)
	if !ok {
		l.literal(open - l.pos + 1)
		return
	}
	text := l.src[open+1 : end]
	if holdsLink(text) {
		l.literal(open - l.pos + 1) // links do not nest: the inner one wins
		return
	}
	if isBlank(text) {
		text = url
	}
	l.push(token{kind: tokLink, text: url, children: lexInline(text, false)})
	l.pos = next
}

// holdsLink reports whether text has a [text](url) link in it, outside
// code spans.
func holdsLink(text string) bool {
	if !strings.Contains(text, "](") {
		return false
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '`':
			i = pastCodeSpan(text, i) - 1
		case '[':
			if end := matchBracket(text, i); end >= 0 && end+1 < len(text) && text[end+1] == '(' {
				if _, _, ok := destination(text, end+2); ok {
					return true
				}
			}
		}
	}
	return false
}

// autolink reads <scheme:address>. It shows as the address: a link to a
// web address, code for any other (see emitLink); anything else in angle
// brackets, such as raw HTML, is text.
func (l *lexer) autolink() {
	end := strings.IndexByte(l.src[l.pos:], '>')
	if end < 0 {
		l.literal(1)
		return
	}
	body := l.src[l.pos+1 : l.pos+end]
	if !hasScheme(body) || strings.ContainsFunc(body, func(r rune) bool { return r == '<' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
		l.literal(1)
		return
	}
	if _, ok := webHost(body); ok {
		l.push(token{kind: tokLink, text: body, children: []token{{kind: tokText, text: body}}})
	} else {
		l.push(token{kind: tokCode, text: body})
	}
	l.pos += end + 1
}

// emitLink writes a link. Only a web address (http or https) becomes one,
// and when a word of its text names another host, the host it opens
// follows it, as in "bank.com (→ evil.example)". Any other target — a
// tg://user link that would mention someone, tg://resolve, javascript:,
// file:, mailto: — is shown, not linked: the text, then the target as
// code, which Telegram neither opens nor turns into a mention and which a
// tap copies. (An e-mail link could name one address and write to
// another, with a subject and body the model chose.)
func emitLink(w *spanWriter, t *token) {
	host, ok := webHost(t.text)
	if !ok {
		showTarget(w, t)
		return
	}
	w.push(mark{kind: markLink, arg: t.text})
	emit(w, t.children)
	w.pop()
	if hidesHost(displayText(t.children), host) {
		w.write(hostNote(host))
	}
}

// hostNote follows a link whose text names another host. Its spaces do
// not break, so that a message is not cut between the link and the note
// unless nothing else can be.
func hostNote(host string) string { return "\u00a0(→\u00a0" + host + ")" }

// showTarget writes the text of a link that is not to the web and its
// target as code; only the target when the text is just that.
func showTarget(w *spanWriter, t *token) {
	switch text := displayText(t.children); {
	case t.text == "":
		emit(w, t.children)
	case text == t.text:
		w.writeCode(t.text)
	default:
		emit(w, t.children)
		w.write(" (")
		w.writeCode(t.text)
		w.write(")")
	}
}

// displayText is what tokens show, without their formatting.
func displayText(toks []token) string {
	w := newWriter(nil)
	emit(w, toks)
	var b strings.Builder
	for _, s := range w.spans {
		b.WriteString(s.text)
	}
	return b.String()
}

// hasScheme reports whether s starts with a URI scheme and a colon.
func hasScheme(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 2 || colon > 32 || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		if c := s[i]; !isASCIILetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// maxLinkText bounds the text of a link, in bytes: looking further for a
// "]" would make an answer full of stray "[" slow to render.
const maxLinkText = 2000

// matchBracket is the offset of the "]" closing the "[" at open, skipping
// escaped characters, code spans and nested brackets, or -1 when there is
// none within maxLinkText bytes.
func matchBracket(s string, open int) int {
	depth := 0
	for i := open; i < len(s) && i-open <= maxLinkText; i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			i = pastCodeSpan(s, i) - 1
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// pastCodeSpan is the offset after the code span whose backticks start
// at i, or after the backticks when nothing closes them.
func pastCodeSpan(s string, i int) int {
	n := runLen(s, i)
	if end := closingTicks(s, i+n, n); end >= 0 {
		return end + n
	}
	return i + n
}

// destination reads a link's (url "optional title") from just after its
// "(" and returns the URL with backslash escapes resolved and the offset
// after ")".
func destination(s string, i int) (url string, next int, ok bool) {
	i = skipBlanks(s, i)
	if i < len(s) && s[i] == '<' {
		end := strings.IndexAny(s[i+1:], "<>\n")
		if end < 0 || s[i+1+end] != '>' {
			return "", 0, false
		}
		url, i = s[i+1:i+1+end], i+end+2
	} else {
		start := i
		i = urlEnd(s, i)
		url = unescape(s[start:i])
	}
	i = skipBlanks(s, i)
	i = skipTitle(s, i)
	if i >= len(s) || s[i] != ')' {
		return "", 0, false
	}
	return url, i + 1, true
}

// urlEnd is where a bare link destination starting at i ends: at
// whitespace or at a ")" that closes no "(" inside it.
func urlEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i++
		case c <= ' ':
			return i
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return i
}

// skipTitle skips a link title in quotes or parentheses, and the blanks
// after it.
func skipTitle(s string, i int) int {
	if i >= len(s) {
		return i
	}
	var closer byte
	switch s[i] {
	case '"', '\'':
		closer = s[i]
	case '(':
		closer = ')'
	default:
		return i
	}
	end := strings.IndexByte(s[i+1:], closer)
	if end < 0 {
		return i
	}
	return skipBlanks(s, i+end+2)
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// unescape resolves backslash escapes of ASCII punctuation.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
