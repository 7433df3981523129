package telegramtest_test

import (
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

func TestIDsAreTelegramSized(t *testing.T) {
	alice, bob := telegramtest.NewUser("Alice", "alice"), telegramtest.NewUser("Bob", "")
	if alice.ID < 7_000_000_000 || alice.ID >= 8_000_000_000 || alice.ID == bob.ID || alice.ID <= math.MaxUint32 {
		t.Errorf("user ids %d and %d; want distinct ids of new accounts, beyond 32 bits", alice.ID, bob.ID)
	}
	if again := telegramtest.NewUser("Alice", "alice"); again != alice {
		t.Errorf("NewUser is not deterministic: %+v, then %+v", alice, again)
	}
	if dm := telegramtest.PrivateChat(alice); dm.ID != alice.ID || dm.Type != "private" || dm.FirstName != "Alice" || dm.Username != "alice" {
		t.Errorf("PrivateChat = %+v", dm)
	}
	chats := []struct {
		chat    telegramtest.Chat
		kind    string
		forum   bool
		pattern string
	}{
		{telegramtest.NewSupergroup("Team"), "supergroup", false, `^-100[1-9]\d{9}$`},
		{telegramtest.NewForum("Team"), "supergroup", true, `^-100[1-9]\d{9}$`},
		{telegramtest.NewChannel("News"), "channel", false, `^-100[1-9]\d{9}$`},
		{telegramtest.NewGroup("Family"), "group", false, `^-4\d{9}$`},
	}
	var ids []int64
	for _, c := range chats {
		id := strconv.FormatInt(c.chat.ID, 10)
		if !regexp.MustCompile(c.pattern).MatchString(id) || c.chat.Type != c.kind || c.chat.IsForum != c.forum || c.chat.ID >= math.MinInt32 {
			t.Errorf("%s chat %+v; want an id like %s", c.kind, c.chat, c.pattern)
		}
		ids = append(ids, c.chat.ID)
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(ids))); len(distinct) != len(ids) {
		t.Errorf("chat ids repeat: %v", ids)
	}
}

func TestBotIDComesFromTheToken(t *testing.T) {
	s := telegramtest.NewServer(telegramtest.Options{Token: testToken})
	t.Cleanup(s.Close)
	me, err := newBot(t, s).GetMe(t.Context())
	if err != nil || me.ID != botID || me.ID <= math.MaxUint32 {
		t.Errorf("getMe = %+v, %v; want id %d, the token's prefix", me, err, botID)
	}
}

func TestUpdateIDsStartNearABillion(t *testing.T) {
	s := newServer(t)
	id := s.PushUpdate(map[string]any{"message": map[string]any{"message_id": 1}})
	next := s.SendText(aliceChat(), alice(), "hi")
	list := updates(t, postJSON(timeout(t), t, s, "getUpdates", poll(0, 0)))
	var second int64
	json.Unmarshal(list[1]["update_id"], &second)
	if id < 900_000_000 || second != id+1 || next.UpdateID != second || string(list[1]["message"]) != string(next.Raw) {
		t.Errorf("update ids %d, %d; want consecutive ids near 10⁹", id, second)
	}
}

// TestMessageIDsDifferPerChat: each chat numbers its messages from its own
// base, so an id from one chat names nothing in another.
func TestMessageIDsDifferPerChat(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	bob := telegramtest.NewUser("Bob", "bob")
	inPM := s.SendText(aliceChat(), alice(), "hi")
	inBobPM := s.SendText(telegramtest.PrivateChat(bob), bob, "hi")
	inGroup := s.SendText(groupChat(), alice(), "hi")
	second := s.SendText(groupChat(), bob, "hello")
	switch {
	case inPM.ID < 2_000 || inPM.ID >= 10_000 || inBobPM.ID < 2_000 || inBobPM.ID >= 10_000:
		t.Errorf("private chats start at %d and %d; want a few thousand", inPM.ID, inBobPM.ID)
	case inPM.ID == inBobPM.ID:
		t.Errorf("two private chats both start at %d", inPM.ID)
	case inGroup.ID < 100_000 || inGroup.ID >= 1_000_000:
		t.Errorf("the group starts at %d; want 100 000 to 1 000 000", inGroup.ID)
	case second.ID != inGroup.ID+1:
		t.Errorf("the group's second message is %d; want %d", second.ID, inGroup.ID+1)
	}
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: groupChat().ID, Text: "in the group"})
	if err != nil || sent.ID != second.ID+1 {
		t.Fatalf("bot message %+v, %v; want id %d", sent, err, second.ID+1)
	}
	_, err = b.EditMessageText(t.Context(), &bot.EditMessageTextParams{ChatID: aliceChat().ID, MessageID: sent.ID, Text: "x"})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message to edit not found") {
		t.Errorf("editing the group's message id in the private chat: %v", err)
	}
}

func TestBotAnswersInSupergroupBeyond32Bits(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	in := s.SendText(groupChat(), alice(), "hi")
	var raw struct {
		Chat struct {
			ID int64 `json:"id"`
		} `json:"chat"`
	}
	json.Unmarshal(in.Raw, &raw)
	if raw.Chat.ID != groupChat().ID || raw.Chat.ID >= math.MinInt32 {
		t.Fatalf("chat id in the update = %d", raw.Chat.ID)
	}
	if _, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: raw.Chat.ID, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if c := s.Calls("sendMessage"); len(c) != 1 || c[0].Params["chat_id"] != chatID(groupChat().ID) {
		t.Errorf("calls = %+v", c)
	}
}

