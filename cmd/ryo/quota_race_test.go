package main

import (
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A person with one answer left this hour asks in two chats at once: one
// question is answered, the other is told when they can ask again — the
// turn still running counts against the quota, not only those answered.
func TestQuotaCountsTurnsStillRunning(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_QUOTA"] = "1/hour"
	h.env["RYO_DRAFTS"] = "off"
	release := make(chan struct{})
	h.llm.Handle(func(ollamatest.Request) ollamatest.Reply {
		<-release
		return ollamatest.Reply{Content: envelope("hello")}
	})
	h.start()
	a := h.tg.SendText(bobDM, bob, "what is 6*7")
	b := h.tg.SendText(team, bob, "@ryo_test_bot what is 6*8")
	shown := func(chat telegramtest.Chat, id int) bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if m.ReplyTo == id {
				return true
			}
		}
		return false
	}
	h.waitFor("both questions taken up", func() bool { return shown(bobDM, a.ID) && shown(team, b.ID) })
	close(release)
	h.waitFor("both questions done", func() bool {
		done := 0
		for _, q := range []struct {
			chat telegramtest.Chat
			id   int
		}{{bobDM, a.ID}, {team, b.ID}} {
			for _, m := range h.tg.BotMessages(q.chat.ID) {
				if m.ReplyTo == q.id && (strings.Contains(m.Text, "hello") || strings.Contains(m.Text, "You've used")) {
					done++
					break
				}
			}
		}
		return done == 2
	})
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times for a person with one answer left", n)
	}
}
