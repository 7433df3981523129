package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// teamList has Alice list the team's 15 memories in the group, and
// returns the list's first page.
func (h *harness) teamList(who telegramtest.User) telegramtest.Message {
	h.t.Helper()
	for i := 1; i <= 15; i++ {
		h.remember(who.ID, ryo.ScopeGroup, team.ID, fmt.Sprintf("team fact %d", i))
	}
	q := h.tg.SendText(team, who, "/memory")
	return h.reply(team, q.ID, "page 1 of 2")
}

// A list's button pressed on another message — someone's confirmation
// prompt — or in another chat turns nothing and changes nothing.
func TestListButtonsWorkOnlyOnTheirMessage(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("plans")})
	h.start()
	h.tg.SendText(team, bob, "@ryo_test_bot delete the plans note")
	prompt := h.prompt(team)
	list := h.teamList(alice)
	next := list.Buttons()[0][0].Data
	q := h.tg.SendText(dm, alice, "/start")
	h.answer(dm, q.ID, "")
	elsewhere := h.tg.BotMessages(dm.ID)[0]
	for _, forged := range []string{
		h.tg.PressForged(team.ID, alice, prompt.ID, next),  // onto Bob's prompt
		h.tg.PressForged(dm.ID, alice, elsewhere.ID, next), // into another chat
	} {
		if a := h.pressAnswer(forged); a.Text != "This button no longer works." {
			t.Errorf("a list's button pressed elsewhere was answered %+v", a)
		}
	}
	if got := h.message(team, prompt.ID); got.Text != prompt.Text || len(got.Buttons()) == 0 {
		t.Fatalf("a forged list press rewrote Bob's prompt:\n%s\nbuttons %+v", got.Text, got.Buttons())
	}
	if got := h.message(dm, elsewhere.ID); got.Text != elsewhere.Text {
		t.Fatalf("a forged list press rewrote a message in another chat: %q", got.Text)
	}
	h.pressAnswer(h.press(team, alice, list, "Next"))
	h.waitFor("page 2", func() bool { return strings.Contains(h.message(team, list.ID).Text, "page 2 of 2") })
	if a := h.action(prompt); !a.Open() || len(notes.runs()) != 0 {
		t.Fatalf("Bob's action is %s after the forged presses; deleted %v", a.State, notes.runs())
	}
}

// Someone banned after asking for a list can no longer turn its pages.
func TestBannedMemberCannotTurnAnOldList(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	list := h.teamList(bob)
	q := h.tg.SendText(dm, alice, fmt.Sprintf("/ban %d", bob.ID))
	h.answer(dm, q.ID, "can no longer use me")
	if a := h.pressAnswer(h.press(team, bob, list, "Next")); a.Text != "Sorry — you can't use this bot." || !a.ShowAlert {
		t.Fatalf("a banned member's press on their old list was answered %+v", a)
	}
	if got := h.message(team, list.ID); strings.Contains(got.Text, "page 2") || strings.Contains(got.Text, "team fact 1 ") {
		t.Fatalf("a banned member turned the group's memories: %q", got.Text)
	}
}

// A list's buttons stop working after a day: the list is asked for again.
func TestOldListExpires(t *testing.T) {
	h := newHarness(t)
	h.start()
	for i := 1; i <= 12; i++ {
		h.remember(alice.ID, ryo.ScopeUser, dm.ID, fmt.Sprintf("fact number %d", i))
	}
	q := h.tg.SendText(dm, alice, "/memory")
	list := h.reply(dm, q.ID, "page 1 of 2")
	memorytest.Exec(t, h.env["DATABASE_URL"], `update views set created_at = created_at - interval '25 hours'`)
	if a := h.pressAnswer(h.press(dm, alice, list, "Next")); !strings.Contains(a.Text, "out of date") {
		t.Fatalf("a press on a day-old list was answered %+v", a)
	}
	if got := h.message(dm, list.ID); !strings.Contains(got.Text, "page 1 of 2") {
		t.Fatalf("a day-old list turned: %q", got.Text)
	}
}

// Turning a list's pages costs an allowance of page turns (twice the
// person's burst): a flood of presses cannot spend the group's share of
// Telegram's limits on edits while the others' answers wait.
func TestAFloodOfPageTurnsIsHeldBack(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_PERSON_BURST"] = "3" // six turns of a list's pages
	h.env["RYO_PERSON_RATE"] = "1"
	h.start()
	list := h.teamList(bob)
	var presses []string
	for range 12 {
		now := h.message(team, list.ID) // pressed as fast as a finger can, whatever it shows
		presses = append(presses, h.press(team, bob, now, ""))
	}
	slowed := 0
	for _, p := range presses {
		if a := h.pressAnswer(p); strings.Contains(a.Text, "🐢") {
			slowed++
		}
	}
	h.waitFor("every press handled", func() bool { return h.tg.PendingUpdates() == 0 && unfinished(h) == 0 })
	edits := 0
	for _, c := range h.tg.Calls("editMessageText") {
		if c.Params["message_id"] == fmt.Sprint(list.ID) {
			edits++
		}
	}
	if edits > 6 || slowed != 12-edits {
		t.Fatalf("twelve presses turned the list %d times and %d were asked to slow down; want at most 6 turns (the allowance), the rest slowed", edits, slowed)
	}
}
