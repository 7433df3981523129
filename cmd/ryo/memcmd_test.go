package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

func (h *harness) remember(owner int64, scope ryo.Scope, chat int64, content string, tags ...string) ryo.Memory {
	h.t.Helper()
	m, err := h.db().Remember(bg(h.t), ryo.Memory{Scope: scope, Owner: owner, Chat: chat, Content: content, Tags: tags, AddedBy: owner})
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

// reply waits for the bot's reply to message id that contains want, and
// returns it.
func (h *harness) reply(chat telegramtest.Chat, id int, want string) telegramtest.Message {
	h.t.Helper()
	h.answer(chat, id, want)
	for _, m := range h.tg.BotMessages(chat.ID) {
		if m.ReplyTo == id && strings.Contains(m.Text, want) {
			return m
		}
	}
	return telegramtest.Message{}
}

// /memory lists my memories, ten a page, with buttons only I can press.
func TestMemoryCommandPages(t *testing.T) {
	h := newHarness(t)
	h.start()
	for i := 1; i <= 23; i++ {
		h.remember(alice.ID, ryo.ScopeUser, dm.ID, fmt.Sprintf("fact number %d", i))
	}
	h.remember(bob.ID, ryo.ScopeUser, bob.ID, "Bob's secret fact")
	q := h.tg.SendText(dm, alice, "/memory")
	list := h.reply(dm, q.ID, "Your memories (23) — page 1 of 3")
	if !strings.Contains(list.Text, "fact number 23") || strings.Contains(list.Text, "fact number 13") || strings.Contains(list.Text, "Bob") {
		t.Fatalf("page 1 = %q", list.Text)
	}
	if b := list.Buttons(); len(b) != 1 || len(b[0]) != 1 || b[0][0].Text != "Next ▶" || len(b[0][0].Data) > 64 {
		t.Fatalf("page 1 buttons = %+v", b)
	}
	// Only Alice turns her pages.
	other := h.tg.PressForged(dm.ID, bob, list.ID, list.Buttons()[0][0].Data)
	if a := h.pressAnswer(other); !a.ShowAlert {
		t.Fatalf("Bob's press answered %+v", a)
	}
	h.pressAnswer(h.press(dm, alice, list, "Next"))
	h.waitFor("page 2", func() bool { return strings.Contains(h.message(dm, list.ID).Text, "page 2 of 3") })
	page2 := h.message(dm, list.ID)
	if !strings.Contains(page2.Text, "fact number 13") || len(page2.Buttons()[0]) != 2 {
		t.Fatalf("page 2 = %q, buttons %+v", page2.Text, page2.Buttons())
	}
	q = h.tg.SendText(bobDM, bob, "/memory")
	if got := h.reply(bobDM, q.ID, "Your memories (1)"); strings.Contains(got.Text, "fact number") || len(got.Buttons()) != 0 {
		t.Fatalf("Bob's /memory = %q", got.Text)
	}
	q = h.tg.SendText(bobDM, bob, fmt.Sprintf("/memory %d", alice.ID))
	h.reply(bobDM, q.ID, "Usage: /memory")
}

// /forget forgets one of my memories after I confirm; nobody else's.
func TestForgetCommand(t *testing.T) {
	h := newHarness(t)
	h.start()
	mine := h.remember(alice.ID, ryo.ScopeUser, dm.ID, "Alice's locker code is 1234")
	q := h.tg.SendText(bobDM, bob, fmt.Sprintf("/forget %d", mine.ID))
	h.reply(bobDM, q.ID, fmt.Sprintf("There is no memory #%d here", mine.ID))
	q = h.tg.SendText(dm, alice, "/forget soon")
	h.reply(dm, q.ID, "Usage: /forget <id>")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/forget %d", mine.ID))
	p := h.prompt(dm)
	if p.ReplyTo != q.ID || !strings.Contains(p.Text, "Forget memory #") || !strings.Contains(p.Text, "Alice's locker code is 1234") {
		t.Fatalf("prompt = %+v", p)
	}
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.settled(dm, p.ID, "✅ Confirmed by Alice at ")
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(alice.ID), mine.ID); ok {
		t.Fatal("still remembered")
	}
	if len(h.llm.Requests()) != 0 {
		t.Fatal("a command's confirmation asked the model")
	}
	if strings.Contains(strings.Join(history(t, h.db(), ryo.Place{ChatID: dm.ID}), "|"), "tool_result") {
		t.Fatal("a command's action left a tool result in the conversation")
	}
}

