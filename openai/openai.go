package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/tracing"
)

// Config says which server and model to use and how long to wait.
type Config struct {
	// URL is the server's base: http://127.0.0.1:8000 asks
	// /v1/chat/completions there; an address with a path of its own, such
	// as http://127.0.0.1:8000/v1 or https://example.com/api/openai/v1,
	// is the API's base as it is.
	URL    *url.URL
	APIKey ryo.Secret // sent as a bearer token; "" sends none
	Model  string
	// VisionModel is the model asked with pictures: the server cannot say
	// which of its models read them, so only the one named does. "" for
	// none.
	VisionModel       string
	NumPredict        int // the most tokens one answer may take (max_tokens); 0 sends no limit
	ConnectTimeout    time.Duration
	FirstTokenTimeout time.Duration
	Timeout           time.Duration // the whole answer
	Clock             ryo.Clock     // the deadlines' and durations' clock; the system's when nil
}

// DefaultTimeout bounds a whole answer when Config.Timeout does not.
const DefaultTimeout = 5 * time.Minute

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use.
type Client struct {
	cfg  Config
	http *http.Client
	base string // the API's base, without a trailing slash
}

var (
	errFirstToken = errors.New("no first token in time")
	errTotal      = errors.New("answer not finished in time")
)

// New returns a client with its own HTTP client: bounded connect time, no
// overall timeout (deadlines come from each call).
func New(cfg Config) *Client {
	if cfg.Clock == nil {
		cfg.Clock = ryo.SystemClock{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.FirstTokenTimeout <= 0 {
		cfg.FirstTokenTimeout = cfg.Timeout
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // a server may hold the headers until the first token: the first-token deadline bounds it
	}
	return &Client{cfg: cfg, http: &http.Client{Transport: transport, CheckRedirect: noRedirect}, base: apiBase(cfg.URL)}
}

// noRedirect refuses redirects: a POST answered with one would be sent
// again as a GET, and the key with it to wherever it points.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// apiBase is the API's base from the configured address: /v1 on a bare
// server address, the path as it is otherwise, less an endpoint an
// operator pasted whole (…/v1/chat/completions, …/v1/models).
func apiBase(u *url.URL) string {
	b := *u
	b.Path = strings.TrimSuffix(b.Path, "/")
	for _, endpoint := range []string{"/chat/completions", "/models"} {
		b.Path = strings.TrimSuffix(b.Path, endpoint)
	}
	if b.Path == "" {
		b.Path = "/v1"
	}
	b.RawPath, b.RawQuery, b.Fragment = "", "", ""
	return b.String()
}

// Model names the model this client asks.
func (c *Client) Model() string { return c.cfg.Model }

// Chat sends one request and returns the whole answer. Unless the request
// asks for the answer in one piece, it streams, even when the caller does
// not want the deltas, so that the first-token deadline can be watched.
func (c *Client) Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error) {
	tracing.ModelCall(ctx, "openai", c.cfg.URL, c.modelOf(req))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopFirst := c.watch(ctx, cancel, !req.Whole)
	var firstAt time.Time
	firstToken := func() { stopFirst(); firstAt = c.cfg.Clock.Now() }
	body, err := c.body(req)
	if err != nil {
		return ryo.ModelReply{}, err
	}
	began := c.cfg.Clock.Now()
	resp, err := c.post(ctx, "/chat/completions", body)
	if err != nil {
		return ryo.ModelReply{}, c.explain(ctx, c.modelOf(req), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ryo.ModelReply{}, c.explain(ctx, c.modelOf(req), statusOf(resp))
	}
	var reply ryo.ModelReply
	answer := bufio.NewReader(resp.Body)
	if req.Whole || !isStream(resp, answer) { // a server may answer in one piece though asked to stream
		reply, err = readWhole(answer)
		if err == nil {
			firstToken()
		}
		if err == nil && req.OnDelta != nil {
			req.OnDelta(reply.Content)
		}
	} else {
		reply, err = c.readStream(answer, req.OnDelta, firstToken)
	}
	c.timed(&reply.Usage, began, firstAt)
	if err != nil {
		return reply, c.explain(ctx, c.modelOf(req), err)
	}
	return reply, nil
}

// isStream reports whether resp carries server-sent events: said so, or,
// as a proxy may drop or change the type, seen so: an answer in one piece
// is a JSON object, and an event stream begins with a field or a comment.
func isStream(resp *http.Response, body *bufio.Reader) bool {
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		return true
	}
	for i := 1; i <= 64; i++ {
		b, err := body.Peek(i)
		if err != nil {
			return false
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return false
		}
		return true
	}
	return false
}

// watch cancels ctx when the whole answer's deadline passes, or, when
// streaming, the first token's; the func it returns tells it the first
// token came.
func (c *Client) watch(ctx context.Context, cancel context.CancelCauseFunc, stream bool) (firstToken func()) {
	total, stopTotal := c.cfg.Clock.Timer(c.cfg.Timeout)
	var first <-chan time.Time
	stopFirst := func() bool { return false }
	if stream {
		first, stopFirst = c.cfg.Clock.Timer(c.cfg.FirstTokenTimeout)
	}
	go func() {
		defer stopTotal()
		defer stopFirst()
		select {
		case <-total:
			cancel(errTotal)
		case <-first:
			cancel(errFirstToken)
		case <-ctx.Done():
		}
	}()
	return func() { stopFirst() }
}

// timed fills in the durations the server did not report, as this
// client saw them: the whole call; until the first token (the prompt);
// from it to the end (the reply).
func (c *Client) timed(u *ryo.Usage, began, firstAt time.Time) {
	now := c.cfg.Clock.Now()
	if u.TotalDuration <= 0 {
		u.TotalDuration = now.Sub(began)
	}
	if firstAt.IsZero() {
		return
	}
	if u.PromptDuration <= 0 {
		u.PromptDuration = firstAt.Sub(began)
	}
	if u.ReplyDuration <= 0 {
		u.ReplyDuration = now.Sub(firstAt)
	}
}

// modelOf is the model req asks: its own, else the client's.
func (c *Client) modelOf(req ryo.ModelRequest) string {
	if req.Model != "" {
		return req.Model
	}
	return c.cfg.Model
}

// post sends body to the API's path, with the key, if any.
func (c *Client) post(ctx context.Context, path string, body []byte) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "text/event-stream, application/json")
	c.authorize(r)
	return c.http.Do(r)
}

