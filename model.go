package ryo

import (
	"encoding/json"
	"time"
)

// Model message roles.
const (
	ModelSystem    = "system"
	ModelUser      = "user"
	ModelAssistant = "assistant"
)

// ModelMessage is one message of a prompt.
type ModelMessage struct {
	Role    string
	Content string
	Images  [][]byte // pictures shown with the message; only a vision model reads them
}

// ModelRequest is one call to the language model.
type ModelRequest struct {
	// Model, when set, is the model to ask instead of the client's own:
	// a vision model for a turn that shows pictures.
	Model    string
	Messages []ModelMessage
	// Format, when set, is a JSON schema the answer must follow.
	Format json.RawMessage
	// Temperature, when set, is the sampling temperature (0 to 2) a chat
	// chose; nil leaves the model's own.
	Temperature *float64
	// OnDelta, when set, receives the answer as it is generated. It is called
	// from the goroutine that called Chat.
	OnDelta func(delta string)
	// Whole asks for the answer in one piece instead of a stream. Only the
	// deadline of the whole answer applies then, and OnDelta is called once.
	Whole bool
}

// ModelReply is the model's whole answer and what it cost.
type ModelReply struct {
	Content string
	Usage   Usage
	// CutOff reports that the model server stopped the answer at its
	// length limit (Ollama's num_predict), not where the model ended it:
	// Content is then unfinished.
	CutOff bool
}

// Usage holds the figures the model server reports for one call.
type Usage struct {
	PromptTokens   int
	ReplyTokens    int
	LoadDuration   time.Duration
	PromptDuration time.Duration
	ReplyDuration  time.Duration
	TotalDuration  time.Duration
}
