package telegramtest

import "fmt"

// SendOption adjusts a message sent with SendText.
type SendOption func(*sendOptions)

type sendOptions struct {
	replyTo int
	thread  int
	album   string // media_group_id; "" when none
}

// ReplyTo makes the message a reply to messageID in the same chat.
func ReplyTo(messageID int) SendOption {
	return func(o *sendOptions) { o.replyTo = messageID }
}

// InThread posts the message in the forum topic threadID, the ThreadID of
// a Topic made with CreateTopic: it sets message_thread_id and
// is_topic_message, and unless the message replies to another one, it
// replies to the topic's creation message, as Telegram shows messages in
// topics.
func InThread(threadID int) SendOption {
	return func(o *sendOptions) { o.thread = threadID }
}

// SendText has user from write text in chat, as a Telegram client would:
// the chat and user become known, the message gets the chat's next id and
// the entities Telegram detects (bot commands, @mentions), and an update
// {"update_id":N,"message":{...}} is queued for getUpdates. It panics if
// InThread names a topic the chat does not have, since that is a mistake
// in the test.
func (s *Server) SendText(chat Chat, from User, text string, opts ...SendOption) Message {
	return s.sendAs("SendText", chat, Message{From: from, Text: text}, opts)
}

// sendAs queues a message m of a person in chat, placed by opts; caller
// names the test helper in its panic.
func (s *Server) sendAs(caller string, chat Chat, m Message, opts []SendOption) Message {
	var o sendOptions
	for _, opt := range opts {
		opt(&o)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.register(chat)
	thread, replyTo, err := c.place(o.thread, o.replyTo)
	if err == nil && o.thread != 0 && !chat.IsForum {
		err = fmt.Errorf("chat %d is not a forum", chat.ID)
	}
	if err != nil {
		panic(fmt.Sprintf("telegramtest: %s InThread(%d): %v", caller, o.thread, err))
	}
	m.ThreadID, m.ReplyTo, m.Date, m.Album = thread, replyTo, s.opts.Now(), o.album
	st := &stored{shown: userText(m.Text), Message: m}
	c.add(st)
	st.UpdateID = s.enqueue(wireUpdate{Message: s.publish(c, st)})
	return st.Message
}

// EditText has the author of a user message change its text, queueing an
// "edited_message" update, and returns the update's id. It panics if the
// chat has no such live user message, since that is a mistake in the test.
func (s *Server) EditText(chatID int64, messageID int, text string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	var m *stored
	if c != nil {
		m = c.live(messageID)
	}
	if m == nil || m.byBot {
		panic(fmt.Sprintf("telegramtest: EditText: no user message %d in chat %d", messageID, chatID))
	}
	m.Text, m.shown = text, userText(text)
	m.Edits++
	m.edited = s.opts.Now()
	return s.enqueue(wireUpdate{EditedMessage: s.publish(c, m)})
}

func userText(text string) formatted {
	return formatted{text: text, entities: encodeEntities(detectEntities(text))}
}

// DeleteMessage has a person delete message messageID in a chat: their
// own, or, as a private chat allows, one of the bot's for both sides. No
// update tells the bot. It panics if the chat has no such live message,
// since that is a mistake in the test.
func (s *Server) DeleteMessage(chatID int64, messageID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	var m *stored
	if c != nil {
		m = c.live(messageID)
	}
	if m == nil {
		panic(fmt.Sprintf("telegramtest: DeleteMessage: no message %d in chat %d", messageID, chatID))
	}
	m.Deleted = true
	s.notify()
}
