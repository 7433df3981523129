package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// inTopic has from write text in a topic of team.
func (h *harness) inTopic(topic telegramtest.Topic, from telegramtest.User, text string) telegramtest.Message {
	return h.tg.SendText(team, from, text, telegramtest.InThread(topic.ThreadID))
}

// A mention in a forum topic is answered in that topic: the status message
// and the answer carry its message_thread_id, and so does every message and
// chat action sent for the turn. The General topic's talk stays out of the
// topic's context.
func TestMentionInATopicIsAnsweredThere(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_NOTIFY_AFTER"] = "1ms" // the answer comes as a message of its own, beside the status message
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"2+2"}`)}, ollamatest.Reply{Content: envelope("2 + 2 = 4")})
	h.start()
	h.tg.SendText(team, bob, "lunch at noon?")
	topic := h.tg.CreateTopic(team, alice, "Maths")
	q := h.inTopic(topic, alice, "@ryo_test_bot 2+2?")
	h.answer(team, q.ID, "2 + 2 = 4")
	h.waitFor("the status message collapsed", func() bool {
		msgs := h.tg.BotMessages(team.ID)
		return len(msgs) == 2 && strings.HasPrefix(msgs[0].Text, "✅ Answered in")
	})
	for _, m := range h.tg.BotMessages(team.ID) {
		if m.ThreadID != topic.ThreadID || m.ReplyTo != q.ID {
			t.Errorf("bot message %q is in thread %d replying to %d; want thread %d, replying to the question %d",
				m.Text, m.ThreadID, m.ReplyTo, topic.ThreadID, q.ID)
		}
	}
	thread := strconv.Itoa(topic.ThreadID)
	for _, c := range h.tg.Calls("") {
		placed := c.Method == "sendMessage" || c.Method == "sendChatAction" || c.Method == "sendDocument"
		if placed && c.Params["chat_id"] == strconv.FormatInt(team.ID, 10) && c.Params["message_thread_id"] != thread {
			t.Errorf("%s in thread %q; want %s", c.Method, c.Params["message_thread_id"], thread)
		}
	}
	if req := contents(h.llm.Requests()[0]); strings.Contains(req, "lunch") {
		t.Fatalf("the topic's context holds the General topic: %s", req)
	}
}

// Each topic is a conversation of its own: /reset in one forgets only that
// one.
func TestResetInOneTopicLeavesTheOthers(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Noted: Friday.")}, ollamatest.Reply{Content: envelope("Noted: pizza.")},
		ollamatest.Reply{Content: envelope("I don't know when.")}, ollamatest.Reply{Content: envelope("Pizza, you said.")})
	h.start()
	releases := h.tg.CreateTopic(team, alice, "Releases")
	lunch := h.tg.CreateTopic(team, bob, "Lunch")
	q := h.inTopic(releases, alice, "@ryo_test_bot the release is on Friday")
	h.answer(team, q.ID, "Noted: Friday.")
	q = h.inTopic(lunch, bob, "@ryo_test_bot we order pizza")
	h.answer(team, q.ID, "Noted: pizza.")

	q = h.inTopic(releases, alice, "/reset")
	msgs := h.answer(team, q.ID, "I start fresh from here")
	if done := msgs[len(msgs)-1]; done.ThreadID != releases.ThreadID {
		t.Fatalf("the /reset reply went to thread %d; want %d", done.ThreadID, releases.ThreadID)
	}
	q = h.inTopic(releases, alice, "@ryo_test_bot when is the release?")
	h.answer(team, q.ID, "I don't know when.")
	q = h.inTopic(lunch, bob, "@ryo_test_bot what do we order?")
	h.answer(team, q.ID, "Pizza, you said.")

	reqs := h.llm.Requests()
	if after := contents(reqs[2]); strings.Contains(after, "is on Friday") || strings.Contains(after, "pizza") { // the date line may say Friday
		t.Fatalf("after /reset the releases topic's request holds %s", after)
	}
	if other := contents(reqs[3]); !strings.Contains(other, "we order pizza") || strings.Contains(other, "is on Friday") {
		t.Fatalf("the lunch topic's request = %s; want its own history, untouched by /reset in another topic", other)
	}
}

// In a forum topic every message replies to the topic's creation, as
// Telegram sends it: an admin's bare /ban there replies to nobody — it
// must not ban whoever opened the topic, and is pointed to the private
// chat, as naming someone is.
func TestBareBanInATopicBansNobody(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = strconv.FormatInt(alice.ID, 10)
	h.start()
	topic := h.tg.CreateTopic(team, bob, "Plans")
	q := h.inTopic(topic, alice, "/ban")
	h.pointer(team, q.ID, "ban")
	if u, ok, err := h.db().FindUser(bg(t), bob.ID); err != nil || ok && u.Role == "banned" {
		t.Fatalf("bob = %+v, %v, %v; want him left alone", u, ok, err)
	}
}
