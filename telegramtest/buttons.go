package telegramtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Button is an inline keyboard button as a test reads it.
type Button struct {
	Text string
	Data string // callback_data; "" for buttons of other kinds
	URL  string // url; "" for buttons of other kinds
}

// Buttons returns the inline keyboard of m, row by row; nil when it has
// none.
func (m Message) Buttons() [][]Button {
	var markup struct {
		InlineKeyboard [][]struct {
			Text         string `json:"text"`
			CallbackData string `json:"callback_data"`
			URL          string `json:"url"`
		} `json:"inline_keyboard"`
	}
	if len(m.ReplyMarkup) == 0 || json.Unmarshal(m.ReplyMarkup, &markup) != nil || len(markup.InlineKeyboard) == 0 {
		return nil
	}
	rows := make([][]Button, len(markup.InlineKeyboard))
	for i, row := range markup.InlineKeyboard {
		for _, b := range row {
			rows[i] = append(rows[i], Button{Text: b.Text, Data: b.CallbackData, URL: b.URL})
		}
	}
	return rows
}

// CallbackAnswer is how the bot answered a button press.
type CallbackAnswer struct {
	Text      string
	ShowAlert bool
	At        time.Time
}

// callbackQuery is a press the server delivered, and its answer once given.
type callbackQuery struct {
	answer   CallbackAnswer
	answered bool
}

type wireCallbackQuery struct {
	ID           string          `json:"id"`
	From         *wireUser       `json:"from"`
	Message      json.RawMessage `json:"message"`
	ChatInstance string          `json:"chat_instance"`
	Data         string          `json:"data"`
}

// Press has user press the inline button with callback data data under the
// bot's message messageID, as a Telegram client does: it queues a
// callback_query update and returns the query's id. It fails when the
// message is gone or has no such button now — as when an edit removed the
// keyboard — since a client could not press it.
func (s *Server) Press(chatID int64, from User, messageID int, data string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	var m *stored
	if c != nil {
		m = c.live(messageID)
	}
	if m == nil || !m.byBot {
		return "", fmt.Errorf("telegramtest: Press: no bot message %d in chat %d", messageID, chatID)
	}
	for _, row := range m.Buttons() {
		for _, b := range row {
			if b.Data == data {
				return s.press(c, m, messageID, from, data), nil
			}
		}
	}
	return "", fmt.Errorf("telegramtest: Press: message %d in chat %d has no button with data %q", messageID, chatID, data)
}

// PressForged queues a press with any data under message messageID, as a
// modified client could send: no such button need exist. When the message
// is gone the press carries it as an inaccessible message (date 0).
func (s *Server) PressForged(chatID int64, from User, messageID int, data string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		c = s.register(Chat{ID: chatID, Type: "private"})
	}
	return s.press(c, c.live(messageID), messageID, from, data)
}

// press queues the callback query and remembers it for answerCallbackQuery.
func (s *Server) press(c *chatLog, m *stored, messageID int, from User, data string) string {
	id := s.newQueryID()
	var msg json.RawMessage
	if m != nil {
		msg, _ = json.Marshal(messageJSON(c, m, false))
	} else {
		msg, _ = json.Marshal(map[string]any{"chat": chatJSON(c.chat), "message_id": messageID, "date": 0})
	}
	q := wireCallbackQuery{ID: id, From: userJSON(from), Message: msg, ChatInstance: "ci" + strconv.FormatInt(c.chat.ID, 10), Data: data}
	s.queries[id] = &callbackQuery{}
	s.enqueue(wireUpdate{CallbackQuery: &q})
	return id
}

// newQueryID returns an id no delivered query has, skipping any a test
// pushed that happens to look like the server's own.
func (s *Server) newQueryID() string {
	for n := len(s.queries) + 1; ; n++ {
		id := strconv.FormatInt(s.opts.Bot.ID, 10) + "-" + strconv.Itoa(n)
		if s.queries[id] == nil {
			return id
		}
	}
}

// learnQuery makes a callback query in a pushed update answerable.
func (s *Server) learnQuery(raw []byte) {
	var probe struct {
		CallbackQuery *struct {
			ID string `json:"id"`
		} `json:"callback_query"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.CallbackQuery != nil && probe.CallbackQuery.ID != "" && s.queries[probe.CallbackQuery.ID] == nil {
		s.queries[probe.CallbackQuery.ID] = &callbackQuery{}
	}
}

// CallbackAnswer returns the answer to press queryID; ok is false until it
// is answered.
func (s *Server) CallbackAnswer(queryID string) (CallbackAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queries[queryID]
	if q == nil || !q.answered {
		return CallbackAnswer{}, false
	}
	return q.answer, true
}

// answerCallbackQuery answers a press once, as Telegram does: a query the
// server never delivered, or one answered already, is refused.
func (s *Server) answerCallbackQuery(r *request) (any, error) {
	id := r.str("callback_query_id")
	if id == "" {
		return nil, badRequest("QUERY_ID_INVALID")
	}
	if utf8.RuneCountInString(r.str("text")) > maxCallbackAnswer {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	q := s.queries[id]
	if q == nil || q.answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	q.answered, q.answer = true, CallbackAnswer{Text: r.str("text"), ShowAlert: r.bool("show_alert"), At: s.opts.Now()}
	s.notify()
	return true, nil
}
