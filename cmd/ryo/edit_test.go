package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
)

// done waits until update id is done.
func (h *harness) done(id int64) {
	h.t.Helper()
	h.waitFor("the update done", func() bool {
		state, _, err := h.db().UpdateState(bg(h.t), id)
		return err == nil && state == memory.StateDone
	})
}

// An edit that arrives while the answer streams cancels it — not shown as
// stopped — and the edited text is answered in the same message.
func TestEditWhileTheAnswerStreams(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Madrid is the capital of Spain.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is the capitol of Spian?")
	status := h.stopButton(dm, q.ID, "✍️ Writing")
	h.done(h.tg.EditText(dm.ID, q.ID, "what is the capital of Spain?"))
	h.waitFor("the edited question answered", func() bool { return strings.Contains(h.message(dm, status.ID).Text, "Madrid") })
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ID != status.ID || strings.Contains(m.Text, "Stopped") || strings.Contains(m.Text, "first half") {
			t.Fatalf("the chat shows %q (message %d); want only the new answer, in message %d", m.Text, m.ID, status.ID)
		}
	}
	if !h.modelSaw(1, "capital of Spain?") || h.modelSaw(1, "capitol") {
		t.Fatal("the model was not asked the edited question")
	}
	h.waitFor("the edited question and its answer stored", func() bool {
		return slices.Equal(history(t, h.db(), ryo.Place{ChatID: dm.ID}),
			[]string{"user: what is the capital of Spain?", "assistant: Madrid is the capital of Spain."})
	})
}

// An edit of the message just answered is answered again, the answer
// edited in place; the history holds the edited question and the new
// answer only.
func TestEditAfterTheAnswer(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Barcelona is a city in Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Madrid is the capital of Spain.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is Barcelona?")
	a := h.answered(dm, q.ID, "Barcelona is a city")
	h.done(q.UpdateID)
	h.done(h.tg.EditText(dm.ID, q.ID, "what is the capital of Spain?"))
	if m := h.message(dm, a.ID); !strings.Contains(m.Text, "Madrid") || againButton(m) == "" {
		t.Fatalf("the answer shows %q with 🔄 %q; want the new answer, with its 🔄", m.Text, againButton(m))
	}
	if n := len(h.tg.BotMessages(dm.ID)); n != 1 {
		t.Fatalf("the chat shows %d messages of the bot; want the one answer", n)
	}
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); !slices.Equal(got,
		[]string{"user: what is the capital of Spain?", "assistant: Madrid is the capital of Spain."}) {
		t.Fatalf("history %q", got)
	}
}

// An edit of an older message changes its stored text only; an edit that
// does not change the text, and an older edit arriving after a newer one,
// change nothing.
func TestEditOfAnOlderMessage(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("One.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Two.")})
	h.start()
	q1 := h.tg.SendText(dm, alice, "first question")
	h.answered(dm, q1.ID, "One.")
	q2 := h.tg.SendText(dm, alice, "second question")
	h.answered(dm, q2.ID, "Two.")
	h.done(q2.UpdateID)
	calls := len(h.tg.Calls("sendMessage")) + len(h.tg.Calls("editMessageText"))

	h.done(h.tg.EditText(dm.ID, q1.ID, "first question, edited"))
	h.done(h.tg.EditText(dm.ID, q1.ID, "first question, edited")) // the same text again
	stale := h.tg.PushUpdate(map[string]any{"edited_message": map[string]any{"message_id": q1.ID, "date": q1.Date.Unix(),
		"edit_date": q1.Date.Unix() - 1, "from": map[string]any{"id": alice.ID, "first_name": "Alice", "username": "alice"},
		"chat": map[string]any{"id": dm.ID, "type": "private", "first_name": "Alice", "username": "alice"}, "text": "an edit made before"}})
	h.done(stale)
	want := []string{"user: first question, edited", "assistant: One.", "user: second question", "assistant: Two."}
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); !slices.Equal(got, want) {
		t.Fatalf("history %q; want %q", got, want)
	}
	if n := len(h.tg.Calls("sendMessage")) + len(h.tg.Calls("editMessageText")); n != calls || len(h.llm.Requests()) != 2 {
		t.Fatalf("edits of an older message sent or edited %d messages and asked the model %d times", n-calls, len(h.llm.Requests()))
	}
}

// In a group, an edit that leaves the message no longer meant for the bot
// changes its stored text only.
func TestGroupEditNoLongerForTheBot(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello, team.")})
	h.start()
	q := h.tg.SendText(team, alice, "@ryo_test_bot hello")
	a := h.answered(team, q.ID, "Hello, team.")
	h.done(q.UpdateID)
	a = h.message(team, a.ID) // as the turn left it: first seen, it may have been on its way there
	h.done(h.tg.EditText(team.ID, q.ID, "hello everyone"))
	if m := h.message(team, a.ID); m.Text != a.Text || len(h.llm.Requests()) != 1 {
		t.Fatalf("the answer became %q after %d model calls; want it unchanged", m.Text, len(h.llm.Requests()))
	}
	got := history(t, h.db(), ryo.Place{ChatID: team.ID, Thread: q.ThreadID})
	if len(got) != 2 || got[0] != "user: hello everyone" {
		t.Fatalf("history %q; want the edited text stored", got)
	}
}

// An edit of a message still waiting behind another turn is answered once
// that message's turn has run: its answer ends up answering the edit.
func TestEditOfAWaitingMessage(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("One."), Hold: hold})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("An answer to the typo.")})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("An answer to the edit.")})
	h.start()
	q1 := h.tg.SendText(dm, alice, "first question")
	h.stopButton(dm, q1.ID, "🤔")
	q2 := h.tg.SendText(dm, alice, "secnod qeustion")
	edit := h.tg.EditText(dm.ID, q2.ID, "second question")
	close(hold)
	h.done(edit)
	a := h.answered(dm, q2.ID, "An answer to the edit.")
	if !h.modelSaw(2, "second question") {
		t.Fatal("the model was not asked the edited question")
	}
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ReplyTo == q2.ID && m.ID != a.ID && !m.Deleted {
			t.Fatalf("a second answer to the edited message: %q", m.Text)
		}
	}
	h.waitFor("the edited question and its answer stored", func() bool {
		got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
		return len(got) == 4 && got[2] == "user: second question" && got[3] == "assistant: An answer to the edit."
	})
}
