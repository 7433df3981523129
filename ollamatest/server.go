package ollamatest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Server is a fake Ollama server listening on a loopback port. It answers
// /api/chat from a script of replies and records every chat request. It is
// safe for concurrent use.
type Server struct {
	ts      *httptest.Server
	created time.Time
	done    chan struct{} // closed by Close; unblocks held replies
	once    sync.Once

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every state change
	models   *catalog
	queue    []Reply
	handle   func(Request) Reply
	requests []Request
	vision   []string // canonical names of the models that read pictures
	shows    int      // /api/show requests
	down     bool     // every connection is dropped unanswered (SetDown)
	showFail int      // how many of the next /api/show requests fail with a 500
}

// NewServer starts a fake Ollama server with the given models installed,
// for example "llama3.2" or "qwen2.5:7b". "name" and "name:latest" are the
// same model. Call Close when done.
func NewServer(models ...string) *Server {
	s := &Server{
		created: time.Now().UTC(),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
		models:  newCatalog(),
		handle:  defaultHandle,
	}
	for _, m := range models {
		s.models.add(m)
	}
	s.ts = httptest.NewServer(s.routes())
	return s
}

// defaultHandle answers every unscripted chat with "ok".
func defaultHandle(Request) Reply { return Reply{Content: "ok"} }

// routes maps Ollama's endpoints to handlers. A GET pattern also matches HEAD.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveRoot)
	mux.HandleFunc("GET /api/version", s.serveVersion)
	mux.HandleFunc("GET /api/tags", s.serveTags)
	mux.HandleFunc("GET /api/ps", s.servePS)
	mux.HandleFunc("POST /api/show", s.serveShow)
	mux.HandleFunc("POST /api/chat", s.serveChat)
	mux.HandleFunc("POST /api/embed", s.serveEmbed)
	return s.dropWhenDown(mux)
}

// URL returns the base URL, http://127.0.0.1:PORT, to pass to api.NewClient.
func (s *Server) URL() string { return s.ts.URL }

// Close unblocks held replies, then shuts the server down and waits for
// outstanding requests to finish. It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() { close(s.done) })
	s.ts.Close()
}

// AddModel installs another model.
func (s *Server) AddModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models.add(name)
}

// Enqueue appends scripted replies. Each /api/chat request that names an
// installed model and has at least one message consumes the next one.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets the function that answers chat requests while the queue is
// empty. The default answers Reply{Content: "ok"}. f is called without any
// lock held and may be called concurrently.
func (s *Server) Handle(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = f
}

// Requests returns every /api/chat request received so far, in order of
// arrival. A request is recorded before it is answered.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Wait returns nil as soon as cond returns true. cond is checked at once and
// again after every state change (a chat request received, its reply
// chosen — from the script or by the handler, so that what a handler
// counts can be waited for — the reply finished, and a model's details
// asked for, counted by Shows); it is called without the server's lock
// held, so it may call Requests. Wait returns the wrapped context error if
// ctx ends first.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("ollamatest: wait: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes every Wait. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// finished records that a reply is over, however it ended.
func (s *Server) finished() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
}
