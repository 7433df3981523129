package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// Fifty presses of 🔄 at once by the asker make the answer again once:
// each press is answered once, Telegram refuses nothing, the model is
// asked once more, and the chat goes on as before.
func TestFiftyPressesOfRegenerateAtOnce(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Paris is the capital of Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Madrid is the capital of Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("You are welcome.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is the capital of Spain?")
	a := h.answered(dm, q.ID, "Paris")
	h.done(q.UpdateID)
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	shown := h.message(dm, a.ID)
	var presses []string
	for range 50 {
		presses = append(presses, h.press(dm, alice, shown, "🔄"))
	}
	for _, p := range presses {
		h.pressAnswer(p)
	}
	h.waitFor("the answer made again", func() bool { return strings.Contains(h.message(dm, a.ID).Text, "Madrid") })
	next := h.tg.SendText(dm, alice, "thanks") // behind every press still waiting in the chat's queue
	h.answered(dm, next.ID, "welcome")
	h.done(next.UpdateID)
	if n := len(h.llm.Requests()); n != 3 {
		t.Fatalf("the model was asked %d times; want 3: the question, one regenerate, the thanks", n)
	}
	if n := len(h.tg.Calls("answerCallbackQuery")); n != 50 {
		t.Fatalf("%d answers to 50 presses", n)
	}
	if r := h.tg.Refused(); len(r) != 0 {
		t.Fatalf("Telegram refused %d calls, the first %s", len(r), r[0].Method)
	}
	want := []string{"user: what is the capital of Spain?", "assistant: Madrid is the capital of Spain.",
		"user: thanks", "assistant: You are welcome."}
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); !slices.Equal(got, want) {
		t.Fatalf("history %q; want %q", got, want)
	}
}

// An edit never runs a command: a question edited into /forgetme or
// /reset forgets nothing and sends nothing, its stored text follows the
// edit; a /stop edited into a question is not answered, as it was never
// a question.
func TestAnEditRunsNoCommand(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello, Alice.")})
	h.start()
	q := h.tg.SendText(dm, alice, "hello")
	h.answered(dm, q.ID, "Hello, Alice.")
	h.done(q.UpdateID)
	stop := h.tg.SendText(dm, alice, "/stop")
	h.done(stop.UpdateID)
	calls := len(h.tg.Calls("sendMessage")) + len(h.tg.Calls("editMessageText"))
	h.done(h.tg.EditText(dm.ID, q.ID, "/forgetme"))
	h.done(h.tg.EditText(dm.ID, q.ID, "/reset"))
	h.done(h.tg.EditText(dm.ID, stop.ID, "what is 2 + 2?"))
	if n := len(h.tg.Calls("sendMessage")) + len(h.tg.Calls("editMessageText")); n != calls || len(h.llm.Requests()) != 1 {
		t.Fatalf("the edits sent or edited %d messages and asked the model %d times", n-calls, len(h.llm.Requests()))
	}
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); !slices.Equal(got, []string{"user: /reset", "assistant: Hello, Alice."}) {
		t.Fatalf("history %q; want the two messages kept, the edited text stored", got)
	}
}

// After /reset, 🔄 on an answer from before it makes nothing again: the
// model is not asked, and what /reset set aside stays aside.
func TestRegenerateAfterAReset(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Paris is the capital of Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Never asked.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is the capital of Spain?")
	a := h.answered(dm, q.ID, "Paris")
	h.done(q.UpdateID)
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	r := h.tg.SendText(dm, alice, "/reset")
	h.done(r.UpdateID)
	got := h.pressAnswer(h.press(dm, alice, h.message(dm, a.ID), "🔄"))
	if got.Text == "🔄 Making a new answer…" {
		t.Fatalf("a press after /reset was answered %+v", got)
	}
	if m := h.message(dm, a.ID); !strings.Contains(m.Text, "Paris") || len(h.llm.Requests()) != 1 {
		t.Fatalf("the answer became %q after %d model calls", m.Text, len(h.llm.Requests()))
	}
}

// A long answer made again loses its other parts also when Telegram asks
// to slow down as they are deleted: none of the old answer stays beside
// the new one.
func TestRegenerateOfALongAnswerThroughATooManyRequests(t *testing.T) {
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
	h.tg.FailNext("deleteMessage", 1, telegramtest.APIError{Code: 429, Description: "Too Many Requests: retry after 1", RetryAfter: 1})
	h.pressAnswer(h.press(dm, alice, parts[len(parts)-1], "🔄"))
	h.waitFor("the other parts deleted", func() bool {
		for _, p := range parts[1:] {
			if !h.message(dm, p.ID).Deleted {
				return false
			}
		}
		return true
	})
	if m := h.message(dm, parts[0].ID); !strings.Contains(m.Text, "Short now.") {
		t.Fatalf("the first part shows %q", m.Text)
	}
}

