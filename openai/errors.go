package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ryo-bot/ryo"
)

// statusError is an answer other than 200, with the server's own words.
type statusError struct {
	code    int
	message string
	// kind and param are the error object's code and param, when it has
	// them: "model_not_found", "model".
	kind, param string
}

func (e statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.message) }

// statusOf reads the error of an answer other than 200: OpenAI's,
// llama.cpp's and LM Studio's {"error":{"message"}} or {"error":"…"},
// vLLM's {"object":"error","message"}, FastAPI's {"detail"}. A page of
// HTML, as a proxy in front of the server sends, says only its status:
// its markup is for browsers, not for the person in the chat.
func statusOf(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	se := statusError{code: resp.StatusCode}
	msg := ""
	switch {
	case isHTML(resp, raw):
	case json.Unmarshal(raw, &body) != nil:
		msg = string(raw)
	case len(body.Error) > 0 && string(body.Error) != "null":
		se.kind, se.param = errorCode(body.Error)
		msg = errorText(body.Error)
	case body.Message != "":
		msg = body.Message
	case len(body.Detail) > 0:
		msg = errorText(body.Detail)
	}
	msg = strings.Join(strings.Fields(msg), " ") // one line, whatever the server sent
	if msg == "" {
		msg = fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	se.message = clip(msg, 300)
	return se
}

// isHTML reports whether an answer is a web page.
func isHTML(resp *http.Response, raw []byte) bool {
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/html") {
		return true
	}
	return bytes.HasPrefix(bytes.TrimSpace(raw), []byte("<"))
}

// errorCode reads the code and param of OpenAI's error object; a code may
// be a string or a number.
func errorCode(raw json.RawMessage) (code, param string) {
	var obj struct {
		Code  any    `json:"code"`
		Param string `json:"param"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return "", ""
	}
	if s, ok := obj.Code.(string); ok {
		code = s
	}
	return code, obj.Param
}

// explain turns a failed call into an error the user can be shown.
func (c *Client) explain(ctx context.Context, model string, err error) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errFirstToken):
		return &ryo.Error{Code: ryo.ETIMEOUT, Err: fmt.Errorf("openai: %w after %v", cause, c.cfg.FirstTokenTimeout),
			Message: fmt.Sprintf("The model did not start answering within %v. It may still be loading; please try again in a minute.", c.cfg.FirstTokenTimeout)}
	case errors.Is(cause, errTotal):
		return &ryo.Error{Code: ryo.ETIMEOUT, Err: fmt.Errorf("openai: %w after %v", cause, c.cfg.Timeout),
			Message: fmt.Sprintf("The model took longer than %v to answer, so I stopped it. Please try a shorter question.", c.cfg.Timeout)}
	case errors.Is(cause, errList):
		return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("openai at %s: %w after %v", c.cfg.URL.Redacted(), cause, c.cfg.ConnectTimeout+listTimeout),
			Message: "I can't reach the model server right now. Please try again in a little while."}
	case cause != nil:
		return cause // the caller gave up: shutdown or a cancelled turn
	}
	var status statusError
	var mid errMidStream
	var urlErr *url.Error
	switch {
	case errors.As(err, &status):
		return c.statusError(model, status)
	case errors.As(err, &urlErr):
		return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("openai at %s: %w", c.cfg.URL.Redacted(), err),
			Message: "I can't reach the model server right now. Please try again in a little while."}
	case errors.Is(err, errFiltered):
		return &ryo.Error{Code: ryo.EINVALID, Of: ryo.Model, Err: fmt.Errorf("openai: %w", err),
			Message: "The model server's content filter stopped the answer, so I am not showing half of it. Please put the question differently."}
	case errors.As(err, &mid):
		mid.message = c.redact(mid.message) // a server may quote what it was sent
		return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("openai: %w", mid),
			Message: "The model failed while answering. Please try again; if it keeps failing, the model server's log says why."}
	}
	// The stream ended early, broke off, or carried what cannot be read.
	return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("openai: %w", err),
		Message: "The model server stopped in the middle of the answer. Please try again."}
}

// statusError explains an answer other than 200. Overload, rate limits and
// the server's own failures are the server being out of reach for now;
// a model it does not serve (a 404 that names it: a 404 that does not is
// a wrong address) is ryo.ModelMissing; any other refusal is the server's
// word on what was asked.
func (c *Client) statusError(model string, se statusError) error {
	se.message = c.redact(se.message) // a server may quote what it was sent
	err := fmt.Errorf("openai at %s: %w", c.cfg.URL.Redacted(), se)
	switch {
	case se.code == http.StatusUnauthorized || se.code == http.StatusForbidden:
		return &ryo.Error{Code: ryo.EINVALID, Of: ryo.Model, Err: err,
			Message: "The model server does not accept ryo's key. An admin should check RYO_OPENAI_API_KEY."}
	case missingModel(model, se):
		return &ryo.Error{Code: ryo.ENOTFOUND, Of: ryo.Model, Err: err,
			Message: fmt.Sprintf("The model %q is not served by the model server. /model lists those it serves.", model)}
	case se.code == http.StatusTooManyRequests || se.code >= 500 || se.code == http.StatusNotFound || se.code == http.StatusRequestTimeout:
		return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: err,
			Message: "The model server could not answer: " + se.message}
	}
	return &ryo.Error{Code: ryo.EINVALID, Of: ryo.Model, Err: err,
		Message: "The model server refused the request: " + se.message}
}

// missingModel reports whether a refusal says the model is not served:
// OpenAI's code model_not_found; a 404 that names the model (vLLM,
// Ollama); a refusal of the model parameter that names it (LiteLLM's
// 400 "Invalid model name passed in model=…").
func missingModel(model string, se statusError) bool {
	if se.code < 400 || se.code >= 500 {
		return false
	}
	names := model != "" && strings.Contains(strings.ToLower(se.message), strings.ToLower(model))
	return se.kind == "model_not_found" || names && (se.code == http.StatusNotFound || se.param == "model")
}

// redact blanks the key out of what a server said.
func (c *Client) redact(s string) string {
	if key := c.cfg.APIKey.Reveal(); key != "" {
		return strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
