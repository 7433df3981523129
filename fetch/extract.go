package fetch

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
)

// Page is what was read: a web page or a file, as text.
type Page struct {
	URL         string // where it was read, after redirects; "" for a file in hand
	Title       string // "" when it has none
	Text        string // the main content as Markdown-ish text, links as [text](url)
	ContentType string // the media type it was read as, such as text/html
	Truncated   bool   // the body or its text was longer than the bounds and was cut
}

// MaxText is the most bytes of text a Page holds: about 300 book pages.
const MaxText = 1 << 20

// MaxTitle is the most characters of a Page's title.
const MaxTitle = 300

// kind is how a body is turned into text.
type kind int

const (
	unsupported kind = iota
	htmlKind
	textKind
	jsonKind
	pdfKind
)

// Extract turns body, already in hand, into a Page: by contentType (its
// media type and charset), else by the extension of the file name name,
// else by sniffing the bytes. pageURL, when set, is where relative links
// in HTML lead from. It reads HTML, plain text of any text/ type (Markdown
// included), JSON and PDF, and refuses anything else with
// ErrUnsupportedType.
func Extract(body []byte, contentType, name, pageURL string) (Page, error) {
	media := mediaType(contentType)
	k := kindOf(media, name)
	if k == unsupported && generic(media) {
		media = mediaType(http.DetectContentType(body))
		k = kindOf(media, "")
	}
	if k == unsupported {
		return Page{}, fmt.Errorf("%w: %s", ErrUnsupportedType, describe(media, name))
	}
	if sniffed := mediaType(http.DetectContentType(body)); k != pdfKind && binary(sniffed) {
		return Page{}, fmt.Errorf("%w: it says it is %s but is %s", ErrUnsupportedType, media, describe(sniffed, ""))
	}
	var (
		p   Page
		err error
	)
	switch k {
	case htmlKind:
		p, err = fromHTML(body, contentType, pageURL)
	case pdfKind:
		p, err = fromPDF(body)
	default:
		p, err = fromText(body, contentType, k, name)
	}
	if err != nil {
		return Page{}, err
	}
	p.URL, p.ContentType = pageURL, canonicalType(k, media, name)
	p.Title = shortTitle(strings.Map(visible, p.Title))
	var cut bool
	p.Text, cut = clip(strings.TrimSpace(strings.Map(visible, p.Text)), MaxText)
	p.Truncated = p.Truncated || cut
	return p, nil
}

// mediaType is the media type of a Content-Type value, in lower case; ""
// when there is none to read.
func mediaType(contentType string) string {
	if contentType == "" {
		return ""
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		media, _, _ = strings.Cut(contentType, ";")
	}
	return strings.ToLower(strings.TrimSpace(media))
}

// binary reports whether a body sniffed as media is certainly not text,
// whatever its server says it is.
func binary(media string) bool {
	for _, prefix := range []string{"image/", "audio/", "video/", "font/", "application/zip", "application/x-gzip", "application/wasm", "application/vnd.ms-fontobject", "application/x-rar"} {
		if strings.HasPrefix(media, prefix) {
			return true
		}
	}
	return false
}

// visible is r, or -1 for a character that hides or reorders text when
// it is quoted: format characters (a right-to-left override that turns
// "moc.elppa" into apple.com, zero-width spaces, invisible tag characters
// that spell words only a model reads) and control bytes other than white
// space. The joiners that build emoji and Persian or Indic words stay.
func visible(r rune) rune {
	switch {
	case r == '\u200c' || r == '\u200d':
		return r
	case unicode.Is(unicode.Cf, r) || unicode.IsControl(r) && !unicode.IsSpace(r):
		return -1
	}
	return r
}

// shortTitle is title cut to MaxTitle characters, marked where cut.
func shortTitle(title string) string {
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) <= MaxTitle {
		return title
	}
	return strings.TrimSpace(string([]rune(title)[:MaxTitle-1])) + "…"
}

// generic reports whether media says nothing of what the bytes are.
func generic(media string) bool {
	return media == "" || media == "application/octet-stream" || media == "binary/octet-stream" || media == "application/unknown"
}

// kindOf is how a body of media type media, or named name when media
// says nothing, is read.
func kindOf(media, name string) kind {
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return htmlKind
	case media == "application/pdf" || media == "application/x-pdf":
		return pdfKind
	case media == "application/json" || media == "text/json" || strings.HasSuffix(media, "+json"):
		return jsonKind
	case strings.HasPrefix(media, "text/") || media == "application/markdown":
		return textKind
	case !generic(media):
		return unsupported
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return htmlKind
	case ".pdf":
		return pdfKind
	case ".json":
		return jsonKind
	case ".txt", ".text", ".md", ".markdown", ".csv", ".log":
		return textKind
	}
	return unsupported
}

