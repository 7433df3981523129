package fetch

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages is the most pages of a PDF whose text is read.
const maxPDFPages = 2000

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
	for i, page := range pages {
		if b.Len() >= MaxText {
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

// Object numbers of a cross-reference table, and the /Size of a trailer,
// each a table of as many entries: the reader makes room for them all.
var (
	xrefSection = regexp.MustCompile(`(?m)(?:xref\s+|^[ \t]*)(\d{1,20})[ \t]+(\d{1,20})[ \t]*$`)
	xrefSize    = regexp.MustCompile(`/Size\s+(\d{1,20})`)
	xrefIndex   = regexp.MustCompile(`/Index\s*\[([\d\s]{1,400})\]`)
)

// plausibleXref refuses a PDF whose cross-reference tables name more
// objects than its bytes could hold, before the reader allocates a table
// for them: a 2 KB file must not ask for gigabytes.
func plausibleXref(body []byte) error {
	most := uint64(len(body))/2 + 1024 // even packed in a compressed object stream, an object takes more than 2 bytes
	var numbers []string
	lines := bytes.ReplaceAll(body, []byte("\r"), []byte("\n")) // a PDF's lines may end in CR alone
	for _, m := range xrefSection.FindAllSubmatch(lines, -1) {
		numbers = append(numbers, string(m[1])+" "+string(m[2]))
	}
	for _, m := range xrefSize.FindAllSubmatch(body, -1) {
		numbers = append(numbers, string(m[1]))
	}
	for _, m := range xrefIndex.FindAllSubmatch(body, -1) {
		f := strings.Fields(string(m[1]))
		for i := 0; i+1 < len(f); i += 2 {
			numbers = append(numbers, f[i]+" "+f[i+1])
		}
	}
	for _, n := range numbers {
		var total uint64
		for _, f := range strings.Fields(n) {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil || v > most || total+v > most {
				return fmt.Errorf("%w: the PDF's cross-reference table names more objects than the file holds", ErrUnreadable)
			}
			total += v
		}
	}
	return nil
}
