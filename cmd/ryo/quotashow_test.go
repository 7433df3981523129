package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// An admin's bare /quota in reply to someone's message in a group shows
// the group nothing of that person's quota or of what they asked
// elsewhere — their private chat included — nor who gave them the quota:
// it points to the private chat, as for anyone else who asks.
func TestAQuotaAskedInAGroupShowsTheGroupNothing(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	used(t, h, time.Now().Add(-10*time.Minute), bobDM.ID, bob, "llama3.2", 2)
	q := h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d 3/day", bob.ID))
	reply(h, dm, q.ID, "may ask 3/day now")

	said := h.tg.SendText(team, bob, "nice weather today")
	q = h.tg.SendText(team, alice, "/quota", telegramtest.ReplyTo(said.ID))
	h.pointer(team, q.ID, "quota")
	for _, m := range h.tg.BotMessages(team.ID) {
		for _, leak := range []string{"3/day", "used", "Alice", "Bob"} {
			if strings.Contains(m.Text, leak) {
				t.Errorf("the group was shown %q in %q", leak, m.Text)
			}
		}
	}
}

// In the private chat, an admin who answers one of the bot's own messages
// with /quota and an id is shown that person's quota, or gives them one,
// as without the reply: the bot's message names no one.
func TestAQuotaByIDInReplyToTheBot(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	used(t, h, time.Now().Add(-10*time.Minute), bobDM.ID, bob, "llama3.2", 1)
	q := h.tg.SendText(dm, alice, "/quota")
	list := reply(h, dm, q.ID, "• default — none")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d 3/day", bob.ID), telegramtest.ReplyTo(list.ID))
	reply(h, dm, q.ID, "Bob\u2069 may ask 3/day now")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d", bob.ID), telegramtest.ReplyTo(list.ID))
	reply(h, dm, q.ID, "may ask 3/day: their own quota, set by")
	// Limits that start with a number are limits still, for whoever
	// wrote the message answered.
	said := h.tg.SendText(dm, alice, "a note to myself")
	q = h.tg.SendText(dm, alice, "/quota 50 tokens/day", telegramtest.ReplyTo(said.ID))
	reply(h, dm, q.ID, "Alice (@alice)\u2069 may ask 50 tokens/day now")
}

// A person named without the @, as every command that names someone
// allows, or by an id that cannot be anyone's, is looked up, or refused
// as naming no one — not answered with the tiers' list, as if the admin
// had asked for no one.
func TestAQuotaForSomeoneNamedWithoutTheAt(t *testing.T) {
	dave := telegramtest.NewUser("Dave", "dave")
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	used(t, h, time.Now().Add(-10*time.Minute), telegramtest.PrivateChat(dave).ID, dave, "llama3.2", 1)
	q := h.tg.SendText(dm, alice, "/quota dave 5/day")
	reply(h, dm, q.ID, "Dave (@dave)\u2069 may ask 5/day now")
	q = h.tg.SendText(dm, alice, "/quota dave")
	reply(h, dm, q.ID, "may ask 5/day: their own quota, set by")
	for _, id := range []string{"0", "-0", "99999999999999999999"} {
		q = h.tg.SendText(dm, alice, "/quota "+id)
		reply(h, dm, q.ID, "Name someone")
	}
	q = h.tg.SendText(dm, alice, "/quota default")
	reply(h, dm, q.ID, "• default — none")
}

// The bot itself, named by its id or its @username, is no one an admin's
// command may govern: /quota, /ban, /tier and /memory say it is the bot
// instead of showing it a quota, banning it, or keeping a memory for it.
func TestAdminCommandsNamingTheBotItselfNameNoOne(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	for _, text := range []string{
		fmt.Sprintf("/quota %d", botUser.ID),
		"/quota @" + botUser.Username,
		"/quota " + botUser.Username,
		fmt.Sprintf("/quota %d 3/day", botUser.ID),
		fmt.Sprintf("/ban %d", botUser.ID),
		"/ban @" + strings.ToUpper(botUser.Username),
		fmt.Sprintf("/tier %d default", botUser.ID),
		fmt.Sprintf("/memory add %d likes tea", botUser.ID),
	} {
		q := h.tg.SendText(dm, alice, text)
		got := reply(h, dm, q.ID, "")
		if !strings.Contains(got.Text, "That is me, the bot") {
			t.Errorf("%s answered %q; want it to say that is the bot", text, got.Text)
		}
	}
	if n := memorytest.Count(t, h.env["DATABASE_URL"], fmt.Sprintf(`select count(*) from users where id = %d`, botUser.ID)); n != 0 {
		t.Errorf("the bot was stored as a person (%d rows)", n)
	}
	if n := memorytest.Count(t, h.env["DATABASE_URL"], fmt.Sprintf(`select count(*) from memories where owner_id = %d`, botUser.ID)); n != 0 {
		t.Errorf("a memory was kept for the bot (%d rows)", n)
	}
}

// A person named at the start of a command is the first word whatever
// space follows it — a line break or a tab, as a phone's keyboard or a
// pasted text gives — not "no one".
func TestAPersonNamedBeforeALineBreakIsNamed(t *testing.T) {
	dave := telegramtest.NewUser("Dave", "dave")
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	used(t, h, time.Now().Add(-10*time.Minute), telegramtest.PrivateChat(dave).ID, dave, "llama3.2", 1)
	q := h.tg.SendText(dm, alice, "/quota @dave\n5/day")
	reply(h, dm, q.ID, "Dave (@dave)\u2069 may ask 5/day now")
	q = h.tg.SendText(dm, alice, "/memory add @dave\nlikes tea")
	reply(h, dm, q.ID, "Remembered for Dave")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/ban %d\tspamming", dave.ID))
	reply(h, dm, q.ID, "can no longer use me")
}
