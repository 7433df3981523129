package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// slowAnswer is a model answer that stops, as a slow model's would, after
// writing "The first half of the answer" until pause is closed.
func slowAnswer(pause <-chan struct{}) ollamatest.Reply {
	return ollamatest.Reply{Chunks: []string{`{"reply":"The first half`, ` of the answer`, `, and the second half.",`,
		`"command":null,"tags":[],"followUpQuestion":null}`}, Pause: pause, PauseAfter: 2}
}

// stopButton waits for the status message answering message q in chat to
// carry its stop button and show text, and returns it.
func (h *harness) stopButton(chat telegramtest.Chat, q int, text string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.waitFor("the stop button under a status message showing "+text, func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if b := m.Buttons(); m.ReplyTo == q && len(b) == 1 && len(b[0]) == 1 && b[0][0].Text == "⏹ Stop" && strings.Contains(m.Text, text) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// hasPrompt reports whether m carries buttons other than a running
// turn's stop button or an answer's own: a prompt, a list, a card.
func hasPrompt(m telegramtest.Message) bool {
	for _, row := range m.Buttons() {
		for _, b := range row {
			if !strings.HasPrefix(b.Data, "s1:") && !strings.HasPrefix(b.Data, "r1:") && !strings.HasPrefix(b.Data, "i1:") {
				return true
			}
		}
	}
	return false
}

// stopBy reports whether m carries a stop button.
func stopBy(m telegramtest.Message) bool {
	for _, row := range m.Buttons() {
		for _, b := range row {
			if strings.HasPrefix(b.Data, "s1:") {
				return true
			}
		}
	}
	return false
}

// stopData is the data of m's stop button.
func stopData(m telegramtest.Message) string { return m.Buttons()[0][0].Data }

// storedAnswer is the newest answer stored at place, with its metadata.
func (h *harness) storedAnswer(place ryo.Place) (string, map[string]any) {
	h.t.Helper()
	msgs, err := h.db().History(bg(h.t), place, 100)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == ryo.KindAssistant {
			meta := map[string]any{}
			if err := json.Unmarshal(msgs[i].Metadata, &meta); err != nil {
				h.t.Fatal(err)
			}
			return msgs[i].Text, meta
		}
	}
	h.t.Fatal("no answer stored")
	return "", nil
}

// Stop under a slow answer ends it at once: the person keeps what was
// written, marked stopped, in the chat and in the history, and the button
// is gone.
func TestStopKeepsWhatWasWritten(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	q := h.tg.SendText(dm, alice, "tell me a long story")
	status := h.stopButton(dm, q.ID, "✍️ Writing") // the reply itself streams into a draft
	if d := stopData(status); len(d) > 64 || !strings.HasPrefix(d, "s1:") {
		t.Fatalf("stop data %q: want short and versioned", d)
	}
	if a := h.pressAnswer(h.press(dm, alice, status, "⏹")); a.Text != "⏹ Stopping — I'll keep what I wrote so far." || a.ShowAlert {
		t.Fatalf("the stop was answered %+v", a)
	}
	h.answer(dm, q.ID, "⏹ Stopped")
	var kept telegramtest.Message
	for _, m := range h.tg.BotMessages(dm.ID) {
		if strings.Contains(m.Text, "⏹ Stopped") {
			kept = m
		}
		if stopBy(m) {
			t.Errorf("message %q still has its stop button after the stop", m.Text)
		}
	}
	if !strings.Contains(kept.Text, "The first half of the answer") || strings.Contains(kept.Text, "second half") {
		t.Fatalf("kept %q; want what was written before the stop, and nothing after", kept.Text)
	}
	h.waitFor("the stopped answer stored", func() bool { return len(history(t, h.db(), ryo.Place{ChatID: dm.ID})) == 2 })
	text, meta := h.storedAnswer(ryo.Place{ChatID: dm.ID})
	if !strings.HasPrefix(text, "The first half of the answer") || !strings.HasSuffix(text, "⏹ Stopped") || meta["stopped"] != true {
		t.Fatalf("stored %q with %v; want the kept text marked stopped", text, meta)
	}
	h.waitFor("the stop counted", func() bool {
		return strings.Contains(scrape(t, h), `ryo_turns_total{outcome="stopped"} 1`)
	})
}

// A stranger's press is refused with an alert and stops nothing; forged
// and replayed presses change nothing and say why; /stop by the asker
// stops the group's running answer, and says when nothing runs.
func TestStopIsTheAskersOrAnAdmins(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	h.tg.SendText(bobDM, bob, "/start")
	h.waitFor("bob's start", func() bool { return len(h.tg.BotMessages(bobDM.ID)) == 1 })
	q := h.tg.SendText(team, alice, "@ryo_test_bot tell me a long story")
	status := h.stopButton(team, q.ID, "🤔")
	data := stopData(status)

	refused := h.pressAnswer(h.press(team, bob, status, "⏹"))
	if refused.Text != "Only Alice (@alice) or an admin can stop this answer." || !refused.ShowAlert {
		t.Fatalf("a stranger's stop was answered %+v", refused)
	}
	elsewhere := h.pressAnswer(h.tg.PressForged(bobDM.ID, bob, h.tg.BotMessages(bobDM.ID)[0].ID, data))
	if elsewhere.Text != "This button does not belong to this chat." {
		t.Fatalf("a press naming another chat's turn was answered %+v", elsewhere)
	}
	for _, forged := range []string{"s1:0" + data[3:], "s1:42:" + strconv.FormatInt(team.ID, 10), "s1:1:" + data[3:], "s2:" + data[3:], "s1:-5:-100", "s1:" + data[3:] + ":7"} {
		a := h.pressAnswer(h.tg.PressForged(team.ID, bob, status.ID, forged))
		if a.Text != "This button no longer works." && a.Text != "This answer is not running any more, so there is nothing to stop." {
			t.Errorf("forged data %q was answered %+v", forged, a)
		}
	}
	if m := h.message(team, status.ID); len(m.Buttons()) != 1 || strings.Contains(m.Text, "Stopping") {
		t.Fatalf("refused presses stopped the turn: %+v", m)
	}

	s := h.tg.SendText(team, alice, "/stop")
	h.answer(team, s.ID, "⏹ Stopping")
	h.answer(team, q.ID, "⏹ Stopped")
	replayed := h.pressAnswer(h.tg.PressForged(team.ID, alice, status.ID, data))
	if replayed.Text != "This answer is not running any more, so there is nothing to stop." {
		t.Fatalf("a press after the turn ended was answered %+v", replayed)
	}
	again := h.tg.SendText(team, alice, "/stop") // the stopped turn may still be finishing its delivery: either is true
	h.waitFor("nothing to stop", func() bool {
		for _, m := range h.tg.BotMessages(team.ID) {
			if m.ReplyTo == again.ID && (strings.Contains(m.Text, "Nothing is running here right now") ||
				strings.Contains(m.Text, "This answer is not running any more")) {
				return true
			}
		}
		return false
	})
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times; want once", n)
	}
}