func (c *Client) authorize(r *http.Request) {
	if key := c.cfg.APIKey.Reveal(); key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []message       `json:"messages"`
	Stream         bool            `json:"stream"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// message is one message; its content is a string, or parts when it
// shows pictures.
type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

// jsonSchema is a response format's schema. Strict is always false: see
// the package's doc.
type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// SchemaName is the name the envelope's schema is sent under.
const SchemaName = "ryo_envelope"

func (c *Client) body(req ryo.ModelRequest) ([]byte, error) {
	r := chatRequest{Model: c.modelOf(req), Stream: !req.Whole, Temperature: req.Temperature, MaxTokens: c.cfg.NumPredict}
	if r.Stream {
		r.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	for _, m := range req.Messages {
		r.Messages = append(r.Messages, toMessage(m))
	}
	format, err := toFormat(req.Format)
	if err != nil {
		return nil, err
	}
	r.ResponseFormat = format
	return json.Marshal(r)
}

func toMessage(m ryo.ModelMessage) message {
	if len(m.Images) == 0 {
		return message{Role: m.Role, Content: m.Content}
	}
	parts := []part{{Type: "text", Text: m.Content}}
	for _, img := range m.Images {
		parts = append(parts, part{Type: "image_url", ImageURL: &imageURL{URL: dataURL(img)}})
	}
	return message{Role: m.Role, Content: parts}
}

// dataURL carries a picture in the request, typed by its first bytes.
func dataURL(img []byte) string {
	return "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
}

// toFormat is the response format for a request's Format: a schema, or
// "json" for any JSON object.
func toFormat(f json.RawMessage) (*responseFormat, error) {
	f = bytes.TrimSpace(f)
	switch {
	case len(f) == 0 || string(f) == "null":
		return nil, nil
	case string(f) == `"json"`:
		return &responseFormat{Type: "json_object"}, nil
	case f[0] == '{' && json.Valid(f):
		return &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: SchemaName, Schema: f}}, nil
	}
	return nil, fmt.Errorf("openai: the format is neither \"json\" nor a JSON schema object")
}
