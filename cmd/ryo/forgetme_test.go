package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// life gives person what ryo keeps about someone who uses it: a
// conversation in their private chat, a question and chatter in the
// group, memories of their own and one added to the group, a list of
// their memories, and a /forget that waits for their yes.
func (h *harness) life(person telegramtest.User, private telegramtest.Chat) {
	h.t.Helper()
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Noted, " + person.FirstName + ".")})
	q := h.tg.SendText(private, person, person.FirstName+"'s dog is called Rex")
	h.answer(private, q.ID, "Noted, "+person.FirstName+".")
	h.tg.SendText(team, person, person.FirstName+" says: lunch at noon?")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello " + person.FirstName + ".")})
	q = h.tg.SendText(team, person, "@ryo_test_bot hello from "+person.FirstName)
	h.answer(team, q.ID, "Hello "+person.FirstName+".") // after the chatter: one chat, in order
	own := h.remember(person.ID, ryo.ScopeUser, private.ID, person.FirstName+"'s dog is Rex")
	for i := range 10 { // two pages: the list is kept, for its buttons
		h.remember(person.ID, ryo.ScopeUser, private.ID, fmt.Sprintf("%s's fact %d", person.FirstName, i))
	}
	h.remember(person.ID, ryo.ScopeGroup, team.ID, person.FirstName+" has lunch at noon")
	q = h.tg.SendText(private, person, "/memory")
	h.reply(private, q.ID, "Your memories (11) — page 1 of 2")
	q = h.tg.SendText(private, person, fmt.Sprintf("/forget %d", own.ID))
	h.promptFor(private, q.ID)
}

