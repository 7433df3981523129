package render

import (
	"strings"
	"unicode"
)

// Text is plain text as a Part (HTML escaped), cut to limit units if
// longer: it keeps the start, cut between two visible characters, and
// ends with "…". Blank text shows as "…", since Telegram refuses empty
// messages.
func Text(s string, limit int) Part {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if isBlank(s) {
		s = "…"
	}
	if Units(s) > limit {
		s = clipUnits(s, max(limit, 1)-1) + "…"
	}
	return Part{HTML: escape(s), Plain: s}
}

// clipUnits is the longest start of s that fits in n units and does not
// end inside a visible character, without trailing whitespace.
func clipUnits(s string, n int) string {
	end, units, ris := 0, 0, 0
	var prev rune
	for i, r := range s {
		if i > 0 && !joins(prev, r, ris) {
			end = i
		}
		if units += runeUnits(r); units > n {
			return strings.TrimRightFunc(s[:end], unicode.IsSpace)
		}
		prev = r
		if isRegional(r) {
			ris++
		} else {
			ris = 0
		}
	}
	return s
}
