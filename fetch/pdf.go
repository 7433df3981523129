package fetch

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages is the most pages of a PDF whose text is read.
const maxPDFPages = 2000

// maxPDFTime is how long the text of a PDF's pages is read for; the pages
// not reached by then are left out. Many pages may share one large content
// stream, which the reader reads again for each.
const maxPDFTime = 5 * time.Second

// maxPDFInflated is the most bytes a PDF's compressed streams may expand
// to, all together: a small file must not unpack into gigabytes.
const maxPDFInflated = 64 << 20

// fromPDF extracts the text of a PDF's pages, a blank line between pages,
// and its title from its document information. A PDF whose pages hold no
// text — a scan — is ErrNoText; one that cannot be read, ErrUnreadable.
func fromPDF(body []byte) (p Page, err error) {
	defer func() { // the reader panics on some broken files
		if r := recover(); r != nil {
			p, err = Page{}, fmt.Errorf("%w: the PDF is broken (%v)", ErrUnreadable, r)
		}
	}()
	if err := plausibleXref(body); err != nil {
		return Page{}, err
	}
	if !inflatesWithin(body, maxPDFInflated) {
		return Page{}, fmt.Errorf("%w: the PDF's compressed parts expand to more than %d MB", ErrTooLarge, maxPDFInflated>>20)
	}
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return Page{}, fmt.Errorf("%w: the PDF cannot be read: %v", ErrUnreadable, err)
	}
	pages, complete := pageList(r.Trailer().Key("Root").Key("Pages"))
	if len(pages) == 0 {
		return Page{}, fmt.Errorf("%w: the PDF has no pages that can be read", ErrUnreadable)
	}
	var b strings.Builder
	fonts := map[string]*pdf.Font{}
	deadline := time.Now().Add(maxPDFTime)
	for i, page := range pages {
		if b.Len() >= MaxText || time.Now().After(deadline) {
			complete = false
			break
		}
		text, err := page.GetPlainText(fonts)
		if err != nil {
			return Page{}, fmt.Errorf("%w: page %d of the PDF cannot be read: %v", ErrUnreadable, i+1, err)
		}
		if text = strings.TrimSpace(text); text != "" {
			b.WriteString(text + "\n\n")
		}
	}
	p = Page{Title: strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text()), Text: strings.TrimSpace(b.String())}
	if p.Text == "" {
		return Page{}, fmt.Errorf("%w: the PDF's pages hold no text (a scan?)", ErrNoText)
	}
	p.Truncated = !complete
	return p, nil
}

// Bounds of the walk through a PDF's page tree, which a broken or hostile
// file may make a cycle: the reader's own walk would go round it forever.
const (
	maxPDFDepth = 32              // levels of the page tree
	maxPDFNodes = 4 * maxPDFPages // nodes of it visited
)

// pageList returns the pages under root, the page tree's top, in order:
// at most maxPDFPages of them, within the bounds above, and only pages
// whose inherited attributes the reader can look up without going round a
// cycle of parents. complete is false when a bound cut the list.
func pageList(root pdf.Value) (pages []pdf.Page, complete bool) {
	nodes, complete := 0, true
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if len(pages) >= maxPDFPages || nodes >= maxPDFNodes || depth > maxPDFDepth {
			complete = false
			return
		}
		nodes++
		switch v.Key("Type").Name() {
		case "Page":
			if parentsEnd(v) {
				pages = append(pages, pdf.Page{V: v})
			}
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len() && complete; i++ {
				walk(kids.Index(i), depth+1)
			}
		}
	}
	walk(root, 0)
	return pages, complete
}

// parentsEnd reports whether the reader's search for a page's resources,
// up the chain of its parents, ends.
func parentsEnd(v pdf.Value) bool {
	for range maxPDFDepth + 1 {
		if v.IsNull() || !v.Key("Resources").IsNull() {
			return true
		}
		v = v.Key("Parent")
	}
	return false
}

