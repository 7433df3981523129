package render

import "strings"

// Builder composes a message from the bot's own structure and text that
// may come from anywhere: every piece is escaped, and Plain stays exactly
// the display text of HTML, so the part can fall back to plain text like
// any other.
type Builder struct {
	html, plain strings.Builder
}

// Text adds s as it is.
func (b *Builder) Text(s string) { b.add("", "", s) }

// Bold adds s in bold.
func (b *Builder) Bold(s string) { b.add("<b>", "</b>", s) }

// Italic adds s in italics.
func (b *Builder) Italic(s string) { b.add("<i>", "</i>", s) }

// Code adds s in a monospace span.
func (b *Builder) Code(s string) { b.add("<code>", "</code>", s) }

// Pre adds s as a preformatted block, highlighted as lang when not empty.
func (b *Builder) Pre(s, lang string) {
	if lang == "" {
		b.add("<pre>", "</pre>", s)
		return
	}
	var open strings.Builder
	open.WriteString(`<pre><code class="language-`)
	escapeAttr(&open, lang)
	open.WriteString(`">`)
	b.add(open.String(), "</code></pre>", s)
}

func (b *Builder) add(open, close, s string) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if s == "" {
		return
	}
	b.html.WriteString(open)
	escapeText(&b.html, s)
	b.html.WriteString(close)
	b.plain.WriteString(s)
}

// Units is the display length so far, in UTF-16 units.
func (b *Builder) Units() int { return Units(b.plain.String()) }

// Part is the message built.
func (b *Builder) Part() Part { return Part{HTML: b.html.String(), Plain: b.plain.String()} }
