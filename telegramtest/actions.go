package telegramtest

// maxCallbackAnswer is the limit on answerCallbackQuery text, in characters.
const maxCallbackAnswer = 200

func (s *Server) sendChatAction(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	if !validChatAction(r.str("action")) {
		return nil, badRequest("wrong parameter action in request")
	}
	asked := r.int("message_thread_id")
	if r.err != nil {
		return nil, r.err
	}
	if _, _, err := c.place(asked, 0); err != nil {
		return nil, err
	}
	return true, nil
}

func validChatAction(action string) bool {
	switch action {
	case "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
		"upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note":
		return true
	}
	return false
}

// sendMessageDraft accepts a streaming draft for a private chat. Drafts
// are ephemeral in Telegram, so the fake keeps them only as Calls.
func (s *Server) sendMessageDraft(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	if c.chat.Type != "private" {
		return nil, badRequest("TEXTDRAFT_PEER_INVALID")
	}
	if id := r.int64("draft_id"); r.err != nil || id == 0 {
		return nil, badRequest("draft_id must be a non-zero integer")
	}
	if _, err := formatText(r.str("text"), r.str("parse_mode"), r.str("entities"), true); err != nil {
		return nil, err
	}
	if r.int("message_thread_id"); r.err != nil {
		return nil, r.err
	}
	return true, nil
}
