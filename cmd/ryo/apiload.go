package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/ryo-bot/ryo/openapi"
)

// documentTimeout bounds fetching one API's document at start.
const documentTimeout = 15 * time.Second

// loadedAPI is what became of one configured API at start.
type loadedAPI struct {
	Config  APIConfig
	Catalog openapi.Catalog
	Err     error // the document could not be fetched or read: no tools
}

// loadAPIs fetches each API's document, at once and each within
// documentTimeout, and makes its tools.
func loadAPIs(ctx context.Context, apis []APIConfig) []loadedAPI {
	out := make([]loadedAPI, len(apis))
	var wg sync.WaitGroup
	for i, a := range apis {
		wg.Go(func() {
			out[i] = loadedAPI{Config: a}
			out[i].Catalog, out[i].Err = loadAPI(ctx, a)
		})
	}
	wg.Wait()
	return out
}

func loadAPI(ctx context.Context, a APIConfig) (openapi.Catalog, error) {
	doc, docURL, err := fetchDocument(ctx, a.Document)
	if err != nil {
		return openapi.Catalog{}, err
	}
	return openapi.Generate(a.API(doc, docURL))
}

// fetchDocument reads a document from an http(s) URL, or from a file; it
// returns the URL for reading relative servers against ("" for a file).
// Either way at most openapi.MaxDocument bytes are read.
func fetchDocument(ctx context.Context, where string) (doc []byte, docURL string, err error) {
	if !isHTTPURL(where) {
		f, err := os.Open(where)
		if err != nil {
			return nil, "", fmt.Errorf("cannot read the document: %w", err)
		}
		defer f.Close()
		doc, err = readCapped(f)
		return doc, "", err
	}
	f, err := fetchIf(ctx, where, apiState{})
	return f.doc, f.url, err
}

func readCapped(r io.Reader) ([]byte, error) {
	doc, err := io.ReadAll(io.LimitReader(r, openapi.MaxDocument+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot read the document: %w", err)
	case len(doc) > openapi.MaxDocument:
		return nil, errors.New("the document is larger than 8 MiB")
	}
	return doc, nil
}

// logAPIs says at start what each API gave: how many tools and how many
// operations left out, each with its reason, or why it gave nothing.
func logAPIs(log *slog.Logger, loaded []loadedAPI) {
	for _, l := range loaded {
		if l.Err != nil {
			log.Error("API left out: its document cannot be loaded; ryo runs without its tools",
				"api", l.Config.Name, "document", l.Config.Document, "err", l.Err)
			continue
		}
		log.Info("API ready", "api", l.Catalog.API, "tools", len(l.Catalog.Tools), "skipped", len(l.Catalog.Skipped))
		for _, s := range l.Catalog.Skipped {
			log.Info("API operation left out", "api", l.Catalog.API, "operation", s.Operation, "tool", s.Name,
				"argument", s.Argument, "reason", s.Reason)
		}
	}
}
