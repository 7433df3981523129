package telegramtest

import (
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// Telegram's limits on documents a bot sends.
const (
	maxCaptionLen  = 1024     // UTF-16 units of display text
	maxUploadBytes = 50 << 20 // an uploaded file
)

// Document is a file the bot sent with sendDocument.
type Document struct {
	FileName string
	MimeType string
	Data     []byte
}

type wireDocument struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size"`
}

// sendDocument stores an uploaded file as a bot message, its caption as
// the message's text, with sendMessage's checks and Telegram's caption and
// file limits.
func (s *Server) sendDocument(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	f, err := r.upload("document")
	if err != nil {
		return nil, err
	}
	shown, err := formatCaption(r.str("caption"), r.str("parse_mode"), r.str("caption_entities"))
	if err != nil {
		return nil, err
	}
	markup, err := readMarkup(r.str("reply_markup"))
	if err != nil {
		return nil, err
	}
	thread, replyTo, err := botPlace(c, r)
	if err != nil {
		return nil, err
	}
	m := &stored{byBot: true, shown: shown, Message: Message{
		ThreadID: thread, From: s.opts.Bot, Text: r.str("caption"), ParseMode: r.str("parse_mode"),
		ReplyTo: replyTo, ReplyMarkup: markup, Date: s.opts.Now(),
		Document: &Document{FileName: f.name, MimeType: f.mimeType, Data: f.data},
	}}
	c.add(m)
	return s.publish(c, m), nil
}

// formatCaption checks a caption the way formatText checks a message's
// text, except that a document needs no caption and Telegram allows a
// shorter one.
func formatCaption(caption, parseMode, entities string) (formatted, error) {
	if !utf8.ValidString(caption) {
		return formatted{}, badRequest("text must be encoded in UTF-8")
	}
	f, err := parseText(caption, parseMode, entities)
	if err == nil && utf16Len(f.text) > maxCaptionLen {
		err = badRequest("message caption is too long")
	}
	return f, err
}

// documentJSON is the document object of a message.
func documentJSON(chat int64, id int, d *Document) *wireDocument {
	fileID := fmt.Sprintf("doc-%d-%d", chat, id)
	return &wireDocument{FileID: fileID, FileUniqueID: "u" + strconv.Itoa(id), FileName: d.FileName, MimeType: d.MimeType, FileSize: len(d.Data)}
}

// upload is the file uploaded as the parameter field, refused as Telegram
// refuses a missing, empty or too large one; the fake takes no file ids.
func (r *request) upload(field string) (upload, error) {
	f, ok := r.files[field]
	switch {
	case !ok && r.str(field) != "":
		return upload{}, badRequest("wrong remote file identifier specified: the fake takes uploads only")
	case !ok:
		return upload{}, badRequest("there is no %s in the request", field)
	case len(f.data) == 0:
		return upload{}, badRequest("file must be non-empty")
	case len(f.data) > maxUploadBytes:
		return upload{}, APIError{Code: http.StatusRequestEntityTooLarge, Description: "Request Entity Too Large"}
	}
	return f, nil
}
