package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/telegramtest"
)

// pointer checks that the bot answered message id in chat with the
// pointer to the private chat for command name, and nothing else, and
// returns the answer.
func (h *harness) pointer(chat telegramtest.Chat, id int, name string) telegramtest.Message {
	h.t.Helper()
	m := h.reply(chat, id, "only in our private chat")
	want := telegramtest.Button{Text: "Open private chat", URL: "https://t.me/ryo_test_bot?start=" + name}
	if b := m.Buttons(); len(b) != 1 || len(b[0]) != 1 || b[0][0] != want {
		h.t.Errorf("the pointer for /%s has buttons %+v; want %+v", name, b, want)
	}
	return m
}

// An admin's commands whose answers are private — people's ids, names and
// memories, other chats' messages and tags, the audit log, the dead letter
// — answer in a group with a pointer to the private chat and nothing
// more, and change nothing; the same commands work in the private chat,
// and the pointer's link runs the bare command there.
func TestAdminCommandsDoNotLeakIntoGroups(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	q := h.tg.SendText(bobDM, bob, "/start")
	h.answer(bobDM, q.ID, "Hi Bob")
	secret := h.remember(bob.ID, ryo.ScopeUser, bob.ID, "Bob's locker code is 4321", "lockers")
	bobID := fmt.Sprint(bob.ID)
	private := map[string]string{ // command → what it answers in the private chat
		"/users":                               "People I know",
		"/memory " + bobID:                     "Bob's locker code is 4321",
		"/memory search locker":                "Bob's locker code is 4321",
		"/memory add " + bobID + " likes jazz": "Remembered for Bob as #",
		"/tags":                                "lockers · 1 · last",
		"/tags lockers":                        "Bob's locker code is 4321",
		"/approvals":                           "No actions have asked for confirmation yet.",
		"/deadletter":                          "No update is waiting in the dead letter",
		"/allow " + bobID:                      "✅ Bob may use me now.",
		"/promote " + bobID:                    "⭐ Bob is an admin now.",
		"/demote " + bobID:                     "Bob is no longer an admin.",
		"/ban " + bobID:                        "🚫 Bob can no longer use me.",
		fmt.Sprintf("/memory forget %d", secret.ID): "Bob's locker code is 4321", // the prompt
	}
	order := []string{"/users", "/memory " + bobID, "/memory search locker", "/memory add " + bobID + " likes jazz",
		"/tags", "/tags lockers", "/approvals", "/deadletter", "/allow " + bobID, "/promote " + bobID, "/demote " + bobID,
		"/ban " + bobID, fmt.Sprintf("/memory forget %d", secret.ID)}
	for _, cmd := range append(order, "/tags rename lockers boxes", "/deadletter retry all", "/ban @bob") {
		q := h.tg.SendText(team, alice, cmd)
		h.pointer(team, q.ID, strings.TrimPrefix(strings.Fields(cmd)[0], "/"))
	}
	sent := h.tg.BotMessages(team.ID)
	if len(sent) != len(order)+3 {
		t.Errorf("the bot sent the group %d messages; want one pointer for each of the %d commands", len(sent), len(order)+3)
	}
	for _, m := range sent {
		for _, leak := range []string{bobID, "Bob", "locker", "4321", "jazz", "#"} {
			if strings.Contains(m.Text, leak) {
				t.Errorf("the group was shown %q in %q", leak, m.Text)
			}
		}
	}
	if u, _, _ := h.db().FindUser(bg(t), bob.ID); u.Role != ryo.RoleUser || u.Allowed {
		t.Errorf("commands asked in the group changed Bob's access: %+v", u)
	}
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(bob.ID), secret.ID); !ok {
		t.Error("a command asked in the group forgot Bob's memory")
	}
	if got, _ := h.db().Recall(bg(t), ryo.PersonShelf(bob.ID), "jazz", 1); len(got) != 0 {
		t.Error("a command asked in the group added a memory")
	}

	for _, cmd := range order {
		q := h.tg.SendText(dm, alice, cmd)
		h.answer(dm, q.ID, private[cmd])
	}
	for link, want := range map[string]string{"/start users": "People I know", "/start ban": "Name someone", "/start memory": "I don't remember anything here yet"} {
		q := h.tg.SendText(dm, alice, link)
		h.answer(dm, q.ID, want)
	}
	carol := telegramtest.NewUser("Carol", "carol") // sent a link to an admin list
	carolDM := telegramtest.PrivateChat(carol)
	// Someone who is no admin is answered alike in the group, so the group
	// cannot tell who is one; the link shows them nothing.
	q = h.tg.SendText(team, carol, "/users")
	h.pointer(team, q.ID, "users")
	q = h.tg.SendText(carolDM, carol, "/start users")
	if got := h.reply(carolDM, q.ID, "Hi Carol"); strings.Contains(got.Text, "People I know") {
		t.Errorf("a link opened an admin list for Carol: %q", got.Text)
	}
}

// In a group, the group's own memories are listed there, an admin's /ban
// in reply to someone's message works there and names them as the group
// sees them, and /help tells an admin what runs there and what only in
// the private chat.
func TestGroupKeepsWhatIsTheGroups(t *testing.T) {
	carol := telegramtest.NewUser("Carol", "carol")
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	h.remember(alice.ID, ryo.ScopeGroup, team.ID, "the team meets on Fridays")
	q := h.tg.SendText(team, alice, "/memory")
	h.reply(team, q.ID, "This group's memories (1)")

	said := h.tg.SendText(team, carol, "buy cheap watches at example.com")
	q = h.tg.SendText(team, alice, "/ban", telegramtest.ReplyTo(said.ID))
	got := h.reply(team, q.ID, "🚫 Carol (@carol) can no longer use me.")
	if strings.Contains(got.Text, fmt.Sprint(carol.ID)) {
		t.Errorf("the ban showed the group Carol's id: %q", got.Text)
	}
	if u, _, _ := h.db().FindUser(bg(t), carol.ID); u.Role != ryo.RoleBanned {
		t.Errorf("Carol is %q after a ban in reply to her", u.Role)
	}

	q = h.tg.SendText(team, alice, "/help")
	help := h.reply(team, q.ID, "In groups I answer")
	for _, want := range []string{"/memory — ", "/ban — stop someone using me: /ban @name, a user id, or in reply (here: in reply to their message)",
		"Only in our private chat, so that nothing private shows here: /forgetme, /export, /quota, /tags, /approvals, /deadletter, /users."} {
		if !strings.Contains(help.Text, want) {
			t.Errorf("an admin's /help in a group lacks %q:\n%s", want, help.Text)
		}
	}
	if strings.Contains(help.Text, "/users — ") {
		t.Errorf("an admin's /help in a group offers /users there:\n%s", help.Text)
	}
}
