package main

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
)

// The built binary, killed with SIGKILL while it answers an edit of the
// message it had just answered, answers the edit once after it starts
// again: in the same message, the history holding the edited question and
// that one answer.
func TestKill9DuringAnEditsAnswerAnswersOnce(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Barcelona is a city in Spain.")})
	h.llm.Enqueue(ollamatest.Reply{Hold: hold})

	first := h.startBinary(bin)
	q := h.tg.SendText(dm, alice, "what is Barcelona?")
	a := h.answered(dm, q.ID, "Barcelona is a city")
	h.done(q.UpdateID)
	h.tg.EditText(dm.ID, q.ID, "what is the capital of Spain?")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 2 }); err != nil {
		t.Fatal(err)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Madrid is the capital of Spain.")})
	second := h.startBinary(bin)
	h.waitFor("the edit answered in place", func() bool { return strings.Contains(h.message(dm, a.ID).Text, "Madrid") })
	want := []string{"user: what is the capital of Spain?", "assistant: Madrid is the capital of Spain."}
	h.waitFor("the edited question and one answer stored", func() bool {
		return slices.Equal(history(t, h.db(), ryo.Place{ChatID: dm.ID}), want)
	})
	var shown []string
	for _, m := range h.tg.BotMessages(dm.ID) {
		if !m.Deleted {
			shown = append(shown, m.Text)
		}
	}
	if len(shown) != 1 || againButton(h.message(dm, a.ID)) == "" {
		t.Fatalf("the chat shows %q, 🔄 %q; want the one answer, with its 🔄", shown, againButton(h.message(dm, a.ID)))
	}
	second.Process.Signal(syscall.SIGTERM)
	second.Wait()
}
