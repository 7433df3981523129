package main

import (
	"context"

	"github.com/ryo-bot/ryo/fetch"
	"github.com/ryo-bot/ryo/knowledge"
)

// readDocument reads a file sent to /knowledge add: plain text and
// Markdown as they are, so that their headings shape the passages; HTML
// and PDF through the web fetcher's readers, which find a page's main
// text and a PDF's pages.
func readDocument(data []byte, name, contentType string) (knowledge.Reading, error) {
	switch knowledge.Kind(name, contentType) {
	case "text", "markdown":
		return knowledge.Text(data, name, contentType)
	}
	p, err := fetch.Extract(data, contentType, name, "")
	return knowledge.Reading{Title: p.Title, Text: p.Text, Truncated: p.Truncated}, err
}

// pageReader reads the page of /knowledge add <url> with the web
// fetcher, whose guard refuses private addresses.
type pageReader struct{ f *fetch.Fetcher }

func (r pageReader) Read(ctx context.Context, url string) (knowledge.Reading, error) {
	p, err := r.f.Fetch(ctx, url)
	return knowledge.Reading{Title: p.Title, Text: p.Text, Truncated: p.Truncated}, err
}
