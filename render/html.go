package render

import "strings"

// writeHTML writes spans as Telegram HTML. Between two spans it closes the
// marks that are no longer open and opens the new ones; at the end it
// closes everything, so any run of spans makes valid HTML.
func writeHTML(b *strings.Builder, spans []span) {
	var open []mark
	for _, s := range spans {
		if s.text == "" {
			continue
		}
		open = switchMarks(b, open, s.marks)
		escapeText(b, s.text)
	}
	switchMarks(b, open, nil)
}

// switchMarks closes the marks of open that next does not share and opens
// the rest of next.
func switchMarks(b *strings.Builder, open, next []mark) []mark {
	n := commonPrefix(open, next)
	for i := len(open) - 1; i >= n; i-- {
		closeTag(b, open[i])
	}
	for _, m := range next[n:] {
		openTag(b, m)
	}
	return next
}

func openTag(b *strings.Builder, m mark) {
	switch m.kind {
	case markQuote:
		b.WriteString("<blockquote>")
	case markPre:
		b.WriteString("<pre>")
		if m.arg != "" {
			b.WriteString(`<code class="language-`)
			escapeAttr(b, m.arg)
			b.WriteString(`">`)
		}
	case markLink:
		b.WriteString(`<a href="`)
		escapeAttr(b, m.arg)
		b.WriteString(`">`)
	default:
		b.WriteString("<" + inlineTag(m.kind) + ">")
	}
}

func closeTag(b *strings.Builder, m mark) {
	switch m.kind {
	case markQuote:
		b.WriteString("</blockquote>")
	case markPre:
		if m.arg != "" {
			b.WriteString("</code>")
		}
		b.WriteString("</pre>")
	case markLink:
		b.WriteString("</a>")
	default:
		b.WriteString("</" + inlineTag(m.kind) + ">")
	}
}

func inlineTag(k kind) string {
	switch k {
	case markBold:
		return "b"
	case markItalic:
		return "i"
	case markStrike:
		return "s"
	}
	return "code"
}

// escapeText writes s with the three characters HTML text must escape.
func escapeText(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var ref string
		switch s[i] {
		case '&':
			ref = "&amp;"
		case '<':
			ref = "&lt;"
		case '>':
			ref = "&gt;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(ref)
		last = i + 1
	}
	b.WriteString(s[last:])
}

// escapeAttr writes s for a double-quoted attribute value.
func escapeAttr(b *strings.Builder, s string) {
	for _, part := range strings.SplitAfter(s, `"`) {
		quoted := strings.HasSuffix(part, `"`)
		escapeText(b, strings.TrimSuffix(part, `"`))
		if quoted {
			b.WriteString("&quot;")
		}
	}
}

// escape is s as HTML text.
func escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	escapeText(&b, s)
	return b.String()
}
