package ollamatest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Message is one chat message as the client sent it. Images are the
// base64 strings found on the wire.
type Message struct {
	Role    string   `json:"role"`
	Content string   `json:"content"`
	Images  []string `json:"images,omitempty"`
}

// Request is one /api/chat request as received.
type Request struct {
	Model    string
	Messages []Message
	// Stream is true when "stream" is absent or true.
	Stream bool
	// Format is "json" or a JSON schema, exactly as sent; nil when absent.
	Format  json.RawMessage
	Options map[string]any
	// KeepAlive is as sent, for example "10m0s" or -1; nil when absent.
	KeepAlive json.RawMessage
	// Think is as sent, for example false or "high"; nil when absent.
	Think json.RawMessage
}

// chatBody is the subset of api.ChatRequest the fake reads.
type chatBody struct {
	Model     string          `json:"model"`
	Messages  []Message       `json:"messages"`
	Stream    *bool           `json:"stream"`
	Format    json.RawMessage `json:"format"`
	Options   map[string]any  `json:"options"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Think     json.RawMessage `json:"think"`
}

// request converts the wire body; a JSON null counts as absent.
func (b chatBody) request() Request {
	return Request{
		Model:     b.Model,
		Messages:  b.Messages,
		Stream:    b.Stream == nil || *b.Stream,
		Format:    rawOrNil(b.Format),
		Options:   b.Options,
		KeepAlive: rawOrNil(b.KeepAlive),
		Think:     rawOrNil(b.Think),
	}
}

// rawOrNil returns nil for an absent or null JSON value.
func rawOrNil(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || bytes.Equal(m, []byte("null")) {
		return nil
	}
	return m
}

// serveChat answers POST /api/chat, checking the request the way Ollama's
// ChatHandler does before it takes a reply from the script.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	var body chatBody
	if !decodeBody(w, r, &body) {
		return
	}
	req := body.request()
	known := s.record(req)
	defer s.finished()
	switch {
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "model is required")
	case !known:
		writeError(w, http.StatusNotFound, notFound(req.Model))
	case len(req.Messages) == 0:
		writeLoaded(w, req)
	case imageProblem(req) != "":
		writeError(w, http.StatusBadRequest, imageProblem(req))
	default:
		s.reply(w, r, req, s.next(req))
	}
}

// record stores a request, marks its model as running when it is
// installed, and reports whether it is.
func (s *Server) record(req Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	s.notifyLocked()
	return s.models.use(req.Model, time.Now())
}

// next takes the next scripted reply, or asks the handler when the script
// is empty.
func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		rep := s.queue[0]
		s.queue = s.queue[1:]
		s.notifyLocked()
		s.mu.Unlock()
		return rep
	}
	handle := s.handle
	s.mu.Unlock()
	rep := handle(req)
	// What the handler did (a count a test waits for) is a change too:
	// the request's arrival woke Wait before the handler ran.
	s.mu.Lock()
	s.notifyLocked()
	s.mu.Unlock()
	return rep
}

// writeLoaded answers a chat with no messages, which Ollama treats as a
// request to load the model (or, with keep_alive 0, to unload it).
func writeLoaded(w http.ResponseWriter, req Request) {
	reason := "load"
	if zeroKeepAlive(req.KeepAlive) {
		reason = "unload"
	}
	writeJSON(w, http.StatusOK, chatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(),
		Message: message{Role: "assistant"}, Done: true, DoneReason: reason,
	})
}

// zeroKeepAlive reports whether keep_alive is 0, given as a number of
// seconds or as a duration string, as api.Duration reads it.
func zeroKeepAlive(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case float64:
		return v == 0
	case string:
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n == 0
		}
		d, err := time.ParseDuration(v)
		return err == nil && d == 0
	}
	return false
}