// A stop while a tool runs cancels that tool, and no tool after it
// starts: the model is not asked again.
func TestStopDuringAToolStartsNoMore(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{})
	var later atomic.Int32
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)
	h.tools = []toolbus.Spec{
		{Name: "slow_lookup", Description: "Looks something up, slowly.", Category: toolbus.MathFinance, Schema: schema,
			Examples: []toolbus.Example{{Question: "Look up tea.", Arguments: json.RawMessage(`{"q":"tea"}`)}},
			Tool: toolbus.ToolFunc(func(ctx context.Context, _ json.RawMessage) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			})},
		{Name: "next_lookup", Description: "Looks something else up.", Category: toolbus.MathFinance, Schema: schema,
			Examples: []toolbus.Example{{Question: "Look up coffee.", Arguments: json.RawMessage(`{"q":"coffee"}`)}},
			Tool:     toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { later.Add(1); return "found", nil })},
	}
	call := func(tool string) string {
		return `{"reply":"Let me look that up.","command":{"intent":"` + tool + `","slots":{"q":"tea"},"confidence":0.9,` +
			`"requiresConfirmation":false,"followUpQuestion":null},"tags":[],"followUpQuestion":null}`
	}
	h.llm.Enqueue(ollamatest.Reply{Content: call("slow_lookup")}, ollamatest.Reply{Content: call("next_lookup")},
		ollamatest.Reply{Content: envelope("Tea is a drink.")})
	h.start()
	q := h.tg.SendText(dm, alice, "what is tea?")
	<-started
	status := h.stopButton(dm, q.ID, "slow_lookup")
	h.pressAnswer(h.press(dm, alice, status, "⏹"))
	h.answer(dm, q.ID, "⏹ Stopped")
	h.waitFor("the stopped answer stored", func() bool { return len(history(t, h.db(), ryo.Place{ChatID: dm.ID})) >= 2 })
	text, meta := h.storedAnswer(ryo.Place{ChatID: dm.ID})
	if text != "Let me look that up.\n\n⏹ Stopped" || meta["stopped"] != true {
		t.Fatalf("stored %q with %v", text, meta)
	}
	if n, runs := len(h.llm.Requests()), later.Load(); n != 1 || runs != 0 {
		t.Fatalf("after the stop the model was asked %d times and the next tool ran %d times; want 1 and 0", n, runs)
	}
}

