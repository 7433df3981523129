package knowledge

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// ErrUnsupported is a file of a kind the knowledge base cannot read.
var ErrUnsupported = errors.New("the knowledge base reads .txt, .md, .html and .pdf files")

// Kind is what a file holds, from its content type, else its name: "text",
// "markdown", "html", "pdf", or "" for anything else.
func Kind(name, contentType string) string {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	switch ct {
	case "text/plain":
		return "text"
	case "text/markdown", "text/x-markdown":
		return "markdown"
	case "text/html", "application/xhtml+xml":
		return "html"
	case "application/pdf":
		return "pdf"
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".txt", ".text":
		return "text"
	case ".md", ".markdown":
		return "markdown"
	case ".html", ".htm":
		return "html"
	case ".pdf":
		return "pdf"
	}
	return ""
}

// Reading is a document read as text with Markdown headings, as Split
// cuts it.
type Reading struct {
	Title     string // "" when the document names none
	Text      string
	Truncated bool // the reader kept only the document's first part
}

// Text reads a plain text, Markdown or HTML file: HTML becomes
// Markdown-like, its h1…h6 "#" headings, its title its <title>. A PDF, or
// any other kind, is ErrUnsupported here: reading those is the web
// fetcher's part.
func Text(data []byte, name, contentType string) (Reading, error) {
	switch Kind(name, contentType) {
	case "text", "markdown":
		text, ok := decodeText(data)
		if !ok {
			return Reading{}, fmt.Errorf("%s is not text: %w", name, ErrUnsupported)
		}
		return Reading{Text: text}, nil
	case "html":
		title, text, err := fromHTML(data)
		return Reading{Title: title, Text: text}, err
	}
	return Reading{}, ErrUnsupported
}

// Decode reads a text file's bytes as decodeText does: ok is false when
// they are no text.
func Decode(data []byte) (text string, ok bool) { return decodeText(data) }

// decodeText reads a text file's bytes: UTF-8; UTF-16 with its byte
// order mark, as Windows' Notepad saves "Unicode"; else, when they are
// not UTF-8, Windows-1252, Latin-1's superset that older tools write.
// Bytes in neither UTF-16 nor UTF-8 with NULs or other control bytes are
// no text (ok false).
func decodeText(data []byte) (text string, ok bool) {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		out, err := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		return string(out), err == nil
	}
	switch {
	case utf8.Valid(data):
		return string(data), true
	case bytes.ContainsFunc(data, func(r rune) bool { return r < 0x20 && !strings.ContainsRune("\t\n\v\f\r", r) }):
		return "", false // control bytes: compressed or binary, whatever its name says
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	return string(out), err == nil
}

// fromHTML is an HTML page's title and its text with Markdown headings,
// without its scripts, styles and navigation.
func fromHTML(data []byte) (title, text string, err error) {
	root, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return "", "", fmt.Errorf("read HTML: %w", err)
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			words := strings.Join(strings.Fields(n.Data), " ")
			if words != "" && strings.TrimLeft(n.Data, " \t\n") != n.Data {
				words = " " + words
			}
			b.WriteString(words + spaceAfter(n.Data))
			return
		}
		if n.Type == html.ElementNode && hidden(n) {
			return
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "nav", "template", "svg", "head":
				if n.Data == "head" {
					title = titleOf(n)
				}
				return
			case "h1", "h2", "h3", "h4", "h5", "h6":
				b.WriteString("\n\n" + strings.Repeat("#", int(n.Data[1]-'0')) + " " + strings.Join(strings.Fields(textOf(n)), " ") + "\n\n")
				return
			case "li":
				b.WriteString("\n- ")
			case "br":
				b.WriteString("\n")
			case "p", "div", "section", "article", "table", "tr", "ul", "ol", "pre", "blockquote", "dl", "dt", "dd":
				b.WriteString("\n\n")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && (n.Data == "p" || n.Data == "div" || n.Data == "tr") {
			b.WriteString("\n\n")
		}
	}
	walk(root)
	return title, b.String(), nil
}

// hidden reports whether a browser would not show element n: it says it
// is hidden, or its style hides it.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		v := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			if v == "true" {
				return true
			}
		case "style":
			if strings.Contains(v, "display:none") || strings.Contains(v, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// spaceAfter keeps the space a text node ends with, which separates it
// from the next node's words.
func spaceAfter(s string) string {
	if strings.TrimSpace(s) != "" && strings.TrimRight(s, " \t\n") != s {
		return " "
	}
	return ""
}

func titleOf(head *html.Node) string {
	for c := head.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "title" {
			return strings.Join(strings.Fields(textOf(c)), " ")
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data + " "
	}
	var s strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		s.WriteString(textOf(c))
	}
	return s.String()
}
