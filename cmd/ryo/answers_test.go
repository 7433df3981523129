package main

import (
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
)

// The model is asked for at most RYO_MODEL_NUM_PREDICT tokens; an answer
// Ollama stops there is delivered as far as it got, with a line saying it
// was cut off, and the log names it. The model is not asked again.
func TestCutOffAnswerIsDeliveredAsFarAsItGot(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_MODEL_NUM_PREDICT"] = "40" // the fake's tokens are 4 characters: the envelope stops after 160
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(strings.Repeat("Grüße aus Zürich. ", 30))})
	h.start()
	q := h.tg.SendText(dm, alice, "greet me at length")
	msgs := h.answer(dm, q.ID, "(Cut off here")
	text := msgs[len(msgs)-1].Text
	if !strings.HasPrefix(text, "Grüße aus Zürich. Grüße") || strings.Count(text, "Zürich") > 9 {
		t.Fatalf("answer = %q; want the reply as far as 160 characters of envelope took it", text)
	}
	requests := h.llm.Requests()
	for _, r := range requests {
		if r.Options["num_predict"] != float64(40) {
			t.Fatalf("options = %v; want num_predict 40", r.Options)
		}
	}
	if len(requests) != 1 || !strings.Contains(h.logs.String(), "was cut off") {
		t.Fatalf("%d model calls; log:\n%s\nwant one call and the cut named in the log", len(requests), h.logs.String())
	}
}
