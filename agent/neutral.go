package agent

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// Text from Telegram — what people write, their names, a group's title —
// reaches the model only as a person's words. It must not pass for a tool
// result, whose messages start with toolbus.ResultPrefix, nor for a
// speaker tag in a group. Neutralise quotes the prefix wherever it appears,
// also written with look-alike characters: full-width or styled letters
// (which NFKD folds), Cyrillic and Greek letters that look Latin, other
// underscores, invisible characters or combining marks in between.

// quoted is what the tool-result prefix, or a look-alike, becomes: it
// holds no underscore, so neutralising it again changes nothing.
const quoted = "(quoted) tool-result"

// Neutralise makes a person's text unable to pass for a tool result: it
// drops invisible formatting characters and quotes the prefix, or anything
// that reads as it, wherever it appears.
func Neutralise(text string) string {
	text = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, text)
	return quoteLookalikes(text)
}

// Speaker is how a person is named before their words in a group: their
// name on one line, neutralised, with no brackets that could close the
// tag early, and at most maxSpeaker characters.
func Speaker(u ryo.User) string {
	name := strings.Map(asParenthesis, Neutralise(u.Name()))
	if name = oneLine(name, maxSpeaker); name == "" {
		return "someone"
	}
	return name
}

// asParenthesis turns every opening bracket of any script or shape ([, ［,
// ﹇, 〔, ⁅ …) into "(" and every closing one into ")", so that none can
// pass for the "]" that ends a speaker tag; quotation marks stay.
func asParenthesis(r rune) rune {
	switch {
	case unicode.Is(unicode.Quotation_Mark, r):
		return r
	case unicode.Is(unicode.Ps, r):
		return '('
	case unicode.Is(unicode.Pe, r):
		return ')'
	}
	return r
}

// quoteSpeakerLines marks each line of a person's text in a group that
// reads as a speaker tag — a bracket of any shape, a closing one, a colon —
// as quoted, so that one message cannot pass for several people talking.
func quoteSpeakerLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if looksLikeTag(l) {
			lines[i] = "(quoted) " + l
		}
	}
	return strings.Join(lines, "\n")
}

// looksLikeTag reports whether line starts, after spaces, with an opening
// bracket and has a closing one followed by a colon.
func looksLikeTag(line string) bool {
	t := strings.TrimLeftFunc(line, unicode.IsSpace)
	first, _ := utf8.DecodeRuneInString(t)
	if !unicode.Is(unicode.Ps, first) {
		return false
	}
	for i, r := range t {
		if !unicode.Is(unicode.Pe, r) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(t[i+utf8.RuneLen(r):], unicode.IsSpace))
		if next == ':' || next == '：' || next == '﹕' || next == '︓' {
			return true
		}
	}
	return false
}

// oneLine is s with every run of spaces, line breaks and control
// characters as one space, cut to at most n characters.
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// groupTitle is a group's title as the model is shown it, with the newest
// message: one line, neutralised, without the guillemets it is shown in,
// and at most maxTitle characters; "" outside groups.
func groupTitle(c ryo.Chat) string {
	if !c.Type.IsGroup() {
		return ""
	}
	title := strings.NewReplacer("«", "\"", "»", "\"").Replace(Neutralise(c.Title))
	return oneLine(title, maxTitle)
}

// maxTitle bounds a group's title; Telegram allows 128 characters.
const maxTitle = 128

// maxSpeaker bounds a name in a speaker tag; Telegram allows 64 characters
// for a first name and as many for a last name.
const maxSpeaker = 80

// quoteLookalikes replaces every span of text that reads as the prefix's
// "tool_result" — with any underscores around it — by quoted.
func quoteLookalikes(text string) string {
	sk, from := skeleton(text)
	word := strings.Trim(toolbus.ResultPrefix, "_")
	if !strings.Contains(sk, word) {
		return text
	}
	var out strings.Builder
	last := 0 // the byte of text written up to
	for i := 0; ; {
		j := strings.Index(sk[i:], word)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(word)
		for start > 0 && sk[start-1] == '_' {
			start--
		}
		for end < len(sk) && sk[end] == '_' {
			end++
		}
		a, b := from[start], textEnd(text, from, end)
		if a < last {
			a = last
		}
		out.WriteString(text[last:a])
		out.WriteString(quoted)
		last, i = b, end
	}
	out.WriteString(text[last:])
	return out.String()
}

// textEnd is the byte of text where the skeleton's byte end begins: the
// end of the rune that produced the byte before it.
func textEnd(text string, from []int, end int) int {
	if end < len(from) {
		// Skip to the first skeleton byte of the next rune of text.
		start := from[end-1]
		_, size := utf8.DecodeRuneInString(text[start:])
		return max(start+size, min(from[end], len(text)))
	}
	return len(text)
}

// skeleton is text as it reads: NFKD-folded, lower case, look-alike
// letters as the Latin ones they look like, underscore-likes as "_", and
// combining marks dropped. from[i] is the byte of text that skeleton byte
// i came from.
func skeleton(text string) (string, []int) {
	var sk strings.Builder
	var from []int
	for i, r := range text {
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		for _, f := range norm.NFKD.String(string(r)) {
			f = lookalike(unicode.ToLower(f))
			if unicode.Is(unicode.Pc, f) || f == '‗' {
				f = '_'
			}
			if unicode.Is(unicode.Mn, f) {
				continue
			}
			n := sk.Len()
			sk.WriteRune(f)
			for range sk.Len() - n {
				from = append(from, i)
			}
		}
	}
	return sk.String(), from
}

// lookalike is the Latin letter of "tool_result", or of "persona begins"
// and "persona ends", that r cannot be told from, or r.
func lookalike(r rune) rune {
	switch r {
	case 'т', 'τ':
		return 't'
	case 'о', 'ο', 'σ', 'օ', '0', 'ө':
		return 'o'
	case 'ӏ', 'ι', 'і', 'ı', 'i', '1', '|', 'ǀ':
		return 'l'
	case 'г':
		return 'r'
	case 'е', 'ε':
		return 'e'
	case 'ѕ':
		return 's'
	case 'υ', 'ս', 'ц':
		return 'u'
	case 'р', 'ρ': // and the letters of a persona's markers (persona.go)
		return 'p'
	case 'а', 'α', 'ɑ':
		return 'a'
	case 'ԁ':
		return 'd'
	case 'ɡ', 'ց':
		return 'g'
	case 'ո':
		return 'n'
	}
	return r
}
