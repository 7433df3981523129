package render

import "unicode"

// Runes that glue characters together into one visible character.
const (
	zwj  = '\u200d' // zero width joiner, as in 👨‍👩‍👧
	vs16 = '\ufe0f' // variation selector 16: show as emoji
)

// joins reports whether next belongs to the same visible character as
// prev, so that no cut should fall between them: around a zero width
// joiner, before combining marks, variation selectors, skin tones and tag
// characters, and inside a pair of regional indicators (a flag). ris is
// how many regional indicators end at prev.
func joins(prev, next rune, ris int) bool {
	switch {
	case prev == zwj || next == zwj:
		return true
	case isRegional(prev) && isRegional(next):
		return ris%2 == 1
	}
	return extends(next)
}

// extends reports whether r attaches to the character before it.
func extends(r rune) bool {
	switch {
	case r < 0x300: // before the first combining mark
		return false
	case r >= 0x1f3fb && r <= 0x1f3ff: // skin tones
		return true
	case r >= 0xe0020 && r <= 0xe007f: // tags, as in the flag of Scotland
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc)
}

func isRegional(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// Cuttable reports whether runes may be cut before runes[i] without
// splitting a visible character: whether runes[i] starts one rather than
// continuing the one before it, by the rules answers are split by.
func Cuttable(runes []rune, i int) bool {
	if i <= 0 || i >= len(runes) {
		return true
	}
	ris := 0
	for j := i - 1; j >= 0 && isRegional(runes[j]); j-- {
		ris++
	}
	return !joins(runes[i-1], runes[i], ris)
}