// promptFor waits for the confirmation prompt that answers message id.
func (h *harness) promptFor(chat telegramtest.Chat, id int) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.waitFor("the confirmation prompt", func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if m.ReplyTo == id && hasPrompt(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// kept is what the store keeps about a person, as an export shows it
// (without the time it was made), and their footprint.
func (h *harness) kept(person int64) (memory.Footprint, memory.Export) {
	h.t.Helper()
	e, err := h.db().Export(bg(h.t), person, 1<<20)
	if err != nil {
		h.t.Fatal(err)
	}
	e.ExportedAt = time.Time{}
	if e.User != nil {
		e.User.UpdatedAt, e.User.UsernameSeen = time.Time{}, nil // every message shows the person anew
	}
	f, err := h.db().Footprint(bg(h.t), person)
	if err != nil {
		h.t.Fatal(err)
	}
	return f, e
}

func asJSON(v any) string {
	out, _ := json.Marshal(v)
	return string(out)
}

// Everything of a person's that is not an action, counted in every table
// that holds it.
func (h *harness) leftOf(person int64) map[string]int {
	h.t.Helper()
	url := h.env["DATABASE_URL"]
	out := map[string]int{}
	for what, q := range map[string]string{
		"user row":     `select count(*) from users where id = $1`,
		"private chat": `select count(*) from chats where id = $1`,
		"messages":     `select count(*) from messages where sender_id = $1 or chat_id = $1`,
		"memories":     `select count(*) from memories where owner_id = $1`,
		"views":        `select count(*) from views where viewer_id = $1`,
		"turns":        `select count(*) from turns where chat_id = $1`,
		// The press that confirmed /forgetme is the one update left: it was
		// being handled, and goes with the updates' retention.
		"updates": `select count(*) from updates where (sender_id = $1 or chat_id = $1) and kind <> 'callback_query'`,
	} {
		out[what] = memorytest.Count(h.t, url, q, person)
	}
	return out
}

// /forgetme says what it would delete and waits for a yes; ❌ Cancel
// keeps everything.
func TestForgetMeCancelKeepsEverything(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.life(alice, dm)
	before, exported := h.kept(alice.ID)
	q := h.tg.SendText(dm, alice, "/forgetme")
	p := h.promptFor(dm, q.ID)
	for _, want := range []string{"forget_me", "Forget you: I delete 4 messages (yours, and all of our private chat), 11 memories of yours, " +
		"1 memory you added to groups, 1 request you made", "What others wrote", "cannot be undone"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the prompt does not say %q:\n%s", want, p.Text)
		}
	}
	h.pressAnswer(h.press(dm, alice, p, "❌"))
	h.settled(dm, p.ID, "Cancelled")
	after, now := h.kept(alice.ID)
	before.Actions++ // the cancelled request itself
	if after != before || asJSON(now.User) != asJSON(exported.User) || asJSON(now.Messages) != asJSON(exported.Messages) ||
		asJSON(now.Memories) != asJSON(exported.Memories) || len(now.Actions) != len(exported.Actions)+1 {
		t.Errorf("cancelling changed what is kept:\nbefore %+v %s\nafter  %+v %s", before, asJSON(exported), after, asJSON(now))
	}
	for what, n := range h.leftOf(alice.ID) {
		if n == 0 {
			t.Errorf("cancelling deleted Alice's %s", what)
		}
	}
}

// After the yes, everything ryo keeps about the person is deleted — but
// for their request to be forgotten, done and kept in the log of
// requests — and nothing of anyone else's; then they start afresh.
func TestForgetMeForgetsExactlyThePerson(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(bob.ID)
	h.start()
	h.life(alice, dm)
	h.life(bob, bobDM)
	q := h.tg.SendText(bobDM, bob, fmt.Sprintf("/memory %d", alice.ID)) // an admin's list of Alice's memories
	h.reply(bobDM, q.ID, "Alice (@alice)'s memories (11) — page 1 of 2")
	bobsFootprint, bobs := h.kept(bob.ID)

	q = h.tg.SendText(dm, alice, "/forgetme")
	p := h.promptFor(dm, q.ID)
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.settled(dm, p.ID, "— done.")

	for what, n := range h.leftOf(alice.ID) {
		if n != 0 {
			t.Errorf("%d of Alice's %s are left", n, what)
		}
	}
	if f, _ := h.db().Footprint(bg(t), alice.ID); f != (memory.Footprint{Actions: 1}) {
		t.Errorf("left of Alice: %+v; want her request to be forgotten only", f)
	}
	if a := h.action(p); a.State != ryo.ActionExecuted || a.Tool != "forget_me" || a.ResultStatus != "ok" {
		t.Errorf("the request to be forgotten: %s %s %s; want forget_me executed ok", a.Tool, a.State, a.ResultStatus)
	}
	if n := memorytest.Count(t, h.env["DATABASE_URL"], `select count(*) from views where subject ->> 'id' = $1::bigint::text`, alice.ID); n != 0 {
		t.Errorf("Bob's list of Alice's memories is left")
	}
	if f, after := h.kept(bob.ID); f != bobsFootprint || asJSON(after) != asJSON(bobs) {
		t.Errorf("Bob's data changed:\nbefore %+v %s\nafter  %+v %s", bobsFootprint, asJSON(bobs), f, asJSON(after))
	}
	group := strings.Join(history(t, h.db(), ryo.Place{ChatID: team.ID}), "|")
	if strings.Contains(group, "Alice says") || strings.Contains(group, "from Alice") ||
		!strings.Contains(group, "Bob says") || !strings.Contains(group, "Hello Alice.") {
		t.Errorf("the group's history is %q; want Bob's messages and the bot's answers", group)
	}
	if m, _, _ := h.db().Memories(bg(t), ryo.GroupShelf(team.ID), 0, 10); len(m) != 1 || m[0].Owner != bob.ID {
		t.Errorf("the group's memories are %+v; want Bob's only", m)
	}

	q = h.tg.SendText(dm, alice, "/start")
	h.reply(dm, q.ID, "Hi Alice!")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Nice to meet you.")})
	q = h.tg.SendText(dm, alice, "hello again")
	h.answer(dm, q.ID, "Nice to meet you.")
	h.waitFor("Alice's fresh start stored", func() bool {
		return strings.Join(history(t, h.db(), ryo.Place{ChatID: dm.ID}), "|") == "user: hello again|assistant: Nice to meet you."
	})
	if u, ok, _ := h.db().FindUser(bg(t), alice.ID); !ok || u.FirstName != "Alice" {
		t.Errorf("Alice is not known afresh: %+v", u)
	}
}

// In a group, /forgetme points to the private chat, where nobody else
// sees or presses its prompt, and the pointer's link asks there.
func TestForgetMeOnlyInPrivate(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendText(team, alice, "/forgetme")
	h.pointer(team, q.ID, "forgetme")
	if n := memorytest.Count(t, h.env["DATABASE_URL"], `select count(*) from actions`); n != 0 {
		t.Errorf("/forgetme in a group asked for %d actions", n)
	}
	q = h.tg.SendText(dm, alice, "/start forgetme")
	if p := h.promptFor(dm, q.ID); !strings.Contains(p.Text, "Forget you") {
		t.Errorf("the pointer's link shows %q", p.Text)
	}
}
