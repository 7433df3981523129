package telegramtest

// Member statuses, as getChatMember reports them.
const (
	StatusCreator       = "creator"
	StatusAdministrator = "administrator"
	StatusMember        = "member"
	StatusLeft          = "left"
	StatusKicked        = "kicked"
)

// SetMember makes u a member of chat with status, which getChatMember then
// reports. Without it, getChatMember reports "member" for a person who has
// written in the chat and "left" for anyone else, as Telegram does.
func (s *Server) SetMember(chat Chat, u User, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.register(chat)
	if c.members == nil {
		c.members = map[int64]member{}
	}
	c.members[u.ID] = member{user: u, status: status}
	s.notify()
}

// member is a person's place in a chat.
type member struct {
	user   User
	status string
}

func (s *Server) getChatMember(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	id := r.int64("user_id")
	if r.err != nil {
		return nil, r.err
	}
	m, ok := c.members[id]
	if !ok {
		m, ok = c.author(id)
	}
	if !ok {
		if id <= 0 {
			return nil, badRequest("PARTICIPANT_ID_INVALID")
		}
		m = member{user: User{ID: id, FirstName: "Someone"}, status: StatusLeft}
	}
	return memberJSON(m), nil
}

// author finds a person who wrote in the chat: a member, as far as the chat
// shows.
func (c *chatLog) author(id int64) (member, bool) {
	for _, msg := range c.msgs {
		if !msg.byBot && msg.From.ID == id {
			return member{user: msg.From, status: StatusMember}, true
		}
	}
	return member{}, false
}

// memberJSON is a ChatMember object: the fields Telegram always sends for
// each status.
func memberJSON(m member) map[string]any {
	out := map[string]any{"status": m.status, "user": userJSON(m.user)}
	switch m.status {
	case StatusCreator:
		out["is_anonymous"] = false
	case StatusAdministrator:
		for _, right := range []string{"can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages",
			"can_manage_video_chats", "can_restrict_members", "can_promote_members", "can_change_info",
			"can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories"} {
			out[right] = false
		}
		out["can_manage_chat"], out["can_delete_messages"] = true, true
	case StatusKicked:
		out["until_date"] = 0
	}
	return out
}
