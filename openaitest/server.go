package openaitest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// Server is a fake OpenAI-compatible server listening on a loopback port.
// It answers /v1/chat/completions from a script of replies and records
// every request it accepted. It is safe for concurrent use.
type Server struct {
	ts      *httptest.Server
	created time.Time
	done    chan struct{} // closed by Close; unblocks held replies
	once    sync.Once

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every state change
	models   []string
	key      string // the API key every request must carry; "" for none
	queue    []Reply
	handle   func(Request) Reply
	requests []Request
	refused  []Refusal
	lists    int // GET /v1/models requests answered
}

// Refusal is a request the server refused as a real one would, with why.
type Refusal struct {
	Path    string
	Status  int
	Message string
}

// NewServer starts a fake server that serves the models named, such as
// "Qwen/Qwen2.5-7B-Instruct" or "gpt-4o-mini". Call Close when done.
func NewServer(models ...string) *Server {
	s := &Server{
		created: time.Now().UTC().Truncate(time.Second),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
		models:  models,
		handle:  func(Request) Reply { return Reply{Content: "ok"} },
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.refuse(w, r.URL.Path, http.StatusNotFound, fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
	})
	s.ts = httptest.NewServer(mux)
	return s
}

// URL returns the server's address, http://127.0.0.1:PORT, without /v1.
func (s *Server) URL() string { return s.ts.URL }

// Close unblocks held replies, then shuts the server down and waits for
// outstanding requests to finish. It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() { close(s.done) })
	s.ts.Close()
}

// RequireKey makes every request carry "Authorization: Bearer key", as
// OpenAI and a vLLM started with --api-key do; others get 401.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// AddModel serves another model.
func (s *Server) AddModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append(s.models, name)
}

// RemoveModel stops serving a model, as a server restarted without it
// does: GET /v1/models no longer lists it, and a chat request naming it
// is refused with 404 model_not_found.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.models[:0]
	for _, m := range s.models {
		if m != name {
			kept = append(kept, m)
		}
	}
	s.models = kept
}

// Enqueue appends scripted replies. Each accepted chat request consumes
// the next one.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets the function that answers chat requests while the queue is
// empty; the default answers Reply{Content: "ok"}. f is called without
// any lock held and may be called concurrently.
func (s *Server) Handle(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = f
}

// Requests returns every chat request accepted so far, in order of
// arrival. A request is recorded before it is answered.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Refusals returns every request refused so far: a shape a real server
// would not take, a wrong key, an unknown path.
func (s *Server) Refusals() []Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refused)
}

// Lists returns how many times the models were listed.
func (s *Server) Lists() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

// Wait returns nil as soon as cond returns true. cond is checked at once
// and again after every state change (a request received or refused, its
// reply chosen — from the script or by the handler, so that what a handler
// counts can be waited for — and the reply finished); it is called without
// the server's lock held.
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
			return fmt.Errorf("openaitest: wait: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes every Wait. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) finished() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
}

// authorized checks the request's key, answering 401 when it is wrong.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key == "" {
		return true
	}
	got := r.Header.Get("Authorization")
	if got == "Bearer "+key {
		return true
	}
	msg := "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
	if got != "" {
		msg = "Incorrect API key provided: " + masked(got) + "."
	}
	s.refuseCode(w, r.URL.Path, http.StatusUnauthorized, msg, "invalid_api_key")
	return false
}

// masked shows a wrong key as OpenAI does: its ends only.
func masked(header string) string {
	k := []rune(header[min(len(header), len("Bearer ")):])
	if len(k) < 8 {
		return "***"
	}
	return string(k[:3]) + "***" + string(k[len(k)-4:])
}

// refuse answers status with OpenAI's error object and records why.
func (s *Server) refuse(w http.ResponseWriter, path string, status int, msg string) {
	s.refuseCode(w, path, status, msg, nil)
}

func (s *Server) refuseCode(w http.ResponseWriter, path string, status int, msg string, code any) {
	s.mu.Lock()
	s.refused = append(s.refused, Refusal{Path: path, Status: status, Message: msg})
	s.notifyLocked()
	s.mu.Unlock()
	writeJSON(w, status, errorBody(msg, errorType(status), code))
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// serveModels answers GET /v1/models.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	s.lists++
	models := slices.Clone(s.models)
	s.notifyLocked()
	s.mu.Unlock()
	data := make([]map[string]any, len(models))
	for i, m := range models {
		data[i] = map[string]any{"id": m, "object": "model", "created": s.created.Unix(), "owned_by": "openaitest"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// serves reports whether model is served: exactly, as vLLM and OpenAI
// match names.
func (s *Server) serves(model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.models, model)
}

// next is the reply to req: the script's next, else the handler's.
func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		rep := s.queue[0]
		s.queue = s.queue[1:]
		s.notifyLocked()
		s.mu.Unlock()
		return rep
	}
	h := s.handle
	s.mu.Unlock()
	rep := h(req)
	// What the handler did (a count a test waits for) is a change too:
	// the request's arrival woke Wait before the handler ran.
	s.mu.Lock()
	s.notifyLocked()
	s.mu.Unlock()
	return rep
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	s.notifyLocked()
}
