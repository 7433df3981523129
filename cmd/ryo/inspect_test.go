package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// inspectButton is the data of m's 🔍 button; "" when it has none.
func inspectButton(m telegramtest.Message) string {
	for _, row := range m.Buttons() {
		for _, b := range row {
			if b.Text == "🔍" {
				return b.Data
			}
		}
	}
	return ""
}

// traces are the bot's messages in chat that show a trace.
func (h *harness) traces(chat telegramtest.Chat) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range h.tg.BotMessages(chat.ID) {
		if strings.Contains(m.Text, "How this answer came about") {
			out = append(out, m)
		}
	}
	return out
}

// inspect presses 🔍 on message m in chat as user and returns the answer
// to the press.
func (h *harness) inspect(chat telegramtest.Chat, user telegramtest.User, m telegramtest.Message) telegramtest.CallbackAnswer {
	h.t.Helper()
	id, err := h.tg.Press(chat.ID, user, m.ID, inspectButton(m))
	if err != nil {
		h.t.Fatal(err)
	}
	return h.pressAnswer(id)
}

// In a group, 🔍 under an answer that used tools opens the trace in the
// presser's private chat and shows nothing in the group: for the asker, for
// ryo's admins and the group's administrators, never for a stranger; someone
// who never opened a private chat is told to. An answer without tools has
// no 🔍, and forged data is refused. Every press is answered once.
func TestInspectorOpensPrivately(t *testing.T) {
	h := newHarness(t)
	carol := telegramtest.NewUser("Carol", "carol") // ryo's admin, with a private chat
	erin := telegramtest.NewUser("Erin", "erin")    // the group's administrator, never wrote privately
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(carol.ID)
	ops := telegramtest.NewSupergroup("Ops")
	h.tg.SetMember(ops, erin, telegramtest.StatusAdministrator)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello there.")},
		ollamatest.Reply{Content: command("calculate", `{"expression":"6*7"}`)},
		ollamatest.Reply{Content: envelope("6 × 7 = 42")})
	h.start()
	for _, u := range []telegramtest.User{alice, carol} {
		h.tg.SendText(telegramtest.PrivateChat(u), u, "/start")
		h.waitFor("the greeting", func() bool { return len(h.tg.BotMessages(telegramtest.PrivateChat(u).ID)) == 1 })
	}
	plain := h.tg.SendText(ops, alice, "@ryo_test_bot hello")
	hello := h.answered(ops, plain.ID, "Hello there.")
	h.waitFor("the answer's buttons", func() bool { return againButton(h.message(ops, hello.ID)) != "" })
	if d := inspectButton(h.message(ops, hello.ID)); d != "" {
		t.Fatalf("an answer without tools carries 🔍 %q", d)
	}
	q := h.tg.SendText(ops, alice, "@ryo_test_bot what is 6*7")
	a := h.answered(ops, q.ID, "42")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(ops, a.ID)) != "" })
	a = h.message(ops, a.ID)
	want := "i1:" + strconv.FormatInt(q.UpdateID, 10) + ":" + strconv.FormatInt(ops.ID, 10)
	if got := inspectButton(a); got != want {
		t.Fatalf("🔍 data %q; want %q", got, want)
	}
	inGroup := len(h.tg.Messages(ops.ID))

	if r := h.inspect(ops, alice, a); r.Text != "🔍 Sent to our private chat." || r.ShowAlert {
		t.Fatalf("the asker's press was answered %+v", r)
	}
	h.waitFor("the trace in Alice's private chat", func() bool { return len(h.traces(dm)) == 1 })
	trace := h.traces(dm)[0]
	for _, s := range []string{"Model: llama3.2", "🔧 calculate", "✅ ok", "6*7", `"result":42`, "2 model calls, 1 tool call"} {
		if !strings.Contains(trace.Text, s) {
			t.Errorf("the trace lacks %q:\n%s", s, trace.Text)
		}
	}
	if trace.ReplyTo != 0 || len(trace.Buttons()) != 0 {
		t.Errorf("the trace replies to %d with %v; want a message of its own", trace.ReplyTo, trace.Buttons())
	}

	if r := h.inspect(ops, bob, a); !r.ShowAlert || !strings.Contains(r.Text, "Only the person who asked") {
		t.Fatalf("a stranger's press was answered %+v", r)
	}
	if r := h.inspect(ops, erin, a); !r.ShowAlert || !strings.Contains(r.Text, "@ryo_test_bot") {
		t.Fatalf("a press by someone without a private chat was answered %+v", r)
	}
	if r := h.inspect(ops, carol, a); r.ShowAlert {
		t.Fatalf("the admin's press was answered %+v", r)
	}
	h.waitFor("the trace in Carol's private chat", func() bool { return len(h.traces(telegramtest.PrivateChat(carol))) == 1 })

	other := telegramtest.NewSupergroup("Elsewhere")
	for data, answer := range map[string]string{
		"i1:" + strconv.FormatInt(q.UpdateID, 10) + ":" + strconv.FormatInt(other.ID, 10):    "does not belong to this chat",
		"i1:" + strconv.FormatInt(q.UpdateID+1000, 10) + ":" + strconv.FormatInt(ops.ID, 10): "no longer kept",
		"i1:0" + strconv.FormatInt(q.UpdateID, 10) + ":" + strconv.FormatInt(ops.ID, 10):     "no longer works",
		"i1:" + strconv.FormatInt(plain.UpdateID, 10) + ":" + strconv.FormatInt(ops.ID, 10):  "Sent to our private chat", // Alice's own turn, no tools: its trace is hers
	} {
		if r := h.pressAnswer(h.tg.PressForged(ops.ID, alice, a.ID, data)); !strings.Contains(r.Text, answer) {
			t.Errorf("forged %q was answered %+v; want %q", data, r, answer)
		}
	}
	// The group's button replayed in Alice's private chat shows nothing.
	if r := h.pressAnswer(h.tg.PressForged(dm.ID, alice, trace.ID, want)); !strings.Contains(r.Text, "does not belong") {
		t.Errorf("the group's data pressed in a private chat was answered %+v", r)
	}
	if n := len(h.tg.Messages(ops.ID)); n != inGroup {
		t.Errorf("the group got %d messages from the presses", n-inGroup)
	}
	if n := len(h.tg.BotMessages(bobDM.ID)) + len(h.tg.BotMessages(telegramtest.PrivateChat(erin).ID)); n != 0 {
		t.Errorf("%d messages went to the private chats of people who may not see the trace", n)
	}
	presses := 4 + 5
	if n := len(h.tg.Calls("answerCallbackQuery")); n != presses {
		t.Errorf("%d answers to %d presses", n, presses)
	}
}

