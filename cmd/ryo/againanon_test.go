package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A question asked as the group, by an anonymous administrator, or as a
// channel, is made again when someone who may speak as that identity
// presses 🔄 from their own account — Telegram names the person in a
// press, never the group or channel; a member who may not is refused.
func TestRegenerateOfAnAnswerAskedAsAChat(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The first answer to the group.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("A new answer to the group.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The first answer to the channel.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("A new answer to the channel.")})
	ops := telegramtest.NewSupergroup("Ops")
	news := telegramtest.NewChannel("Alice's News")
	h.tg.SetMember(ops, alice, telegramtest.StatusAdministrator)
	h.tg.SetMember(ops, bob, telegramtest.StatusMember)
	h.tg.SetMember(news, alice, telegramtest.StatusCreator)
	h.start()
	chat := map[string]any{"id": ops.ID, "title": ops.Title, "type": "supergroup"}
	channel := map[string]any{"id": news.ID, "title": news.Title, "type": "channel"}
	text := "@" + botUser.Username + " hello"
	mention := []any{map[string]any{"type": "mention", "offset": 0, "length": len(botUser.Username) + 1}}
	asGroup := h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512377, "date": time.Now().Unix(),
		"from": groupAnonymousBot, "sender_chat": chat, "chat": chat, "author_signature": "Alice", "text": text, "entities": mention}})
	a := h.shows(ops, "The first answer to the group.")
	h.done(asGroup)
	if got := h.pressAnswer(h.press(ops, bob, h.message(ops, a.ID), "🔄")); !got.ShowAlert {
		t.Fatalf("a member's press on what the group asked was answered %+v", got)
	}
	if got := h.pressAnswer(h.press(ops, alice, h.message(ops, a.ID), "🔄")); got.Text != "🔄 Making a new answer…" {
		t.Fatalf("the group's administrator pressing 🔄 was answered %+v", got)
	}
	h.waitFor("the group's answer made again", func() bool { return strings.Contains(h.message(ops, a.ID).Text, "A new answer") })
	asChannel := h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512378, "date": time.Now().Unix(),
		"from":        map[string]any{"id": 136817688, "is_bot": true, "first_name": "Channel", "username": "Channel_Bot"},
		"sender_chat": channel, "chat": chat, "text": text, "entities": mention}})
	c := h.shows(ops, "The first answer to the channel.")
	h.done(asChannel)

	if got := h.pressAnswer(h.press(ops, bob, h.message(ops, c.ID), "🔄")); !got.ShowAlert {
		t.Fatalf("a member's press on what a channel asked was answered %+v", got)
	}
	if got := h.pressAnswer(h.press(ops, alice, h.message(ops, c.ID), "🔄")); got.Text != "🔄 Making a new answer…" {
		t.Fatalf("the channel's owner pressing 🔄 was answered %+v", got)
	}
	h.waitFor("the channel's answer made again", func() bool { return strings.Contains(h.message(ops, c.ID).Text, "A new answer") })
}

// shows waits for a message of the bot in chat showing want.
func (h *harness) shows(chat telegramtest.Chat, want string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.waitFor("a message showing "+want, func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if strings.Contains(m.Text, want) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}
