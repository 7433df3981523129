package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// againButton is the data of m's 🔄 button; "" when it has none.
func againButton(m telegramtest.Message) string {
	for _, row := range m.Buttons() {
		for _, b := range row {
			if b.Text == "🔄" {
				return b.Data
			}
		}
	}
	return ""
}

// answered waits for the answer to message q in chat showing want, and
// returns its message.
func (h *harness) answered(chat telegramtest.Chat, q int, want string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.waitFor("an answer showing "+want, func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if m.ReplyTo == q && strings.Contains(m.Text, want) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// An answer carries 🔄, naming its turn and its chat; a command's reply
// carries no button.
func TestAnswerCarriesButtons(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Forty-two.")})
	h.start()
	h.tg.SendText(dm, alice, "/start")
	h.waitFor("the greeting", func() bool { return len(h.tg.BotMessages(dm.ID)) == 1 })
	if b := h.tg.BotMessages(dm.ID)[0].Buttons(); len(b) != 0 {
		t.Fatalf("the greeting carries %v; want no buttons", b)
	}
	q := h.tg.SendText(dm, alice, "what is six times seven?")
	a := h.answered(dm, q.ID, "Forty-two.")
	h.waitFor("the answer's buttons", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	want := "r1:" + strconv.FormatInt(q.UpdateID, 10) + ":" + strconv.FormatInt(dm.ID, 10)
	if got := againButton(h.message(dm, a.ID)); got != want {
		t.Fatalf("🔄 data %q; want %q", got, want)
	}
}
