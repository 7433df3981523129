package telegramtest

import "fmt"

// Topic is a topic of a forum supergroup. Its messages carry ThreadID as
// message_thread_id and is_topic_message; messages of the General topic
// carry neither.
type Topic struct {
	ChatID    int64
	ThreadID  int // the id of the service message that created the topic
	Name      string
	IconColor int // one of the six colors Telegram offers, as RGB
}

type wireTopicCreated struct {
	Name      string `json:"name"`
	IconColor int    `json:"icon_color"`
}

// CreateTopic has from create a topic named name in forum, as a Telegram
// client does: a service message with forum_topic_created {name,
// icon_color} is stored and queued as a message update, and its id becomes
// the topic's message_thread_id. Send in the topic with InThread. It
// panics if forum is not a forum, since that is a mistake in the test.
func (s *Server) CreateTopic(forum Chat, from User, name string) Topic {
	if !forum.IsForum {
		panic(fmt.Sprintf("telegramtest: CreateTopic: chat %d is not a forum", forum.ID))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.register(forum)
	t := &Topic{ChatID: forum.ID, Name: name, IconColor: topicColor(name)}
	m := &stored{Message: Message{From: from, Date: s.opts.Now(), TopicCreated: t}}
	c.add(m)
	m.ThreadID, t.ThreadID = m.ID, m.ID
	m.UpdateID = s.enqueue(wireUpdate{Message: s.publish(c, m)})
	return *t
}

// topic returns the service message that created topic threadID, or nil.
func (c *chatLog) topic(threadID int) *stored {
	if m := c.get(threadID); m != nil && m.TopicCreated != nil {
		return m
	}
	return nil
}

// topicColor picks one of the icon colors Telegram allows for a topic.
func topicColor(name string) int {
	colors := [...]int{0x6FB9F0, 0xFFD67E, 0xCB86DB, 0x8EEE98, 0xFF93B2, 0xFB6F5F}
	return colors[idHash(int64(len(colors)), "topic", name)]
}

func topicJSON(t *Topic) *wireTopicCreated {
	if t == nil {
		return nil
	}
	return &wireTopicCreated{Name: t.Name, IconColor: t.IconColor}
}
