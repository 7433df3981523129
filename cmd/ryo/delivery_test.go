package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// display is what the person sees of a bot message: its text and the kinds
// of formatting in it.
func display(t *testing.T, m telegramtest.Message) (string, []string) {
	t.Helper()
	var v struct {
		Text     string `json:"text"`
		Entities []struct {
			Type string `json:"type"`
		} `json:"entities"`
	}
	if err := json.Unmarshal(m.Raw, &v); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range v.Entities {
		if !slices.Contains(kinds, e.Type) {
			kinds = append(kinds, e.Type)
		}
	}
	return v.Text, kinds
}

// edits returns the texts the bot's status edits showed, in order.
func edits(h *harness) []string {
	var out []string
	for _, c := range h.tg.Calls("editMessageText") {
		if c.Err == nil {
			out = append(out, c.Params["text"])
		}
	}
	return out
}

func anyContains(texts []string, sub string) bool {
	for _, s := range texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// A turn with a tool and a slowly streamed reply shows its stages as they
// happen, in the status message, and ends with the answer in its place.
func TestTurnShowsItsStagesLive(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_DRAFTS"] = "off"
	pause := make(chan struct{})
	answer := envelope("6 × 7 = 42. That is the answer to everything, they say.")
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"6*7"}`)},
		ollamatest.Reply{Chunks: split(answer, 8), Pause: pause, PauseAfter: 4})
	h.start()
	q := h.tg.SendText(dm, alice, "what is 6*7?")
	h.waitFor("the reply streaming into the status message", func() bool {
		msgs := h.tg.BotMessages(dm.ID)
		return len(msgs) == 1 && strings.Contains(msgs[0].Text, "✍️ Writing") && strings.Contains(msgs[0].Text, "6 × 7 =")
	})
	status := h.tg.BotMessages(dm.ID)[0]
	if status.ReplyTo != q.ID || !strings.Contains(status.Text, "✅ calculate — expression: 6*7") {
		t.Fatalf("status message = %q replying to %d; want the tool that ran, as a reply to the question", status.Text, status.ReplyTo)
	}
	close(pause)
	msgs := h.answer(dm, q.ID, "they say.")
	if len(msgs) != 1 || msgs[0].ID != status.ID {
		t.Fatalf("bot messages = %d; want the status message turned into the answer", len(msgs))
	}
	if len(h.tg.Calls("sendChatAction")) == 0 {
		t.Error("no typing was shown")
	}
	if shown := edits(h); anyContains(shown[:len(shown)-1], "they say") {
		t.Fatalf("edits %q: the whole answer appeared before it was finished", shown)
	}
}

// split cuts s into pieces of n bytes (on rune boundaries for ASCII-heavy
// text; the pieces are joined again by the client).
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && !isRuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// In a private chat the reply streams into a draft; the answer then comes
// as a real message, and the status message of the quick turn goes away.
func TestPrivateChatStreamsIntoADraft(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	answer := envelope("Drafts show the answer as it is written.")
	h.llm.Enqueue(ollamatest.Reply{Chunks: split(answer, 8), Pause: pause, PauseAfter: 4})
	h.start()
	q := h.tg.SendText(dm, alice, "show me a draft")
	h.waitFor("a draft", func() bool { return len(h.tg.Calls("sendMessageDraft")) > 0 })
	draft := h.tg.Calls("sendMessageDraft")[0].Params["text"]
	if !strings.HasPrefix(draft, "Drafts show") || strings.Contains(draft, "written.") {
		t.Fatalf("draft = %q; want the reply so far", draft)
	}
	close(pause)
	h.answer(dm, q.ID, "as it is written.")
	h.waitFor("the status message removed", func() bool { return len(h.tg.BotMessages(dm.ID)) == 1 })
	if m := h.tg.BotMessages(dm.ID)[0]; m.Edits != 0 || m.Text != "Drafts show the answer as it is written." {
		t.Fatalf("the chat shows %q (edited %d times); want the answer alone, as a new message", m.Text, m.Edits)
	}
}

// Where drafts fail, the turn shows the reply in the status message instead.
func TestFailingDraftsFallBackToStatusEdits(t *testing.T) {
	h := newHarness(t)
	h.tg.FailNext("sendMessageDraft", 100, telegramtest.APIError{Code: 400, Description: "Bad Request: TEXTDRAFT_PEER_INVALID"})
	pause := make(chan struct{})
	h.llm.Enqueue(ollamatest.Reply{Chunks: split(envelope("Shown by edits after all."), 8), Pause: pause, PauseAfter: 4})
	h.start()
	q := h.tg.SendText(dm, alice, "drafts are broken here")
	h.waitFor("the reply in the status message", func() bool {
		msgs := h.tg.BotMessages(dm.ID)
		return len(msgs) == 1 && strings.Contains(msgs[0].Text, "Shown by")
	})
	close(pause)
	h.answer(dm, q.ID, "Shown by edits after all.")
	if !strings.Contains(h.logs.String(), "drafts do not work here") {
		t.Fatal("the log does not say drafts were given up")
	}
}

// An answer that took longer than RYO_NOTIFY_AFTER arrives as a new
// message, and the status message keeps one line about the turn.
func TestSlowAnswerArrivesAsANewMessage(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_NOTIFY_AFTER"] = "1ms"
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"2+2"}`)}, ollamatest.Reply{Content: envelope("2 + 2 = 4")})
	h.start()
	q := h.tg.SendText(dm, alice, "2+2?")
	msgs := h.answer(dm, q.ID, "2 + 2 = 4")
	h.waitFor("the status message collapsed", func() bool {
		msgs = h.tg.BotMessages(dm.ID)
		return len(msgs) == 2 && strings.HasPrefix(msgs[0].Text, "✅ Answered in")
	})
	if !strings.HasSuffix(msgs[0].Text, "· used calculate") || msgs[1].Edits != 0 || msgs[1].ReplyTo != q.ID {
		t.Fatalf("bot messages = %q, %q; want the summary, then the answer as a new reply", msgs[0].Text, msgs[1].Text)
	}
}

