package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ryo-bot/ryo/schema"
	"github.com/ryo-bot/ryo/toolbus"
)

// call is the tool of one operation: it builds the request from the
// validated arguments as the document says, sends it under the
// operation's deadline, and turns the answer into a result the model can
// read or a short error it can act on.
type call struct {
	api     string
	method  string
	path    string // the template, "/pets/{petId}"
	server  string // absolute, no trailing slash
	params  []param
	body    *body
	auth    Auth
	client  *http.Client
	timeout time.Duration
	// strict checks what the model's schema leaves out (maxItems); nil
	// when there is nothing more to check.
	strict *schema.Schema
}

// Error codes of the client, beside toolbus's and http_<status>.
const (
	CodeUnavailable = "unavailable"  // the API cannot be reached
	CodeBadResponse = "bad_response" // the API answered something unreadable
	CodeRedirect    = "redirect_refused"
)

// Call sends the request and reads the answer.
func (c *call) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	if c.strict != nil {
		if err := c.strict.Validate(raw); err != nil {
			return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "%v", err)
		}
	}
	args, err := decodeArgs(raw)
	if err != nil {
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "the arguments are not a JSON object")
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.request(ctx, args)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.sendError(ctx, err)
	}
	defer resp.Body.Close()
	return c.answer(ctx, resp)
}

// decodeArgs splits the arguments object into its members, each still
// JSON: a body goes out as the model wrote it, digits and order kept.
func decodeArgs(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]json.RawMessage{}
	}
	return args, nil
}

// formFields is a form body's members in order, arrays decoded.
func formFields(raw json.RawMessage) ([]field, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var fields []field
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		v, err := decodeNext(d)
		if err != nil {
			return nil, err
		}
		key, _ := k.(string)
		fields = append(fields, field{key, v})
	}
	return fields, nil
}

// request builds the HTTP request from the arguments.
func (c *call) request(ctx context.Context, args map[string]json.RawMessage) (*http.Request, error) {
	path, query, header, err := c.place(args)
	if err != nil {
		return nil, err
	}
	if c.auth.In == InQuery && c.auth.Name != "" {
		query = append(query, queryEscape(c.auth.Name, false)+"="+queryEscape(c.auth.Value.Reveal(), false))
	}
	target := c.server + path
	if len(query) > 0 {
		target += "?" + strings.Join(query, "&")
	}
	payload, contentType, err := c.payload(args)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, c.method, target, payload)
	if err != nil || !strings.HasPrefix(target, c.server+"/") && target != c.server && !strings.HasPrefix(target, c.server+"?") {
		// The arguments go after the server's URL, never into its host.
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "the arguments do not make a valid request")
	}
	req.Header = header
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.auth.In == InHeader && c.auth.Name != "" {
		req.Header.Set(c.auth.Name, c.auth.Value.Reveal())
	}
	return req, nil
}

// place puts each parameter's argument where the document says: into the
// path, the query (in the document's order) or a header.
func (c *call) place(args map[string]json.RawMessage) (string, []string, http.Header, error) {
	path, header := c.path, http.Header{}
	var query []string
	for _, p := range c.params {
		v, err := argValue(p, args[p.arg])
		if err != nil || v == nil {
			if p.in == "path" {
				return "", nil, nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s is required", p.arg)
			}
			continue
		}
		switch p.in {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.name+"}", pathValue(p, v))
		case "query":
			query = append(query, queryPairs(p, v)...)
		case "header":
			h := headerValue(p, v)
			if strings.ContainsAny(h, "\r\n\x00") {
				return "", nil, nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "%s cannot hold a line break", p.arg)
			}
			header.Set(p.name, h)
		}
	}
	if dotSegment(path) {
		return "", nil, nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "a path argument cannot be . or ..")
	}
	return path, query, header, nil
}

// dotSegment reports whether path has a segment "." or "..": servers and
// proxies read it as a step up the path (RFC 3986 5.2.4), so an argument
// could call another endpoint than the operation's.
func dotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// payload encodes the body argument in the body's media type.
func (c *call) payload(args map[string]json.RawMessage) (io.Reader, string, error) {
	if c.body == nil {
		return nil, "", nil
	}
	raw, ok := args[c.body.arg]
	if !ok {
		return nil, "", nil
	}
	switch c.body.mediaType {
	case mediaForm:
		fields, err := formFields(raw)
		if err != nil {
			return nil, "", toolbus.Errorf(toolbus.CodeInvalidArgs, "%s must be an object", c.body.arg)
		}
		return strings.NewReader(formBody(fields)), mediaForm, nil
	case mediaText:
		v, err := decodeValue(raw)
		if err != nil {
			return nil, "", toolbus.Errorf(toolbus.CodeInvalidArgs, "%s must be text", c.body.arg)
		}
		return strings.NewReader(text(v)), mediaText + "; charset=utf-8", nil
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, "", toolbus.Errorf(toolbus.CodeInvalidArgs, "the body is not JSON")
	}
	return &out, mediaJSON, nil
}

// sendError turns a failed exchange into an error for the model. The
// transport's own message is not used: it quotes the URL, which may
// carry the credential.
func (c *call) sendError(ctx context.Context, err error) error {
	var redirect *redirectError
	switch {
	case errors.As(err, &redirect):
		return toolbus.Errorf(CodeRedirect, "%s answered with a redirect to another host, which is not followed", c.api)
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return toolbus.Errorf(toolbus.CodeTimeout, "%s did not answer within %v; try again later, or ask for less", c.api, c.timeout)
	}
	return toolbus.Errorf(CodeUnavailable, "%s cannot be reached at the moment; try again later", c.api)
}

// redirectError is a redirect the client refused.
type redirectError struct{ to string }

func (e *redirectError) Error() string { return "redirect to another host refused" }

// newClient is base (or a client of its own) that follows redirects only
// on the same host and port (or from http to https on the default ports),
// at most five.
func newClient(base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return fmt.Errorf("more than %d redirects", len(via))
		}
		from, to := via[0].URL, req.URL
		same := to.Scheme == from.Scheme && strings.EqualFold(to.Host, from.Host)
		// http to https on the same name, from the default port to the
		// default port: another port is another service.
		upgrade := from.Scheme == "http" && to.Scheme == "https" && strings.EqualFold(to.Hostname(), from.Hostname()) &&
			(from.Port() == "" || from.Port() == "80") && (to.Port() == "" || to.Port() == "443")
		if !same && !upgrade {
			return &redirectError{to: req.URL.Host}
		}
		return nil
	}
	return c
}
