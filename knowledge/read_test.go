package knowledge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/knowledge"
)

// Text files saved by older editors are not UTF-8: Windows' Notepad
// writes "Unicode" as UTF-16 with a byte order mark, and many tools still
// write Latin-1 (Windows-1252). Their words must be read as words — a
// search for "café" finds them — not refused, nor turned to "caf\uFFFD".
func TestTextReadsUTF16AndLatin1(t *testing.T) {
	utf16le := []byte{0xff, 0xfe}
	utf16be := []byte{0xfe, 0xff}
	for _, r := range "# Café\n\nCrème brûlée — 5 €" {
		utf16le = append(utf16le, byte(r), byte(r>>8))
		utf16be = append(utf16be, byte(r>>8), byte(r))
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"utf8.md", []byte("# Café\n\nCrème brûlée — 5 €")},
		{"utf16le.md", utf16le},
		{"utf16be.md", utf16be},
		{"latin1.md", []byte("# Caf\xe9\n\nCr\xe8me br\xfbl\xe9e \x97 5 \x80")},
	}
	for _, tt := range tests {
		r, err := knowledge.Text(tt.data, tt.name, "")
		if err != nil || r.Text != "# Café\n\nCrème brûlée — 5 €" {
			t.Errorf("Text(%s) = %q, %v", tt.name, r.Text, err)
		}
	}
	// Bytes with NULs or control bytes, not UTF-8, are no text at all.
	for name, data := range map[string][]byte{
		"binary.txt": {0, 1, 0xff, 0xfe},
		"packed.md":  []byte("\x1f\x8b\x08\x08\xc3\x9e\x7f\x65\x02\x03notes.md\x01\xe5\x92\xcdj\xc30\x10\x84\xef"), // gzip without a NUL
	} {
		if _, err := knowledge.Text(data, name, ""); !errors.Is(err, knowledge.ErrUnsupported) {
			t.Errorf("%s: err = %v; want ErrUnsupported", name, err)
		}
	}
}

// Text's own HTML reader, used where no fetcher is configured, leaves out
// what a browser would not show, as the fetcher's does.
func TestTextLeavesOutHiddenHTML(t *testing.T) {
	page := `<html><body><h1>Returns</h1><p>Visible words.</p><p style="display: none">HIDDEN one</p>` +
		`<p hidden>HIDDEN two</p><div aria-hidden="true">HIDDEN three</div><span style="visibility:hidden">HIDDEN four</span>` +
		`<p>More visible words.</p></body></html>`
	r, err := knowledge.Text([]byte(page), "returns.html", "text/html")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "HIDDEN") || !strings.Contains(r.Text, "More visible words.") {
		t.Errorf("Text = %q", r.Text)
	}
}
