package telegramtest

import "encoding/json"

// The wire types are the JSON objects Telegram sends, field order included.

type wireUser struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name,omitempty"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
}

type wireChat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	IsForum   bool   `json:"is_forum,omitempty"`
}

type wireChatFull struct {
	wireChat
	AccentColorID    int `json:"accent_color_id"`
	MaxReactionCount int `json:"max_reaction_count"`
}

type wireMessage struct {
	MessageID   int               `json:"message_id"`
	ThreadID    int               `json:"message_thread_id,omitempty"`
	From        *wireUser         `json:"from,omitempty"`
	Chat        wireChat          `json:"chat"`
	Date        int64             `json:"date"`
	EditDate    int64             `json:"edit_date,omitempty"`
	IsTopic     bool              `json:"is_topic_message,omitempty"`
	Topic       *wireTopicCreated `json:"forum_topic_created,omitempty"`
	ReplyTo     *wireMessage      `json:"reply_to_message,omitempty"`
	Text        string            `json:"text,omitempty"`
	Entities    json.RawMessage   `json:"entities,omitempty"`
	Document    *wireDocument     `json:"document,omitempty"`
	Photo       []wirePhotoSize   `json:"photo,omitempty"`
	Voice       *wireVoice        `json:"voice,omitempty"`
	Audio       *wireAudio        `json:"audio,omitempty"`
	VideoNote   *wireVideoNote    `json:"video_note,omitempty"`
	MediaGroup  string            `json:"media_group_id,omitempty"`
	Caption     string            `json:"caption,omitempty"`
	CaptionEnts json.RawMessage   `json:"caption_entities,omitempty"`
	ReplyMarkup json.RawMessage   `json:"reply_markup,omitempty"`
}

type wireUpdate struct {
	UpdateID      int64              `json:"update_id"`
	Message       json.RawMessage    `json:"message,omitempty"`
	EditedMessage json.RawMessage    `json:"edited_message,omitempty"`
	CallbackQuery *wireCallbackQuery `json:"callback_query,omitempty"`
}

func userJSON(u User) *wireUser {
	return &wireUser{ID: u.ID, IsBot: u.IsBot, FirstName: u.FirstName, LastName: u.LastName, Username: u.Username, LanguageCode: u.LanguageCode}
}

func chatJSON(c Chat) wireChat {
	return wireChat{ID: c.ID, Type: c.Type, Title: c.Title, Username: c.Username, FirstName: c.FirstName, IsForum: c.IsForum}
}

// messageJSON renders m; a reply carries the message it answers, one level
// deep, unless that one was deleted.
func messageJSON(c *chatLog, m *stored, nested bool) *wireMessage {
	w := &wireMessage{
		MessageID:   m.ID,
		ThreadID:    m.ThreadID,
		From:        userJSON(m.From),
		Chat:        chatJSON(c.chat),
		Date:        m.Date.Unix(),
		IsTopic:     m.ThreadID != 0,
		Topic:       topicJSON(m.TopicCreated),
		Text:        m.shown.text,
		Entities:    m.shown.entities,
		ReplyMarkup: m.ReplyMarkup,
		MediaGroup:  m.Album,
	}
	if m.Document != nil {
		w.Document = documentJSON(c.chat.ID, m.ID, m.Document)
		w.Text, w.Caption, w.Entities, w.CaptionEnts = "", m.shown.text, nil, m.shown.entities
	}
	if m.Photo != nil {
		w.Photo = photoSizes(c.chat.ID, m.ID, m.Photo)
		w.Text, w.Caption, w.Entities, w.CaptionEnts = "", m.shown.text, nil, m.shown.entities
	}
	if m.Recording != nil {
		putRecording(w, c.chat.ID, m.ID, m.Recording)
		w.Text, w.Caption, w.Entities, w.CaptionEnts = "", m.shown.text, nil, m.shown.entities
	}
	if !m.edited.IsZero() {
		w.EditDate = m.edited.Unix()
	}
	if target := c.live(m.ReplyTo); target != nil && !nested {
		w.ReplyTo = messageJSON(c, target, true)
	}
	return w
}
