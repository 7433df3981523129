package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// askedWithTool has Alice ask privately a question answered with a tool,
// and returns the answer, with its 🔍.
func (h *harness) askedWithTool() telegramtest.Message {
	h.t.Helper()
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"6*7"}`)},
		ollamatest.Reply{Content: envelope("6 × 7 = 42")})
	q := h.tg.SendText(dm, alice, "what is 6*7")
	a := h.answered(dm, q.ID, "42")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	return h.message(dm, a.ID)
}

// Presses in a row on one 🔍 send its trace once, and every press is
// answered, within Telegram's limits.
func TestInspectorPressedInARowSendsOnce(t *testing.T) {
	h := newHarness(t, floodControl)
	h.start()
	a := h.askedWithTool()
	const presses = 25
	ids := make([]string, presses)
	for i := range ids {
		id, err := h.tg.Press(dm.ID, alice, a.ID, inspectButton(a))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	for _, id := range ids {
		if r := h.pressAnswer(id); r.Text != "🔍 Sent to our private chat." || r.ShowAlert {
			t.Errorf("a press was answered %+v", r)
		}
	}
	if n := len(h.traces(dm)); n != 1 {
		t.Errorf("%d presses in a row sent the trace %d times; want once", presses, n)
	}
	if refused := h.tg.Refused(); len(refused) != 0 {
		t.Errorf("Telegram refused %d calls for flooding", len(refused))
	}
}

// A trace whose file Telegram fails to take once comes once, with its
// file: the press's second run does not send its message again.
func TestInspectorFileFailingOnceSendsTheTraceOnce(t *testing.T) {
	h := newHarness(t)
	h.tools = []toolbus.Spec{bigLookup(strings.Repeat("tea ", 5000))}
	h.llm.Enqueue(ollamatest.Reply{Content: command("big_lookup", `{"q":"tea"}`)},
		ollamatest.Reply{Content: envelope("Tea is a drink.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	a := h.answered(dm, q.ID, "Tea is a drink.")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	h.tg.FailNext("sendDocument", 1, telegramtest.APIError{Code: http.StatusInternalServerError, Description: "Internal Server Error"})
	h.inspect(dm, alice, h.message(dm, a.ID))
	h.waitFor("the trace's file", func() bool { return traceFile(h) != nil })
	if n := len(h.traces(dm)); n != 1 {
		t.Errorf("the trace was sent %d times; want once", n)
	}
}

// A trace whose message went out but whose file did not when ryo stopped
// comes, after the restart, with its file and without its message again.
func TestInspectorFileAfterARestartSendsTheMessageOnce(t *testing.T) {
	h := newHarness(t)
	h.tools = []toolbus.Spec{bigLookup(strings.Repeat("tea ", 5000))}
	h.llm.Enqueue(ollamatest.Reply{Content: command("big_lookup", `{"q":"tea"}`)},
		ollamatest.Reply{Content: envelope("Tea is a drink.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	a := h.answered(dm, q.ID, "Tea is a drink.")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	h.tg.FailNext("sendDocument", 1000, telegramtest.APIError{Code: http.StatusInternalServerError, Description: "Internal Server Error"})
	id, err := h.tg.Press(dm.ID, alice, a.ID, inspectButton(h.message(dm, a.ID)))
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("the file tried", func() bool { return len(h.tg.Calls("sendDocument")) > 0 })
	h.stopMain()
	h.tg.FailNext("sendDocument", 0, telegramtest.APIError{})
	h.start()
	h.pressAnswer(id)
	h.waitFor("the trace's file", func() bool { return traceFile(h) != nil })
	if n := len(h.traces(dm)); n != 1 {
		t.Errorf("the trace's message was sent %d times; want once", n)
	}
	if f := traceFile(h); f.ReplyTo != h.traces(dm)[0].ID {
		t.Errorf("the file replies to %d; want the trace's message %d", f.ReplyTo, h.traces(dm)[0].ID)
	}
}

// bigLookup is a tool that answers result.
func bigLookup(result string) toolbus.Spec {
	return toolbus.Spec{Name: "big_lookup", Description: "Looks up a great deal.", Category: toolbus.MathFinance,
		Schema:    json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`),
		Examples:  []toolbus.Example{{Question: "Look up tea.", Arguments: json.RawMessage(`{"q":"tea"}`)}},
		MaxResult: 1 << 20,
		Tool:      toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return result, nil })}
}

