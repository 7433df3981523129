package render

import "strings"

// MaxUnits is Telegram's limit on one message's text, in UTF-16 code
// units, counted after entity parsing.
const MaxUnits = 4096

// minLimit is the smallest limit Markdown works to: room for a "(k/n)"
// line and some text. Smaller limits are raised to it.
const minLimit = 16

// Part is one message of an answer.
type Part struct {
	HTML  string // to send with parse_mode HTML
	Plain string // exactly the text the person sees (HTML's display text): sent without parse_mode when Telegram refuses the HTML
}

// Markdown renders src, the model's Markdown, into one or more parts whose
// display text is at most limit UTF-16 units each. When there are several
// parts, each ends with a line "(k/n)". It never returns zero parts. A
// limit below 16 is taken as 16.
func Markdown(src string, limit int) []Part {
	return render(src).split(max(limit, minLimit))
}

// Lead is the first message of src's rendering, for an answer whose whole
// text goes elsewhere (a file): the start of the answer, cut as Markdown
// cuts it, that ends with a line note instead of "(1/n)", all within limit
// units (taken as at least 16 more than note needs).
func Lead(src string, limit int, note string) Part {
	a := render(src)
	suffix := "\n\n" + note
	p := a.part(a.cut(max(limit-Units(suffix), minLimit))[0], "")
	return Part{HTML: p.HTML + escape(suffix), Plain: p.Plain + suffix}
}

// render renders src, the model's Markdown, as an answer to cut into
// messages.
func render(src string) *answer {
	text := normalize(StripThinking(src))
	spans := document(text)
	switch {
	case !blank(spans):
	case isBlank(text) && !isBlank(src):
		spans = []span{{text: onlyThinking}} // thinking is never shown
	default:
		spans = fallback(text)
	}
	return newAnswer(spans)
}

// document renders Markdown into spans, its blocks separated by blank
// lines.
func document(text string) []span {
	return join(parseBlocks(strings.Split(text, "\n"), nil), nil)
}

// onlyThinking is shown for an answer that was all thinking.
const onlyThinking = "(no answer: the model only thought about it)"

// fallback is what an answer that renders as nothing shows: its text as
// plain text, or "…" when it is blank.
func fallback(text string) []span {
	if !isBlank(text) {
		return []span{{text: strings.TrimSpace(text)}}
	}
	return []span{{text: "…"}}
}

// normalize makes src valid UTF-8 with \n line breaks.
func normalize(src string) string {
	s := strings.ToValidUTF8(src, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// isBlank reports whether s is empty or only whitespace.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
