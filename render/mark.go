package render

import "slices"

// kind is a kind of formatting that Telegram's HTML can express.
type kind uint8

const (
	markQuote  kind = iota + 1 // <blockquote>, around whole blocks
	markPre                    // <pre>, around a whole code block; arg is the language
	markBold                   // <b>
	markItalic                 // <i>
	markStrike                 // <s>
	markLink                   // <a href>; arg is the URL
	markCode                   // <code>, a code span
)

// mark is one piece of formatting open over some text.
type mark struct {
	kind kind
	arg  string
}

// inline reports whether the mark is an inline entity, one that a cut
// between messages should rather not split. Block marks (quote, pre) are
// always outermost.
func (m mark) inline() bool { return m.kind >= markBold }

// span is a run of display text with the marks open over it, outermost
// first. A rendered answer is a sequence of spans; their texts, joined, are
// exactly what the person reads.
type span struct {
	text  string
	marks []mark
	brk   bool // the blank line between two blocks
}

// blockMarks is the prefix of marks that are block marks.
func blockMarks(marks []mark) []mark {
	n := 0
	for n < len(marks) && !marks[n].inline() {
		n++
	}
	return slices.Clip(marks[:n])
}

// hasInline reports whether any of marks is an inline entity.
func hasInline(marks []mark) bool {
	return len(blockMarks(marks)) < len(marks)
}

// sharesInline reports whether an inline entity open over a continues over
// b, so that a cut between them would split it.
func sharesInline(a, b []mark) bool {
	n := commonPrefix(a, b)
	return n > 0 && a[n-1].inline()
}

// commonPrefix is how many marks a and b share from the outside in.
func commonPrefix(a, b []mark) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// blank reports whether spans show nothing but whitespace.
func blank(spans []span) bool {
	for _, s := range spans {
		if !isBlank(s.text) {
			return false
		}
	}
	return true
}
