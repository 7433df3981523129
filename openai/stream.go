package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
)

// maxEvent is the most bytes of one server-sent event, and of a whole
// answer read in one piece.
const maxEvent = 4 << 20

// chunk is one chat.completion.chunk, or a whole chat.completion (whose
// choices carry a message instead of a delta), or an error object.
type chunk struct {
	Choices []struct {
		Delta        delta   `json:"delta"`
		Message      delta   `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *usage          `json:"usage"`
	Timings *timings        `json:"timings"` // llama.cpp's server
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"` // with object "error" (vLLM)
}

type delta struct {
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"` // thinking models on vLLM, llama.cpp
	Reasoning        *string `json:"reasoning"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// timings are llama.cpp's figures of an answer, in milliseconds.
type timings struct {
	PromptMS    float64 `json:"prompt_ms"`
	PredictedMS float64 `json:"predicted_ms"`
}

// errMidStream is an error object the server sent instead of a chunk.
type errMidStream struct{ message string }

func (e errMidStream) Error() string { return "mid-stream error: " + e.message }

// errNotDone is a stream that ended before the server said the answer
// was over.
var errNotDone = errors.New("stream ended without a finish_reason or [DONE]")

// failure is the error an event carries, "" when none.
func (c chunk) failure() string {
	if c.Object == "error" {
		return orText(c.Message, "error")
	}
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return ""
	}
	return errorText(c.Error)
}

// errorText reads OpenAI's {"message"} error object, or a plain string.
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return orText(s, "error")
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return clip(string(raw), 300)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// answer gathers a reply as its chunks come.
type answer struct {
	content  strings.Builder
	reply    ryo.ModelReply
	finished bool // a finish_reason came
	started  bool // a token came
}

// take adds one chunk; it returns the text to pass on and whether the
// chunk carried a token.
func (a *answer) take(c chunk) (string, bool) {
	var text string
	token := false
	for _, ch := range c.Choices {
		for _, d := range []delta{ch.Delta, ch.Message} {
			if d.Content != nil && *d.Content != "" {
				text += *d.Content
				token = true
			}
			if d.ReasoningContent != nil && *d.ReasoningContent != "" || d.Reasoning != nil && *d.Reasoning != "" {
				token = true // thinking: the model has begun, though there is nothing to show yet
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finished, token = true, true
			a.reply.CutOff = *ch.FinishReason == "length"
		}
	}
	if c.Usage != nil {
		a.reply.Usage.PromptTokens = c.Usage.PromptTokens
		a.reply.Usage.ReplyTokens = c.Usage.CompletionTokens
	}
	if t := c.Timings; t != nil {
		a.reply.Usage.PromptDuration = time.Duration(t.PromptMS * float64(time.Millisecond))
		a.reply.Usage.ReplyDuration = time.Duration(t.PredictedMS * float64(time.Millisecond))
	}
	a.content.WriteString(text)
	return text, token
}

func (a *answer) result() ryo.ModelReply {
	a.reply.Content = a.content.String()
	return a.reply
}

// readStream reads server-sent events until [DONE] or the end of the
// body. A token stops the first-token deadline; text goes to onDelta.
func (c *Client) readStream(body io.Reader, onDelta func(string), firstToken func()) (ryo.ModelReply, error) {
	var a answer
	done := false
	err := events(body, func(data []byte) error {
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			done = true
			return io.EOF
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return fmt.Errorf("unreadable chunk: %w", err)
		}
		if msg := ch.failure(); msg != "" {
			return errMidStream{message: msg}
		}
		text, token := a.take(ch)
		if token && !a.started {
			a.started = true
			firstToken()
		}
		if text != "" && onDelta != nil {
			onDelta(text)
		}
		return nil
	})
	switch {
	case err != nil:
		return a.result(), err
	case !done && !a.finished:
		return a.result(), errNotDone
	}
	return a.result(), nil
}

// events calls f with the data of each server-sent event in r, until f
// returns an error (io.EOF ends reading without one) or r ends. Comment
// lines (": keep-alive") and fields other than data are skipped; an
// "error" event is an error.
func events(r io.Reader, f func(data []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvent)
	var data []byte
	kind := ""
	flush := func() error {
		if data == nil {
			return nil
		}
		d := data
		data, kind = nil, ""
		return f(d)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := flush(); err != nil {
				return ignoreEOF(err)
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if data != nil {
				data = append(data, '\n')
			} else {
				data = []byte{}
			}
			data = append(data, value...)
			if kind == "error" {
				return errMidStream{message: errorText(data)}
			}
		case "event":
			kind = string(value)
		case "error": // llama.cpp's server, when it fails mid-stream
			return errMidStream{message: errorText(value)}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return ignoreEOF(flush())
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// readWhole reads an answer sent in one piece.
func readWhole(body io.Reader) (ryo.ModelReply, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxEvent+1))
	if err != nil {
		return ryo.ModelReply{}, err
	}
	if len(raw) > maxEvent {
		return ryo.ModelReply{}, fmt.Errorf("the answer is larger than %d bytes", maxEvent)
	}
	var ch chunk
	if err := json.Unmarshal(raw, &ch); err != nil {
		return ryo.ModelReply{}, fmt.Errorf("unreadable answer: %w", err)
	}
	if msg := ch.failure(); msg != "" {
		return ryo.ModelReply{}, errMidStream{message: msg}
	}
	var a answer
	a.take(ch)
	if !a.finished {
		return a.result(), errNotDone
	}
	return a.result(), nil
}