// A long answer full of Markdown arrives complete, formatted, in parts
// marked (k/n) that Telegram accepts.
func TestLongMarkdownAnswerArrivesFormatted(t *testing.T) {
	h := newHarness(t)
	var md strings.Builder
	md.WriteString("# Report\n\nThe **short** version: everything _works_.\n\n| metric | value |\n|---|---:|\n| turns | 5000 |\n| 429s | 0 |\n\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&md, "%d. Point %d is **important** and has `code`, a [link](https://example.com/%d) and some more words to fill the line.\n", i, i, i)
	}
	md.WriteString("\n```go\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&md, "fmt.Println(%d) // a line of code that is long enough\n", i)
	}
	md.WriteString("```\n\nThe end.")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(md.String())})
	h.start()
	q := h.tg.SendText(dm, alice, "write a long report")
	h.answer(dm, q.ID, "The end.")
	msgs := h.tg.BotMessages(dm.ID)
	if len(msgs) < 3 {
		t.Fatalf("%d bot messages; want the report in several parts", len(msgs))
	}
	var all strings.Builder
	kinds := map[string]bool{}
	for i, m := range msgs {
		text, entities := display(t, m)
		if m.ParseMode != "HTML" || !strings.HasSuffix(text, fmt.Sprintf("(%d/%d)", i+1, len(msgs))) {
			t.Fatalf("part %d: parse mode %q, ends %q", i+1, m.ParseMode, text[max(0, len(text)-12):])
		}
		for _, k := range entities {
			kinds[k] = true
		}
		all.WriteString(text)
	}
	for _, k := range []string{"bold", "italic", "code", "pre", "text_link"} {
		if !kinds[k] {
			t.Errorf("no %s entity in the answer; got %v", k, kinds)
		}
	}
	for _, want := range []string{"Report", "Point 1 is important", "Point 60 is", "fmt.Println(0)", "fmt.Println(59)", "turns", "The end."} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the answer lost %q", want)
		}
	}
}

