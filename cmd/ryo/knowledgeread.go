package main

import (
	"context"
	"errors"

	"github.com/ryo-bot/ryo/fetch"
	"github.com/ryo-bot/ryo/knowledge"
)

// documentReader reads what /knowledge add is given with the web
// fetcher: pages by their URL through its guard, and files in hand with
// its readers, in its worker when it has one.
type documentReader struct{ f *fetch.Fetcher }

// Extract reads a file sent to /knowledge add: plain text and Markdown
// as they are, so that their headings shape the passages; HTML and PDF
// through the fetcher, which finds a page's main text and a PDF's pages.
func (r documentReader) Extract(ctx context.Context, data []byte, name, contentType string) (knowledge.Reading, error) {
	switch knowledge.Kind(name, contentType) {
	case "text", "markdown":
		return knowledge.Text(data, name, contentType)
	}
	p, err := r.f.Extract(ctx, data, contentType, name)
	if errors.Is(err, fetch.ErrNoText) {
		err = noText{err}
	}
	return knowledge.Reading{Title: p.Title, Text: p.Text, Truncated: p.Truncated}, err
}

// noText is a file the fetcher found no text in (a scanned PDF): it is
// knowledge.ErrEmpty too, in the fetcher's words.
type noText struct{ error }

func (e noText) Is(target error) bool { return target == knowledge.ErrEmpty }
func (e noText) Unwrap() error        { return e.error }

// Read reads the page of /knowledge add <url>.
func (r documentReader) Read(ctx context.Context, url string) (knowledge.Reading, error) {
	p, err := r.f.Fetch(ctx, url)
	return knowledge.Reading{Title: p.Title, Text: p.Text, Truncated: p.Truncated}, err
}
