package telegramtest

import (
	"fmt"
	"strconv"
)

// Kinds of recording a person sends.
const (
	KindVoice     = "voice"      // a voice note: Opus in Ogg
	KindAudio     = "audio"      // an audio file, shown in Telegram's player
	KindVideoNote = "video_note" // a round video message: MP4
)

// Recording is a voice note, an audio file or a video note a person sent.
type Recording struct {
	Kind     string // KindVoice, KindAudio or KindVideoNote
	Data     []byte
	Duration int // seconds, as the client measured it
	// MimeType is what Telegram says of a voice note (audio/ogg when "")
	// or an audio file (audio/mpeg when ""); a video note has none.
	MimeType string
	// FileName, Title and Performer are an audio file's.
	FileName, Title, Performer string
	Length                     int // a video note's diameter in pixels; 384 when 0
}

type wireVoice struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type wireAudio struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	Performer    string `json:"performer,omitempty"`
	Title        string `json:"title,omitempty"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type wireVideoNote struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Length       int    `json:"length"`
	Duration     int    `json:"duration"`
	FileSize     int    `json:"file_size,omitempty"`
}

// SendRecording has user from send a recording to chat, with caption as
// its caption (it may be empty), as a Telegram client would: the message
// carries a voice, audio or video_note object whose file_id getFile knows
// and whose bytes download as r.Data; a caption's bot commands and
// mentions are detected as caption_entities. Options are SendText's. It
// panics on an empty recording, an unknown kind, or a caption on a video
// note (Telegram's have none), since those are mistakes in the test.
func (s *Server) SendRecording(chat Chat, from User, r Recording, caption string, opts ...SendOption) Message {
	switch {
	case len(r.Data) == 0:
		panic("telegramtest: SendRecording: Telegram sends no empty file")
	case r.Kind != KindVoice && r.Kind != KindAudio && r.Kind != KindVideoNote:
		panic(fmt.Sprintf("telegramtest: SendRecording: unknown kind %q", r.Kind))
	case r.Kind == KindVideoNote && caption != "":
		panic("telegramtest: SendRecording: a video note has no caption")
	}
	rec := r
	switch {
	case rec.Kind == KindVoice && rec.MimeType == "":
		rec.MimeType = "audio/ogg"
	case rec.Kind == KindAudio && rec.MimeType == "":
		rec.MimeType = "audio/mpeg"
	case rec.Kind == KindVideoNote:
		rec.MimeType = ""
		if rec.Length == 0 {
			rec.Length = 384
		}
	}
	return s.sendAs("SendRecording", chat, Message{From: from, Text: caption, Recording: &rec}, opts)
}

// recordingID is the file id of a message's recording; its prefix names
// the folder Telegram keeps it in.
func recordingID(chat int64, id int, r *Recording) string {
	return fmt.Sprintf("%s-%d-%d", r.Kind, chat, id)
}

// putRecording sets a message's recording object.
func putRecording(w *wireMessage, chat int64, id int, r *Recording) {
	fileID, unique, size := recordingID(chat, id, r), "r"+strconv.Itoa(id), len(r.Data)
	switch r.Kind {
	case KindVoice:
		w.Voice = &wireVoice{FileID: fileID, FileUniqueID: unique, Duration: r.Duration, MimeType: r.MimeType, FileSize: size}
	case KindAudio:
		w.Audio = &wireAudio{FileID: fileID, FileUniqueID: unique, Duration: r.Duration, Performer: r.Performer, Title: r.Title,
			FileName: r.FileName, MimeType: r.MimeType, FileSize: size}
	case KindVideoNote:
		w.VideoNote = &wireVideoNote{FileID: fileID, FileUniqueID: unique, Length: r.Length, Duration: r.Duration, FileSize: size}
	}
}

// keepRecording makes a recording downloadable.
func (s *Server) keepRecording(c *chatLog, m *stored) {
	id := recordingID(c.chat.ID, m.ID, m.Recording)
	name := map[string]string{KindVoice: "voice.oga", KindAudio: m.Recording.FileName, KindVideoNote: "video.mp4"}[m.Recording.Kind]
	if s.files[id] == nil {
		s.files[id] = &servedFile{id: id, unique: "r" + strconv.Itoa(m.ID), name: name, data: m.Recording.Data}
	}
}
