package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
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

// modelSaw reports whether the model's request n (from 0) had text in
// any message.
func (h *harness) modelSaw(n int, text string) bool {
	h.t.Helper()
	reqs := h.llm.Requests()
	if n >= len(reqs) {
		h.t.Fatalf("the model was asked %d times; want request %d", len(reqs), n)
	}
	for _, m := range reqs[n].Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// 🔄 makes the answer again in the same message; the history, and the
// model's next request, hold only the new one; the new answer carries a
// 🔄 of its own.
func TestRegenerateReplacesTheAnswer(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Paris is the capital of Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Madrid is the capital of Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("You are welcome.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is the capital of Spain?")
	a := h.answered(dm, q.ID, "Paris")
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	press := h.press(dm, alice, h.message(dm, a.ID), "🔄")
	if got := h.pressAnswer(press); got.Text != "🔄 Making a new answer…" || got.ShowAlert {
		t.Fatalf("the press was answered %+v", got)
	}
	h.waitFor("the answer made again", func() bool { return strings.Contains(h.message(dm, a.ID).Text, "Madrid") })
	h.waitFor("the new answer's 🔄", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	if n := len(h.tg.BotMessages(dm.ID)); n != 1 {
		t.Fatalf("the chat shows %d messages of the bot; want the one answer", n)
	}
	if h.modelSaw(1, "Paris") || !h.modelSaw(1, "capital of Spain?") {
		t.Fatal("the regenerate showed the model the old answer, or not the question")
	}
	h.waitFor("the new answer stored", func() bool {
		got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
		return len(got) == 2 && got[1] == "assistant: Madrid is the capital of Spain."
	})
	if r, err := h.db().UsageReport(bg(t), memory.UsageScope{UserID: alice.ID}); err != nil || r.Today.Turns != 2 {
		t.Fatalf("usage %+v, %v; want the regenerate counted as a second turn", r.Today, err)
	}
	if got := againButton(h.message(dm, a.ID)); got == againButton(a) {
		t.Fatalf("the new answer's 🔄 is the old one's, %q", got)
	}
	q2 := h.tg.SendText(dm, alice, "thanks")
	h.answered(dm, q2.ID, "welcome")
	if h.modelSaw(2, "Paris") || !h.modelSaw(2, "Madrid") {
		t.Fatal("the next turn's history is not the one the person ended up with")
	}
	h.waitFor("🔄 taken off the older answer", func() bool { return againButton(h.message(dm, a.ID)) == "" })
	if got := h.pressAnswer(h.tg.PressForged(dm.ID, alice, a.ID, againButtonData(t, h, q, a))); got.Text != "Only the newest answer here can be made again." || !got.ShowAlert {
		t.Fatalf("a press on the older answer was answered %+v", got)
	}
}

// againButtonData is the data the 🔄 of the answer a to q had after its
// regenerate: it names the regenerate's turn, the press's update.
func againButtonData(t *testing.T, h *harness, q, a telegramtest.Message) string {
	t.Helper()
	msgs, err := h.db().History(bg(t), ryo.Place{ChatID: dm.ID}, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.TelegramID == a.ID {
			return "r1:" + strconv.FormatInt(m.UpdateID, 10) + ":" + strconv.FormatInt(dm.ID, 10)
		}
	}
	t.Fatalf("no stored answer in message %d to %d", a.ID, q.ID)
	return ""
}

// Only the asker may make an answer again: another member's press is
// refused with an alert naming who may; forged, malformed and other
// chats' data change nothing.
func TestRegenerateIsTheAskers(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The first answer.")})
	h.start()
	h.tg.SendText(bobDM, bob, "/start")
	h.waitFor("bob's start", func() bool { return len(h.tg.BotMessages(bobDM.ID)) == 1 })
	q := h.tg.SendText(team, alice, "@ryo_test_bot tell me something")
	a := h.answered(team, q.ID, "The first answer.")
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(team, a.ID)) != "" })
	a = h.message(team, a.ID) // as the turn left it: first seen, it may have been on its way there
	data := againButton(a)
	if !strings.HasPrefix(data, "r1:") || !strings.HasSuffix(data, ":"+strconv.FormatInt(team.ID, 10)) || len(data) > 64 {
		t.Fatalf("🔄 data %q", data)
	}
	if got := h.pressAnswer(h.press(team, bob, h.message(team, a.ID), "🔄")); got.Text != "Only Alice (@alice) can ask for this answer again." || !got.ShowAlert {
		t.Fatalf("a stranger's press was answered %+v", got)
	}
	if got := h.pressAnswer(h.tg.PressForged(bobDM.ID, bob, h.tg.BotMessages(bobDM.ID)[0].ID, data)); got.Text != "This button does not belong to this chat." {
		t.Fatalf("a press naming another chat was answered %+v", got)
	}
	update, _, _ := strings.Cut(strings.TrimPrefix(data, "r1:"), ":")
	for _, forged := range []string{
		"r1:0" + update + ":" + strconv.FormatInt(team.ID, 10),  // not the canonical form
		"r1:" + update + ":+" + strconv.FormatInt(-team.ID, 10), // a sign
		"r1:" + update,
		"r1:9223372036854775808:" + strconv.FormatInt(team.ID, 10), // past 64 bits
	} {
		if got := h.pressAnswer(h.tg.PressForged(team.ID, alice, a.ID, forged)); got.Text != "This button no longer works." {
			t.Fatalf("forged %q was answered %+v", forged, got)
		}
	}
	if got := h.pressAnswer(h.tg.PressForged(team.ID, alice, a.ID, "r1:7123456789:"+strconv.FormatInt(team.ID, 10))); got.Text != "This answer can no longer be made again." {
		t.Fatalf("a press naming no answer was answered %+v", got)
	}
	if m := h.message(team, a.ID); m.Text != a.Text || len(h.llm.Requests()) != 1 {
		t.Fatalf("refused presses changed the answer to %q or asked the model again", m.Text)
	}
}

