package tools

import (
	"strings"
	"unicode"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/bidi"
	"gonum.org/v1/plot/font"
)

// drawable splits s into what the chart's font draws and what it cannot.
// The font, plot's Liberation Sans, has Latin, Greek, Cyrillic and Hebrew
// letters, digits and the common symbols, and plot draws one glyph a
// character, left to right, with no shaping. drawn is s without what would
// show as nothing, as a box or out of place: invisible characters
// (zero-width spaces and joiners, direction marks, variation selectors)
// and symbols the font lacks, such as emoji. cannot is the letters, digits
// and marks it cannot draw: of the scripts it lacks (Chinese, Arabic,
// Devanagari…), and of those written right to left, which it would draw
// backwards.
func drawable(s string) (drawn, cannot string) {
	face := font.DefaultCache.Lookup(chartFace, 12).Face
	var buf sfnt.Buffer
	var d, c strings.Builder
	for _, r := range s {
		if unicode.In(r, unicode.Cf, unicode.Variation_Selector) {
			continue
		}
		glyph, err := face.GlyphIndex(&buf, r)
		has := err == nil && glyph != 0
		switch {
		case rightToLeft(r) || !has && unicode.In(r, unicode.L, unicode.M, unicode.N):
			c.WriteRune(r)
		case has:
			d.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(d.String()), " "), c.String()
}

// rightToLeft reports whether r belongs to a script written right to left.
func rightToLeft(r rune) bool {
	p, _ := bidi.LookupRune(r)
	return p.Class() == bidi.R || p.Class() == bidi.AL
}
