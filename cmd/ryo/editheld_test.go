package main

import (
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
)

// An edit of a question whose answer waits for a confirmation changes
// only the stored text: the prompt stays as it is, nothing runs, the
// model is not asked; a yes then runs the action the prompt shows, once.
func TestEditWhileAConfirmationWaits(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("shopping list")},
		ollamatest.Reply{Content: envelope("Done — the note “shopping list” is gone.")})
	h.start()
	q := h.tg.SendText(dm, alice, "delete my shopping list note")
	p := h.prompt(dm)
	h.answer(dm, q.ID, "I'll delete that note once you confirm.")
	h.done(q.UpdateID)
	calls := len(h.tg.Calls("sendMessage")) + len(h.tg.Calls("editMessageText"))
	h.done(h.tg.EditText(dm.ID, q.ID, "delete my diary note"))
	if n := len(h.tg.Calls("sendMessage")) + len(h.tg.Calls("editMessageText")); n != calls || len(h.llm.Requests()) != 1 || len(notes.runs()) != 0 {
		t.Fatalf("the edit sent or edited %d messages, asked the model %d times, ran %v", n-calls, len(h.llm.Requests()), notes.runs())
	}
	if !hasPrompt(h.message(dm, p.ID)) {
		t.Fatal("the edit took the prompt's buttons")
	}
	h.pressAnswer(h.press(dm, alice, h.message(dm, p.ID), "✅"))
	h.answer(dm, p.ID, "is gone")
	if got := notes.runs(); len(got) != 1 || got[0] != "shopping list" {
		t.Fatalf("deleted %v; want the note the prompt showed, once", got)
	}
}
