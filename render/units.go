package render

import "unicode/utf16"

// Units is the length of s in UTF-16 code units, the unit Telegram counts
// message lengths in: a character outside the Basic Multilingual Plane,
// such as most emoji, counts 2.
func Units(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

func runeUnits(r rune) int { return max(utf16.RuneLen(r), 1) }