// Admins see and manage everyone's memories and the tags; nobody else
// sees any of it.
func TestAdminMemoryAndTags(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	h.llm.Enqueue(ollamatest.Reply{Content: `{"reply":"Rex is a fine name.","command":null,"tags":["pets"],"followUpQuestion":null}`})
	q := h.tg.SendText(bobDM, bob, "my dog is Rex")
	h.answer(bobDM, q.ID, "Rex is a fine name.")
	rex := h.remember(bob.ID, ryo.ScopeUser, bob.ID, "Bob's dog is called Rex", "pets")

	q = h.tg.SendText(dm, alice, fmt.Sprintf("/memory %d", bob.ID))
	h.reply(dm, q.ID, "Bob's dog is called Rex")
	q = h.tg.SendText(dm, alice, "/memory search what's the dog called")
	h.reply(dm, q.ID, fmt.Sprintf("#%d", rex.ID))
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/memory add %d Bob likes jazz #music", bob.ID))
	h.reply(dm, q.ID, "Remembered for Bob as #")
	if got, _ := h.db().Recall(bg(t), ryo.PersonShelf(bob.ID), "jazz", 1); len(got) != 1 || got[0].Tags[0] != "music" || got[0].AddedBy != alice.ID {
		t.Fatalf("added memory = %+v", got)
	}
	q = h.tg.SendText(dm, alice, "/memory add")
	h.reply(dm, q.ID, "/memory forget <id>")

	q = h.tg.SendText(dm, alice, "/tags")
	h.reply(dm, q.ID, "pets · 2 · last")
	q = h.tg.SendText(dm, alice, "/tags pets")
	tagged := h.reply(dm, q.ID, "Tagged “pets”")
	if !strings.Contains(tagged.Text, "Rex is a fine name.") || !strings.Contains(tagged.Text, fmt.Sprintf("🧠 #%d", rex.ID)) {
		t.Fatalf("/tags pets = %q", tagged.Text)
	}
	q = h.tg.SendText(dm, alice, "/tags rename pets animals")
	h.reply(dm, q.ID, "Renamed “pets” to “animals” (2 uses)")
	q = h.tg.SendText(dm, alice, "/tags delete animals")
	h.reply(dm, q.ID, "Deleted the tag “animals” (2 uses)")
	q = h.tg.SendText(dm, alice, "/tags rename onlyone")
	h.reply(dm, q.ID, "Usage:")

	q = h.tg.SendText(dm, alice, fmt.Sprintf("/memory forget %d", rex.ID))
	p := h.prompt(dm)
	if !strings.Contains(p.Text, "Forget Bob's memory") || !strings.Contains(p.Text, "Bob's dog is called Rex") {
		t.Fatalf("admin forget prompt = %q", p.Text)
	}
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.settled(dm, p.ID, "done")
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(bob.ID), rex.ID); ok {
		t.Fatal("Bob's memory is still there")
	}

	for _, cmd := range []string{"/tags", "/tags pets"} {
		q = h.tg.SendText(bobDM, bob, cmd)
		h.reply(bobDM, q.ID, "I don't know /tags")
	}
	q = h.tg.SendText(team, alice, "/memory search jazz")
	h.pointer(team, q.ID, "memory")
}

// An admin's /memory forget prompt says what the tool it runs does, as
// every confirmation prompt does: "forget_any — …".
func TestAdminForgetPromptDescribesTool(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	rex := h.remember(bob.ID, ryo.ScopeUser, bob.ID, "Bob's dog is called Rex")
	h.tg.SendText(dm, alice, fmt.Sprintf("/memory forget %d", rex.ID))
	p := h.prompt(dm)
	lines := strings.Split(p.Text, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "<code>forget_any</code> — ") || len(lines[2]) < len("<code>forget_any</code> — ")+10 {
		t.Fatalf("the prompt's tool line does not say what the tool does; prompt:\n%s", p.Text)
	}
}

// An admin's /memory forget pressed by its asker after they were demoted
// is refused: only an admin may decide an admin's action, so someone who
// is no longer one never reaches forget_any.
func TestDemotedAdminCannotDecideForgetAny(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	secret := h.remember(alice.ID, ryo.ScopeUser, dm.ID, "Alice's locker code is 1234")
	if _, err := h.db().SetAccess(bg(t), bob.ID, ryo.RoleAdmin, true, alice.ID); err != nil {
		t.Fatal(err)
	}
	h.tg.SendText(bobDM, bob, fmt.Sprintf("/memory forget %d", secret.ID))
	p := h.prompt(bobDM)
	if _, err := h.db().SetAccess(bg(t), bob.ID, ryo.RoleUser, true, alice.ID); err != nil {
		t.Fatal(err)
	}
	if ans := h.pressAnswer(h.press(bobDM, bob, p, "✅")); !strings.Contains(ans.Text, "Only an admin") {
		t.Errorf("the demoted admin's press was answered %q; want that only an admin may decide", ans.Text)
	}
	if a := h.action(p); a.State != ryo.ActionPending {
		t.Errorf("a demoted admin decided forget_any: action %s", a.State)
	}
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(alice.ID), secret.ID); !ok {
		t.Error("a person who is no longer an admin forgot Alice's memory through forget_any")
	}
}
