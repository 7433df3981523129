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
	// Media are the files a person sent with the message, as Telegram
	// knows them: stored with it, so that a later turn can fetch them
	// again. MediaGroup is the album it belongs to; "" when none.
	Media      []Media
	MediaGroup string
	// Images are the pictures of Media a turn fetched to show the model;
	// never stored, and set only on the messages of a turn's history.
	Images [][]byte
}

// Media kinds.
const (
	MediaPhoto = "photo"
	// Recordings, transcribed to be read: a voice note, an audio file, a
	// round video note.
	MediaVoice     = "voice"
	MediaAudio     = "audio"
	MediaVideoNote = "video_note"
	// A file sent as a file, read for its text.
	MediaDocument = "document"
)

// Media is a file a person sent, as Telegram knows it: its bytes stay with
// Telegram, and are fetched again by FileID when a turn needs them.
type Media struct {
	Kind     string `json:"kind"`
	FileID   string `json:"file_id"`
	UniqueID string `json:"file_unique_id,omitempty"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	Size     int64  `json:"size,omitempty"`
	// Of a recording: its length in seconds, its type and name as
	// Telegram gives them, and what was heard in it once transcribed. Of
	// a document: its type and name as its sender's app gave them.
	Duration   int    `json:"duration,omitempty"`
	MimeType   string `json:"mime_type,omitempty"`
	FileName   string `json:"file_name,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	// Unheard marks a recording that could not be transcribed, the
	// person told so: a later turn of theirs does not try it again.
	Unheard bool `json:"unheard,omitempty"`
}

// Photos are m's photos.
func (m Message) Photos() []Media {
	var out []Media
	for _, x := range m.Media {
		if x.Kind == MediaPhoto {
			out = append(out, x)
		}
	}
	return out
}