// topicMessage is what a test reads of a message in a forum.
type topicMessage struct {
	ID       int  `json:"message_id"`
	ThreadID int  `json:"message_thread_id"`
	IsTopic  bool `json:"is_topic_message"`
	Created  *struct {
		Name      string `json:"name"`
		IconColor int    `json:"icon_color"`
	} `json:"forum_topic_created"`
	ReplyTo *topicMessage `json:"reply_to_message"`
	Text    string        `json:"text"`
}

func readTopicMessage(t *testing.T, raw json.RawMessage) topicMessage {
	t.Helper()
	var m topicMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return m
}

func TestCreateTopic(t *testing.T) {
	s := newServer(t)
	forum := telegramtest.NewForum("Team")
	topic := s.CreateTopic(forum, alice(), "Releases")
	list := updates(t, postJSON(timeout(t), t, s, "getUpdates", poll(0, 0)))
	if len(list) != 1 {
		t.Fatalf("updates = %v; want the creation message", list)
	}
	m := readTopicMessage(t, list[0]["message"])
	if m.Created == nil || m.Created.Name != "Releases" || m.Created.IconColor != topic.IconColor {
		t.Errorf("service message = %s", list[0]["message"])
	}
	if m.ID != topic.ThreadID || m.ThreadID != topic.ThreadID || !m.IsTopic || topic.ChatID != forum.ID {
		t.Errorf("topic %+v, creation message %s; want the message's id as the thread id", topic, list[0]["message"])
	}
	if !slices.Contains([]int{0x6FB9F0, 0xFFD67E, 0xCB86DB, 0x8EEE98, 0xFF93B2, 0xFB6F5F}, topic.IconColor) {
		t.Errorf("icon color %#x is not one Telegram offers", topic.IconColor)
	}
	if msgs := s.Messages(forum.ID); len(msgs) != 1 || msgs[0].TopicCreated == nil || *msgs[0].TopicCreated != topic {
		t.Errorf("Messages = %+v", msgs)
	}
}

func TestMessagesInTopics(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	forum := telegramtest.NewForum("Team")
	topic := s.CreateTopic(forum, alice(), "Releases")
	other := s.CreateTopic(forum, alice(), "Lunch")

	q := s.SendText(forum, alice(), "when?", telegramtest.InThread(topic.ThreadID))
	m := readTopicMessage(t, q.Raw)
	if m.ThreadID != topic.ThreadID || !m.IsTopic || m.ReplyTo == nil || m.ReplyTo.ID != topic.ThreadID ||
		m.ReplyTo.Created == nil || q.ReplyTo != topic.ThreadID || q.ThreadID != topic.ThreadID {
		t.Errorf("message in the topic = %s; want it to reply to the topic's creation message", q.Raw)
	}
	reply := s.SendText(forum, alice(), "soon", telegramtest.InThread(topic.ThreadID), telegramtest.ReplyTo(q.ID))
	if m := readTopicMessage(t, reply.Raw); m.ThreadID != topic.ThreadID || m.ReplyTo == nil || m.ReplyTo.ID != q.ID {
		t.Errorf("reply in the topic = %s", reply.Raw)
	}
	general := s.SendText(forum, alice(), "hello all")
	if m := readTopicMessage(t, general.Raw); m.ThreadID != 0 || m.IsTopic || m.ReplyTo != nil {
		t.Errorf("message in General = %s; want neither a thread nor a reply", general.Raw)
	}

	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: forum.ID, MessageThreadID: other.ThreadID, Text: "pizza"})
	if err != nil {
		t.Fatal(err)
	}
	if sent.MessageThreadID != other.ThreadID || !sent.IsTopicMessage || sent.ReplyToMessage == nil ||
		sent.ReplyToMessage.ForumTopicCreated == nil || sent.ReplyToMessage.ForumTopicCreated.Name != "Lunch" {
		t.Errorf("bot message in a topic = %+v", sent)
	}
	answer, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: forum.ID, MessageThreadID: topic.ThreadID, Text: "tomorrow",
		ReplyParameters: &models.ReplyParameters{MessageID: q.ID}})
	if err != nil || answer.MessageThreadID != topic.ThreadID || answer.ReplyToMessage == nil || answer.ReplyToMessage.ID != q.ID {
		t.Errorf("bot answer in the topic = %+v, %v", answer, err)
	}
	if ms := s.BotMessages(forum.ID); len(ms) != 2 || ms[0].ThreadID != other.ThreadID || ms[1].ThreadID != topic.ThreadID {
		t.Errorf("BotMessages = %+v", ms)
	}
}

func TestUnknownTopics(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	forum := telegramtest.NewForum("Team")
	in := s.SendText(forum, alice(), "hi")
	_, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: forum.ID, MessageThreadID: in.ID, Text: "x"})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message thread not found") {
		t.Errorf("a thread that is no topic: %v", err)
	}
	_, err = b.SendChatAction(t.Context(), &bot.SendChatActionParams{ChatID: forum.ID, MessageThreadID: 5, Action: models.ChatActionTyping})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message thread not found") {
		t.Errorf("typing in a made-up topic: %v", err)
	}
	mustPanic(t, "InThread with a made-up topic", func() { s.SendText(forum, alice(), "x", telegramtest.InThread(5)) })
	mustPanic(t, "InThread outside a forum", func() { s.SendText(groupChat(), alice(), "x", telegramtest.InThread(in.ID)) })
	mustPanic(t, "a topic outside a forum", func() { s.CreateTopic(groupChat(), alice(), "x") })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}