// When Telegram refuses the formatting after all, the answer is sent again
// as plain text rather than lost.
func TestRefusedFormattingIsResentAsPlainText(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Some **bold** words.")})
	h.start()
	h.tg.FailNext("editMessageText", 1, telegramtest.APIError{Code: 400, Description: "Bad Request: can't parse entities: unsupported start tag"})
	q := h.tg.SendText(dm, alice, "format this")
	msgs := h.answer(dm, q.ID, "Some bold words.")
	if msgs[0].ParseMode != "" || msgs[0].Text != "Some bold words." {
		t.Fatalf("answer = %q (parse mode %q); want it as plain text", msgs[0].Text, msgs[0].ParseMode)
	}
}

// Telegram's 429 delays the answer by its retry_after, and nothing is lost.
func TestTooManyRequestsDelaysDeliveryAndLosesNothing(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Worth the wait.")})
	h.start()
	h.tg.FailNext("editMessageText", 1, telegramtest.TooManyRequests(2))
	q := h.tg.SendText(dm, alice, "are you there?")
	h.answer(dm, q.ID, "Worth the wait.")
	calls := h.tg.Calls("editMessageText")
	if len(calls) != 2 || calls[0].Err == nil || calls[0].Err.Code != http.StatusTooManyRequests || calls[1].Err != nil {
		t.Fatalf("edits = %+v; want one refused with 429, then the answer", calls)
	}
	if waited := calls[1].At.Sub(calls[0].At); waited < 2*time.Second {
		t.Fatalf("the answer was sent again after %v; want no earlier than retry_after (2s)", waited)
	}
	if !strings.Contains(h.logs.String(), "telegram flood control: waiting") {
		t.Fatal("the log does not mention the 429")
	}
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); len(got) != 2 {
		t.Fatalf("history = %q", got)
	}
}

// A burst of people writing at once, with Telegram enforcing its flood
// limits: the bot is never refused, and everyone gets every answer.
func TestBurstOfChatsStaysWithinTelegramsLimits(t *testing.T) {
	h := newHarness(t, floodControl)
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		return ollamatest.Reply{Content: envelope("Answer to " + last[strings.LastIndex(last, "question"):])}
	})
	h.start()
	type asked struct {
		chat telegramtest.Chat
		q    telegramtest.Message
		text string
	}
	var all []asked
	for i := 0; i < 48; i++ { // one question each: one person's questions waiting together are answered as one
		user := telegramtest.NewUser(fmt.Sprintf("P%d", i), "")
		chat := telegramtest.PrivateChat(user)
		text := fmt.Sprintf("question from %d", chat.ID)
		all = append(all, asked{chat, h.tg.SendText(chat, user, text), text})
	}
	for i := 0; i < 3; i++ {
		group := telegramtest.NewSupergroup(fmt.Sprintf("G%d", i))
		for n := 1; n <= 3; n++ {
			user := telegramtest.NewUser(fmt.Sprintf("U%d", n), "")
			text := fmt.Sprintf("@ryo_test_bot question %d in %d", n, group.ID)
			all = append(all, asked{group, h.tg.SendText(group, user, text), text})
		}
	}
	for _, a := range all {
		h.answer(a.chat, a.q.ID, "Answer to "+a.text[strings.Index(a.text, "question"):])
	}
	if refused := h.tg.Refused(); len(refused) != 0 {
		for _, c := range refused {
			t.Errorf("refused: %s in chat %s at %v: %s", c.Method, c.Params["chat_id"], c.At.Format("15:04:05.000"), c.Err.Description)
		}
		for _, c := range h.tg.Calls("") {
			if c.Method != "getUpdates" {
				code := 0
				if c.Err != nil {
					code = c.Err.Code
				}
				t.Logf("CALL %d %s %s %d", c.At.UnixNano(), c.Method, c.Params["chat_id"], code)
			}
		}
		t.FailNow()
	}
	for _, c := range h.tg.Calls("") {
		if c.Err != nil && c.Err.Code == http.StatusTooManyRequests {
			t.Fatalf("a 429 for %s", c.Method)
		}
	}
}
