package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

var everyFlood = flag.Bool("every.flood", false, "TestEveryMessageFloodLosesNothing: run it (about 6 minutes: each answer waits for Telegram's limit of 20 messages a minute in a group)")

// A group answering every message gets 100 messages from 10 people at
// once, with Telegram's flood limits enforced: none is lost (each is
// stored, in the order sent, and its update done), each message is
// answered, and Telegram refuses nothing. Each message is answered, so
// the group's limit makes it take about five minutes: it runs only with
// -every.flood.
func TestEveryMessageFloodLosesNothing(t *testing.T) {
	if !*everyFlood {
		t.Skip("about 6 minutes; run with -every.flood")
	}
	h := newHarness(t, floodControl)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.env["RYO_LOG_LEVEL"] = "warn"
	h.llm.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: envelope("noted")} })
	h.start()
	group := telegramtest.NewSupergroup("Busy")
	q := h.tg.SendText(group, alice, "/settings mode every")
	h.reply(group, q.ID, "Here I answer every message")
	var people []telegramtest.User
	for i := range 10 {
		people = append(people, telegramtest.NewUser(fmt.Sprintf("Talker%d", i), ""))
	}
	var sent []telegramtest.Message
	for n := range 10 {
		for _, p := range people {
			sent = append(sent, h.tg.SendText(group, p, fmt.Sprintf("message %d of %s", n, p.FirstName)))
		}
	}
	done := func() int {
		n := 0
		for _, m := range sent {
			if state, _, err := h.db().UpdateState(bg(t), m.UpdateID); err == nil && state == memory.StateDone {
				n++
			}
		}
		return n
	}
	defer func() {
		t.Logf("%d of %d updates done; %d bot messages", done(), len(sent), len(h.tg.BotMessages(group.ID)))
	}()
	h.waitWithin(10*time.Minute, "every update done", func() bool { return done() == len(sent) })
	stored, err := h.db().History(bg(t), ryo.Place{ChatID: group.ID}, 500)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range stored {
		if m.Kind == ryo.KindUser && strings.HasPrefix(m.Text, "message ") {
			texts = append(texts, m.Text)
		}
	}
	if len(texts) != len(sent) {
		t.Fatalf("%d of %d messages stored", len(texts), len(sent))
	}
	for i, m := range sent {
		if texts[i] != m.Text {
			t.Fatalf("message %d stored as %q; want %q: the order is lost", i, texts[i], m.Text)
		}
	}
	replied := map[int]bool{}
	for _, m := range h.tg.BotMessages(group.ID) {
		replied[m.ReplyTo] = true
	}
	for _, m := range sent {
		if !replied[m.ID] {
			t.Errorf("%q got no answer", m.Text)
		}
	}
	if refused := h.tg.Refused(); len(refused) != 0 {
		t.Fatalf("Telegram refused %d calls, the first %s: %s", len(refused), refused[0].Method, refused[0].Err.Description)
	}
}
