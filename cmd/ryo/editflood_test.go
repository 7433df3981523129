package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
)

// Of two edits of the message being answered, the last is answered, also
// when the first still waits in the chat's queue as the second comes:
// the first changes nothing then, and the second must not be taken for an
// edit of an older message.
func TestTheLastOfTwoEditsIsAnswered(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	hold := make(chan struct{})
	h.llm.Enqueue(slowAnswer(pause))
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("An answer to the second question."), Hold: hold})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("An answer to the last edit.")})
	h.start()
	q1 := h.tg.SendText(dm, alice, "what is the capitol of Spian?")
	h.stopButton(dm, q1.ID, "✍️ Writing")
	q2 := h.tg.SendText(dm, alice, "second question")
	first := h.tg.EditText(dm.ID, q1.ID, "what is the capital of Spian?")
	h.stopButton(dm, q2.ID, "🤔") // the first question's turn is gone; the first edit waits behind the second
	last := h.tg.EditText(dm.ID, q1.ID, "what is the capital of Spain?")
	h.waitFor("the last edit judged", func() bool {
		state, _, err := h.db().UpdateState(bg(t), last)
		turn, err2 := h.db().Turn(bg(t), last)
		return err == nil && err2 == nil && (state == memory.StateDone || turn.StatusMessageID != 0)
	})
	close(hold)
	h.done(first)
	h.done(last)
	h.answered(dm, q2.ID, "An answer to the second question.")
	h.answered(dm, q1.ID, "An answer to the last edit.")
	if !h.modelSaw(2, "capital of Spain?") {
		t.Fatal("the model was not asked the last edit")
	}
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ReplyTo == q1.ID && !m.Deleted && !strings.Contains(m.Text, "last edit") {
			t.Fatalf("the first question is also answered with %q", m.Text)
		}
	}
}

// Twenty edits of the message being answered, sent within a second: the
// last is answered, once, in the status message; the model is asked a
// few times at most (an edit's turn may begin before the next edit comes,
// and is then cancelled); the history holds the last text and its answer.
func TestAnEditFlood(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	edit := regexp.MustCompile(`edit \d+`)
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		said := ""
		for _, m := range r.Messages {
			if m.Role == "user" {
				said = m.Content
			}
		}
		return ollamatest.Reply{Content: envelope("An answer to " + edit.FindString(said) + ".")}
	})
	h.start()
	q := h.tg.SendText(dm, alice, "edit 0")
	status := h.stopButton(dm, q.ID, "✍️ Writing")
	var edits []int64
	for i := 1; i <= 20; i++ {
		edits = append(edits, h.tg.EditText(dm.ID, q.ID, "edit "+strconv.Itoa(i)))
	}
	for _, e := range edits {
		h.done(e)
	}
	h.waitFor("the last edit answered", func() bool { return strings.Contains(h.message(dm, status.ID).Text, "An answer to edit 20.") })
	if n := len(h.llm.Requests()); n > 6 {
		t.Fatalf("the model was asked %d times for 20 edits", n)
	}
	if n := len(h.tg.BotMessages(dm.ID)); n != 1 {
		t.Fatalf("the chat shows %d messages of the bot; want the one answer", n)
	}
	h.waitFor("the last edit and its answer stored", func() bool {
		return slices.Equal(history(t, h.db(), ryo.Place{ChatID: dm.ID}), []string{"user: edit 20", "assistant: An answer to edit 20."})
	})
}
