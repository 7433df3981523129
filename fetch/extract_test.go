package fetch

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Files in hand are read by their content type, else their name, else
// their bytes.
func TestExtractFiles(t *testing.T) {
	pdf, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, ct, file, body string
		title, want, typ     string
	}{
		{"markdown by name", "", "notes.md", "intro\n\n# Packing list\n\n- tent\n- stove\n", "Packing list", "- tent\n- stove", "text/markdown"},
		{"markdown by type", "text/markdown; charset=utf-8", "upload", "# Plan\nGo north.", "Plan", "Go north.", "text/markdown"},
		{"text by name", "application/octet-stream", "readme.TXT", "plain words", "", "plain words", "text/plain"},
		{"html by name", "", "page.htm", "<html><head><title>Saved</title></head><body><p>A saved page with <a href='https://example.org/x'>a link</a>.</p></body></html>", "Saved", "[a link](https://example.org/x)", "text/html"},
		{"json by name", "", "data.json", `{"a":1}`, "", `{"a":1}`, "application/json"},
		{"pdf by name", "", "report.pdf", string(pdf), "Harbour report", "Tickets cost twelve euros", "application/pdf"},
		{"pdf by its bytes", "", "", string(pdf), "Harbour report", "Tickets cost twelve euros", "application/pdf"},
		{"html by its bytes", "", "", "<!DOCTYPE html><html><body><p>sniffed</p></body></html>", "", "sniffed", "text/html"},
		{"csv", "text/csv", "x.csv", "a,b\n1,2", "", "a,b\n1,2", "text/csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Extract([]byte(c.body), c.ct, c.file, "")
			if err != nil || p.Title != c.title || !strings.Contains(p.Text, c.want) || p.ContentType != c.typ || p.URL != "" {
				t.Fatalf("page = %+v, %v", p, err)
			}
		})
	}
}

// What cannot be read says why, by a sentinel the caller can tell apart.
func TestExtractRefusals(t *testing.T) {
	cases := []struct {
		name, ct, file, body string
		want                 error
		says                 string
	}{
		{"a picture by type", "image/png", "x.png", "\x89PNG\r\n\x1a\n", ErrUnsupportedType, "image/png"},
		{"a zip by name", "", "archive.zip", "PK\x03\x04", ErrUnsupportedType, "application/zip"},
		{"unknown bytes", "", "", "\x00\x01\x02\x03binary", ErrUnsupportedType, "not text"},
		{"a broken pdf", "application/pdf", "", "%PDF-1.4\nnot really", ErrUnreadable, "PDF"},
		{"a cut pdf", "application/pdf", "", "", ErrUnreadable, "PDF"},
		{"an empty text", "text/plain", "", "  \n ", ErrNoText, "empty"},
	}
	pdf, _ := os.ReadFile("testdata/report.pdf")
	cases = append(cases, struct {
		name, ct, file, body string
		want                 error
		says                 string
	}{"half a pdf", "application/pdf", "", string(pdf[:len(pdf)/2]), ErrUnreadable, "PDF"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Extract([]byte(c.body), c.ct, c.file, "")
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v; want %v saying %q", err, c.want, c.says)
			}
		})
	}
}

// Text beyond MaxText is cut at a character boundary.
func TestExtractCutsLongText(t *testing.T) {
	long := strings.Repeat("ж", MaxText) // two bytes each
	p, err := Extract([]byte(long), "text/plain; charset=utf-8", "", "")
	if err != nil || !p.Truncated || len(p.Text) != MaxText || !strings.HasSuffix(p.Text, "ж") {
		t.Fatalf("%d bytes, truncated %v, %v", len(p.Text), p.Truncated, err)
	}
}

// Readable text comes out of any bytes without a panic.
func FuzzExtract(f *testing.F) {
	pdf, _ := os.ReadFile("testdata/report.pdf")
	f.Add([]byte(article), "text/html")
	f.Add(pdf, "application/pdf")
	f.Add([]byte("<ul><li><p>x</p><ol><li>y</li></ol></li></ul><table><tr><td>a</td><td>b</td></tr></table><pre>z</pre>"), "text/html")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		p, err := Extract(body, ct, "", "http://example.com/")
		if err == nil && !strings.Contains(p.ContentType, "/") {
			t.Fatalf("content type %q", p.ContentType)
		}
	})
}

// A PDF whose cross-reference table names a billion objects is refused
// before the reader makes room for them.
func TestExtractRefusesAnXrefBomb(t *testing.T) {
	pdf, _ := os.ReadFile("testdata/report.pdf")
	for _, bomb := range []string{
		strings.Replace(string(pdf), "xref\n0 11\n", "xref\n999999990 11\n", 1),
		strings.Replace(string(pdf), "/Size 11", "/Size 4000000000", 1),
		strings.ReplaceAll(strings.Replace(string(pdf), "xref\n0 11\n", "xref\n999999990 11\n", 1), "\n", "\r"),
	} {
		if bomb == string(pdf) {
			t.Fatal("the fixture's cross-reference table is not where the test expects it")
		}
		if _, err := Extract([]byte(bomb), "application/pdf", "", ""); !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "more objects") {
			t.Errorf("err = %v", err)
		}
	}
}

// A PDF with a stream that expands to hundreds of megabytes is refused
// before the reader unpacks it.
func TestExtractRefusesAStreamBomb(t *testing.T) {
	pdf, _ := os.ReadFile("testdata/report.pdf")
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 80 {
		w.Write(zeros)
	}
	w.Close()
	at := bytes.Index(pdf, []byte("xref\n"))
	bomb := fmt.Sprintf("11 0 obj\n<</Filter /FlateDecode /Length %d>>\nstream\n%s\nendstream\nendobj\n", z.Len(), z.String())
	body := append(append(append([]byte(nil), pdf[:at]...), bomb...), pdf[at:]...)
	if _, err := Extract(body, "application/pdf", "", ""); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "expand to more than 64 MB") {
		t.Fatalf("err = %v (from %d bytes)", err, len(body))
	}
}
