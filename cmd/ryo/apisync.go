package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

// apiDocs keeps each API's last good document.
type apiDocs interface {
	SaveAPIDocument(ctx context.Context, d memory.APIDocument) error
	APIDocumentOf(ctx context.Context, api string) (memory.APIDocument, bool, error)
}

// apiSync keeps the tools of the APIs whose documents are URLs in step
// with their documents. At start each document is fetched, and when it
// cannot be, the copy kept in the store is used; then, every so often, it
// is asked for again with its ETag and Last-Modified: a 304 changes
// nothing, a changed document replaces the API's tools in the registry at
// once, which the next turn offers.
type apiSync struct {
	apis  []APIConfig
	docs  apiDocs
	clock ryo.Clock
	log   *slog.Logger
	every time.Duration // 0: never refreshed

	mu    sync.Mutex
	state map[string]apiState // by API name: what the tools were made from
	reg   *toolbus.Registry   // set once the registry is built
}

// apiState is the document an API's tools were made from.
type apiState struct {
	doc                []byte
	etag, lastModified string
}

func newAPISync(apis []APIConfig, docs apiDocs, clock ryo.Clock, every time.Duration, log *slog.Logger) *apiSync {
	return &apiSync{apis: apis, docs: docs, clock: clock, every: every, log: log, state: map[string]apiState{}}
}

// load makes each API's tools at start, from its document or, when it
// cannot be fetched or read, from the copy kept of its last good one.
func (s *apiSync) load(ctx context.Context) []loadedAPI {
	out := make([]loadedAPI, len(s.apis))
	var wg sync.WaitGroup
	for i, a := range s.apis {
		wg.Go(func() { out[i] = s.loadOne(ctx, a) })
	}
	wg.Wait()
	return out
}

func (s *apiSync) loadOne(ctx context.Context, a APIConfig) loadedAPI {
	l := loadedAPI{Config: a}
	if !isHTTPURL(a.Document) {
		l.Catalog, l.Err = loadAPI(ctx, a)
		return l
	}
	f, err := fetchIf(ctx, a.Document, apiState{})
	if err == nil {
		if l.Catalog, err = openapi.Generate(a.API(f.doc, f.url)); err == nil {
			s.keep(ctx, a, f)
			return l
		}
	}
	kept, ok, kerr := s.docs.APIDocumentOf(ctx, a.Name)
	if kerr != nil || !ok || kept.URL != a.Document { // one kept from another address names servers the operator moved from
		l.Err = err
		return l
	}
	catalog, gerr := openapi.Generate(a.API(kept.Document, kept.URL))
	if gerr != nil {
		l.Err = err
		return l
	}
	s.log.Warn("API document cannot be loaded; its tools are made from the copy kept of its last good one",
		"api", a.Name, "document", a.Document, "kept_from", kept.Fetched.UTC().Format(time.RFC3339), "err", err)
	s.remember(a.Name, apiState{doc: kept.Document, etag: kept.ETag, lastModified: kept.LastModified})
	l.Catalog = catalog
	return l
}

// keep notes f as the document a's tools are made from, and stores it.
func (s *apiSync) keep(ctx context.Context, a APIConfig, f fetched) {
	s.remember(a.Name, f.apiState)
	err := s.docs.SaveAPIDocument(context.WithoutCancel(ctx), memory.APIDocument{API: a.Name, Document: f.doc, URL: f.url,
		ETag: f.etag, LastModified: f.lastModified, Fetched: s.clock.Now()})
	if err != nil {
		s.log.Error("API document cannot be kept for the next start", "api", a.Name, "err", err)
	}
}

func (s *apiSync) remember(api string, st apiState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state[api] = st
}

func (s *apiSync) stateOf(api string) apiState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state[api]
}

// use makes reg the registry whose tools refreshes replace.
func (s *apiSync) use(reg *toolbus.Registry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reg = reg
}

