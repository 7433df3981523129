package knowledge

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ryo-bot/ryo"
)

// MaxChunk is the most characters of one chunk's text.
const MaxChunk = 1200

// MaxHeading is the most characters of one heading; a longer one is cut.
const MaxHeading = 200

// ErrEmpty is a document without any text to keep.
var ErrEmpty = errors.New("the document has no text")

// TooManyChunksError is a document that would make more chunks than a
// document may have.
type TooManyChunksError struct{ Chunks, Max int }

func (e *TooManyChunksError) Error() string {
	return fmt.Sprintf("the document makes %d chunks; a document may have at most %d", e.Chunks, e.Max)
}

// Separator joins the headings of a chunk's heading path.
const Separator = " › "

// Split cuts text into chunks along its headings and paragraphs, numbered
// from 0, at most maxChunks of them (no bound when maxChunks is 0); title
// is its first top-level heading, "" when it has none.
func Split(text string, maxChunks int) (chunks []ryo.Chunk, title string, err error) {
	for _, s := range sections(normalize(text)) {
		if title == "" && s.title != "" {
			title = s.title
		}
		for _, body := range pack(s.paragraphs) {
			chunks = append(chunks, ryo.Chunk{Ord: len(chunks), Heading: s.path, Text: body})
		}
	}
	switch {
	case len(chunks) == 0:
		return nil, title, ErrEmpty
	case maxChunks > 0 && len(chunks) > maxChunks:
		return nil, title, &TooManyChunksError{Chunks: len(chunks), Max: maxChunks}
	}
	return chunks, title, nil
}

// normalize makes text valid UTF-8 with "\n" line ends, without NUL
// characters (which PostgreSQL's text refuses) or any other that hides or
// reorders text (see visible).
func normalize(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
	return strings.Map(visible, text)
}

// visible is r, or -1 for a character that hides or reorders text when
// the model reads it or an answer quotes it: format characters (a byte
// order mark, a right-to-left override, zero-width spaces, the tag
// characters that spell words only a model reads) and control bytes
// other than white space. The joiners that build emoji and Persian or
// Indic words stay.
func visible(r rune) rune {
	switch {
	case r == '\u200c' || r == '\u200d':
		return r
	case unicode.Is(unicode.Cf, r) || unicode.IsControl(r) && !unicode.IsSpace(r):
		return -1
	}
	return r
}

// section is the paragraphs under one path of headings.
type section struct {
	path       string
	title      string // the level-1 heading that opens it, if one does
	paragraphs []string
}

// sections reads text's lines into sections: a heading starts a new one,
// a blank line ends a paragraph, and a fenced code block is one paragraph
// whatever it holds.
func sections(text string) []section {
	var out []section
	var stack []heading
	cur := section{}
	var para []string
	fence := ""
	endPara := func() {
		if p := strings.TrimSpace(strings.Join(para, "\n")); p != "" {
			cur.paragraphs = append(cur.paragraphs, p)
		}
		para = para[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			para = append(para, line)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
				endPara()
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			endPara()
			fence = f
			para = append(para, line)
			continue
		}
		if h, ok := headingOf(trimmed); ok {
			endPara()
			out = append(out, cur)
			for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, h)
			cur = section{path: pathOf(stack)}
			if h.level == 1 {
				cur.title = h.text
			}
			continue
		}
		if trimmed == "" {
			endPara()
			continue
		}
		para = append(para, strings.TrimRightFunc(line, unicode.IsSpace))
	}
	endPara()
	return append(out, cur)
}

// heading is one Markdown heading: "## Docker" is level 2.
type heading struct {
	level int
	text  string
}

// headingOf reads an ATX heading: one to six "#", a space, its words, and
// maybe closing "#"s.
func headingOf(line string) (heading, bool) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ' && line[level] != '\t') {
		return heading{}, false
	}
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
	if text == "" {
		return heading{}, false
	}
	if runes := []rune(text); len(runes) > MaxHeading {
		text = strings.TrimSpace(string(runes[:MaxHeading-1])) + "…"
	}
	return heading{level: level, text: text}, true
}

// fenceOf is the fence a line opens a code block with ("```" or "~~~"),
// or "".
func fenceOf(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			return f
		}
	}
	return ""
}

func pathOf(stack []heading) string {
	parts := make([]string, len(stack))
	for i, h := range stack {
		parts[i] = h.text
	}
	return strings.Join(parts, Separator)
}

// pack joins paragraphs into chunks of at most MaxChunk characters,
// cutting a longer paragraph into pieces.
func pack(paragraphs []string) []string {
	var out []string
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			curLen = 0
		}
	}
	for _, p := range paragraphs {
		n := utf8.RuneCountInString(p)
		if n > MaxChunk {
			flush()
			out = append(out, cut(p, MaxChunk)...)
			continue
		}
		if curLen > 0 && curLen+2+n > MaxChunk {
			flush()
		}
		if curLen > 0 {
			cur.WriteString("\n\n")
			curLen += 2
		}
		cur.WriteString(p)
		curLen += n
	}
	flush()
	return out
}

// cut splits text into pieces of at most max characters: after the last
// end of a sentence in a piece's second half, else at its last space,
// else at max characters.
func cut(text string, max int) []string {
	var out []string
	runes := []rune(text)
	for len(runes) > max {
		at := breakAt(runes[:max+1])
		if piece := strings.TrimSpace(string(runes[:at])); piece != "" {
			out = append(out, piece)
		}
		runes = runes[at:]
		for len(runes) > 0 && unicode.IsSpace(runes[0]) {
			runes = runes[1:]
		}
	}
	if piece := strings.TrimSpace(string(runes)); piece != "" {
		out = append(out, piece)
	}
	return out
}

// breakAt is where to end a piece of window, which is one character longer
// than a piece may be.
func breakAt(window []rune) int {
	limit := len(window) - 1
	for i := limit; i > limit/2; i-- {
		if sentenceEnd(window[i-1]) && unicode.IsSpace(window[i]) || window[i-1] == '。' || window[i-1] == '\n' {
			return i
		}
	}
	for i := limit; i > limit/4; i-- {
		if unicode.IsSpace(window[i]) {
			return i
		}
	}
	return limit
}

func sentenceEnd(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }
