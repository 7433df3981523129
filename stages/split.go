package stages

import (
	"strings"
	"unicode/utf16"
)

// MaxMessageUnits is Telegram's limit on a message's text, in UTF-16 code
// units.
const MaxMessageUnits = 4096

// Split cuts text into parts of at most max UTF-16 units, preferring to cut
// between paragraphs, then between lines, then between words. Parts are
// trimmed; an empty text gives one empty part.
func Split(text string, max int) []string {
	text = strings.TrimSpace(text)
	var parts []string
	for units(text) > max {
		cut := cutPoint(text, max)
		parts = append(parts, strings.TrimSpace(text[:cut]))
		text = strings.TrimSpace(text[cut:])
	}
	return append(parts, text)
}

// cutPoint returns a byte offset in text where the prefix fits in max units,
// as late as possible at the best kind of boundary.
func cutPoint(text string, max int) int {
	fit := fitting(text, max)
	head := text[:fit]
	for _, sep := range []string{"\n\n", "\n", " "} {
		// Do not cut so early that the part is tiny.
		if i := strings.LastIndex(head, sep); i > fit/2 {
			return i
		}
	}
	return fit
}

// fitting returns the longest prefix of text, in bytes and on a rune
// boundary, that fits in max UTF-16 units.
func fitting(text string, max int) int {
	n := 0
	for i, r := range text {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if n+w > max {
			return i
		}
		n += w
	}
	return len(text)
}

func units(s string) int {
	n := 0
	for _, r := range s {
		if w := utf16.RuneLen(r); w > 0 {
			n += w
		} else {
			n++
		}
	}
	return n
}
