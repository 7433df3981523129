package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestMigrateTwiceAppliesNothingNew(t *testing.T) {
	db := memorytest.Open(t) // applies everything
	applied, err := db.Migrate(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 {
		t.Fatalf("second Migrate applied %v; want nothing", applied)
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	mustExec(t, db, "insert into schema_migrations (version, name) values (9999, '9999_future.sql')")
	_, err := db.Migrate(ctx(t))
	if err == nil || !strings.Contains(err.Error(), "newer than this ryo") {
		t.Fatalf("Migrate on a newer schema = %v; want a refusal", err)
	}
}

func TestOpenNamesHostAndDatabaseButNotPassword(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = memory.Open(ctx(t), "postgres://ryo:hunter2secret@"+addr+"/ryodb?connect_timeout=2")
	if err == nil {
		t.Fatal("Open against a closed port succeeded")
	}
	msg := err.Error()
	for _, want := range []string{`"ryodb"`, "127.0.0.1", `"ryo"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "hunter2secret") {
		t.Errorf("error %q reveals the password", msg)
	}
}

func TestOpenBadURLDoesNotQuoteIt(t *testing.T) {
	_, err := memory.Open(ctx(t), "postgres://ryo:hunter2secret@host:notaport/db")
	if !errors.Is(err, memory.ErrBadURL) || strings.Contains(err.Error(), "hunter2secret") {
		t.Fatalf("Open(bad url) = %v; want ErrBadURL without the password", err)
	}
}

func TestInboxClaimsOnceAndKeepsOrder(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	batch := []memory.InboxUpdate{
		{ID: 12, ChatID: 5, Kind: "message", Raw: json.RawMessage(`{"update_id":12}`)},
		{ID: 11, ChatID: 5, Kind: "message", Raw: json.RawMessage(`{"update_id":11}`)},
		{ID: 13, Kind: "poll", Raw: json.RawMessage(`{"update_id":13}`)},
	}
	if _, err := db.StoreUpdates(c, batch); err != nil {
		t.Fatal(err)
	}
	// Telegram may deliver the same update again: it is not stored twice.
	if _, err := db.StoreUpdates(c, batch[:1]); err != nil {
		t.Fatal(err)
	}
	un, err := db.Unfinished(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(un); got != "11,12,13" {
		t.Fatalf("Unfinished = %s; want 11,12,13", got)
	}
	claim, ok, err := db.ClaimUpdate(c, 11)
	if err != nil || !ok || claim.Attempts != 1 || string(claim.Raw) != `{"update_id": 11}` {
		t.Fatalf("ClaimUpdate(11) = %+v, %v, %v; want attempt 1 with the raw update", claim, ok, err)
	}
	// A crash leaves it processing: a second claim counts a second attempt.
	if claim, ok, _ = db.ClaimUpdate(c, 11); !ok || claim.Attempts != 2 {
		t.Fatalf("second ClaimUpdate = %+v, %v; want attempt 2", claim, ok)
	}
	if err := db.FinishUpdate(c, 11, memory.StateDone, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ = db.ClaimUpdate(c, 11); ok {
		t.Fatal("a done update was claimed again")
	}
	if un, _ = db.Unfinished(c); ids(un) != "12,13" {
		t.Fatalf("Unfinished after finishing 11 = %s; want 12,13", ids(un))
	}
}

func ids(us []memory.InboxUpdate) string {
	var s []string
	for _, u := range us {
		s = append(s, strconv.FormatInt(u.ID, 10))
	}
	return strings.Join(s, ",")
}

var (
	alice = ryo.User{ID: 7123456789, FirstName: "Alice", Username: "alice"}
	group = ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup, Title: "Team", IsForum: true}
)

func mustExec(t *testing.T, db *memory.DB, sql string) { t.Helper(); memory.MustExec(t, db, sql) }

func say(t *testing.T, db *memory.DB, place ryo.Place, tgID int, text string) ryo.Message {
	t.Helper()
	m, err := db.SaveUserMessage(ctx(t), group, ryo.Message{
		Place: place, Sender: &alice, Kind: ryo.KindUser, Text: text, TelegramID: tgID, UpdateID: int64(tgID),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHistoryPerTopicLimitAndReset(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	general, topic := ryo.Place{ChatID: group.ID}, ryo.Place{ChatID: group.ID, Thread: 7}
	first := say(t, db, general, 1, "one")
	say(t, db, topic, 2, "in the topic")
	say(t, db, general, 3, "two")
	say(t, db, general, 4, "three")
	if again := say(t, db, general, 1, "one"); again.ID != first.ID {
		t.Fatalf("storing Telegram message 1 twice gave rows %d and %d", first.ID, again.ID)
	}
	got := texts(t, db, general, 2)
	if got != "two|three" {
		t.Fatalf("History(general, 2) = %s; want two|three (oldest first)", got)
	}
	if got := texts(t, db, topic, 10); got != "in the topic" {
		t.Fatalf("History(topic) = %s; want only the topic's message", got)
	}
	h, _ := db.History(c, general, 1)
	if h[0].Sender == nil || h[0].Sender.Name() != "Alice (@alice)" || h[0].Sender.Role != ryo.RoleUser {
		t.Fatalf("History sender = %+v; want Alice with role user", h[0].Sender)
	}
	if err := db.ResetContext(c, group, general); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, db, general, 10); got != "" {
		t.Fatalf("History after reset = %q; want empty", got)
	}
	say(t, db, general, 5, "after")
	if got := texts(t, db, general, 10); got != "after" {
		t.Fatalf("History after reset and a new message = %q; want after", got)
	}
	if got := texts(t, db, topic, 10); got != "in the topic" {
		t.Fatalf("reset of the general chat touched the topic: %q", got)
	}
}

func texts(t *testing.T, db *memory.DB, p ryo.Place, limit int) string {
	t.Helper()
	h, err := db.History(ctx(t), p, limit)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, m := range h {
		s = append(s, m.Text)
	}
	return strings.Join(s, "|")
}

func TestFinishTurnStoresAnswerAndMarksDone(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID}
	raw := json.RawMessage(`{}`)
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: 9, ChatID: group.ID, Kind: "message", Raw: raw}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := db.ClaimUpdate(c, 9); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	say(t, db, place, 1, "hi")
	if err := db.SaveTurnStatus(c, 9, place, 2); err != nil {
		t.Fatal(err)
	}
	if turn, err := db.Turn(c, 9); turn.StatusMessageID != 2 || turn.Answer != "" || err != nil {
		t.Fatalf("Turn = %+v, %v; want status message 2 and no answer yet", turn, err)
	}
	if err := db.SaveTurnAnswer(c, 9, place, "hello", json.RawMessage(`{"model":"m"}`)); err != nil {
		t.Fatal(err)
	}
	if turn, _ := db.Turn(c, 9); turn.StatusMessageID != 2 || turn.Answer != "hello" || string(turn.AnswerMetadata) != `{"model": "m"}` {
		t.Fatalf("Turn after the answer = %+v", turn)
	}
	if err := db.SaveTurnParts(c, 9, []int{2, 3}); err != nil {
		t.Fatal(err)
	}
	if turn, _ := db.Turn(c, 9); len(turn.Parts) != 2 || turn.Parts[1] != 3 {
		t.Fatalf("Turn parts = %v; want [2 3]", turn.Parts)
	}
	answer, err := db.FinishTurn(c, ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "hello", TelegramID: 2, ReplyTo: 1, UpdateID: 9,
		Metadata: json.RawMessage(`{"model":"m"}`)}, []string{"greeting", "tool:calculate"})
	if err != nil || answer.ID == 0 {
		t.Fatalf("FinishTurn = %+v, %v", answer, err)
	}
	if state, _, _ := db.UpdateState(c, 9); state != memory.StateDone {
		t.Fatalf("update state = %s; want done", state)
	}
	if got := texts(t, db, place, 10); got != "hi|hello" {
		t.Fatalf("History = %s; want hi|hello", got)
	}
	counts, err := db.TagCounts(c, 10)
	if err != nil || len(counts) != 2 || counts[0].Count != 1 {
		t.Fatalf("TagCounts = %+v, %v", counts, err)
	}
}

func TestUnknownTurnIsEmpty(t *testing.T) {
	db := memorytest.Open(t)
	if turn, err := db.Turn(ctx(t), 404); turn.StatusMessageID != 0 || turn.Answer != "" || err != nil {
		t.Fatalf("Turn(unknown) = %+v, %v; want nothing", turn, err)
	}
}

func TestSaveUserKeepsRoleAndStart(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	u, err := db.SaveUser(c, alice, true)
	if err != nil || u.Role != ryo.RoleUser {
		t.Fatalf("SaveUser = %+v, %v; want role user", u, err)
	}
	mustExec(t, db, fmt.Sprintf("update users set role = 'banned' where id = %d", alice.ID))
	renamed := alice
	renamed.FirstName = "Alicia"
	if u, _ = db.SaveUser(c, renamed, false); u.Role != ryo.RoleBanned {
		t.Fatalf("SaveUser after a ban = %+v; the stored role must win", u)
	}
}

// A person's message is stored with its chat, place and sender all
// together, or not at all: when the database refuses the message, nothing
// of it is kept, not even the username its sender took from someone else.
func TestAMessageRefusedKeepsNothingOfItsChatOrSender(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	bob := ryo.User{ID: 1<<33 + 5, FirstName: "Bob", Username: "alice", Seen: time.Now().Add(-time.Hour)}
	if _, err := db.SaveUser(c, bob, false); err != nil {
		t.Fatal(err)
	}
	memorytest.Exec(t, url, `create function refuse_message() returns trigger language plpgsql as $$
		begin raise exception 'refused message %', new.telegram_message_id; end $$;
		create trigger refuse_message before insert on messages for each row execute function refuse_message()`)
	_, err := db.SaveUserMessage(c, group, ryo.Message{Place: ryo.Place{ChatID: group.ID, Thread: 7}, Sender: &alice,
		Kind: ryo.KindUser, Text: "hi", TelegramID: 12, UpdateID: 1<<32 + 12})
	if err == nil || !strings.Contains(err.Error(), "refused message 12") {
		t.Fatalf("SaveUserMessage = %v; want the message refused", err)
	}
	for what, sql := range map[string]string{
		"chats":       `select count(*) from chats`,
		"chat topics": `select count(*) from chat_topics`,
		"alice":       fmt.Sprintf(`select count(*) from users where id = %d`, alice.ID),
		"bob's name":  fmt.Sprintf(`select count(*) from users where id = %d and username = 'alice'`, bob.ID),
	} {
		if n := memorytest.Count(t, url, sql); n != map[string]int{"bob's name": 1}[what] {
			t.Errorf("%s: %d rows after the message was refused", what, n)
		}
	}
	memorytest.Exec(t, url, `drop trigger refuse_message on messages`)
	m, err := db.SaveUserMessage(c, group, ryo.Message{Place: ryo.Place{ChatID: group.ID, Thread: 7}, Sender: &alice,
		Kind: ryo.KindUser, Text: "hi", TelegramID: 12, UpdateID: 1<<32 + 12})
	if err != nil || m.ID == 0 || m.Sender.Role != ryo.RoleUser {
		t.Fatalf("SaveUserMessage once the database takes it = %+v, %v", m, err)
	}
	if n := memorytest.Count(t, url, fmt.Sprintf(`select count(*) from users where id = %d and username = 'alice'`, alice.ID)); n != 1 {
		t.Errorf("alice was stored without her username, which bob was seen with before her")
	}
}

func TestToolResultsRunOncePerKey(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID}
	say(t, db, place, 1, "what is 6*7")
	meta := json.RawMessage(`{"idempotency_key":"k1","tool":"calculate"}`)
	first, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ calculate {}", Metadata: meta}, "k1")
	if err != nil || first.ID == 0 || first.Kind != ryo.KindToolResult {
		t.Fatalf("SaveToolResult = %+v, %v", first, err)
	}
	again, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ calculate {\"other\":1}", Metadata: meta}, "k1")
	if err != nil || again.ID != first.ID || again.Text != first.Text {
		t.Fatalf("second SaveToolResult = %+v, %v; want the first row", again, err)
	}
	found, ok, err := db.ToolResult(c, "k1")
	if err != nil || !ok || found.ID != first.ID {
		t.Fatalf("ToolResult = %+v, %v, %v", found, ok, err)
	}
	if _, ok, _ := db.ToolResult(c, "k2"); ok {
		t.Fatal("found a result for an unknown key")
	}
	if got := texts(t, db, place, 10); got != "what is 6*7|__tool_result__ calculate {}" {
		t.Fatalf("history = %q; want the result once, in the context", got)
	}
	// The key is the one passed, whatever the metadata says.
	if _, err := db.SaveToolResult(c, ryo.Message{Place: ryo.Place{ChatID: group.ID, Thread: 7}, Text: "__tool_result__ calculate {}", Metadata: json.RawMessage(`{}`)}, "k3"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.ToolResult(c, "k3"); !ok {
		t.Fatal("a result stored under k3 with no key in its metadata was not found by k3")
	}
}

func TestHistoryWindowMovesInSteps(t *testing.T) {
	db := memorytest.Open(t)
	place := ryo.Place{ChatID: group.ID, Thread: 3}
	var firsts []string
	for i := 1; i <= 16; i++ {
		say(t, db, place, 100+i, strconv.Itoa(i))
		h, err := db.History(ctx(t), place, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(h) > 8 || len(h) < min(i, 4) || h[len(h)-1].Text != strconv.Itoa(i) {
			t.Fatalf("after %d messages: %d kept, newest %q", i, len(h), h[len(h)-1].Text)
		}
		firsts = append(firsts, h[0].Text)
	}
	// The oldest kept message changes only every 4 messages once past 8.
	if got := strings.Join(firsts, ","); got != "1,1,1,1,1,1,1,1,5,5,5,5,9,9,9,9" {
		t.Fatalf("oldest kept message after each new one = %s", got)
	}
}
