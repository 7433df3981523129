package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Reply scripts the answer to one chat request. The zero Reply streams
// an empty answer that ends normally.
type Reply struct {
	// Content is the answer. Streamed, it is split at rune boundaries
	// into chunks of a few characters, one event each. Each chunk counts
	// as one token: a request's max_tokens cuts the answer there, with
	// finish_reason "length", as a real server stops a model at its limit.
	Content string
	// Chunks, when set, are sent as they are and override Content.
	Chunks []string
	// Reasoning, when set, is sent first as reasoning_content deltas, as
	// vLLM and llama.cpp send a thinking model's thoughts.
	Reasoning []string

	// Status, when non-zero, is the HTTP status to answer with OpenAI's
	// error object {"error": {"message": Error, …}} before any output.
	Status int
	// Error is the message for Status or MidStreamError.
	Error string
	// MidStreamError sends the chunks, then an event {"error": {…}}
	// instead of the end; the status stays 200.
	MidStreamError bool
	// CutOff sends the chunks, then drops the connection without a
	// finish_reason or [DONE].
	CutOff bool
	// Unstreamed answers in one piece though the request asked for a
	// stream, as some servers do.
	Unstreamed bool
	// Fragmented writes every event in pieces of a few bytes, each
	// flushed on its own, so that a character of several bytes arrives
	// split across reads.
	Fragmented bool

	// Hold, when non-nil, delays the whole answer, headers included, until
	// it is closed, the request ends or the Server is closed; in the last
	// two cases the connection is dropped without an answer.
	Hold <-chan struct{}
	// HoldAfterRole sends the headers and the first chunk, which carries
	// only the assistant's role, then waits as Hold does: a server that
	// has begun to answer but whose model has not yet written anything.
	HoldAfterRole <-chan struct{}

	// FinishReason is reported in the last chunk: "stop" by default,
	// "length" when max_tokens cut the answer.
	FinishReason string
	// PromptTokens defaults to the characters of all messages / 4 (at
	// least 1); CompletionTokens to the number of chunks sent.
	PromptTokens, CompletionTokens int
}

const chunkRunes = 4

func (rep Reply) chunks() []string {
	if rep.Chunks != nil {
		return rep.Chunks
	}
	var out []string
	for s := rep.Content; s != ""; {
		i := 0
		for n := 0; i < len(s) && n < chunkRunes; n++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// serveChat answers POST /v1/chat/completions, checking the request as a
// real server does before it takes a reply from the script.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return
	}
	req, e := parse(raw)
	if e == nil && !s.serves(req.Model) {
		e = &badRequest{status: http.StatusNotFound, msg: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model)}
	}
	if e != nil {
		code := any(nil)
		if e.status == http.StatusNotFound {
			code = "model_not_found"
		}
		s.refuseCode(w, r.URL.Path, e.status, e.msg, code)
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	s.record(req)
	defer s.finished()
	s.reply(w, r, req, s.next(req))
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	if !s.hold(r.Context(), rep.Hold) {
		panic(http.ErrAbortHandler)
	}
	if rep.Status != 0 {
		writeJSON(w, rep.Status, errorBody(orText(rep.Error, http.StatusText(rep.Status)), errorType(rep.Status), nil))
		return
	}
	chunks := rep.chunks()
	finish := orText(rep.FinishReason, "stop")
	if req.MaxTokens != nil && len(chunks) > *req.MaxTokens {
		chunks, finish = chunks[:*req.MaxTokens], "length"
	}
	u := usage{PromptTokens: rep.PromptTokens, CompletionTokens: rep.CompletionTokens}
	if u.PromptTokens == 0 {
		u.PromptTokens = promptTokens(req)
	}
	if u.CompletionTokens == 0 {
		u.CompletionTokens = len(chunks) + len(rep.Reasoning)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	if !req.Stream || rep.Unstreamed {
		if rep.MidStreamError || rep.CutOff {
			writeJSON(w, http.StatusInternalServerError, errorBody(orText(rep.Error, "The server had an error while processing your request."), "server_error", nil))
			return
		}
		writeJSON(w, http.StatusOK, whole(req, strings.Join(chunks, ""), finish, u))
		return
	}
	st := &stream{w: w, rc: http.NewResponseController(w), id: "chatcmpl-" + fmt.Sprint(time.Now().UnixNano()), model: req.Model, fragmented: rep.Fragmented}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st.delta(map[string]any{"role": "assistant", "content": ""}, nil)
	if !s.hold(r.Context(), rep.HoldAfterRole) {
		panic(http.ErrAbortHandler)
	}
	for _, t := range rep.Reasoning {
		st.delta(map[string]any{"reasoning_content": t}, nil)
	}
	for _, c := range chunks {
		st.delta(map[string]any{"content": c}, nil)
	}
	switch {
	case rep.MidStreamError:
		st.event(errorBody(orText(rep.Error, "The server had an error while processing your request."), "server_error", nil))
		return
	case rep.CutOff:
		panic(http.ErrAbortHandler)
	}
	st.delta(map[string]any{}, &finish)
	if req.IncludeUsage {
		st.usage(u)
	}
	st.raw("[DONE]")
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

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func promptTokens(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Content)
	}
	return max(1, n/4)
}

// stream writes server-sent events, each flushed.
type stream struct {
	w          http.ResponseWriter
	rc         *http.ResponseController
	id, model  string
	fragmented bool
}

func (st *stream) delta(d map[string]any, finish *string) {
	st.event(map[string]any{"id": st.id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": st.model,
		"system_fingerprint": "fp_openaitest",
		"choices":            []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}})
}

// usage is the last chunk of a stream that asked for it: no choices.
func (st *stream) usage(u usage) {
	st.event(map[string]any{"id": st.id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": st.model,
		"choices": []any{}, "usage": u})
}

func (st *stream) event(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("openaitest: " + err.Error())
	}
	st.raw(string(b))
}

func (st *stream) raw(data string) {
	ev := []byte("data: " + data + "\n\n")
	step := len(ev)
	if st.fragmented {
		step = 3
	}
	for len(ev) > 0 {
		n := min(step, len(ev))
		if _, err := st.w.Write(ev[:n]); err != nil {
			return
		}
		_ = st.rc.Flush()
		ev = ev[n:]
	}
}

// whole is the answer of a request that did not stream.
func whole(req Request, content, finish string, u usage) map[string]any {
	return map[string]any{"id": "chatcmpl-whole", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content},
			"logprobs": nil, "finish_reason": finish}},
		"usage": u}
}

// errorBody is OpenAI's error object.
func errorBody(msg, typ string, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("openaitest: " + err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