// 🔄 after the chat's model was changed asks the chat's model as it is
// now.
func TestRegenerateAfterTheModelChanged(t *testing.T) {
	h := modelHarness(t)
	h.start()
	q := h.tg.SendText(dm, alice, "hi")
	a := h.answered(dm, q.ID, "hello")
	h.done(q.UpdateID)
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(dm, a.ID)) != "" })
	m := h.tg.SendText(dm, alice, "/model qwen3:8b")
	h.reply(dm, m.ID, "qwen3:8b")
	h.pressAnswer(h.press(dm, alice, h.message(dm, a.ID), "🔄"))
	h.waitFor("the answer made again", func() bool { return len(h.askedModels()) == 2 })
	if got := h.askedModels(); got[1] != "qwen3:8b" {
		t.Fatalf("asked %q; want the chat's new model for the regenerate", got)
	}
}

// An edit in a forum topic is answered in that topic, in place of the
// answer there, though another topic was answered since; the other
// topic's answer and history stay as they were.
func TestEditInATopic(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Barcelona is a city.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Lunch is at noon.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Madrid is the capital.")})
	h.start()
	maths := h.tg.CreateTopic(team, alice, "Geography")
	lunch := h.tg.CreateTopic(team, bob, "Lunch")
	q1 := h.inTopic(maths, alice, "@ryo_test_bot what is Barcelona?")
	a1 := h.answered(team, q1.ID, "Barcelona is a city.")
	h.done(q1.UpdateID)
	q2 := h.inTopic(lunch, bob, "@ryo_test_bot when is lunch?")
	a2 := h.answered(team, q2.ID, "Lunch is at noon.")
	h.done(q2.UpdateID)
	h.done(h.tg.EditText(team.ID, q1.ID, "@ryo_test_bot what is the capital of Spain?"))
	h.waitFor("the edit answered in its topic", func() bool { return strings.Contains(h.message(team, a1.ID).Text, "Madrid") })
	if m := h.message(team, a2.ID); m.Text != a2.Text || h.modelSaw(2, "lunch") {
		t.Fatalf("the other topic's answer shows %q, or its history reached the model", m.Text)
	}
	if got := history(t, h.db(), ryo.Place{ChatID: team.ID, Thread: lunch.ThreadID}); len(got) != 2 || got[1] != "assistant: Lunch is at noon." {
		t.Fatalf("the other topic's history %q", got)
	}
	if got := history(t, h.db(), ryo.Place{ChatID: team.ID, Thread: maths.ThreadID}); len(got) != 2 || got[1] != "assistant: Madrid is the capital." {
		t.Fatalf("the topic's history %q", got)
	}
}

// 🔄 on a long answer whose first message the person deleted: the new
// answer comes as a message of its own, the old answer's other messages
// go, and the chat and the history hold the one new answer.
func TestRegenerateOfAnAnswerWhoseMessageWasDeleted(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("A long sentence that goes on and on. ", 250) // three parts
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(long)})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Short now.")})
	h.start()
	q := h.tg.SendText(dm, alice, "tell me at length")
	h.done(q.UpdateID)
	parts := h.tg.BotMessages(dm.ID)
	h.tg.DeleteMessage(dm.ID, parts[0].ID)
	press := h.tg.PressForged(dm.ID, alice, parts[len(parts)-1].ID, againButton(parts[len(parts)-1]))
	if got := h.pressAnswer(press); got.Text != "🔄 Making a new answer…" {
		t.Fatalf("the press was answered %+v", got)
	}
	h.waitFor("the one new answer shown", func() bool {
		var live []telegramtest.Message
		for _, m := range h.tg.BotMessages(dm.ID) {
			if !m.Deleted {
				live = append(live, m)
			}
		}
		return len(live) == 1 && strings.Contains(live[0].Text, "Short now.") && againButton(live[0]) != ""
	})
	h.waitFor("the new answer stored", func() bool {
		return slices.Equal(history(t, h.db(), ryo.Place{ChatID: dm.ID}), []string{"user: tell me at length", "assistant: Short now."})
	})
}
