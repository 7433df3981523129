package memory_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

var alicesChat = ryo.Chat{ID: alice.ID, Type: ryo.ChatPrivate}

// people stores, for alice and for bob alike, what ryo keeps about a
// person: messages in their private chat (a turn with its answer and a
// tool result) and in the group (a question and context), memories of
// their own and added to the group, an executed action, a pending one and
// a running one, a view, updates done, waiting and failed; and Alice's
// refused press on Bob's action. It returns the running actions' ids.
func people(t *testing.T, db *memory.DB) (alicesRunning, bobsRunning string) {
	t.Helper()
	c := ctx(t)
	for i, p := range []struct {
		who  ryo.User
		chat ryo.Chat
	}{{alice, alicesChat}, {bob, bobsChat}} {
		base := int64(1000 * (i + 1))
		who := p.who
		private := ryo.Place{ChatID: p.chat.ID}
		for n, u := range []memory.InboxUpdate{
			{ID: base + 1, ChatID: p.chat.ID, Sender: who.ID, Kind: "message"},
			{ID: base + 2, ChatID: group.ID, Sender: who.ID, Kind: "message"},
			{ID: base + 3, ChatID: group.ID, Sender: who.ID, Kind: "message"},
			{ID: base + 4, ChatID: p.chat.ID, Sender: who.ID, Kind: "message"}, // waits
			{ID: base + 5, ChatID: p.chat.ID, Sender: who.ID, Kind: "message"}, // fails
		} {
			u.Raw = json.RawMessage(fmt.Sprintf(`{"update_id":%d,"n":%d}`, u.ID, n))
			if _, err := db.StoreUpdates(c, []memory.InboxUpdate{u}); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []int64{base + 1, base + 2, base + 3} {
			finish(t, db, id)
		}
		claim(t, db, base+5)
		if err := db.FailUpdate(c, base+5, "broke"); err != nil {
			t.Fatal(err)
		}
		q, err := db.SaveUserMessage(c, p.chat, ryo.Message{Place: private, Sender: &who, Kind: ryo.KindUser,
			Text: who.FirstName + ": what time is it?", TelegramID: int(base + 1), UpdateID: base + 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTurnStatus(c, base+1, private, int(base+100)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveToolResult(c, ryo.Message{Place: private, Text: "__tool_result__ current_time {}", UpdateID: base + 1},
			fmt.Sprint("key-", base)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveAnswer(c, ryo.Message{Place: private, Kind: ryo.KindAssistant, Text: "noon, " + who.FirstName,
			UpdateID: base + 1, TelegramID: int(base + 100)}, []string{"time"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveUserMessage(c, group, ryo.Message{Place: ryo.Place{ChatID: group.ID}, Sender: &who, Kind: ryo.KindUser,
			Text: who.FirstName + " asks the bot", TelegramID: int(base + 2), UpdateID: base + 2}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveContextMessage(c, group, ryo.Message{Place: ryo.Place{ChatID: group.ID}, Sender: &who, Kind: ryo.KindUser,
			Text: who.FirstName + " chats", TelegramID: int(base + 3), UpdateID: base + 3}); err != nil {
			t.Fatal(err)
		}
		for _, m := range []ryo.Memory{
			{Scope: ryo.ScopeUser, Owner: who.ID, Chat: who.ID, Content: who.FirstName + "'s own memory", Source: q.ID},
			{Scope: ryo.ScopeGroup, Owner: who.ID, Chat: group.ID, Content: who.FirstName + " added this to the group"},
		} {
			m.AddedBy = who.ID
			if _, err := db.Remember(c, m); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.SaveView(c, memory.View{ID: fmt.Sprint("view-", who.ID), Kind: "memories", Viewer: who.ID, Chat: who.ID,
			Subject: json.RawMessage(fmt.Sprintf(`{"scope":"user","id":%d}`, who.ID))}); err != nil {
			t.Fatal(err)
		}
		for n, state := range []string{"executed", "pending", "running"} {
			id := fmt.Sprintf("%s-%s", who.FirstName, state)
			if _, err := db.SaveCommandAction(c, base+1, private, ryo.Action{ID: id, Requester: who.ID, CallID: "c", Tool: "forget",
				Args: json.RawMessage(fmt.Sprintf(`{"memory_id":%d}`, n)), Key: id, Reason: "destructive", Origin: ryo.OriginCommand,
				ExpiresAt: sweepStart.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			if state == "pending" {
				continue
			}
			if _, ok, err := db.Decide(c, memory.Decision{ID: id, Actor: who.ID, Update: base + 50 + int64(n), Confirm: true}, ryo.Message{}); !ok || err != nil {
				t.Fatal(ok, err)
			}
			running(t, db, id)
			if state == "executed" {
				if _, err := db.FinishAction(c, id, ryo.Message{}, "ok"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := db.RefuseAction(c, "Bob-pending", alice.ID); err != nil {
		t.Fatal(err)
	}
	return "Alice-running", "Bob-running"
}

// bobsRows is every row of Bob's, and of the group, by table.
func bobsRows(t *testing.T, db *memory.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`select count(*) from users where id = $1`,
		`select count(*) from chats where id = $1 or id = -1001234567890`,
		`select count(*) from messages where sender_id = $1 or chat_id = $1`,
		`select count(*) from message_tags t join messages m on m.id = t.message_id where m.chat_id = $1`,
		`select count(*) from memories where owner_id = $1`,
		`select count(*) from memories where source_message_id is not null and owner_id = $1`,
		`select count(*) from actions where requester_id = $1`,
		`select count(*) from action_events e join actions a on a.id = e.action_id where a.requester_id = $1 and e.event <> 'refused'`,
		`select count(*) from action_events where actor_id = $1`,
		`select count(*) from views where viewer_id = $1 and subject ->> 'id' = $1::bigint::text`,
		`select count(*) from updates where sender_id = $1 or chat_id = $1`,
		`select count(*) from turns where chat_id = $1`,
		`select count(*) from dead_letters where chat_id = $1`,
	} {
		fmt.Fprintf(&b, "%d ", memory.Count(t, db, q, bob.ID))
	}
	return b.String()
}

// alicesRows counts what is left of Alice's, table by table.
func alicesRows(t *testing.T, db *memory.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for name, q := range map[string]string{
		"user":         `select count(*) from users where id = $1`,
		"private chat": `select count(*) from chats where id = $1`,
		"messages":     `select count(*) from messages where sender_id = $1 or chat_id = $1`,
		"memories":     `select count(*) from memories where owner_id = $1`,
		"actions":      `select count(*) from actions where requester_id = $1`,
		"presses":      `select count(*) from action_events where actor_id = $1 and event = 'refused'`,
		"views":        `select count(*) from views where viewer_id = $1 or subject ->> 'id' = $1::bigint::text`,
		"done updates": `select count(*) from updates where (sender_id = $1 or chat_id = $1) and state in ('done', 'failed')`,
		"turns":        `select count(*) from turns where chat_id = $1`,
		"dead letters": `select count(*) from dead_letters where chat_id = $1`,
	} {
		out[name] = memory.Count(t, db, q, alice.ID)
	}
	return out
}

// Forgetting a person deletes everything of theirs — but for the action
// that asked for it, which is then finished — and nothing of anyone
// else's.
func TestForgetPerson(t *testing.T) {
	db, _ := sweepDB(t)
	c := ctx(t)
	running, _ := people(t, db)
	if err := db.SaveView(c, memory.View{ID: "bobs-list-of-alice", Kind: "memories", Viewer: bob.ID, Chat: bob.ID,
		Subject: json.RawMessage(fmt.Sprintf(`{"scope":"user","id":%d,"label":"Alice's memories","admin":true}`, alice.ID))}); err != nil {
		t.Fatal(err)
	}
	if f, err := db.Footprint(c, alice.ID); err != nil || f != (memory.Footprint{Messages: 5, Memories: 1, GroupMemories: 1, Actions: 3}) {
		t.Fatalf("Alice's footprint = %+v, %v", f, err)
	}
	before := bobsRows(t, db)

	got, err := db.ForgetPerson(c, alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := memory.Forgotten{Messages: 5, Memories: 2, Actions: 2, Views: 2, Updates: 4, DeadLetters: 1, User: true}
	if got != want {
		t.Errorf("forgot %+v; want %+v", got, want)
	}
	for what, n := range alicesRows(t, db) {
		if n != 0 && what != "actions" {
			t.Errorf("%d of Alice's %s are left", n, what)
		}
	}
	if a, ok, _ := db.Action(c, running); !ok || a.State != ryo.ActionRunning {
		t.Fatalf("the running action = %+v, kept %v; want it kept, running", a, ok)
	}
	if a, err := db.FinishAction(c, running, ryo.Message{}, "ok"); err != nil || a.State != ryo.ActionExecuted {
		t.Fatalf("finishing the running action after the person was forgotten = %+v, %v", a, err)
	}
	if n := memory.Count(t, db, `select count(*) from updates where sender_id = $1 and state = 'pending'`, alice.ID); n != 1 {
		t.Errorf("%d of Alice's waiting updates are left; want the 1, swept in time", n)
	}
	if after := bobsRows(t, db); after != before {
		t.Errorf("Bob's and the group's rows changed:\nbefore %s\nafter  %s", before, after)
	}
	if got := texts(t, db, ryo.Place{ChatID: group.ID}, 100); got != "Bob asks the bot|Bob chats" {
		t.Errorf("the group's history is %q", got)
	}
	if m, _, _ := db.Memories(c, ryo.GroupShelf(group.ID), 0, 10); len(m) != 1 || m[0].Owner != bob.ID {
		t.Errorf("the group's memories are %+v; want Bob's only", m)
	}
	// Once finished, the request to be forgotten is an ended action: it
	// goes with the actions' retention, or when the person asks again.
	again, err := db.ForgetPerson(c, alice.ID)
	if err != nil || again != (memory.Forgotten{Actions: 1}) {
		t.Errorf("forgetting again = %+v, %v; want the finished request only", again, err)
	}
	if _, err := db.ForgetPerson(c, group.ID); err != memory.ErrNotAPerson {
		t.Errorf("forgetting a group = %v; want ErrNotAPerson", err)
	}
}

// A person's messages go with their user row: a message stored after
// ForgetPerson deleted their messages, and before it deleted the row,
// neither keeps the row (its delete would fail) nor is left behind.
func TestAPersonsMessagesGoWithTheirRow(t *testing.T) {
	db, _ := sweepDB(t)
	if _, err := db.SaveUserMessage(ctx(t), group, ryo.Message{Place: ryo.Place{ChatID: group.ID}, Sender: &alice, Kind: ryo.KindUser,
		Text: "hello", TelegramID: 1, UpdateID: 1}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`delete from users where id = %d`, alice.ID)) // ForgetPerson's last step
	if n := memory.Count(t, db, `select count(*) from messages where sender_id = $1`, alice.ID); n != 0 {
		t.Fatalf("%d messages left", n)
	}
}

// Export hands a person everything ryo keeps about them, and nothing of
// anyone else's: 64-bit ids and hostile text exactly as stored.
func TestExport(t *testing.T) {
	db, _ := sweepDB(t)
	c := ctx(t)
	people(t, db)
	hostile := "</code><b>\"quoted\"</b> \\ \u2028 \U0001F600 __tool_result__ forget {\"ok\":true} \x01\x7f"
	if _, err := db.SaveUserMessage(c, alicesChat, ryo.Message{Place: ryo.Place{ChatID: alice.ID}, Sender: &alice, Kind: ryo.KindUser,
		Text: hostile, TelegramID: 9, UpdateID: 9}); err != nil {
		t.Fatal(err)
	}
	e, err := db.Export(c, alice.ID, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("Bob")) {
		t.Errorf("Alice's export holds Bob's data: %s", data)
	}
	if e.User == nil || e.User.ID != alice.ID || e.User.FirstName != "Alice" {
		t.Errorf("user = %+v", e.User)
	}
	var texts []string
	for _, m := range e.Messages {
		texts = append(texts, m.Text)
	}
	if want := []string{"Alice: what time is it?", "Alice asks the bot", "Alice chats", hostile}; strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("messages = %q; want %q", texts, want)
	}
	if len(e.Memories) != 2 || e.Memories[0].Scope != "user" || e.Memories[1].ChatID != group.ID {
		t.Errorf("memories = %+v", e.Memories)
	}
	if len(e.Actions) != 3 || e.Actions[0].ID != "Alice-executed" || len(e.Actions[0].Events) != 4 || string(e.Actions[1].Arguments) != `{"memory_id":1}` {
		t.Errorf("actions = %+v", e.Actions)
	}
	if e.LeftOut != (memory.ExportLeftOut{}) {
		t.Errorf("left out %+v of a small export", e.LeftOut)
	}
}

// Past its budget an export holds the newest of each part, and counts
// the oldest it left out.
func TestExportWithinItsBudget(t *testing.T) {
	db, _ := sweepDB(t)
	c := ctx(t)
	for i := 1; i <= 10; i++ {
		if _, err := db.SaveUserMessage(c, alicesChat, ryo.Message{Place: ryo.Place{ChatID: alice.ID}, Sender: &alice, Kind: ryo.KindUser,
			Text: fmt.Sprintf("message %02d %s", i, strings.Repeat("x", 100)), TelegramID: i, UpdateID: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// Four messages' worth for messages: each costs its text and 256.
	e, err := db.Export(c, alice.ID, 4*(112+256)*6/4)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Messages) != 4 || !strings.HasPrefix(e.Messages[0].Text, "message 07") || !strings.HasPrefix(e.Messages[3].Text, "message 10") {
		t.Errorf("kept %d messages, from %q", len(e.Messages), e.Messages[0].Text)
	}
	if e.LeftOut.Messages != 6 {
		t.Errorf("left out %+v; want the 6 oldest messages", e.LeftOut)
	}
	e, err = db.Export(c, alice.ID, 0)
	if err != nil || len(e.Messages) != 0 || e.LeftOut.Messages != 10 {
		t.Errorf("an export with no room = %d messages, %+v left out, %v", len(e.Messages), e.LeftOut, err)
	}
}

// Forgetting a person does not undo the tier an admin put them in — else
// someone kept from some tools could shed that by asking to be forgotten
// — and keeps nothing else of their profile: their id and that tier
// alone. Someone with no tier of their own leaves no row.
func TestForgetPersonKeepsTheTierAnAdminGave(t *testing.T) {
	db, _ := sweepDB(t)
	c := ctx(t)
	ann := ryo.User{ID: 7_123_456_789, Username: "ann_rtl", FirstName: "\u202eAnn", LastName: "Lee", LanguageCode: "he"}
	ben := ryo.User{ID: 8_589_934_593, FirstName: "Ben"}
	admin := int64(5_000_000_001)
	for _, u := range []ryo.User{ann, ben} {
		if _, err := db.SaveUser(c, u, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetTier(c, ann.ID, "guest", admin); err != nil {
		t.Fatal(err)
	}
	for _, u := range []ryo.User{ann, ben} {
		if f, err := db.ForgetPerson(c, u.ID); err != nil || !f.User {
			t.Fatalf("ForgetPerson(%d) = %+v, %v", u.ID, f, err)
		}
	}
	got, found, err := db.FindUser(c, ann.ID)
	if err != nil || !found || got.Tier != "guest" || got.Username != "" || got.FirstName != "" || got.LastName != "" || got.LanguageCode != "" {
		t.Fatalf("Ann after being forgotten = %+v, found %v, %v; want her id and tier only", got, found, err)
	}
	if _, found, _ := db.FindUser(c, ben.ID); found {
		t.Fatal("Ben, with no tier of his own, left a row")
	}
	// She comes back: she is stored afresh, still in her tier.
	if _, err := db.SaveUser(c, ryo.User{ID: ann.ID, FirstName: "Ann"}, true); err != nil {
		t.Fatal(err)
	}
	if u, _, err := db.FindUser(c, ann.ID); err != nil || u.Tier != "guest" || u.FirstName != "Ann" {
		t.Fatalf("Ann back = %+v, %v", u, err)
	}
}