// A press made while ryo is down makes the answer again once it is back;
// ⏹ Stop works during a regenerate, keeping what was written in the same
// message.
func TestRegenerateAfterARestartAndStop(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The first answer.")})
	h.start()
	q := h.tg.SendText(dm, alice, "tell me a long story")
	a := h.answered(dm, q.ID, "The first answer.")
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	h.stopMain()
	press := h.press(dm, alice, h.message(dm, a.ID), "🔄")

	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	if got := h.pressAnswer(press); got.Text != "🔄 Making a new answer…" {
		t.Fatalf("the press made while ryo was down was answered %+v", got)
	}
	status := h.stopButton(dm, q.ID, "✍️ Writing")
	if status.ID != a.ID {
		t.Fatalf("the regenerate shows itself in message %d; want the answer's, %d", status.ID, a.ID)
	}
	if got := h.pressAnswer(h.press(dm, alice, status, "⏹")); got.Text != "⏹ Stopping — I'll keep what I wrote so far." {
		t.Fatalf("the stop was answered %+v", got)
	}
	h.waitFor("the stopped answer in place", func() bool {
		m := h.message(dm, a.ID)
		return strings.Contains(m.Text, "The first half of the answer") && strings.Contains(m.Text, "⏹ Stopped") && !stopBy(m)
	})
	if n := len(h.tg.BotMessages(dm.ID)); n != 1 {
		t.Fatalf("the chat shows %d messages of the bot; want the one answer", n)
	}
	h.waitFor("the stopped answer stored in place of the first", func() bool {
		got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
		return len(got) == 2 && strings.HasPrefix(got[1], "assistant: The first half")
	})
}

// In a group an older answer keeps its 🔄 (the group's budget is kept for
// answers) until it is pressed: the press is refused and takes it off.
func TestRegenerateOfAnOlderAnswerInAGroup(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("One.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Two.")})
	h.start()
	q1 := h.tg.SendText(team, alice, "@ryo_test_bot first")
	a1 := h.answered(team, q1.ID, "One.")
	h.waitFor("🔄 under the first answer", func() bool { return againButton(h.message(team, a1.ID)) != "" })
	q2 := h.tg.SendText(team, alice, "@ryo_test_bot second")
	h.answered(team, q2.ID, "Two.")
	h.done(q2.UpdateID)
	if got := h.pressAnswer(h.press(team, alice, h.message(team, a1.ID), "🔄")); got.Text != "Only the newest answer here can be made again." || !got.ShowAlert {
		t.Fatalf("a press on the older answer was answered %+v", got)
	}
	h.waitFor("🔄 taken off the older answer", func() bool { return againButton(h.message(team, a1.ID)) == "" })
	if len(h.llm.Requests()) != 2 || h.message(team, a1.ID).Text != a1.Text {
		t.Fatal("a press on the older answer changed it")
	}
}

// A long answer made again as a short one: the first part's message
// carries it, the other parts are deleted.
func TestRegenerateOfALongAnswer(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("A long sentence that goes on and on. ", 250) // three parts
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(long)})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Short now.")})
	h.start()
	q := h.tg.SendText(dm, alice, "tell me at length")
	h.done(q.UpdateID)
	var parts []telegramtest.Message
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ReplyTo == q.ID && !m.Deleted {
			parts = append(parts, m)
		}
	}
	if len(parts) < 2 || againButton(parts[len(parts)-1]) == "" || againButton(parts[0]) != "" {
		t.Fatalf("%d parts, 🔄 on the last %q; want several, 🔄 on the last only", len(parts), againButton(parts[len(parts)-1]))
	}
	h.press(dm, alice, parts[len(parts)-1], "🔄")
	first := parts[0]
	h.waitFor("the short answer in the first part's message", func() bool {
		return strings.Contains(h.message(dm, first.ID).Text, "Short now.")
	})
	h.waitFor("the other parts deleted", func() bool {
		for _, p := range parts[1:] {
			if !h.message(dm, p.ID).Deleted {
				return false
			}
		}
		return true
	})
	if againButton(h.message(dm, first.ID)) == "" {
		t.Fatal("the new answer has no 🔄")
	}
}

// A regenerate cut short by a restart while the model writes resumes in
// the same message, and the answer comes once.
func TestRegenerateResumesAfterACrash(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The first answer.")})
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("never shown"), Hold: hold})
	h.start()
	q := h.tg.SendText(dm, alice, "tell me something")
	a := h.answered(dm, q.ID, "The first answer.")
	h.done(q.UpdateID)
	h.pressAnswer(h.press(dm, alice, h.message(dm, a.ID), "🔄"))
	h.stopButton(dm, q.ID, "🤔")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 2 }); err != nil {
		t.Fatal(err)
	}
	h.stopMain()

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The second answer.")})
	h.start()
	h.waitFor("the second answer in place", func() bool { return strings.Contains(h.message(dm, a.ID).Text, "The second answer.") })
	h.waitFor("the second answer stored", func() bool {
		got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
		return len(got) == 2 && got[1] == "assistant: The second answer."
	})
	if n := len(h.tg.BotMessages(dm.ID)); n != 1 || len(h.tg.Calls("answerCallbackQuery")) != 1 {
		t.Fatalf("%d bot messages, %d press answers; want one of each", n, len(h.tg.Calls("answerCallbackQuery")))
	}
}
