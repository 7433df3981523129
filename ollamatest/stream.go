package ollamatest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// chatResponse is one api.ChatResponse on the wire: a chunk, or the done
// line with its metrics.
type chatResponse struct {
	Model      string    `json:"model"`
	CreatedAt  time.Time `json:"created_at"`
	Message    message   `json:"message"`
	Done       bool      `json:"done"`
	DoneReason string    `json:"done_reason,omitempty"`
	metrics
}

// message is the assistant's api.Message on the wire.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// metrics is api.Metrics on the wire; durations are nanoseconds.
type metrics struct {
	TotalDuration      time.Duration `json:"total_duration,omitempty"`
	LoadDuration       time.Duration `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       time.Duration `json:"eval_duration,omitempty"`
}

// reply answers a chat request with rep.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	if !s.hold(r.Context(), rep.Hold) {
		panic(http.ErrAbortHandler) // drop the connection, answer nothing
	}
	if rep.Status != 0 {
		writeError(w, rep.Status, orDefault(rep.Error, http.StatusText(rep.Status)))
		return
	}
	chunks := rep.chunks()
	if n := numPredict(req); n > 0 && len(chunks) > n {
		chunks, rep.DoneReason = chunks[:n], "length" // Ollama's runner stops there, whatever the model meant to say
	}
	if req.Stream {
		pause := func() bool { return s.hold(r.Context(), rep.Pause) }
		writeStream(w, req, rep, chunks, pause)
	} else {
		writeWhole(w, req, rep, chunks)
	}
}

// hold waits for h to be closed and reports whether it was, rather than
// the request ending or the server closing first.
func (s *Server) hold(ctx context.Context, h <-chan struct{}) bool {
	if h == nil {
		return true
	}
	select {
	case <-h:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// writeStream sends the chunks as NDJSON lines, each flushed, then the end
// the Reply asks for: a done line, an error line, or a dropped connection.
// After rep.PauseAfter chunks it waits for pause to report true.
func writeStream(w http.ResponseWriter, req Request, rep Reply, chunks []string, pause func() bool) {
	w.Header().Set("Content-Type", contentNDJSON)
	rc := http.NewResponseController(w)
	for i, c := range chunks {
		if i == rep.PauseAfter && rep.Pause != nil && !pause() {
			panic(http.ErrAbortHandler)
		}
		if writeLine(w, rc, chunk(req.Model, c)) != nil {
			return // the client has gone
		}
	}
	switch {
	case rep.MidStreamError:
		_ = writeLine(w, rc, errorBody{Error: orDefault(rep.Error, defaultMidStreamError)})
	case rep.CutOff:
		_ = rc.Flush() // the client sees a 200 stream even with no chunks
		panic(http.ErrAbortHandler)
	default:
		_ = writeLine(w, rc, done(req, rep, "", len(chunks)))
	}
}

// writeWhole sends the whole answer as one JSON object, as Ollama does
// when "stream" is false.
func writeWhole(w http.ResponseWriter, req Request, rep Reply, chunks []string) {
	switch {
	case rep.MidStreamError:
		writeError(w, http.StatusInternalServerError, orDefault(rep.Error, defaultMidStreamError))
	case rep.CutOff:
		panic(http.ErrAbortHandler)
	default:
		writeJSON(w, http.StatusOK, done(req, rep, strings.Join(chunks, ""), len(chunks)))
	}
}

// writeLine writes v as one compact JSON line and flushes it.
func writeLine(w http.ResponseWriter, rc *http.ResponseController, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		panic("ollamatest: marshal response: " + err.Error())
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	return rc.Flush()
}

// chunk is a non-final streamed line.
func chunk(model, content string) chatResponse {
	return chatResponse{
		Model: model, CreatedAt: time.Now().UTC(),
		Message: message{Role: "assistant", Content: content},
	}
}

// done is the final line: content is empty when streaming, the whole
// answer otherwise.
func done(req Request, rep Reply, content string, chunks int) chatResponse {
	resp := chunk(req.Model, content)
	resp.Done = true
	resp.DoneReason = rep.doneReason()
	resp.metrics = rep.metrics(req, chunks)
	return resp
}