// canonicalType is the media type a Page reports.
func canonicalType(k kind, media, name string) string {
	if !generic(media) {
		return media
	}
	switch k {
	case htmlKind:
		return "text/html"
	case pdfKind:
		return "application/pdf"
	case jsonKind:
		return "application/json"
	}
	if ext := strings.ToLower(path.Ext(name)); ext == ".md" || ext == ".markdown" {
		return "text/markdown"
	}
	return "text/plain"
}

// describe names what was refused, for a person.
func describe(media, name string) string {
	switch {
	case !generic(media):
		return media + " cannot be read as text; pages (HTML), plain text, JSON and PDF can"
	case path.Ext(name) != "":
		return "a " + path.Ext(name) + " file cannot be read as text; .html, .txt, .md, .json and .pdf can"
	}
	return "the content is not text, HTML, JSON or PDF"
}

// fromText passes text through, decoded to UTF-8; Markdown's first
// heading is its title.
func fromText(body []byte, contentType string, k kind, name string) (Page, error) {
	text := decode(body, contentType, false)
	p := Page{Text: strings.TrimSpace(text)}
	if k == textKind && (strings.HasSuffix(strings.ToLower(name), ".md") || mediaType(contentType) == "text/markdown") {
		for _, line := range strings.SplitN(p.Text, "\n", 50) {
			if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
				p.Title = strings.TrimSpace(t)
				break
			}
		}
	}
	if p.Text == "" {
		return Page{}, fmt.Errorf("%w: it is empty", ErrNoText)
	}
	return p, nil
}

// fromHTML finds the page's main content with readability, and falls back
// to all of its body's text where readability finds none.
func fromHTML(body []byte, contentType, pageURL string) (Page, error) {
	text := decode(body, contentType, true)
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return Page{}, fmt.Errorf("%w: the HTML cannot be parsed: %v", ErrUnreadable, err)
	}
	base, _ := url.Parse(pageURL)
	if base != nil && !base.IsAbs() {
		base = nil
	}
	parser := readability.NewParser()
	parser.MaxElemsToParse = 100_000 // a page beyond is read whole, without the search for its main part
	p := Page{Title: titleOf(doc)}
	if article, err := parser.ParseDocument(doc, base); err == nil && article.Node != nil {
		if t := strings.TrimSpace(article.Title()); t != "" {
			p.Title = t
		}
		p.Text = markdown(article.Node, base)
	}
	if p.Text == "" {
		p.Text = markdown(doc, base)
	}
	if p.Text == "" {
		return Page{}, fmt.Errorf("%w: the page has no text to read", ErrNoText)
	}
	return p, nil
}

// titleOf is the text of the document's <title>.
func titleOf(doc *html.Node) string {
	var title string
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.Data == "title" {
			title = strings.Join(strings.Fields(textOf(n)), " ")
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(doc)
	return title
}

// decode turns body into UTF-8 text: by its byte-order mark, else the
// charset in contentType, else (for HTML) a <meta> charset, else UTF-8 if
// it is valid UTF-8, else Windows-1252, which browsers assume.
func decode(body []byte, contentType string, isHTML bool) string {
	sniff := body
	if !isHTML && len(sniff) > 4 {
		sniff = sniff[:4] // enough for a byte-order mark, too little for a <meta> a text does not have
	}
	enc, name, certain := charset.DetermineEncoding(sniff, contentType)
	if name != "utf-8" && !byteOrderMark(body) && plainlyUTF8(body) { // a declaration that lies: UTF-8 text never looks like that by chance
		name = "utf-8"
	}
	if !certain && (name == "utf-8" || name == "windows-1252") { // its guess looks at the first 1 KB only
		enc, name = charmap.Windows1252, "windows-1252"
		if utf8.Valid(body) {
			name = "utf-8"
		}
	}
	if name == "utf-8" {
		return strings.ToValidUTF8(string(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))), "\uFFFD")
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return string(out)
}

// byteOrderMark reports whether body starts with the mark of UTF-8 or
// UTF-16, which is surer than any declaration.
func byteOrderMark(body []byte) bool {
	return bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(body, []byte("\xfe\xff")) || bytes.HasPrefix(body, []byte("\xff\xfe"))
}

// plainlyUTF8 reports whether body is valid UTF-8 with characters beyond
// ASCII in it and no NUL byte: text in a one-byte charset or in UTF-16
// (whose ASCII has NULs) is not, but for a few odd bytes.
func plainlyUTF8(body []byte) bool {
	wide := false
	for _, c := range body {
		if c == 0 {
			return false
		}
		wide = wide || c >= utf8.RuneSelf
	}
	return wide && utf8.Valid(body)
}

// clip cuts s to at most n bytes at a character boundary, and reports
// whether it cut.
func clip(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
