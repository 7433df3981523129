package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// maxAnswerBytes bounds what one chat call reads: far more than any
// answer num_predict allows, far less than a server gone wrong could send.
const maxAnswerBytes = 64 << 20

// chat posts req to the server's /api/chat and calls fn with each object
// of the answer, as api.Client.Chat does, with the same errors: a status
// of 400 or more is an api.StatusError with the server's words, an
// {"error": …} object in a stream that began well is a plain error, a line
// that is not JSON is a plain error. The answer is read as a stream of JSON
// objects rather than line by line: api.Client's line reader allocates
// 8 MB for every call (BenchmarkChat: 8.06 MB and 2.48 ms a call against
// 39 KB and 1.39 ms), which for a small model answering at once was a
// fifth of ryo's CPU time; and it refuses a line longer than that.
//
// A stream that ends — cleanly or cut — returns nil: the caller tells an
// answer that ended without done:true. When ctx ends meanwhile its error
// is returned, so that the caller can say why.
func (c *Client) chat(ctx context.Context, req *api.ChatRequest, fn func(api.ChatResponse) error) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Host.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/x-ndjson")
	resp, err := c.http.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		said, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(said, &e) == nil && e.Error != "" {
			said = []byte(e.Error)
		}
		return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: strings.TrimSpace(string(said))}
	}
	d := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes))
	for {
		var line answerLine
		err := d.Decode(&line)
		var syntax *json.SyntaxError
		var wrongType *json.UnmarshalTypeError
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &syntax), errors.As(err, &wrongType):
			return fmt.Errorf("a line of the answer is not what Ollama sends: %w", err)
		default:
			return nil // cut off: the caller tells an answer that did not end
		}
		if line.Error != "" {
			return errors.New(line.Error)
		}
		if err := fn(line.response()); err != nil {
			return err
		}
	}
}

// answerLine is what ryo reads of a line of a chat answer: the words, the
// end and its counts. The rest of api.ChatResponse — the model's name, the
// time, the role, which api.Message lowercases in a decoding of its own —
// is left undecoded: it cost a quarter of the allocations of a call.
type answerLine struct {
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	api.Metrics
	Error string `json:"error"`
}

func (l *answerLine) response() api.ChatResponse {
	return api.ChatResponse{Message: api.Message{Content: l.Message.Content},
		Done: l.Done, DoneReason: l.DoneReason, Metrics: l.Metrics}
}