// traceFile is the bot's newest message in Alice's private chat that
// carries a trace's file; nil when none does.
func traceFile(h *harness) *telegramtest.Message {
	var out *telegramtest.Message
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.Document != nil && strings.HasPrefix(m.Document.FileName, "trace-") {
			out = &m
		}
	}
	return out
}

// What an anonymous administrator asked in a group, its administrators
// may inspect, privately; a member may not, nor an administrator of
// another group — pressed in this group, or replayed in theirs.
func TestInspectorOfAnAnonymousAdminsTurn(t *testing.T) {
	h := newHarness(t)
	erin := telegramtest.NewUser("Erin", "erin") // a member here, an administrator elsewhere
	ops, other := telegramtest.NewSupergroup("Ops"), telegramtest.NewSupergroup("Elsewhere")
	h.tg.SetMember(ops, alice, telegramtest.StatusAdministrator)
	h.tg.SetMember(ops, erin, telegramtest.StatusMember)
	h.tg.SetMember(other, erin, telegramtest.StatusAdministrator)
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"6*7"}`)},
		ollamatest.Reply{Content: envelope("6 × 7 = 42")})
	h.start()
	for _, u := range []telegramtest.User{alice, bob, erin} {
		h.tg.SendText(telegramtest.PrivateChat(u), u, "/start")
		h.waitFor("the greeting", func() bool { return len(h.tg.BotMessages(telegramtest.PrivateChat(u).ID)) == 1 })
	}
	h.tg.SendText(ops, bob, "hi all")
	h.askAnonymously(ops, "what is 6*7")
	var a telegramtest.Message
	h.waitFor("the answer's 🔍", func() bool {
		for _, m := range h.tg.BotMessages(ops.ID) {
			if strings.Contains(m.Text, "42") && inspectButton(m) != "" {
				a = m
				return true
			}
		}
		return false
	})
	inGroup := len(h.tg.Messages(ops.ID))
	for _, u := range []telegramtest.User{bob, erin} {
		if r := h.inspect(ops, u, a); !r.ShowAlert || !strings.Contains(r.Text, "Only the person who asked") {
			t.Errorf("%s's press was answered %+v", u.FirstName, r)
		}
	}
	if r := h.pressAnswer(h.tg.PressForged(other.ID, erin, 1, inspectButton(a))); !strings.Contains(r.Text, "does not belong") {
		t.Errorf("the data replayed in another group was answered %+v", r)
	}
	if r := h.inspect(ops, alice, a); r.ShowAlert {
		t.Fatalf("the administrator's press was answered %+v", r)
	}
	h.waitFor("the trace in Alice's private chat", func() bool { return len(h.traces(dm)) == 1 })
	for _, c := range []telegramtest.Chat{bobDM, telegramtest.PrivateChat(erin), other} {
		if n := len(h.traces(c)); n != 0 {
			t.Errorf("%d traces went to %s", n, c.Title)
		}
	}
	if n := len(h.tg.Messages(ops.ID)); n != inGroup {
		t.Errorf("the group got %d messages from the presses", n-inGroup)
	}
}

// After /forgetme a 🔍 of the person's shows nothing, and says so.
func TestInspectorAfterForgetMe(t *testing.T) {
	h := newHarness(t)
	h.start()
	a := h.askedWithTool()
	q := h.tg.SendText(dm, alice, "/forgetme")
	p := h.promptFor(dm, q.ID)
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.settled(dm, p.ID, "— done.")
	if r := h.inspect(dm, alice, a); !r.ShowAlert || r.Text != "How this answer came about is no longer kept." {
		t.Errorf("the press after /forgetme was answered %+v", r)
	}
	if n := len(h.traces(dm)); n != 0 {
		t.Errorf("%d traces sent after /forgetme", n)
	}
}

// A secret the model wrote into a tool's arguments, or a tool's result
// echoed, is neither stored with the trace nor shown by 🔍.
func TestInspectorHidesSecrets(t *testing.T) {
	h := newHarness(t)
	echo := `{"request":{"url":"https://api.example/v1?q=tea&api_key=sk-live-1111","headers":"Authorization: Bearer sk-live-2222"},` +
		`"body":"{\"access_token\":\"sk-live-3333\",\"expires_in\":3600}","X-Api-Key":["sk-live-4444"]}`
	h.tools = []toolbus.Spec{bigLookup(echo)}
	h.llm.Enqueue(ollamatest.Reply{Content: command("big_lookup", `{"q":"tea","password":"sk-live-5555"}`)},
		ollamatest.Reply{Content: command("big_lookup", `{"q":"tea"}`)},
		ollamatest.Reply{Content: envelope("Tea is a drink.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	a := h.answered(dm, q.ID, "Tea is a drink.")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	if n := memorytest.Count(t, h.env["DATABASE_URL"], `select count(*) from turn_traces where steps::text like '%sk-live%'`); n != 0 {
		t.Errorf("%d stored traces keep a secret", n)
	}
	h.inspect(dm, alice, h.message(dm, a.ID))
	h.waitFor("the trace", func() bool { return len(h.traces(dm)) == 1 })
	if msg := h.traces(dm)[0].Text; strings.Contains(msg, "sk-live") || !strings.Contains(msg, "[redacted]") {
		t.Errorf("the trace shows a secret, or no sign of one:\n%s", msg)
	}
}

// An answer stopped while its tool ran carries 🔍, and its trace shows the
// tool stopped and the turn's outcome.
func TestInspectorOfAStoppedTurn(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{})
	slow := bigLookup("")
	slow.Name, slow.Tool = "slow_lookup", toolbus.ToolFunc(func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	h.tools = []toolbus.Spec{slow}
	h.llm.Enqueue(ollamatest.Reply{Content: command("slow_lookup", `{"q":"tea"}`)})
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	<-started
	h.pressAnswer(h.press(dm, alice, h.stopButton(dm, q.ID, "slow_lookup"), "⏹"))
	a := h.answered(dm, q.ID, "⏹ Stopped")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	if r := h.inspect(dm, alice, h.message(dm, a.ID)); r.ShowAlert {
		t.Fatalf("the press was answered %+v", r)
	}
	h.waitFor("the trace", func() bool { return len(h.traces(dm)) == 1 })
	for _, s := range []string{"🔧 slow_lookup", "⏹ stopped", "in all · stopped", "Steps: 1 model call, 1 tool call"} {
		if msg := h.traces(dm)[0].Text; !strings.Contains(msg, s) {
			t.Errorf("the trace lacks %q:\n%s", s, msg)
		}
	}
}

// An answer made again with 🔄, or again for an edited question, carries
// the 🔍 of its own turn, whose trace is the new answer's, not the old.
func TestInspectorOfAnAnswerMadeAgain(t *testing.T) {
	h := newHarness(t)
	h.tools = []toolbus.Spec{bigLookup("found")}
	for _, drink := range []string{"tea", "coffee", "milk"} {
		h.llm.Enqueue(ollamatest.Reply{Content: command("big_lookup", `{"q":"`+drink+`"}`)},
			ollamatest.Reply{Content: envelope("About " + drink + ".")})
	}
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	a := h.answered(dm, q.ID, "About tea.")
	h.waitFor("the answer's 🔍", func() bool { return inspectButton(h.message(dm, a.ID)) != "" })
	first := inspectButton(h.message(dm, a.ID))
	h.pressAnswer(h.press(dm, alice, h.message(dm, a.ID), "🔄"))
	h.waitFor("the answer made again, with its 🔍", func() bool {
		m := h.message(dm, a.ID)
		return strings.Contains(m.Text, "About coffee.") && inspectButton(m) != "" && inspectButton(m) != first
	})
	shows := func(n int, want, not string) {
		t.Helper()
		h.inspect(dm, alice, h.message(dm, a.ID))
		h.waitFor("the trace", func() bool { return len(h.traces(dm)) == n })
		if msg := h.traces(dm)[n-1].Text; !strings.Contains(msg, want) || strings.Contains(msg, not) {
			t.Errorf("the trace of the answer about %s shows:\n%s", want, msg)
		}
	}
	shows(1, `"coffee"`, `"tea"`)
	second := inspectButton(h.message(dm, a.ID))
	h.done(h.tg.EditText(dm.ID, q.ID, "what is milk?"))
	h.waitFor("the edited question answered, with its 🔍", func() bool {
		m := h.message(dm, a.ID)
		return strings.Contains(m.Text, "About milk.") && inspectButton(m) != "" && inspectButton(m) != second
	})
	shows(2, `"milk"`, `"coffee"`)
}
