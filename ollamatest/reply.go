package ollamatest

import (
	"time"
	"unicode/utf8"
)

// Reply scripts the answer to one /api/chat request. The zero Reply
// streams an empty answer followed by a normal done line.
type Reply struct {
	// Content is the answer. When streamed it is split, at rune
	// boundaries, into chunks of a few characters, one NDJSON line each.
	// Each chunk counts as one token: a request whose options.num_predict
	// is positive gets at most that many, and then done_reason "length",
	// as Ollama stops a model at its limit.
	Content string
	// Chunks, when set, are sent as they are and override Content.
	Chunks []string

	// Status, when non-zero, is the HTTP status to answer with
	// {"error": Error} before any output, for example 500.
	Status int
	// Error is the message for Status or MidStreamError.
	Error string
	// MidStreamError sends the chunks, then a line {"error": Error}
	// instead of the done line; the status stays 200. A non-streaming
	// request gets status 500, as Ollama answers it.
	MidStreamError bool
	// CutOff sends the chunks, then drops the connection without a done
	// line.
	CutOff bool
	// Hold, when non-nil, delays the whole answer, headers included, until
	// it is closed, the request's context ends or the Server is closed.
	// In the last two cases the connection is dropped without an answer.
	Hold <-chan struct{}
	// Pause, when non-nil, stops a streamed answer after its first
	// PauseAfter chunks until it is closed, as a slow model would; the
	// chunks so far are flushed. The request's context ending or the
	// Server closing drops the connection.
	Pause      <-chan struct{}
	PauseAfter int

	// DoneReason is reported in the done line; default "stop", and
	// "length" when num_predict cut the answer.
	DoneReason string
	// PromptEvalCount defaults to the characters of all messages / 4
	// (at least 1); EvalCount to the number of chunks sent.
	PromptEvalCount, EvalCount int
	// The durations default to small non-zero values. total_duration is
	// their sum.
	LoadDuration, PromptEvalDuration, EvalDuration time.Duration
}

// chunkRunes is how many characters go in one streamed chunk.
const chunkRunes = 4

// Default metrics: a warm model answering a short prompt.
const (
	defaultLoad       = 1500 * time.Microsecond
	defaultPromptEval = 20 * time.Millisecond
	defaultEval       = 40 * time.Millisecond
)

// defaultMidStreamError is the message of a MidStreamError Reply that
// gives none; Ollama says this when its runner fails.
const defaultMidStreamError = "an error was encountered while running the model"

// chunks returns the pieces of the answer in order.
func (rep Reply) chunks() []string {
	if rep.Chunks != nil {
		return rep.Chunks
	}
	return split(rep.Content, chunkRunes)
}

// split cuts s into pieces of at most n runes.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// doneReason returns the reason for the done line.
func (rep Reply) doneReason() string {
	if rep.DoneReason == "" {
		return "stop"
	}
	return rep.DoneReason
}

// metrics fills in the figures for the done line.
func (rep Reply) metrics(req Request, chunks int) metrics {
	m := metrics{
		LoadDuration:       orDefault(rep.LoadDuration, defaultLoad),
		PromptEvalCount:    orDefault(rep.PromptEvalCount, promptTokens(req)),
		PromptEvalDuration: orDefault(rep.PromptEvalDuration, defaultPromptEval),
		EvalCount:          orDefault(rep.EvalCount, chunks),
		EvalDuration:       orDefault(rep.EvalDuration, defaultEval),
	}
	m.TotalDuration = m.LoadDuration + m.PromptEvalDuration + m.EvalDuration
	return m
}

// orDefault returns v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// promptTokens estimates the prompt's token count: four characters a token.
func promptTokens(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Content)
	}
	return max(1, n/4)
}

// numPredict is the request's options.num_predict, the most tokens Ollama
// generates; 0 when absent. Ollama takes a negative one as no limit of
// the caller's (its own cap is ten times the context window).
func numPredict(req Request) int {
	n, _ := req.Options["num_predict"].(float64)
	return int(n)
}
