package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// byLastMessage answers by what the last message says, so that the order in
// which turns reach the model does not matter: the minutes question holds
// an action, a chat message waits on hold, a tool result is answered.
func byLastMessage(h *harness, hold <-chan struct{}) {
	h.llm.Handle(func(req ollamatest.Request) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		switch {
		case strings.Contains(last, "__tool_result__"):
			return ollamatest.Reply{Content: envelope("Done — the minutes note is gone.")}
		case strings.Contains(last, "delete the minutes note"):
			return ollamatest.Reply{Content: deleteNote("minutes")}
		}
		return ollamatest.Reply{Content: envelope("Hi there."), Hold: hold}
	})
}

// unfinished reports whether the inbox still holds updates to run.
func unfinished(h *harness) int {
	h.t.Helper()
	ups, err := h.db().Unfinished(bg(h.t))
	if err != nil {
		h.t.Fatal(err)
	}
	return len(ups)
}

// A decision taken and announced is carried out. Alice, an administrator
// of Ops, confirms what an anonymous admin of Ops asked for while the
// chat's queue is busy; she is told "doing it now", and the rest of her
// press waits its turn in the queue. She is demoted meanwhile. When its
// turn comes, the action runs: who may decide was judged when she
// pressed, and is not judged again.
func TestDecisionStandsWhenTheDeciderIsDemotedMeanwhile(t *testing.T) {
	h, notes := confirmHarness(t)
	ops := telegramtest.NewSupergroup("Ops")
	h.tg.SetMember(ops, alice, telegramtest.StatusAdministrator)
	hold := make(chan struct{})
	byLastMessage(h, hold)
	h.start()
	h.askAnonymously(ops, "delete the minutes note")
	p := h.prompt(ops)
	h.waitFor("the asking turn done", func() bool { return unfinished(h) == 0 })

	// Bob's message holds the chat's lane.
	h.tg.SendText(ops, bob, "@"+botUser.Username+" hello")
	h.waitFor("Bob's turn at the model", func() bool { return len(h.llm.Requests()) == 2 })

	if a := h.pressAnswer(h.press(ops, alice, p, "✅")); a.Text != "✅ Confirmed — doing it now." {
		t.Fatalf("Alice's press answered %q; want the confirmation", a.Text)
	}
	if a := h.action(p); a.State != ryo.ActionConfirmed {
		t.Fatalf("after Alice's yes the action is %s; want confirmed", a.State)
	}
	h.tg.SetMember(ops, alice, telegramtest.StatusMember) // demoted while her yes waits in the queue
	close(hold)
	h.waitFor("Bob answered and every update finished", func() bool {
		for _, m := range h.tg.BotMessages(ops.ID) {
			if strings.Contains(m.Text, "Hi there.") {
				return unfinished(h) == 0
			}
		}
		return false
	})
	if a := h.action(p); a.State != ryo.ActionExecuted || len(notes.runs()) != 1 {
		t.Fatalf("every update is finished; the action Alice confirmed (and was told \"doing it now\") is %s, "+
			"ran %d time(s), prompt buttons %v", a.State, len(notes.runs()), h.message(ops, p.ID).Buttons())
	}
}

// Mira writes in a group as her channel "Mira's Notes" (Telegram's "send
// as") and asks for something that needs a yes. The channel is the
// requester; the bot is not in Mira's channel, so Telegram will not say who
// administers it. The prompt says who may decide: an administrator of the
// channel or of the group. Mira, who is neither as far as the bot can see,
// is told so; Carol, an administrator of the group, decides.
func TestChannelsActionIsDecidedByTheGroupsAdministrators(t *testing.T) {
	h, notes := confirmHarness(t)
	mira := telegramtest.NewUser("Mira", "mira")
	group := telegramtest.NewSupergroup("Rust Learners")
	byLastMessage(h, nil)
	h.start()
	h.tg.SendText(group, mira, "hi") // Mira is a member of the group, and Telegram knows the group
	groupJSON := map[string]any{"id": group.ID, "title": group.Title, "type": "supergroup"}
	channel := map[string]any{"id": int64(-1009876543210), "title": "Mira's Notes", "username": "mira_notes", "type": "channel"}
	text := "@" + botUser.Username + " delete the minutes note"
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 88142, "date": time.Now().Unix(),
		"from":        map[string]any{"id": 136817688, "is_bot": true, "first_name": "Channel", "username": "Channel_Bot"},
		"sender_chat": channel, "chat": groupJSON, "text": text,
		"entities": []any{map[string]any{"type": "mention", "offset": 0, "length": len(botUser.Username) + 1}}}})
	p := h.prompt(group)
	const who = "Only an administrator of Mira's Notes or of this group can confirm or cancel this."
	if !strings.Contains(p.Text, who) {
		t.Fatalf("prompt %q does not say who may decide", p.Text)
	}
	if a := h.pressAnswer(h.press(group, mira, p, "✅")); a.Text != who || !a.ShowAlert {
		t.Fatalf("Mira's press answered %q (alert %v); want who may decide", a.Text, a.ShowAlert)
	}
	carol := telegramtest.NewUser("Carol", "carol")
	h.tg.SetMember(group, carol, telegramtest.StatusAdministrator)
	if a := h.pressAnswer(h.press(group, carol, p, "✅")); a.Text != "✅ Confirmed — doing it now." {
		t.Fatalf("the group's administrator's press answered %q", a.Text)
	}
	h.waitFor("the note deleted", func() bool { return len(notes.runs()) == 1 })
}

// While Telegram cannot say who administers Ops (getChatMember answers
// 502 a few times), Alice's ✅ on an anonymous admin's action is answered
// at once that it waits, as when the database is away, and decided once
// Telegram answers.
func TestPressWaitingForGetChatMemberIsAnsweredAtOnce(t *testing.T) {
	h, notes := confirmHarness(t)
	ops := telegramtest.NewSupergroup("Ops")
	h.tg.SetMember(ops, alice, telegramtest.StatusAdministrator)
	byLastMessage(h, nil)
	h.start()
	h.askAnonymously(ops, "delete the minutes note")
	p := h.prompt(ops)
	h.tg.FailNext("getChatMember", 5, telegramtest.APIError{Code: 502, Description: "Bad Gateway"})
	answer := h.pressAnswer(h.press(ops, alice, p, "✅"))
	if answer.Text != "⏳ Got it — Telegram is slow to tell me who may decide this; I'll handle it in a moment." {
		t.Fatalf("the press was answered %q while getChatMember failed", answer.Text)
	}
	h.waitFor("the note deleted once Telegram answers", func() bool { return len(notes.runs()) == 1 })
	if a := h.action(p); a.DecidedBy != alice.ID {
		t.Fatalf("decided by %d; want Alice", a.DecidedBy)
	}
}
