package main

import (
	"strings"
	"testing"
)

// Issue 19's "done when", as a new admin would try it: a group is
// switched to another model and given a persona with buttons only, its
// next answer comes from that model in that persona, and /stats shows the
// group's usage with a chart.
func TestAGroupIsSetUpWithButtonsAndMeasured(t *testing.T) {
	h := modelHarness(t)
	h.start()

	q := h.tg.SendText(team, alice, "/model")
	list := h.reply(team, q.ID, "Answering here: llama3.2")
	h.pressAnswer(h.press(team, alice, list, "qwen3:8b"))
	h.waitFor("the model's card", func() bool { return strings.Contains(h.message(team, list.ID).Text, "🤖 qwen3:8b") })
	if a := h.pressAnswer(h.press(team, alice, h.message(team, list.ID), "✅ Answer here")); !strings.Contains(a.Text, "qwen3:8b answers here") {
		t.Fatalf("choosing the model was answered %+v", a)
	}

	q = h.tg.SendText(team, alice, "/settings")
	s := h.reply(team, q.ID, "Settings of this chat")
	h.pressAnswer(h.press(team, alice, s, "🎭 Persona"))
	h.waitFor("the personas", func() bool { return strings.Contains(h.message(team, s.ID).Text, "Choose one below") })
	if a := h.pressAnswer(h.press(team, bob, h.message(team, s.ID), "🧑‍🏫 Patient teacher")); !a.ShowAlert {
		t.Fatalf("a member's choice of persona was answered %+v", a)
	}
	if a := h.pressAnswer(h.press(team, alice, h.message(team, s.ID), "🧑‍🏫 Patient teacher")); !strings.Contains(a.Text, "The persona is set") {
		t.Fatalf("choosing the persona was answered %+v", a)
	}
	h.waitFor("the settings to show it", func() bool { return strings.Contains(h.message(team, s.ID).Text, "Persona: “A patient teacher") })

	q = h.tg.SendText(team, bob, "@ryo_test_bot what is a prime number?")
	h.answer(team, q.ID, "hello")
	asked := h.lastRequest()
	if asked.Model != "qwen3:8b" || !strings.Contains(asked.Messages[0].Content, "--- persona begins ---\nA patient teacher: explains step by step") {
		t.Fatalf("the group's turn asked %s with the system prompt:\n%s", asked.Model, asked.Messages[0].Content)
	}

	q = h.tg.SendText(team, alice, "/stats")
	stats := reply(h, team, q.ID, "Usage in this group")
	for _, want := range []string{"1 answer", "qwen3:8b — 1 answer"} {
		if !strings.Contains(stats.Text, want) {
			t.Errorf("/stats lacks %q:\n%s", want, stats.Text)
		}
	}
	h.waitFor("the chart", func() bool { return len(photos(h, team)) == 1 })
	if chart := photos(h, team)[0]; len(chart.Photo.Data) < 5000 || chart.ReplyTo != q.ID {
		t.Fatalf("the chart is %d bytes, replying to %d", len(chart.Photo.Data), chart.ReplyTo)
	}
}
