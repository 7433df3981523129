package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ryo-bot/ryo/toolbus"
)

// answer reads at most MaxResponse bytes of the answer. A 2xx answer is
// the result: its JSON as it is when it fits in MaxResult, else the whole
// items that fit, marked as cut; text as text. Any other status is an
// *toolbus.Error with code http_<status> and the API's own message.
func (c *call) answer(ctx context.Context, resp *http.Response) (any, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return nil, c.sendError(ctx, err)
	}
	cut := len(data) > MaxResponse
	if cut {
		data = data[:MaxResponse]
	}
	data = c.redact(data)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.statusError(resp, data)
	}
	data = c.redactJSON(data)
	if len(bytes.TrimSpace(data)) == 0 || c.method == http.MethodHead {
		return map[string]any{"status": resp.StatusCode}, nil
	}
	if isJSON(resp.Header.Get("Content-Type"), data) {
		// Bad bytes can only be inside strings: replacing them keeps
		// the JSON as it was, and makes it UTF-8 as JSON must be.
		return jsonResult(bytes.ToValidUTF8(data, []byte("\uFFFD")), cut, c.api)
	}
	return c.textResult(resp.Header.Get("Content-Type"), data, cut), nil
}

// isJSON reports whether the answer says it is JSON, or looks like it
// when it says nothing.
func isJSON(contentType string, data []byte) bool {
	if contentType != "" {
		m := baseMedia(contentType)
		return m == mediaJSON || strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "/json")
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// jsonResult is the answer's JSON, compacted. Cut answers and answers
// larger than MaxResult keep the whole top-level items that fit, in a
// marked structure: the result is always valid JSON.
func jsonResult(data []byte, cut bool, api string) (any, error) {
	var compact bytes.Buffer
	if !cut {
		if err := json.Compact(&compact, data); err != nil {
			return nil, toolbus.Errorf(CodeBadResponse, "%s answered with JSON that cannot be read; do not retry with the same arguments", api)
		}
		if compact.Len() <= MaxResult {
			return json.RawMessage(compact.Bytes()), nil
		}
		data = compact.Bytes()
	}
	return partial(data, cut), nil
}

// truncated is what a long answer becomes.
type truncated struct {
	Truncated string `json:"truncated"`
	Partial   any    `json:"partial"`
}

// partial keeps the whole top-level items of a JSON array or object that
// fit in MaxResult with the note, from data that may be cut anywhere.
func partial(data []byte, cut bool) truncated {
	what := fmt.Sprintf("the answer was %d bytes", len(data))
	if cut {
		what = fmt.Sprintf("the answer was longer than %d bytes", MaxResponse)
	}
	budget := MaxResult - 200
	d := json.NewDecoder(bytes.NewReader(data))
	tok, err := d.Token()
	switch {
	case err != nil:
		return truncated{Truncated: what + "; nothing of it could be shown", Partial: nil}
	case tok == json.Delim('['):
		var items []json.RawMessage
		size := 2
		for d.More() {
			var item json.RawMessage
			if d.Decode(&item) != nil || size+len(item)+1 > budget {
				break
			}
			items = append(items, item)
			size += len(item) + 1
		}
		return truncated{Truncated: fmt.Sprintf("%s; only the first %d items are shown", what, len(items)), Partial: items}
	case tok == json.Delim('{'):
		members := newNode()
		size := 2
		for d.More() {
			key, err := d.Token()
			var value json.RawMessage
			if err != nil || d.Decode(&value) != nil {
				break
			}
			k, _ := key.(string)
			n := len(k) + len(value) + 4
			if size+n > budget {
				value = json.RawMessage(`"(cut)"`)
				n = len(k) + 11
				if size+n > budget {
					break
				}
			}
			members.set(k, value)
			size += n
		}
		return truncated{Truncated: what + "; only the first fields are shown, longer ones marked (cut)", Partial: members}
	}
	return truncated{Truncated: what + "; nothing of it could be shown", Partial: nil}
}

// textResult is a text answer (HTML stripped) cut to fit.
func (c *call) textResult(contentType string, data []byte, cut bool) any {
	s := strings.ToValidUTF8(string(data), "")
	if m := baseMedia(contentType); m == "text/html" || strings.HasSuffix(m, "xml") {
		s = plainText(s)
	}
	s = c.redactText(s)
	limit := MaxResult - 300
	if len(s) > limit {
		for !utf8.ValidString(s[:limit]) {
			limit--
		}
		s, cut = s[:limit], true
	}
	out := map[string]any{"content_type": mediaOf(contentType), "text": s}
	if cut {
		out["truncated"] = "the answer was longer; only its beginning is shown"
	}
	return out
}

func mediaOf(contentType string) string {
	m, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "unknown"
	}
	return m
}

// maxMessage bounds the API's message in an error.
const maxMessage = 200

// statusError is a non-2xx answer as a short error: the status, the
// API's own message, and what to do.
func (c *call) statusError(resp *http.Response, data []byte) error {
	code := fmt.Sprintf("http_%d", resp.StatusCode)
	msg := c.redactText(apiMessage(resp.Header.Get("Content-Type"), data))
	status := strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode)))
	if status == "" {
		status = http.StatusText(resp.StatusCode)
	}
	text := fmt.Sprintf("%s %s answered %d %s", c.method, c.path, resp.StatusCode, status)
	if msg != "" {
		text += ": " + msg
	}
	return toolbus.Errorf(code, "%s. %s", strings.TrimRight(text, "."), advice(resp.StatusCode))
}

func advice(status int) string {
	switch {
	case status == http.StatusNotFound:
		return "Check the identifiers in the arguments; what they name does not exist."
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "The API refused ryo's access; tell the person, do not retry."
	case status == http.StatusTooManyRequests:
		return "The API is rate limited; try again later."
	case status >= 500:
		return "The API failed; try again later."
	}
	return "Fix the arguments and try again."
}

// apiMessage finds the message in an error answer: JSON shapes APIs
// commonly use ({"message"}, {"error": "..."}, {"error": {"message"}},
// {"detail"}, {"title"}, {"errors": [{"message"}]}, {"reason"}), else the
// first line of text. It is short, and never the whole body.
func apiMessage(contentType string, data []byte) string {
	var v any
	if json.Unmarshal(data, &v) == nil {
		if m := messageIn(v, 0); m != "" {
			return cut(m, maxMessage)
		}
		return ""
	}
	if len(data) == 0 {
		return ""
	}
	s := strings.ToValidUTF8(string(data), "")
	if m := baseMedia(contentType); m == "text/html" || strings.Contains(s, "<") {
		if h := htmlH1.FindStringSubmatch(s); h != nil {
			s = h[1]
		} else if h := htmlTitle.FindStringSubmatch(s); h != nil {
			s = h[1]
		}
		s = plainText(s)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return cut(strings.TrimSpace(line), maxMessage)
}

// An error page says what went wrong in its heading, or else its title.
var (
	htmlH1    = regexp.MustCompile(`(?is)<h1\b[^>]*>(.*?)</h1>`)
	htmlTitle = regexp.MustCompile(`(?is)<title\b[^>]*>(.*?)</title>`)
)

var messageKeys = []string{"message", "error_description", "detail", "error", "title", "reason", "description", "msg", "errors", "error_message", "errorMessage"}

func messageIn(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(plainText(v))
	case []any:
		if len(v) > 0 {
			return messageIn(v[0], depth+1)
		}
	case map[string]any:
		for _, k := range messageKeys {
			if m := messageIn(v[k], depth+1); m != "" {
				return m
			}
		}
	}
	return ""
}
