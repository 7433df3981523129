package render

import "unicode"

// width is how many columns s takes in a monospace font: East Asian wide
// characters and emoji take 2, combining marks and the parts of an emoji
// sequence after the first take 0, everything else 1.
func width(s string) int {
	w, ris := 0, 0
	var prev rune
	narrow := false // the last character counted took 1 column
	for _, r := range s {
		switch {
		case isRegional(r):
			ris++
			if ris%2 == 1 {
				w += 2
			}
		case prev != 0 && joins(prev, r, 0):
			if r == vs16 && narrow {
				w++ // a text symbol shown as emoji, such as ❤️
			}
			narrow = false
		case unicode.In(r, unicode.Cc, unicode.Cf):
		case wide(r):
			w += 2
			narrow = false
		default:
			w++
			narrow = true
		}
		if !isRegional(r) {
			ris = 0
		}
		prev = r
	}
	return w
}

// wide reports whether r takes two columns: the East Asian Wide and
// Fullwidth ranges of Unicode, and emoji shown as emoji by default.
func wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115f, // Hangul Jamo initials
		r == 0x231a, r == 0x231b, r == 0x2329, r == 0x232a,
		r >= 0x23e9 && r <= 0x23ec, r == 0x23f0, r == 0x23f3,
		r == 0x25fd, r == 0x25fe:
		return true
	case r >= 0x2600 && r <= 0x27bf:
		return emojiSymbol(r)
	case r == 0x2b1b, r == 0x2b1c, r == 0x2b50, r == 0x2b55,
		r >= 0x2e80 && r <= 0x303e, // CJK radicals, symbols and punctuation
		r >= 0x3041 && r <= 0x33ff, // kana, bopomofo, CJK compatibility
		r >= 0x3400 && r <= 0x4dbf, // CJK extension A
		r >= 0x4e00 && r <= 0x9fff, // CJK unified ideographs
		r >= 0xa000 && r <= 0xa4cf, // Yi
		r >= 0xa960 && r <= 0xa97f, // Hangul Jamo extended A
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // CJK compatibility ideographs
		r >= 0xfe10 && r <= 0xfe19, // vertical forms
		r >= 0xfe30 && r <= 0xfe6f, // CJK compatibility and small forms
		r >= 0xff00 && r <= 0xff60, // fullwidth forms
		r >= 0xffe0 && r <= 0xffe6:
		return true
	}
	return wideAstral(r)
}

// emojiSymbol reports whether a symbol in U+2600–U+27BF is shown as emoji
// by default.
func emojiSymbol(r rune) bool {
	switch r {
	case 0x2614, 0x2615, 0x267f, 0x2693, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be,
		0x26c4, 0x26c5, 0x26ce, 0x26d4, 0x26ea, 0x26f2, 0x26f3, 0x26f5, 0x26fa, 0x26fd,
		0x2705, 0x270a, 0x270b, 0x2728, 0x274c, 0x274e, 0x2753, 0x2754, 0x2755, 0x2757,
		0x2795, 0x2796, 0x2797, 0x27b0, 0x27bf:
		return true
	}
	return r >= 0x2648 && r <= 0x2653 // zodiac
}

// wideAstral covers the wide ranges beyond the Basic Multilingual Plane.
func wideAstral(r rune) bool {
	switch {
	case r >= 0x16fe0 && r <= 0x16fe4, r >= 0x17000 && r <= 0x18cff, // Tangut
		r >= 0x1b000 && r <= 0x1b2ff, // kana supplement
		r == 0x1f004, r == 0x1f0cf, r == 0x1f18e, r >= 0x1f191 && r <= 0x1f19a,
		r >= 0x1f200 && r <= 0x1f265, // enclosed ideographic supplement
		r >= 0x1f300 && r <= 0x1f64f, // pictographs, emoticons
		r >= 0x1f680 && r <= 0x1f6ff, // transport and map
		r >= 0x1f7e0 && r <= 0x1f7eb, // coloured circles and squares
		r >= 0x1f900 && r <= 0x1f9ff, // supplemental pictographs
		r >= 0x1fa70 && r <= 0x1faff: // extended pictographs
		return true
	}
	return r >= 0x20000 && r <= 0x2fffd || r >= 0x30000 && r <= 0x3fffd // CJK extensions
}