// run refreshes the documents every s.every until ctx ends.
func (s *apiSync) run(ctx context.Context) {
	if s.every <= 0 {
		return
	}
	for ryo.Sleep(ctx, s.clock, s.every) {
		s.Refresh(ctx)
	}
}

// Refresh asks once for every document that is a URL and brings its API's
// tools in step with it.
func (s *apiSync) Refresh(ctx context.Context) {
	for _, a := range s.apis {
		if isHTTPURL(a.Document) && ctx.Err() == nil {
			s.refresh(ctx, a)
		}
	}
}

func (s *apiSync) refresh(ctx context.Context, a APIConfig) {
	before := s.stateOf(a.Name)
	f, err := fetchIf(ctx, a.Document, before)
	switch {
	case err != nil:
		s.log.Warn("API document cannot be refreshed; its tools stay as they are", "api", a.Name, "document", a.Document, "err", err)
		return
	case f.notModified:
		s.log.Debug("API document not modified", "api", a.Name)
		return
	case before.doc != nil && bytes.Equal(f.doc, before.doc):
		s.keep(ctx, a, f) // the same bytes under new validators
		return
	}
	catalog, err := openapi.Generate(a.API(f.doc, f.url))
	if err != nil {
		s.log.Error("API document changed but cannot be read; its tools stay as they are", "api", a.Name, "err", err)
		return
	}
	if len(catalog.Tools) == 0 { // more likely a deploy gone wrong than an API with nothing left
		s.log.Error("API document changed to one that gives no tool; its tools stay as they are (remove the API from RYO_APIS to drop them)",
			"api", a.Name, "skipped", len(catalog.Skipped))
		return
	}
	s.mu.Lock()
	reg := s.reg
	s.mu.Unlock()
	change, err := reg.Replace(toolbus.Category(a.Name), catalog.Specs())
	if err != nil {
		s.log.Error("API document changed but its tools cannot be replaced; they stay as they are", "api", a.Name, "err", err)
		return
	}
	s.keep(ctx, a, f)
	s.log.Info("API tools changed", "api", a.Name, "added", change.Added, "removed", change.Removed, "changed", change.Changed,
		"tools", len(catalog.Tools), "skipped", len(catalog.Skipped))
	for _, name := range change.Clashed {
		s.log.Error("API tool left out", "api", a.Name, "tool", name, "err", fmt.Sprintf("another tool is named %s", name))
	}
}

// fetched is a document as its server sent it.
type fetched struct {
	apiState
	url         string // where it came from, after redirects
	notModified bool   // the server said 304: nothing was sent
}

// fetchIf fetches the document at where, within documentTimeout, asking
// for it only if it changed since st.
func fetchIf(ctx context.Context, where string, st apiState) (fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, documentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return fetched{}, fmt.Errorf("document URL: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	if st.etag != "" {
		req.Header.Set("If-None-Match", st.etag)
	}
	if st.lastModified != "" {
		req.Header.Set("If-Modified-Since", st.lastModified)
	}
	resp, err := documentClient().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text holds the URL, which may carry a key
			err = ue.Err
		}
		return fetched{}, fmt.Errorf("cannot fetch the document: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && (st.etag != "" || st.lastModified != ""):
		return fetched{notModified: true}, nil
	case resp.StatusCode != http.StatusOK:
		return fetched{}, fmt.Errorf("cannot fetch the document: %s", resp.Status)
	}
	doc, err := readCapped(resp.Body)
	if err != nil {
		return fetched{}, err
	}
	return fetched{apiState: apiState{doc: doc, etag: resp.Header.Get("ETag"), lastModified: resp.Header.Get("Last-Modified")},
		url: where}, nil
}

// documentClient fetches documents, following redirects only on the
// document's own scheme and host: a document that moved elsewhere must
// be configured there, or its relative servers would point wherever the
// redirect went.
func documentClient() *http.Client {
	return &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
			return fmt.Errorf("the document redirects to another host (%s); configure its new address", req.URL.Host)
		}
		return nil
	}}
}