// Two stops at once stop the turn once: one press says it stops, the
// other that it is already stopping (or over), and one answer comes.
func TestTwoStopsAtOnce(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = "1" // nobody here: the asker's own presses
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	q := h.tg.SendText(dm, alice, "tell me a long story")
	status := h.stopButton(dm, q.ID, "✍️ Writing")
	first, second := h.press(dm, alice, status, "⏹"), h.press(dm, alice, status, "⏹")
	answers := []string{h.pressAnswer(first).Text, h.pressAnswer(second).Text}
	stopping := 0
	for _, a := range answers {
		switch a {
		case "⏹ Stopping — I'll keep what I wrote so far.":
			stopping++
		case "⏹ Already stopping.", "This answer is not running any more, so there is nothing to stop.":
		default:
			t.Errorf("a stop was answered %q", a)
		}
	}
	if stopping != 1 {
		t.Fatalf("answers %q: want exactly one stop", answers)
	}
	h.answer(dm, q.ID, "⏹ Stopped")
	n := 0
	for _, m := range h.tg.BotMessages(dm.ID) {
		if strings.Contains(m.Text, "⏹ Stopped") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d stopped answers; want one", n)
	}
}

// A turn cut short by a restart picks up again from the inbox in the same
// status message, whose stop button works again.
func TestStopAfterARestart(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("never shown"), Hold: hold})
	h.start()
	q := h.tg.SendText(dm, alice, "tell me a long story")
	before := h.stopButton(dm, q.ID, "🤔")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	h.stopMain()
	if m := h.message(dm, before.ID); len(m.Buttons()) != 0 {
		t.Fatalf("the paused status message keeps its buttons: %+v", m)
	}

	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	status := h.stopButton(dm, q.ID, "✍️ Writing")
	if status.ID != before.ID || stopData(status) != stopData(before) {
		t.Fatalf("after the restart the button is on message %d with %q; want message %d with %q",
			status.ID, stopData(status), before.ID, stopData(before))
	}
	if a := h.pressAnswer(h.press(dm, alice, status, "⏹")); a.Text != "⏹ Stopping — I'll keep what I wrote so far." {
		t.Fatalf("the stop after the restart was answered %+v", a)
	}
	h.answer(dm, q.ID, "⏹ Stopped")
}

// An anonymous administrator of a group sends /stop: the message comes as
// the group itself (sender_chat), which only its administrators can write
// as, so it stops a member's running answer like any admin's /stop.
func TestAnonymousAdminStopsAMembersAnswer(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	ops := telegramtest.NewSupergroup("Ops")
	h.tg.SetMember(ops, alice, telegramtest.StatusAdministrator)
	h.start()
	q := h.tg.SendText(ops, bob, "@ryo_test_bot tell me a long story")
	status := h.stopButton(ops, q.ID, "✍️ Writing")
	chat := map[string]any{"id": ops.ID, "title": ops.Title, "type": "supergroup"}
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512377, "date": time.Now().Unix(),
		"from": groupAnonymousBot, "sender_chat": chat, "chat": chat, "author_signature": "Alice", "text": "/stop",
		"entities": []any{map[string]any{"type": "bot_command", "offset": 0, "length": 5}}}})
	h.answer(ops, q.ID, "⏹ Stopped")
	if m := h.message(ops, status.ID); stopBy(m) {
		t.Fatalf("the status message still has its stop button: %+v", m)
	}
}

// Someone who asked as their channel may stop that answer from their own
// account, as they may decide what their channel asked for.
func TestChannelPosterStopsTheirOwnAnswer(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	ops := telegramtest.NewSupergroup("Ops")
	news := telegramtest.NewChannel("Alice's News")
	h.tg.SetMember(news, alice, telegramtest.StatusCreator)
	h.start()
	chat := map[string]any{"id": ops.ID, "title": ops.Title, "type": "supergroup"}
	channel := map[string]any{"id": news.ID, "title": news.Title, "type": "channel"}
	text := "@" + botUser.Username + " tell me a long story"
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512378, "date": time.Now().Unix(),
		"from":        map[string]any{"id": 136817688, "is_bot": true, "first_name": "Channel", "username": "Channel_Bot"},
		"sender_chat": channel, "chat": chat, "text": text,
		"entities": []any{map[string]any{"type": "mention", "offset": 0, "length": len(botUser.Username) + 1}}}})
	var status telegramtest.Message
	h.waitFor("the stop button", func() bool {
		for _, m := range h.tg.BotMessages(ops.ID) {
			if b := m.Buttons(); len(b) == 1 && b[0][0].Text == "⏹ Stop" && strings.Contains(m.Text, "✍️ Writing") {
				status = m
				return true
			}
		}
		return false
	})
	if a := h.pressAnswer(h.press(ops, alice, status, "⏹")); a.Text != "⏹ Stopping — I'll keep what I wrote so far." {
		t.Fatalf("the channel's owner pressing Stop on what they asked as their channel was answered %+v", a)
	}
	h.waitFor("the stopped answer", func() bool {
		for _, m := range h.tg.BotMessages(ops.ID) {
			if strings.Contains(m.Text, "⏹ Stopped") {
				return true
			}
		}
		return false
	})
}

