package ryo

import (
	"encoding/json"
	"time"
)

// Kind says what a stored message is.
type Kind string

// Message kinds.
const (
	KindUser       Kind = "user"        // written by a person
	KindAssistant  Kind = "assistant"   // written by the bot
	KindToolResult Kind = "tool_result" // a synthetic tool result, context for the model only
	KindSystem     Kind = "system"      // a note for the model, never shown as history
)

// Message is one stored message of a conversation.
type Message struct {
	ID         int64 // row id; increases with time within a place
	Place      Place
	Sender     *User // nil for the bot's own messages
	Kind       Kind
	Text       string
	TelegramID int // Telegram message id, 0 when it has none
	ReplyTo    int // Telegram message id this one replies to, 0 when none
	UpdateID   int64
	Metadata   json.RawMessage
	CreatedAt  time.Time
	// Attachments are files a tool made, stored with its result and
	// delivered with the turn's answer. Set only on a tool result being
	// stored; messages read back do not carry them.
	Attachments []Attachment
}
