package fetch

import (
	"bytes"
	"fmt"
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
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return Page{}, fmt.Errorf("%w: the PDF cannot be read: %v", ErrUnreadable, err)
	}
	pages := r.NumPage()
	if pages <= 0 {
		return Page{}, fmt.Errorf("%w: the PDF has no pages", ErrUnreadable)
	}
	var b strings.Builder
	fonts := map[string]*pdf.Font{}
	for i := 1; i <= min(pages, maxPDFPages) && b.Len() < MaxText; i++ {
		page := r.Page(i)
		if page.V.IsNull() {
			continue
		}
		text, err := page.GetPlainText(fonts)
		if err != nil {
			return Page{}, fmt.Errorf("%w: page %d of the PDF cannot be read: %v", ErrUnreadable, i, err)
		}
		if text = strings.TrimSpace(text); text != "" {
			b.WriteString(text + "\n\n")
		}
	}
	p = Page{Title: strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text()), Text: strings.TrimSpace(b.String())}
	if p.Text == "" {
		return Page{}, fmt.Errorf("%w: the PDF's pages hold no text (a scan?)", ErrNoText)
	}
	p.Truncated = pages > maxPDFPages || b.Len() >= MaxText
	return p, nil
}
