package telegramtest

import (
	"strconv"
	"strings"
)

// User is a Telegram user or bot.
type User struct {
	ID           int64
	IsBot        bool
	FirstName    string
	LastName     string
	Username     string
	LanguageCode string
}

// Chat is a Telegram chat. Type is "private", "group", "supergroup" or
// "channel"; IsForum marks a supergroup with topics.
type Chat struct {
	ID        int64
	Type      string
	Title     string
	Username  string
	FirstName string
	IsForum   bool
}

// chatLog is a known chat and its messages; msgs[i] has message id
// first+i.
type chatLog struct {
	chat  Chat
	first int
	msgs  []*stored
	// members are the people whose status a test set (SetMember).
	members map[int64]member
}

// register makes chat known to the bot, updating its details if it was.
func (s *Server) register(chat Chat) *chatLog {
	c := s.chats[chat.ID]
	if c == nil {
		c = &chatLog{first: firstMessageID(chat.ID)}
		s.chats[chat.ID] = c
	}
	c.chat = chat
	return c
}

// learnChat registers a chat seen in a pushed update unless already known.
func (s *Server) learnChat(w *wireChat) {
	if w == nil || w.ID == 0 || s.chats[w.ID] != nil {
		return
	}
	s.register(Chat{ID: w.ID, Type: w.Type, Title: w.Title, Username: w.Username, FirstName: w.FirstName, IsForum: w.IsForum})
}

// chatParam resolves the chat_id parameter: a numeric id or "@username".
func (s *Server) chatParam(r *request) (*chatLog, error) {
	ref := strings.TrimSpace(r.str("chat_id"))
	if ref == "" {
		return nil, badRequest("chat_id is empty")
	}
	if c := s.chatByRef(ref); c != nil {
		return c, nil
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil && s.people[id] {
		return nil, cannotInitiate() // a person seen elsewhere who never opened a private chat with the bot
	}
	return nil, badRequest("chat not found")
}

func (s *Server) chatByRef(ref string) *chatLog {
	if name, ok := strings.CutPrefix(ref, "@"); ok {
		for _, c := range s.chats {
			if c.chat.Username != "" && strings.EqualFold(c.chat.Username, name) {
				return c
			}
		}
		return nil
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return nil
	}
	return s.chats[id]
}

// get returns message id, deleted or not, or nil.
func (c *chatLog) get(id int) *stored {
	i := id - c.first
	if i < 0 || i >= len(c.msgs) {
		return nil
	}
	return c.msgs[i]
}

// live returns message id unless it is missing or deleted.
func (c *chatLog) live(id int) *stored {
	if m := c.get(id); m != nil && !m.Deleted {
		return m
	}
	return nil
}

// add gives m the chat's next message id and stores it.
func (c *chatLog) add(m *stored) {
	m.ID = c.first + len(c.msgs)
	m.ChatID = c.chat.ID
	c.msgs = append(c.msgs, m)
}

// place is where a new message lands in a forum: in the topic asked for,
// which must exist, or else in the topic of the message it replies to. A
// message in a topic that replies to nothing else replies, as Telegram
// shows it, to the message that created the topic. Other chats have no
// topics, and a thread asked for there is ignored.
func (c *chatLog) place(asked, replyTo int) (thread, reply int, err error) {
	switch {
	case !c.chat.IsForum:
		return 0, replyTo, nil
	case asked != 0 && c.topic(asked) == nil:
		return 0, 0, badRequest("message thread not found")
	case asked != 0:
		thread = asked
	default:
		if target := c.live(replyTo); target != nil {
			thread = target.ThreadID
		}
	}
	if reply = replyTo; reply == 0 {
		reply = thread
	}
	return thread, reply, nil
}

func (s *Server) getChat(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	return wireChatFull{wireChat: chatJSON(c.chat), MaxReactionCount: 11}, nil
}
