package fetch

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// markdown renders the text under n as Markdown-ish text: headings with #,
// list items with -, links as [text](url), preformatted text fenced, table
// rows with | between cells; pictures, scripts, styles and forms leave
// nothing. Relative links are read against base when it is set.
func markdown(n *html.Node, base *url.URL) string {
	w := &mdWriter{base: base}
	w.node(n)
	return strings.TrimSpace(w.b.String())
}

type mdWriter struct {
	b       strings.Builder
	base    *url.URL
	breaks  int    // newlines owed before the next text
	space   bool   // a space is owed before the next text
	prefix  string // what each new line starts with, inside lists and quotes
	ordinal []int  // the item numbers of the ordered lists we are in; 0 for unordered
	marked  bool   // a list item's marker was just written
}

// skipped are elements whose content is never text for a reader.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Img: true,
	atom.Picture: true, atom.Video: true, atom.Audio: true, atom.Form: true, atom.Button: true,
	atom.Select: true, atom.Input: true, atom.Textarea: true, atom.Head: true, atom.Math: true,
}

// blocks are elements that stand on lines of their own.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Header: true,
	atom.Footer: true, atom.Main: true, atom.Aside: true, atom.Nav: true, atom.Figure: true,
	atom.Figcaption: true, atom.Table: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true,
	atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Address: true, atom.Details: true,
	atom.Summary: true, atom.Caption: true, atom.Body: true, atom.Html: true,
}

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	if skipped[n.DataAtom] {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.block(2)
		w.raw(strings.Repeat("#", int(n.Data[1]-'0')) + " ")
		w.children(n)
		w.block(2)
	case atom.Br:
		w.block(1)
	case atom.Hr:
		w.block(2)
		w.raw("---")
		w.block(2)
	case atom.Pre:
		w.block(2)
		w.raw("```\n" + strings.TrimRight(textOf(n), "\n") + "\n```")
		w.block(2)
	case atom.Code:
		if t := strings.TrimSpace(textOf(n)); t != "" {
			w.raw("`" + t + "`")
		}
	case atom.A:
		w.link(n)
	case atom.Ul, atom.Ol:
		w.list(n)
	case atom.Li:
		w.item(n)
	case atom.Blockquote:
		w.block(2)
		saved := w.prefix
		w.prefix += "> "
		w.children(n)
		w.prefix = saved
		w.block(2)
	case atom.Tr:
		w.block(1)
		w.children(n)
		w.block(1)
	case atom.Td, atom.Th:
		if cellBefore(n) {
			w.raw(" | ")
		}
		w.children(n)
	default:
		if blocks[n.DataAtom] {
			w.block(2)
			w.children(n)
			w.block(2)
			return
		}
		w.children(n)
	}
}

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// block owes at least n newlines before the next text, unless a list
// item's marker waits for its first words.
func (w *mdWriter) block(n int) {
	if w.marked {
		return
	}
	w.breaks = max(w.breaks, n)
	w.space = false
}

// text writes running text, its white space collapsed.
func (w *mdWriter) text(s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	if s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r' {
		w.space = true
	}
	w.raw(literal.Replace(strings.Join(words, " ")))
	last := s[len(s)-1]
	w.space = last == ' ' || last == '\n' || last == '\t' || last == '\r'
}

// literal escapes the brackets of a page's words, so that text written to
// look like a link — "[x](tg://user?id=1)" — stays words: the only links
// in the output are the page's own, whose addresses resolve checks.
var literal = strings.NewReplacer("[", "\\[", "]", "\\]")

// raw writes s as it is, after the breaks or space it is owed.
func (w *mdWriter) raw(s string) {
	if s == "" {
		return
	}
	switch {
	case w.b.Len() == 0:
		w.b.WriteString(w.prefix)
	case w.breaks > 0:
		w.b.WriteString(strings.Repeat("\n", w.breaks) + w.prefix)
	case w.space:
		w.b.WriteString(" ")
	}
	w.breaks, w.space, w.marked = 0, false, false
	w.b.WriteString(s)
}

// link writes [text](url), or the text alone when the link leads nowhere
// a reader can follow.
func (w *mdWriter) link(n *html.Node) {
	inner := &mdWriter{base: w.base}
	inner.children(n)
	text := strings.Join(strings.Fields(inner.b.String()), " ")
	href := w.resolve(attr(n, "href"))
	switch {
	case text == "":
		return
	case href == "":
		w.raw(text)
	case href == text:
		w.raw("<" + href + ">")
	default:
		w.raw("[" + text + "](" + strings.ReplaceAll(href, ")", "%29") + ")")
	}
}

// resolve makes href absolute and keeps it only if it is a web or mail
// link.
func (w *mdWriter) resolve(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if w.base != nil {
		u = w.base.ResolveReference(u)
	}
	switch u.Scheme {
	case "http", "https":
		if !isASCII(u.Hostname()) { // a look-alike host shows what it is
			if _, err := asciiHost(u); err != nil {
				return ""
			}
		}
		return u.String()
	case "mailto":
		return u.String()
	}
	return ""
}

func (w *mdWriter) list(n *html.Node) {
	w.block(1)
	ord := 0
	if n.DataAtom == atom.Ol {
		ord = 1
	}
	w.ordinal = append(w.ordinal, ord)
	w.children(n)
	w.ordinal = w.ordinal[:len(w.ordinal)-1]
	w.block(2)
}

func (w *mdWriter) item(n *html.Node) {
	if itemBefore(n) { // items stay together, even with paragraphs inside
		w.breaks = min(w.breaks, 1)
	}
	w.block(1)
	marker := "- "
	if d := len(w.ordinal); d > 0 && w.ordinal[d-1] > 0 {
		marker = strconv.Itoa(w.ordinal[d-1]) + ". "
		w.ordinal[d-1]++
	}
	saved := w.prefix
	w.raw(marker)
	w.marked = true
	w.prefix = saved + strings.Repeat(" ", len(marker))
	w.children(n)
	w.prefix = saved
	w.block(1)
}

// textOf is all the text under n, as it is.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// itemBefore reports whether a list item comes before n in its list.
func itemBefore(n *html.Node) bool {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.DataAtom == atom.Li {
			return true
		}
	}
	return false
}

// cellBefore reports whether a table cell comes before n in its row.
func cellBefore(n *html.Node) bool {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.DataAtom == atom.Td || p.DataAtom == atom.Th {
			return true
		}
	}
	return false
}
