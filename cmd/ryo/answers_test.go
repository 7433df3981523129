package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
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

// longMarkdown is about 20,000 characters of Markdown in several scripts,
// too long for three messages.
func longMarkdown() string {
	var b strings.Builder
	for i := 1; b.Len() < 20_000; i++ {
		fmt.Fprintf(&b, "## Раздел %d 🏔\n\nZürich, **Grüße** and `code %d`: a paragraph long enough to need a few lines of its own. 日本語も.\n\n", i, i)
	}
	return b.String()
}

// An answer too long for three messages arrives as one message — its
// first part, pointing to the file — and the whole answer, byte for byte,
// as the Markdown file answer-<update id>.md, in a private chat (where the
// reply streamed into a draft) as in a supergroup.
func TestAnswerTooLongForMessagesComesAsAFile(t *testing.T) {
	group := telegramtest.NewSupergroup("Team")
	h := newHarness(t)
	h.env["RYO_MODEL_NUM_PREDICT"] = "10000" // the fake's tokens are 4 characters: the answer is not cut off
	answer := longMarkdown()
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(answer)}, ollamatest.Reply{Content: envelope(answer)})
	h.start()
	for _, c := range []struct {
		chat telegramtest.Chat
		text string
	}{{dm, "tell me everything"}, {group, "@ryo_test_bot tell me everything"}} {
		q := h.tg.SendText(c.chat, alice, c.text)
		var msgs []telegramtest.Message
		// 20,000 characters stream as 5,000 pieces: under the race detector
		// on a busy machine that takes a while.
		h.waitWithin(2*time.Minute, "the answer and its file", func() bool {
			msgs = h.tg.BotMessages(c.chat.ID)
			return len(msgs) == 2 && msgs[1].Document != nil && updateState(t, h.db(), ryo.Place{ChatID: c.chat.ID}) == "done"
		})
		first, file := msgs[0], msgs[1]
		shown, _ := display(t, first)
		if !strings.HasPrefix(shown, "Раздел 1 🏔") || !strings.HasSuffix(shown, "… the whole answer is in the file below") || first.ReplyTo != q.ID {
			t.Fatalf("chat %d: the message shows %q…%q", c.chat.ID, shown[:30], shown[len(shown)-50:])
		}
		want := fmt.Sprintf("answer-%d.md", q.UpdateID)
		if d := file.Document; d.FileName != want || string(d.Data) != strings.TrimSpace(answer)+"\n" || file.ReplyTo != q.ID {
			t.Fatalf("chat %d: file %q of %d bytes replying to %d; want %s holding the whole answer, replying to %d",
				c.chat.ID, d.FileName, len(d.Data), file.ReplyTo, want, q.ID)
		}
	}
	if n := len(h.tg.Calls("sendDocument")); n != 2 {
		t.Fatalf("%d sendDocument calls; want one a chat", n)
	}
}

// An answer of exactly three parts still comes as three messages.
func TestAnswerOfThreePartsComesAsMessages(t *testing.T) {
	answer := strings.Repeat("Grüße aus Zürich, 🏔 ", 560)
	if n := len(render.Markdown(answer, render.MaxUnits)); n != 3 {
		t.Fatalf("the answer renders as %d parts; the test wants 3", n)
	}
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(answer)})
	h.start()
	q := h.tg.SendText(dm, alice, "greet me at length")
	h.answer(dm, q.ID, "(3/3)")
	msgs := h.tg.BotMessages(dm.ID)
	if len(msgs) != 3 || len(h.tg.Calls("sendDocument")) != 0 {
		t.Fatalf("%d bot messages, %d files; want three parts and no file", len(msgs), len(h.tg.Calls("sendDocument")))
	}
}