// plausibleXref refuses a PDF whose cross-reference tables or trailers
// name more objects than its bytes could hold, before the reader makes
// room for them all: a 2 KB file must not ask for gigabytes.
func plausibleXref(body []byte) error {
	most := uint64(len(body))/2 + 1024 // even packed in a compressed object stream, an object takes more than 2 bytes
	broken := fmt.Errorf("%w: the PDF's cross-reference table names more objects than the file holds", ErrUnreadable)
	budget := 4*len(body) + 1024 // tokens read in all, so that many "xref"s cost no more than a few passes
	for off := 0; ; {
		i := bytes.Index(body[off:], []byte("xref"))
		if i < 0 {
			break
		}
		off += i + 4
		t := pdfTokens{b: body, at: off, budget: &budget}
		for { // subsections: a first object number, a count, then three tokens for each object
			first, ok1 := t.number()
			count, ok2 := t.number()
			if !ok1 || !ok2 {
				break
			}
			if first > most || count > most || first+count > most {
				return broken
			}
			for range 3 * count {
				if !t.skip() {
					break
				}
			}
		}
		if budget <= 0 {
			return broken
		}
	}
	for _, m := range xrefSize.FindAllSubmatch(body, -1) {
		if n, err := strconv.ParseUint(string(m[1]), 10, 64); err != nil || n > most {
			return broken
		}
	}
	for _, m := range xrefIndex.FindAllSubmatch(body, -1) {
		for _, f := range bytes.FieldsFunc(m[1], pdfSpace) {
			if n, err := strconv.ParseUint(string(f), 10, 64); err != nil || n > most {
				return broken
			}
		}
	}
	return nil
}

// The /Size of a trailer or cross-reference stream, and the object
// numbers of its /Index, each as many entries of the reader's table.
var (
	xrefSize  = regexp.MustCompile(`/Size[\x00\t\n\f\r ]*(\d{1,20})`)
	xrefIndex = regexp.MustCompile(`/Index[\x00\t\n\f\r ]*\[([\d\x00\t\n\f\r ]{1,400})\]`)
)

// pdfSpace reports whether c is white space in a PDF.
func pdfSpace(c rune) bool {
	return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

// pdfTokens reads a PDF's bytes as tokens between white space, as far as
// a shared budget of tokens allows.
type pdfTokens struct {
	b      []byte
	at     int
	budget *int
}

// skip passes one token; false at the end or when the budget is spent.
func (t *pdfTokens) skip() bool {
	_, ok := t.next()
	return ok
}

func (t *pdfTokens) next() ([]byte, bool) {
	for t.at < len(t.b) && pdfSpace(rune(t.b[t.at])) {
		t.at++
	}
	start := t.at
	for t.at < len(t.b) && !pdfSpace(rune(t.b[t.at])) {
		t.at++
	}
	*t.budget--
	return t.b[start:t.at], start < t.at && *t.budget > 0
}

// number reads a token that is a whole number.
func (t *pdfTokens) number() (uint64, bool) {
	tok, ok := t.next()
	if !ok || len(tok) > 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(tok), 10, 64)
	return n, err == nil
}

// inflatesWithin reports whether the zlib streams of a PDF expand to at
// most limit bytes in all; it stops counting past limit.
func inflatesWithin(body []byte, limit int64) bool {
	var total int64
	for off := 0; off < len(body); {
		i := bytes.Index(body[off:], []byte("stream"))
		if i < 0 {
			break
		}
		at := off + i + len("stream")
		if off+i >= 3 && string(body[off+i-3:off+i]) == "end" {
			off = at
			continue
		}
		if at < len(body) && body[at] == '\r' {
			at++
		}
		if at < len(body) && body[at] == '\n' {
			at++
		}
		off = at
		z, err := zlib.NewReader(bytes.NewReader(body[at:]))
		if err != nil {
			continue // not compressed, or not with zlib: the reader expands nothing else
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(z, limit-total+1))
		if total += n; total > limit {
			return false
		}
	}
	return true
}
