// Package imagetest is a fake of an image generator that speaks OpenAI's
// images API (POST /v1/images/generations), as self-hosted generators copy
// it, for tests. It is as strict as the API it stands for: it refuses a
// request without a prompt, with an unknown size or response format, more
// than one picture, a missing or wrong key when one is set, a body that is
// not JSON; it answers with real pictures (PNG, or JPEG when asked), inline
// as base64 or as an address to fetch, and records every request.
package imagetest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is one request for a picture, as received.
type Request struct {
	Prompt         string
	N              int
	Size           string
	ResponseFormat string
	Model          string
	Authorization  string
}

// Options shape the fake's answers.
type Options struct {
	Key    string // the API key it requires; "" requires none
	Format string // "png" (the default) or "jpeg"
	// ByURL answers with an address to fetch the picture from, as a
	// generator does when asked for response_format "url" or when it
	// ignores response_format.
	ByURL bool
}

// Failure makes the next answers an error.
type Failure struct {
	Status  int    // HTTP status
	Message string // OpenAI's {"error":{"message":…}}; "" for a body that is not JSON
}

// Server is the fake generator.
type Server struct {
	http *httptest.Server
	opts Options

	mu       sync.Mutex
	requests []Request
	fail     []Failure
	hold     chan struct{}
	pictures map[string][]byte // served by address
}

// sizes are the sizes OpenAI's images API takes.
var sizes = map[string]bool{"256x256": true, "512x512": true, "1024x1024": true, "1024x1792": true, "1792x1024": true, "1024x1536": true, "1536x1024": true}

// NewServer starts a fake generator.
func NewServer(opts Options) *Server {
	s := &Server{opts: opts, pictures: map[string][]byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/images/generations", s.generate)
	mux.HandleFunc("GET /files/{name}", s.file)
	s.http = httptest.NewServer(mux)
	return s
}

// URL is the API's base, as RYO_IMAGE_URL takes it.
func (s *Server) URL() string { return s.http.URL + "/v1" }

// Close stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
	s.mu.Unlock()
	s.http.Close()
}

// Requests returns the requests received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// FailNext makes the next answers the failures given, in order.
func (s *Server) FailNext(f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, f...)
}

// Hold makes requests wait, as a slow generator does, until the returned
// release is called.
func (s *Server) Hold() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := make(chan struct{})
	s.hold = h
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.hold == h {
				s.hold = nil
			}
			s.mu.Unlock()
			close(h)
		})
	}
}

func apiError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error"}})
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Prompt         *string `json:"prompt"`
		N              *int    `json:"n"`
		Size           string  `json:"size"`
		ResponseFormat string  `json:"response_format"`
		Model          string  `json:"model"`
	}
	req := Request{Authorization: r.Header.Get("Authorization")}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(&body)
	if body.Prompt != nil {
		req.Prompt = *body.Prompt
	}
	req.N, req.Size, req.ResponseFormat, req.Model = 1, body.Size, body.ResponseFormat, body.Model
	if body.N != nil {
		req.N = *body.N
	}
	s.mu.Lock()
	s.requests = append(s.requests, req) // as received: a held request counts
	var fail *Failure
	if len(s.fail) > 0 {
		fail = &s.fail[0]
		s.fail = s.fail[1:]
	}
	hold := s.hold
	s.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case s.opts.Key != "" && req.Authorization != "Bearer "+s.opts.Key:
		apiError(w, http.StatusUnauthorized, "Incorrect API key provided.")
	case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		apiError(w, http.StatusBadRequest, "Content-Type must be application/json.")
	case err != nil:
		apiError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error())
	case body.Prompt == nil || strings.TrimSpace(*body.Prompt) == "":
		apiError(w, http.StatusBadRequest, "Missing required parameter: 'prompt'.")
	case len([]rune(*body.Prompt)) > 4000:
		apiError(w, http.StatusBadRequest, "'prompt' is too long: the maximum length is 4000 characters.")
	case req.N != 1:
		apiError(w, http.StatusBadRequest, "This generator makes one image per request ('n' must be 1).")
	case req.Size != "" && !sizes[req.Size]:
		apiError(w, http.StatusBadRequest, fmt.Sprintf("'%s' is not one of the supported sizes.", req.Size))
	case req.ResponseFormat != "" && req.ResponseFormat != "b64_json" && req.ResponseFormat != "url":
		apiError(w, http.StatusBadRequest, fmt.Sprintf("'%s' is not a valid response_format.", req.ResponseFormat))
	case fail != nil && fail.Message == "":
		w.WriteHeader(fail.Status)
		fmt.Fprint(w, "<html><body>upstream error</body></html>")
	case fail != nil:
		apiError(w, fail.Status, fail.Message)
	default:
		s.answer(w, req)
	}
}

// answer sends a picture of the size asked for (scaled down: a test needs
// its shape, not its pixels).
func (s *Server) answer(w http.ResponseWriter, req Request) {
	width, height := 64, 64
	if wd, ht, ok := strings.Cut(req.Size, "x"); ok {
		a, _ := strconv.Atoi(wd)
		b, _ := strconv.Atoi(ht)
		width, height = a/16, b/16
	}
	data := Picture(width, height, s.opts.Format)
	item := map[string]any{"revised_prompt": "A picture of " + req.Prompt}
	if s.opts.ByURL || req.ResponseFormat == "url" {
		name := fmt.Sprintf("p%d.%s", time.Now().UnixNano(), s.format())
		s.mu.Lock()
		s.pictures[name] = data
		s.mu.Unlock()
		item["url"] = s.http.URL + "/files/" + name
	} else {
		item["b64_json"] = base64.StdEncoding.EncodeToString(data)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"created": time.Now().Unix(), "data": []any{item}})
}

func (s *Server) format() string {
	if s.opts.Format == "jpeg" {
		return "jpeg"
	}
	return "png"
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.pictures[r.PathValue("name")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/"+s.format())
	w.Write(data)
}

// Picture is a width×height gradient encoded as format ("png" or "jpeg").
func Picture(width, height int, format string) []byte {
	img := image.NewRGBA(image.Rect(0, 0, max(width, 1), max(height, 1)))
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / max(width, 1)), G: uint8(y * 255 / max(height, 1)), B: 160, A: 255})
		}
	}
	var b bytes.Buffer
	if format == "jpeg" {
		jpeg.Encode(&b, img, nil)
	} else {
		png.Encode(&b, img)
	}
	return b.Bytes()
}
