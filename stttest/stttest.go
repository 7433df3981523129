// Package stttest is a fake transcription server that speaks OpenAI's
// audio transcription API (POST /v1/audio/transcriptions, a multipart
// form), as whisper.cpp's server, faster-whisper-server (speaches) and
// LocalAI copy it, for tests.
//
// It is as strict as the API it stands for: it refuses a request that is
// not a multipart form, has no file part, a file part without a file name
// or with an extension the API does not take, no model (unless told to
// play whisper.cpp, which ignores it), an unknown response format, a
// language that is not an ISO-639-1 code, a temperature outside 0..1, and a
// missing or wrong key when one is set. It answers json ({"text"}) or
// verbose_json ({"task","language","duration","text","segments"}), can be
// scripted to fail in the ways real servers fail, and records every
// request.
package stttest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Request is one request for a transcript, as received.
type Request struct {
	Path           string
	Model          string
	ResponseFormat string
	Language       string
	Temperature    string
	FileName       string
	FileType       string // the file part's Content-Type
	File           []byte
	Authorization  string
}

// Options shape the fake.
type Options struct {
	Key string // the API key it requires as a bearer token; "" requires none
	// WhisperCPP plays whisper.cpp's server: it answers at /inference as
	// well, and does not require a model.
	WhisperCPP bool
	// JSONOnly refuses verbose_json with a 400, as OpenAI does for its
	// gpt-4o transcription models.
	JSONOnly bool
	Language string // the language verbose_json reports; "english" when ""
}

// Answer is what the fake answers one request with. The zero Answer is a
// transcript of Text.
type Answer struct {
	Text     string
	Language string  // overrides Options.Language
	Duration float64 // seconds verbose_json reports; the file's length in bytes / 4000 when 0

	Status     int    // an HTTP error status; 0 answers a transcript
	Message    string // the error's message, as OpenAI's {"error":{"message"}}
	RetryAfter string // the Retry-After header
	Body       string // sent as it is, with Status or 200, instead of the fake's JSON
	Huge       int    // this many bytes of transcript text
	// Hold keeps the answer until it is closed or the client gives up.
	Hold chan struct{}
	// Arrived, when not nil, is closed once the request is read.
	Arrived chan struct{}
}

// Server is the fake transcription server.
type Server struct {
	http *httptest.Server
	opts Options

	mu       sync.Mutex
	requests []Request
	answers  []Answer
}

// Extensions OpenAI's API takes, by the file name's extension; it reads
// the kind of audio from the name, not from the part's Content-Type.
var extensions = map[string]bool{"flac": true, "mp3": true, "mp4": true, "mpeg": true, "mpga": true, "m4a": true, "ogg": true, "oga": true, "wav": true, "webm": true}

var formats = map[string]bool{"json": true, "text": true, "srt": true, "verbose_json": true, "vtt": true}

// NewServer starts a fake transcription server. Close it when done.
func NewServer(opts Options) *Server {
	s := &Server{opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcribe)
	if opts.WhisperCPP {
		mux.HandleFunc("POST /inference", s.transcribe)
	}
	s.http = httptest.NewServer(mux)
	return s
}

// URL is the API's base, as RYO_STT_URL takes it: http://…/v1.
func (s *Server) URL() string { return s.http.URL + "/v1" }

// Root is the server's address without a path, where whisper.cpp's
// /inference is.
func (s *Server) Root() string { return s.http.URL }

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// Answer queues answers for the next requests, in order; once they are
// spent, requests are answered with the transcript "hello".
func (s *Server) Answer(a ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, a...)
}