// Two hundred strangers press Stop at once: each press is answered once,
// with a refusal; the turn goes on, and its asker can still stop it.
func TestStrangersFloodingStop(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	ops := telegramtest.NewSupergroup("Ops")
	h.start()
	q := h.tg.SendText(ops, bob, "@ryo_test_bot tell me a long story")
	status := h.stopButton(ops, q.ID, "✍️ Writing")
	var queries []string
	for i := range 200 {
		queries = append(queries, h.press(ops, telegramtest.NewUser("Stranger "+strconv.Itoa(i), ""), status, "⏹"))
	}
	for _, query := range queries {
		if a := h.pressAnswer(query); !a.ShowAlert || !strings.HasPrefix(a.Text, "Only Bob") {
			t.Fatalf("a stranger's stop was answered %+v", a)
		}
	}
	if n := len(h.tg.Calls("answerCallbackQuery")); n != 200 {
		t.Fatalf("%d answers to 200 presses", n)
	}
	t.Logf("200 stranger presses: %d getChatMember calls", len(h.tg.Calls("getChatMember")))
	if m := h.message(ops, status.ID); len(m.Buttons()) != 1 || strings.Contains(m.Text, "Stopping") {
		t.Fatalf("strangers stopped the turn: %+v", m)
	}
	if a := h.pressAnswer(h.press(ops, bob, status, "⏹")); a.Text != "⏹ Stopping — I'll keep what I wrote so far." {
		t.Fatalf("the asker's stop after the flood was answered %+v", a)
	}
	h.answer(ops, q.ID, "⏹ Stopped")
}

// In a forum, /stop stops only the answer running in its own topic; one
// sent in another topic says that nothing runs there, and /stop addressed
// to another bot is not ryo's.
func TestStopInAnotherTopic(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	releases := h.tg.CreateTopic(team, alice, "Releases")
	party := h.tg.CreateTopic(team, alice, "Party")
	q := h.inTopic(releases, alice, "@ryo_test_bot tell me a long story")
	status := h.stopButton(team, q.ID, "✍️ Writing")
	h.inTopic(releases, alice, "/stop@other_bot")
	s := h.inTopic(party, alice, "/stop")
	h.answer(team, s.ID, "Nothing is running here right now")
	if m := h.message(team, status.ID); len(m.Buttons()) != 1 || strings.Contains(m.Text, "Stopping") {
		t.Fatalf("a /stop elsewhere stopped the turn: %+v", m)
	}
	s = h.inTopic(releases, alice, "/stop")
	h.answer(team, s.ID, "⏹ Stopping")
	h.answer(team, q.ID, "⏹ Stopped")
}

// A question that only begins with /stop (set as code) is no /stop: it
// waits behind the running turn, and is answered after it, with that
// turn's answer in its history — never beside it.
func TestStopLookalikeWaitsItsTurn(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause), ollamatest.Reply{Content: envelope("They mean stop.")})
	h.start()
	q := h.tg.SendText(dm, alice, "tell me a long story")
	status := h.stopButton(dm, q.ID, "✍️ Writing")
	chat := map[string]any{"id": dm.ID, "type": "private", "first_name": "Alice"}
	from := map[string]any{"id": alice.ID, "is_bot": false, "first_name": "Alice", "username": "alice"}
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512399, "date": time.Now().Unix(),
		"from": from, "chat": chat, "text": "/stop signs: what do they mean?",
		"entities": []any{map[string]any{"type": "code", "offset": 0, "length": 5}}}})
	h.pressAnswer(h.press(dm, alice, status, "⏹"))
	h.waitFor("the look-alike answered", func() bool {
		for _, m := range h.tg.BotMessages(dm.ID) {
			if strings.Contains(m.Text, "They mean stop.") {
				return true
			}
		}
		return false
	})
	reqs := h.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model was asked %d times; want twice", len(reqs))
	}
	var saw bool
	for _, m := range reqs[1].Messages {
		saw = saw || strings.Contains(m.Content, "The first half of the answer")
	}
	if !saw {
		t.Fatal("the /stop look-alike was asked before the running turn's answer was stored: it ran beside it")
	}
}
