package openapi

import (
	"html"
	"regexp"
	"strings"
	"unicode"
)

// Lengths of generated text, in characters.
const (
	maxDescription    = 200 // a tool's description, as the registry requires
	maxArgDescription = 120 // an argument's: every character is in every prompt
)

var (
	htmlComment  = regexp.MustCompile(`(?s)<!--.*?-->`)
	htmlBlock    = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)>`)
	htmlBreak    = regexp.MustCompile(`(?i)<(br|/p|/div|/li|/h[1-6]|p|li|/title|/td|/th|/tr|/head)\b[^>]*>`)
	htmlTag      = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	mdImage      = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink       = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	mdRefLink    = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)
	mdEmphasis   = regexp.MustCompile(`(\*\*|__|\*|~~)([^*_~\n]+)(\*\*|__|\*|~~)`)
	mdUnderscore = regexp.MustCompile(`(^|\W)_([^_\n]+)_(\W|$)`)
	mdCode       = regexp.MustCompile("`+([^`]*)`+")
	mdLineStart  = regexp.MustCompile(`(?m)^\s*(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)`)
	mdFence      = regexp.MustCompile("(?m)^\\s*```.*$")
	mdTableRule  = regexp.MustCompile(`(?m)^\s*\|?[\s:|-]+\|[\s:|-]*$`)
	spaces       = regexp.MustCompile(`\s+`)
)

// plainText strips HTML and Markdown from s and joins its lines.
func plainText(s string) string {
	s = htmlComment.ReplaceAllString(s, " ")
	s = htmlBlock.ReplaceAllString(s, " ")
	s = htmlBreak.ReplaceAllString(s, "\n")
	s = htmlTag.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = mdFence.ReplaceAllString(s, "")
	s = mdTableRule.ReplaceAllString(s, "")
	s = mdLineStart.ReplaceAllString(s, "")
	s = mdImage.ReplaceAllString(s, "$1")
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdRefLink.ReplaceAllString(s, "$1")
	s = mdCode.ReplaceAllString(s, "$1")
	for range 2 { // nested emphasis: ***a*** and **_a_**
		s = mdEmphasis.ReplaceAllString(s, "$2")
		s = mdUnderscore.ReplaceAllString(s, "$1$2$3")
	}
	s = strings.ReplaceAll(s, "|", " ")
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// firstSentence returns the first sentence of plain text: up to a full
// stop, question or exclamation mark that ends a word and is followed by
// a space and a capital letter or a digit, or by nothing. Full stops in
// numbers ("1.5"), versions and common abbreviations ("e.g.") do not end
// it.
func firstSentence(s string) string {
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		if r[i] != '.' && r[i] != '!' && r[i] != '?' {
			continue
		}
		if i+1 == len(r) {
			return string(r[:i+1])
		}
		if !unicode.IsSpace(r[i+1]) {
			continue
		}
		if r[i] == '.' && abbreviation(string(r[:i])) {
			continue
		}
		j := i + 1
		for j < len(r) && unicode.IsSpace(r[j]) {
			j++
		}
		if j == len(r) || unicode.IsUpper(r[j]) || unicode.IsDigit(r[j]) || !unicode.IsLetter(r[j]) {
			return string(r[:i+1])
		}
	}
	return s
}

var abbreviations = []string{"e.g", "i.e", "etc", "vs", "approx", "incl", "no", "nr", "min", "max", "esp", "cf", "resp", "dr", "mr", "ms", "st"}

func abbreviation(before string) bool {
	lower := strings.ToLower(before)
	for _, a := range abbreviations {
		if strings.HasSuffix(lower, " "+a) || lower == a || strings.HasSuffix(lower, "("+a) {
			return true
		}
	}
	return false
}

// shortText is the first sentence of s as plain text, cut to max
// characters at a word.
func shortText(s string, max int) string {
	return cut(firstSentence(plainText(firstParagraph(s))), max)
}

var (
	mdHeading = regexp.MustCompile(`^\s*#{1,6}\s`)
	blankLine = regexp.MustCompile(`\n\s*\n`)
)

// firstParagraph is the first paragraph of Markdown text that is not a
// heading: a description's first sentence ends with its paragraph, and a
// heading ("# Overview") says nothing about what the operation does.
func firstParagraph(s string) string {
	paragraphs := blankLine.Split(s, -1)
	for _, p := range paragraphs {
		if strings.TrimSpace(p) != "" && !mdHeading.MatchString(p) {
			return p
		}
	}
	if len(paragraphs) > 0 {
		return paragraphs[0]
	}
	return s
}

// cut shortens s to at most max characters, at the end of a word, with
// an ellipsis.
func cut(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	r = r[:max-1]
	if i := strings.LastIndexFunc(string(r), unicode.IsSpace); i > max/2 {
		r = []rune(string(r)[:i])
	}
	return strings.TrimRight(string(r), " ,;:-") + "…"
}
