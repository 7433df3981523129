package agent

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxPersona bounds a chat's persona, in characters: an addition to the
// system prompt, not a second one.
const MaxPersona = 1000

// personaMarker is anything that reads like the lines that open and close
// the persona's section of the system prompt.
var personaMarker = regexp.MustCompile(`(?i)-*[ \t]*persona[ \t]+(begins|ends)[ \t]*-*`)

// markerSkeleton is a line that reads as one of those markers, as
// skeleton writes it (an "i" reads as "l" there), with spaces folded.
var markerSkeleton = regexp.MustCompile(`persona\s+(beglns|ends)`)

// CleanPersona is a persona as it may be kept and shown: without control
// characters (but its line breaks), Unicode's direction overrides and
// invisible format characters, without blank lines at its ends, and no
// longer than MaxPersona characters.
func CleanPersona(text string) string {
	text = uncut(text)
	if r := []rune(text); len(r) > MaxPersona {
		text = strings.TrimSpace(string(r[:MaxPersona]))
	}
	return text
}

// PersonaLength is how many characters of text a persona keeps, before
// it is cut at MaxPersona: what it is measured by.
func PersonaLength(text string) int { return utf8.RuneCountInString(uncut(text)) }

// uncut is text cleaned as CleanPersona cleans it, at its whole length.
func uncut(text string) string {
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t', r == '\u2028', r == '\u2029':
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r) && r != '\u200d': // the joiner holds emoji together
			return -1
		}
		return r
	}, text)
	return strings.TrimSpace(text)
}

// persona is a chat's persona as the system prompt shows it: clean, with
// nothing in it that passes for a tool result, the end of its section or
// a heading of the prompt — the rules that follow it stay the rules. A
// marker or a heading written with look-alikes (a no-break space, Cyrillic
// or full-width letters, "＃") counts as one: the model reads it so.
func persona(text string) string {
	text = personaMarker.ReplaceAllString(Neutralise(CleanPersona(text)), "(marker removed)")
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		if sk, _ := skeleton(l); markerSkeleton.MatchString(sk) {
			l = "(marker removed)" // written with letters or spaces that only look like it
		}
		l = strings.TrimLeftFunc(l, func(r rune) bool { return unicode.IsSpace(r) || norm.NFKD.String(string(r)) == "#" })
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
