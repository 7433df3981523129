package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ryo-bot/ryo/memory"
)

// /model under attack: a name of 200 characters or with hostile ones is
// refused in one readable line; a model removed between the list and the
// press is not chosen; the model server gone during /model and during a
// press gets a clear sentence, and the bot goes on.
func TestModelChoiceUnderAttack(t *testing.T) {
	h := modelHarness(t)
	h.start()
	for _, name := range []string{strings.Repeat("m", 200), "evil\u202e:latest", "<b>x</b>", "qwen3:8b\u200b", "../../etc/passwd", "qwen3:８b"} {
		q := h.tg.SendText(dm, alice, "/model "+name)
		got := h.reply(dm, q.ID, "is not installed")
		if utf8.RuneCountInString(got.Text) > 400 || strings.Contains(got.Text, strings.Repeat("m", 81)) {
			t.Errorf("/model %.20q was answered at length: %d characters", name, utf8.RuneCountInString(got.Text))
		}
		if strings.ContainsRune(got.Text, '\u202e') {
			t.Errorf("/model %q was answered with its direction override, which turns the bot's sentence around: %q", name, got.Text)
		}
	}
	if got, err := h.db().ModelChoice(t.Context(), dm.ID); err != nil || got != (memory.ModelChoice{}) {
		t.Fatalf("after hostile names the choice is %+v, %v", got, err)
	}
	q := h.tg.SendText(team, alice, "/model")
	list := h.reply(team, q.ID, "Answering here")
	h.pressAnswer(h.press(team, alice, list, "tinyllama:1.1b"))
	h.waitFor("the model's card", func() bool { return strings.Contains(h.message(team, list.ID).Text, "🤖 tinyllama:1.1b") })
	card := h.message(team, list.ID)
	h.llm.Remove("tinyllama:1.1b")
	if a := h.pressAnswer(h.press(team, alice, card, "✅ Answer here")); !strings.Contains(a.Text, "no longer installed") {
		t.Fatalf("a press for a model removed since was answered %+v", a)
	}
	h.llm.Close()
	if a := h.pressAnswer(h.press(team, alice, card, "⭐ Make default")); !strings.Contains(a.Text, "model server did not answer") {
		t.Fatalf("a press with the model server gone was answered %+v", a)
	}
	q = h.tg.SendText(team, alice, "/model")
	if got := h.reply(team, q.ID, "Answering here"); !strings.Contains(got.Text, "model server did not answer") {
		t.Fatalf("/model with the model server gone = %q", got.Text)
	}
	if got, err := h.db().ModelChoice(t.Context(), team.ID); err != nil || got != (memory.ModelChoice{}) {
		t.Fatalf("after the presses the choice is %+v, %v", got, err)
	}
}
