package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
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
		Index        int     `json:"index"` // only the first choice is the answer: a server may send more
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

// usage holds the token counts as numbers of any size or shape (1e20,
// 12.0, -1): they are only figures, and one beyond sense must not cost
// the answer it came with.
type usage struct {
	PromptTokens     json.Number `json:"prompt_tokens"`
	CompletionTokens json.Number `json:"completion_tokens"`
}

// maxTokens is the most tokens one count is taken to say.
const maxTokens = math.MaxInt32

// count is n as a count of tokens: 0 when it is none or below zero, at
// most maxTokens.
func count(n json.Number) int {
	f, err := strconv.ParseFloat(string(n), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange), f != f, f <= 0:
		return 0
	case f >= maxTokens:
		return maxTokens
	}
	return int(f)
}

// millis is ms milliseconds, within a day: a figure, not a reason to
// overflow.
func millis(ms float64) time.Duration {
	if ms != ms || ms <= 0 {
		return 0
	}
	return time.Duration(min(ms, float64(24*time.Hour/time.Millisecond)) * float64(time.Millisecond))
}

// timings are llama.cpp's figures of an answer, in milliseconds.
type timings struct {
	PromptMS    float64 `json:"prompt_ms"`
	PredictedMS float64 `json:"predicted_ms"`
}

// errMidStream is an error object the server sent instead of a chunk.
type errMidStream struct{ message string }

func (e errMidStream) Error() string { return "mid-stream error: " + e.message }

// errFiltered is an answer the server's content filter stopped: what came
// of it is not the whole answer.
var errFiltered = errors.New("the server's content filter stopped the answer")

// errTooLarge is an event or an answer larger than any real one.
var errTooLarge = fmt.Errorf("the answer is larger than %d bytes", maxEvent)

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
	filtered bool // the finish_reason was the server's content filter
	counted  bool // the usage came, with the finish_reason or after it
	started  bool // a token came
}

// take adds one chunk; it returns the text to pass on and whether the
// chunk carried a token.
func (a *answer) take(c chunk) (string, bool) {
	var text string
	token := false
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
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
			a.filtered = *ch.FinishReason == "content_filter"
		}
	}
	if c.Usage != nil {
		a.reply.Usage.PromptTokens = count(c.Usage.PromptTokens)
		a.reply.Usage.ReplyTokens = count(c.Usage.CompletionTokens)
		a.counted = a.finished // the last figures come with the finish or after it
	}
	if t := c.Timings; t != nil {
		a.reply.Usage.PromptDuration = millis(t.PromptMS)
		a.reply.Usage.ReplyDuration = millis(t.PredictedMS)
	}
	a.content.WriteString(text)
	return text, token
}

func (a *answer) result() ryo.ModelReply {
	a.reply.Content = a.content.String()
	return a.reply
}

// readStream reads server-sent events until [DONE], the end of the body,
// or both the finish_reason and the usage have come (a proxy may hold the
// stream open past them). A token stops the first-token deadline; text
// goes to onDelta.
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
		if a.content.Len() > maxEvent {
			return errTooLarge
		}
		if text != "" && onDelta != nil {
			onDelta(text)
		}
		if a.finished && a.counted {
			done = true
			return io.EOF
		}
		return nil
	})
	switch {
	case err != nil:
		return a.result(), err
	case a.filtered:
		return a.result(), errFiltered
	case !done && !a.finished:
		return a.result(), errNotDone
	}
	return a.result(), nil
}

// events calls f with the data of each server-sent event in r, until f
// returns an error (io.EOF ends reading without one) or r ends. Lines end
// in CRLF, LF or a bare CR, as the event stream's grammar allows; a byte
// order mark first is dropped. Comment lines (": keep-alive") and fields
// other than data are skipped; an "error" event is an error. An event
// larger than maxEvent is an error, however many lines it spans.
func events(r io.Reader, f func(data []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvent)
	sc.Split(lines())
	first := true
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
		if first {
			line, first = bytes.TrimPrefix(line, []byte("\ufeff")), false
		}
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
			if len(data)+len(value) >= maxEvent {
				return errTooLarge
			}
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

// lines splits an event stream into lines ending in CRLF, LF or CR. A CR
// ends its line at once, so that an event is not held back until the
// next bytes come; a LF right after it is then skipped with the next line.
func lines() bufio.SplitFunc {
	afterCR := false
	return func(data []byte, atEOF bool) (int, []byte, error) {
		start := 0
		if afterCR && len(data) > 0 && data[0] == '\n' {
			start = 1
		}
		if i := bytes.IndexAny(data[start:], "\r\n"); i >= 0 {
			afterCR = data[start+i] == '\r'
			return start + i + 1, data[start : start+i], nil
		}
		if !atEOF {
			return 0, nil, nil
		}
		afterCR = false
		if len(data) > start {
			return len(data), data[start:], nil
		}
		return len(data), nil, nil
	}
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
		return ryo.ModelReply{}, errTooLarge
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
	switch {
	case !a.finished:
		return a.result(), errNotDone
	case a.filtered:
		return a.result(), errFiltered
	}
	return a.result(), nil
}
