package telegramtest

import (
	"encoding/json"
	"time"
)

// Message is a message as the server stores it, user's or bot's.
type Message struct {
	ID          int
	ChatID      int64
	ThreadID    int // message_thread_id, 0 if none
	From        User
	Text        string          // as sent: for the bot, with its markup (see ParseMode)
	ParseMode   string          // as sent by the bot: "", "HTML", "MarkdownV2"
	ReplyTo     int             // id of the message this one replies to, 0 if none; see InThread
	ReplyMarkup json.RawMessage // as sent, nil if none
	Date        time.Time
	UpdateID    int64      // the update that brought a user's message to the bot; 0 for the bot's
	Document    *Document  // a file the bot sent; Text is then its caption
	Photo       *Photo     // a picture the bot or a person sent; Text is then its caption
	Recording   *Recording // a voice note, audio file or video note a person sent; Text is then its caption
	Album       string     // media_group_id: the album a person's photo belongs to; "" when none
	Edits       int        // successful edits applied to this message
	Deleted     bool       // deleted with deleteMessage
	// TopicCreated is the topic this service message created
	// (forum_topic_created), nil for other messages.
	TopicCreated *Topic
	// Raw is the JSON message object as Telegram shows it: for user
	// messages the one placed in the update, for bot messages the one
	// returned to the bot (display text and entities after parse_mode).
	Raw json.RawMessage
}

// stored is a Message plus what the fake needs to render it.
type stored struct {
	Message
	byBot  bool
	shown  formatted // display text and entities
	edited time.Time
}

type replyParameters struct {
	MessageID                int  `json:"message_id"`
	AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
}

// Messages returns every message of the chat in id order, user's and
// bot's, in their current state; deleted ones have Deleted set.
func (s *Server) Messages(chatID int64) []Message {
	return s.collect(chatID, func(*stored) bool { return true })
}

// BotMessages returns the bot's messages in the chat that are not deleted.
func (s *Server) BotMessages(chatID int64) []Message {
	return s.collect(chatID, func(m *stored) bool { return m.byBot && !m.Deleted })
}

func (s *Server) collect(chatID int64, keep func(*stored) bool) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		return nil
	}
	var out []Message
	for _, m := range c.msgs {
		if keep(m) {
			out = append(out, m.Message)
		}
	}
	return out
}

// publish renders m into Raw, announces the change and returns the JSON.
func (s *Server) publish(c *chatLog, m *stored) json.RawMessage {
	m.Raw, _ = json.Marshal(messageJSON(c, m, false))
	s.keepFiles(c, m)
	s.notify()
	return m.Raw
}

func (s *Server) sendMessage(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	shown, markup, err := readContent(r, false)
	if err != nil {
		return nil, err
	}
	thread, replyTo, err := botPlace(c, r)
	if err != nil {
		return nil, err
	}
	m := &stored{byBot: true, shown: shown, Message: Message{
		ThreadID: thread, From: s.opts.Bot, Text: r.str("text"), ParseMode: r.str("parse_mode"),
		ReplyTo: replyTo, ReplyMarkup: markup, Date: s.opts.Now(),
	}}
	c.add(m)
	return s.publish(c, m), nil
}

// readContent reads text, parse_mode, entities and reply_markup.
func readContent(r *request, allowEmpty bool) (formatted, json.RawMessage, error) {
	shown, err := formatText(r.str("text"), r.str("parse_mode"), r.str("entities"), allowEmpty)
	if err != nil {
		return shown, nil, err
	}
	markup, err := readMarkup(r.str("reply_markup"))
	return shown, markup, err
}

// botPlace is the topic and the reply of a message the bot sends, from
// message_thread_id and reply_parameters.
func botPlace(c *chatLog, r *request) (thread, replyTo int, err error) {
	if replyTo, err = replyTarget(c, r); err != nil {
		return 0, 0, err
	}
	asked := r.int("message_thread_id")
	if r.err != nil {
		return 0, 0, r.err
	}
	return c.place(asked, replyTo)
}

// replyTarget resolves reply_parameters. (Their predecessor
// reply_to_message_id is no longer in the Bot API, so the fake refuses it.)
func replyTarget(c *chatLog, r *request) (int, error) {
	var ref replyParameters
	if raw := r.str("reply_parameters"); raw != "" && json.Unmarshal([]byte(raw), &ref) != nil {
		return 0, badRequest("can't parse reply parameters JSON object")
	}
	switch {
	case ref.MessageID == 0 || c.live(ref.MessageID) != nil:
		return ref.MessageID, nil
	case ref.AllowSendingWithoutReply:
		return 0, nil
	}
	return 0, badRequest("message to be replied not found")
}

func (s *Server) editMessageText(r *request) (any, error) {
	shown, markup, err := readContent(r, false)
	if err != nil {
		return nil, err
	}
	c, m, err := s.editTarget(r)
	if err != nil {
		return nil, err
	}
	if m.Document != nil || m.Photo != nil || m.Recording != nil {
		// Telegram changes a document's or a photo's caption only with
		// editMessageCaption.
		return nil, badRequest("there is no text in the message to edit")
	}
	if sameFormatted(m.shown, shown) && sameMarkup(m.ReplyMarkup, markup) {
		return nil, notModified()
	}
	m.Text, m.ParseMode, m.shown, m.ReplyMarkup = r.str("text"), r.str("parse_mode"), shown, markup
	return s.markEdited(c, m), nil
}

func (s *Server) editMessageReplyMarkup(r *request) (any, error) {
	markup, err := readMarkup(r.str("reply_markup"))
	if err != nil {
		return nil, err
	}
	c, m, err := s.editTarget(r)
	if err != nil {
		return nil, err
	}
	if sameMarkup(m.ReplyMarkup, markup) {
		return nil, notModified()
	}
	m.ReplyMarkup = markup
	return s.markEdited(c, m), nil
}

// editTarget finds the bot message an edit method names.
func (s *Server) editTarget(r *request) (*chatLog, *stored, error) {
	if r.str("inline_message_id") != "" {
		return nil, nil, badRequest("inline message editing is not supported by the fake")
	}
	c, err := s.chatParam(r)
	if err != nil {
		return nil, nil, err
	}
	m := c.live(r.int("message_id"))
	switch {
	case r.err != nil:
		return nil, nil, r.err
	case m == nil:
		return nil, nil, badRequest("message to edit not found")
	case !m.byBot:
		return nil, nil, badRequest("message can't be edited")
	}
	return c, m, nil
}

func (s *Server) markEdited(c *chatLog, m *stored) json.RawMessage {
	m.Edits++
	m.edited = s.opts.Now()
	return s.publish(c, m)
}

func notModified() error {
	return badRequest("message is not modified: specified new message content and reply markup of the specified message are exactly the same as a current content and reply markup of the message")
}

func (s *Server) deleteMessage(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	m := c.live(r.int("message_id"))
	if r.err != nil {
		return nil, r.err
	}
	if m == nil {
		return nil, badRequest("message to delete not found")
	}
	m.Deleted = true
	s.notify()
	return true, nil
}
