package ollama

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/tracing"
)

// Config says which server and model to use and how long to wait.
type Config struct {
	Host              *url.URL
	Model             string
	EmbedModel        string        // for Embed; "" when none
	VisionModel       string        // for turns that show pictures; "" asks Model when it reads them
	KeepAlive         time.Duration // how long Ollama keeps the model loaded after a call
	NumCtx            int           // context window in tokens; 0 leaves the server's default
	NumPredict        int           // the most tokens one answer may take; 0 leaves the server's default (no limit)
	ConnectTimeout    time.Duration
	FirstTokenTimeout time.Duration
	Timeout           time.Duration // the whole answer
}

// Client talks to one Ollama server about one model.
type Client struct {
	api   *api.Client
	http  *http.Client // the api client's, for chat's own stream reader
	cfg   Config
	shows shows // what each model can do, once the server said
}

var (
	errFirstToken = errors.New("no first token in time")
	errTotal      = errors.New("answer not finished in time")
)

// New returns a client with its own HTTP client: bounded connect time, no
// overall timeout (deadlines come from each call's context).
func New(cfg Config) *Client {
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: cfg.ConnectTimeout,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
	hc := &http.Client{Transport: bounded{transport}}
	return &Client{api: api.NewClient(cfg.Host, hc), http: hc, cfg: cfg, shows: newShows()}
}

// Model names the model this client asks.
func (c *Client) Model() string { return c.cfg.Model }

// Chat sends one request and returns the whole answer. Unless the request
// asks for the answer in one piece, it streams, even when the caller does not
// want the deltas, so that the first-token deadline can be watched.
func (c *Client) Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error) {
	tracing.ModelCall(ctx, "ollama", c.cfg.Host, c.modelOf(req))
	ctx, cancelTotal := context.WithTimeoutCause(ctx, c.cfg.Timeout, errTotal)
	defer cancelTotal()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	firstToken := time.AfterFunc(c.cfg.FirstTokenTimeout, func() { cancel(errFirstToken) })
	defer firstToken.Stop()
	if req.Whole {
		firstToken.Stop()
	}

	var reply ryo.ModelReply
	var content strings.Builder
	done := false
	err := c.chat(ctx, c.request(req), func(r api.ChatResponse) error {
		firstToken.Stop()
		content.WriteString(r.Message.Content)
		if req.OnDelta != nil && r.Message.Content != "" {
			req.OnDelta(r.Message.Content)
		}
		if r.Done {
			done = true
			reply.Usage = usage(r.Metrics)
			reply.CutOff = r.DoneReason == "length"
		}
		return nil
	})
	reply.Content = content.String()
	if err != nil {
		return reply, c.explain(ctx, c.modelOf(req), err)
	}
	if !done && ctx.Err() != nil {
		// The stream was cut by a deadline or the caller, not the server.
		return reply, c.explain(ctx, c.modelOf(req), context.Cause(ctx))
	}
	if !done {
		return reply, &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: errors.New("ollama: stream ended without done"),
			Message: "The model server stopped in the middle of the answer. Please try again."}
	}
	return reply, nil
}

// modelOf is the model req asks: its own, else the client's.
func (c *Client) modelOf(req ryo.ModelRequest) string {
	if req.Model != "" {
		return req.Model
	}
	return c.cfg.Model
}

func (c *Client) request(req ryo.ModelRequest) *api.ChatRequest {
	msgs := make([]api.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = api.Message{Role: m.Role, Content: m.Content}
		for _, img := range m.Images {
			msgs[i].Images = append(msgs[i].Images, api.ImageData(img))
		}
	}
	stream := !req.Whole
	r := &api.ChatRequest{
		Model:     c.modelOf(req),
		Messages:  msgs,
		Stream:    &stream,
		Format:    req.Format,
		KeepAlive: &api.Duration{Duration: c.cfg.KeepAlive},
		Options:   map[string]any{},
	}
	if c.cfg.NumCtx > 0 {
		r.Options["num_ctx"] = c.cfg.NumCtx
	}
	if c.cfg.NumPredict > 0 {
		r.Options["num_predict"] = c.cfg.NumPredict
	}
	if req.Temperature != nil {
		r.Options["temperature"] = *req.Temperature
	}
	return r
}

func usage(m api.Metrics) ryo.Usage {
	return ryo.Usage{
		PromptTokens:   m.PromptEvalCount,
		ReplyTokens:    m.EvalCount,
		LoadDuration:   m.LoadDuration,
		PromptDuration: m.PromptEvalDuration,
		ReplyDuration:  m.EvalDuration,
		TotalDuration:  m.TotalDuration,
	}
}

// explain turns a failed call into an error the user can be shown.
func (c *Client) explain(ctx context.Context, model string, err error) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errFirstToken):
		return &ryo.Error{Code: ryo.ETIMEOUT, Err: fmt.Errorf("ollama: %w after %v", cause, c.cfg.FirstTokenTimeout),
			Message: fmt.Sprintf("The model did not start answering within %v. It may still be loading; please try again in a minute.", c.cfg.FirstTokenTimeout)}
	case errors.Is(cause, errTotal):
		return &ryo.Error{Code: ryo.ETIMEOUT, Err: fmt.Errorf("ollama: %w after %v", cause, c.cfg.Timeout),
			Message: fmt.Sprintf("The model took longer than %v to answer, so I stopped it. Please try a shorter question.", c.cfg.Timeout)}
	case cause != nil:
		return cause // the caller gave up: shutdown or a cancelled turn
	}
	var status api.StatusError
	if errors.As(err, &status) {
		return statusError(model, status)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("ollama at %s: %w", c.cfg.Host.Redacted(), err),
			Message: "I can't reach the model server right now. Please try again in a little while."}
	}
	// A plain error is an {"error": ...} line in the middle of the stream.
	return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("ollama: mid-stream error: %w", err),
		Message: "The model failed while answering. Please try again; if it keeps failing, the model server's log says why."}
}

func statusError(model string, se api.StatusError) error {
	err := fmt.Errorf("ollama: HTTP %d: %s", se.StatusCode, se.ErrorMessage)
	if se.StatusCode == http.StatusNotFound {
		return &ryo.Error{Code: ryo.ENOTFOUND, Of: ryo.Model, Err: err,
			Message: fmt.Sprintf("The model %q is not installed on the model server. An admin can install it with: ollama pull %s", model, model)}
	}
	code := ryo.EUNAVAILABLE
	if se.StatusCode >= 400 && se.StatusCode < 500 && se.StatusCode != http.StatusRequestTimeout && se.StatusCode != http.StatusTooManyRequests {
		// The server is up and refused this request: another would refuse it too.
		code = ryo.EINVALID
	}
	return &ryo.Error{Code: code, Of: ryo.Model, Err: err,
		Message: "The model server could not answer: " + clip(se.ErrorMessage, 200)}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