// Requests returns every request received so far, the refused ones too.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) next() Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.answers) == 0 {
		return Answer{Text: "hello"}
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	req, problem, status := s.read(r)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if problem != "" {
		fail(w, status, problem)
		return
	}
	if s.opts.JSONOnly && req.ResponseFormat == "verbose_json" {
		fail(w, http.StatusBadRequest, "response_format 'verbose_json' is not compatible with this model; use 'json' or 'text'")
		return
	}
	a := s.next()
	if a.Arrived != nil {
		close(a.Arrived)
	}
	if a.Hold != nil {
		select {
		case <-a.Hold:
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case a.Status != 0:
		if a.RetryAfter != "" {
			w.Header().Set("Retry-After", a.RetryAfter)
		}
		if a.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(a.Status)
			io.WriteString(w, a.Body)
			return
		}
		fail(w, a.Status, a.Message)
	case a.Body != "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, a.Body)
	default:
		s.answer(w, req, a)
	}
}

// read checks the request as the API does: the problem and its status
// when it would refuse it.
func (s *Server) read(r *http.Request) (Request, string, int) {
	req := Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization")}
	if s.opts.Key != "" && req.Authorization != "Bearer "+s.opts.Key {
		return req, "Incorrect API key provided.", http.StatusUnauthorized
	}
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return req, "the request must be multipart/form-data", http.StatusBadRequest
	}
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		return req, "the multipart form cannot be read: " + err.Error(), http.StatusBadRequest
	}
	form := r.MultipartForm
	first := func(name string) string {
		if v := form.Value[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	req.Model, req.ResponseFormat, req.Language, req.Temperature = first("model"), first("response_format"), first("language"), first("temperature")
	files := form.File["file"]
	if len(files) != 1 {
		return req, "a single 'file' part is required", http.StatusBadRequest
	}
	req.FileName, req.FileType = files[0].Filename, files[0].Header.Get("Content-Type")
	f, err := files[0].Open()
	if err == nil {
		req.File, err = io.ReadAll(f)
		f.Close()
	}
	if err != nil {
		return req, "the file part cannot be read", http.StatusBadRequest
	}
	return req, s.check(req), http.StatusBadRequest
}

// check is why the API would refuse req's fields, or "".
func (s *Server) check(req Request) string {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(req.FileName)), ".")
	switch {
	case req.FileName == "":
		return "the file part has no file name"
	case !extensions[ext]:
		return "Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']"
	case len(req.File) == 0:
		return "Audio file is too short."
	case req.Model == "" && !s.opts.WhisperCPP:
		return "you must provide a model parameter"
	case req.ResponseFormat != "" && !formats[req.ResponseFormat]:
		return fmt.Sprintf("%q is not a valid response_format", req.ResponseFormat)
	case req.Language != "" && !isoCode(req.Language):
		return fmt.Sprintf("Invalid language %q. Language parameter must be specified in ISO-639-1 format.", req.Language)
	}
	if req.Temperature != "" {
		t, err := strconv.ParseFloat(req.Temperature, 64)
		if err != nil || t < 0 || t > 1 {
			return "temperature must be between 0 and 1"
		}
	}
	return ""
}

func isoCode(s string) bool {
	return len(s) == 2 && 'a' <= s[0] && s[0] <= 'z' && 'a' <= s[1] && s[1] <= 'z'
}

func (s *Server) answer(w http.ResponseWriter, req Request, a Answer) {
	text := a.Text
	if a.Huge > 0 {
		text = strings.Repeat("la ", a.Huge/3+1)[:a.Huge]
	}
	if req.ResponseFormat == "text" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, text)
		return
	}
	var body any = map[string]string{"text": text}
	if req.ResponseFormat == "verbose_json" {
		lang := a.Language
		if lang == "" {
			lang = s.opts.Language
		}
		if lang == "" {
			lang = "english"
		}
		dur := a.Duration
		if dur == 0 {
			dur = float64(len(req.File)) / 4000
		}
		body = map[string]any{
			"task": "transcribe", "language": lang, "duration": dur, "text": text,
			"segments": []map[string]any{{"id": 0, "start": 0.0, "end": dur, "text": text}},
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// fail answers an error as OpenAI's API does: {"error":{"message",…}}.
func fail(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error", "param": nil, "code": nil}})
}
