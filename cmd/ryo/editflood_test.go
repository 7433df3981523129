package main

import (
	"strings"
	"testing"

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