// A tool that answers a megabyte leaves a bounded trace: the message fits
// one Telegram message and the whole trace, each field cut to a few KB,
// comes as a file. The trace is read from PostgreSQL: 🔍 works after a
// restart.
func TestInspectorBoundedAfterRestart(t *testing.T) {
	h := newHarness(t)
	huge := strings.Repeat("<b>‮", 300*1024) // over a megabyte of hostile text
	h.tools = []toolbus.Spec{{Name: "big_lookup", Description: "Looks up a great deal.", Category: toolbus.MathFinance,
		Schema:    json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`),
		Examples:  []toolbus.Example{{Question: "Look up tea.", Arguments: json.RawMessage(`{"q":"tea"}`)}},
		MaxResult: 4 << 20,
		Tool:      toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return huge, nil })}}
	h.llm.Enqueue(ollamatest.Reply{Content: command("big_lookup", `{"q":"tea"}`)},
		ollamatest.Reply{Content: envelope("Tea is a drink.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	a := h.answered(dm, q.ID, "Tea is a drink.")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	h.stopMain()

	h.start()
	if r := h.inspect(dm, alice, h.message(dm, a.ID)); r.Text != "🔍 Sent to our private chat." {
		t.Fatalf("the press after a restart was answered %+v", r)
	}
	var file *telegramtest.Document
	h.waitFor("the trace and its file", func() bool {
		for _, m := range h.tg.BotMessages(dm.ID) {
			if m.Document != nil && strings.HasPrefix(m.Document.FileName, "trace-") {
				file = m.Document
			}
		}
		return file != nil && len(h.traces(dm)) == 1
	})
	msg := h.traces(dm)[0]
	if !strings.Contains(msg.Text, "MB in all") || !strings.Contains(msg.Text, "⟨U+202E⟩") || strings.Contains(msg.Text, "\u202E") {
		t.Errorf("the trace message does not note the full size, or shows the override:\n%.800s", msg.Text)
	}
	if len(file.Data) > 64<<10 || !strings.Contains(string(file.Data), "🔧 big_lookup") {
		t.Errorf("the trace file is %d bytes:\n%.400s", len(file.Data), file.Data)
	}
}

// The answer that goes on after a confirmed action carries 🔍, and its
// trace shows the action's tool, marked confirmed, with what it did.
func TestInspectorShowsAConfirmedAction(t *testing.T) {
	h, _ := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("shopping list")},
		ollamatest.Reply{Content: envelope("Done — the note is gone.")})
	h.start()
	h.tg.SendText(dm, alice, "delete my shopping list note")
	p := h.prompt(dm)
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	a := h.answered(dm, p.ID, "the note is gone")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	if r := h.inspect(dm, alice, h.message(dm, a.ID)); r.Text != "🔍 Sent to our private chat." {
		t.Fatalf("the press was answered %+v", r)
	}
	h.waitFor("the trace", func() bool { return len(h.traces(dm)) == 1 })
	trace := h.traces(dm)[0].Text
	for _, s := range []string{"🔧 delete_note", "☑️ confirmed", "✅ ok", "shopping list", `"deleted":"shopping list"`} {
		if !strings.Contains(trace, s) {
			t.Errorf("the trace lacks %q:\n%s", s, trace)
		}
	}
}
