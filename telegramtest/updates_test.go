package telegramtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

func poll(offset int64, timeoutSec int) map[string]any {
	return map[string]any{"offset": offset, "timeout": timeoutSec, "limit": 100, "allowed_updates": []string{"message", "callback_query"}}
}

func TestLongPollReturnsUpdatePushedWhileWaiting(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	got := make(chan reply, 1)
	go func() { got <- postJSON(ctx, t, s, "getUpdates", poll(0, 30)) }()

	if err := s.Wait(ctx, func() bool { return len(s.Calls("getUpdates")) == 1 }); err != nil {
		t.Fatal(err)
	}
	sent := s.SendText(aliceChat(), alice(), "hello")

	list := updates(t, <-got)
	if len(list) != 1 {
		t.Fatalf("got %d updates, want 1", len(list))
	}
	var id int64
	json.Unmarshal(list[0]["update_id"], &id)
	if id < 900_000_000 || string(list[0]["message"]) != string(sent.Raw) {
		t.Errorf("update %d message %s, want an id near 10⁹ and %s", id, list[0]["message"], sent.Raw)
	}
}

func TestMessageObjectShape(t *testing.T) {
	s := newServer(t)
	first := s.SendText(groupChat(), alice(), "first")
	second := s.SendText(groupChat(), alice(), "second", telegramtest.ReplyTo(first.ID))
	var m models.Message
	if err := json.Unmarshal(second.Raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != first.ID+1 || m.Date == 0 || m.From.Username != "alice" || m.From.LanguageCode != "en" ||
		m.Chat.Type != "supergroup" || m.Chat.Title != "Ryo fans" {
		t.Errorf("message = %s", second.Raw)
	}
	if m.ReplyToMessage == nil || m.ReplyToMessage.Text != "first" || m.ReplyToMessage.From.ID != alice().ID {
		t.Errorf("reply_to_message = %s", second.Raw)
	}
}

func TestOffsetConfirmsAndForgets(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "one")
	s.SendText(aliceChat(), alice(), "two")

	list := updates(t, postJSON(ctx, t, s, "getUpdates", poll(0, 0)))
	if len(list) != 2 || s.PendingUpdates() != 2 || s.ConfirmedUpdateID() != 0 {
		t.Fatalf("first poll: %d updates, pending %d", len(list), s.PendingUpdates())
	}
	var last int64
	json.Unmarshal(list[1]["update_id"], &last)

	if list := updates(t, postJSON(ctx, t, s, "getUpdates", poll(last, 0))); len(list) != 1 {
		t.Errorf("offset=last: %d updates, want 1", len(list))
	}
	if list := updates(t, postJSON(ctx, t, s, "getUpdates", poll(last+1, 0))); len(list) != 0 {
		t.Errorf("offset=last+1: %d updates, want 0", len(list))
	}
	if s.ConfirmedUpdateID() != last || s.PendingUpdates() != 0 {
		t.Errorf("confirmed %d pending %d, want %d and 0", s.ConfirmedUpdateID(), s.PendingUpdates(), last)
	}
	if list := updates(t, postJSON(ctx, t, s, "getUpdates", poll(0, 0))); len(list) != 0 {
		t.Errorf("confirmed updates came back: %d", len(list))
	}
}

func TestLimit(t *testing.T) {
	s := newServer(t)
	for range 3 {
		s.SendText(aliceChat(), alice(), "x")
	}
	body := map[string]any{"limit": 2}
	if list := updates(t, postJSON(timeout(t), t, s, "getUpdates", body)); len(list) != 2 {
		t.Errorf("limit=2 gave %d updates", len(list))
	}
}

func TestSecondGetUpdatesConflicts(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	first := make(chan reply, 1)
	go func() { first <- postJSON(ctx, t, s, "getUpdates", poll(0, 30)) }()
	if err := s.Wait(ctx, func() bool { return len(s.Calls("getUpdates")) == 1 }); err != nil {
		t.Fatal(err)
	}

	second := postJSON(ctx, t, s, "getUpdates", poll(0, 0))
	if !second.OK {
		t.Errorf("second poll failed: %s", second.Description)
	}
	r := <-first
	want := "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
	if r.OK || r.status != http.StatusConflict || r.ErrorCode != 409 || r.Description != want {
		t.Errorf("first poll = %d %d %q", r.status, r.ErrorCode, r.Description)
	}
	if calls := s.Calls("getUpdates"); calls[0].Err == nil || calls[0].Err.Code != 409 {
		t.Errorf("first call recorded as %+v", calls[0])
	}
}

func TestLongPollTimesOutEmpty(t *testing.T) {
	s := newServer(t)
	r := postJSON(timeout(t), t, s, "getUpdates", poll(0, 1))
	if !r.OK || string(r.Result) != "[]" {
		t.Errorf("result = %s, want []", r.Result)
	}
}

func TestCloseReleasesLongPoll(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	got := make(chan reply, 1)
	go func() { got <- postJSON(ctx, t, s, "getUpdates", poll(0, 30)) }()
	if err := s.Wait(ctx, func() bool { return len(s.Calls("getUpdates")) == 1 }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if r := <-got; string(r.Result) != "[]" {
		t.Errorf("result = %s", r.Result)
	}
}

func TestPushUpdate(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	carol := telegramtest.NewUser("Carol", "")
	id := s.PushUpdate(map[string]any{"callback_query": map[string]any{
		"id": "cb1", "from": map[string]any{"id": carol.ID, "is_bot": false, "first_name": "Carol"}, "data": "vote:yes",
		"message": map[string]any{"message_id": 5321, "date": 1700000000, "chat": map[string]any{"id": carol.ID, "type": "private"}},
	}})
	raw := fmt.Sprintf(`{"update_id":%d,"sticker":true}`, id+1000)
	s.PushRawUpdate(json.RawMessage(raw))
	s.PushRawUpdate(json.RawMessage(`"not an update"`))
	next := s.SendText(aliceChat(), alice(), "after")

	r := postJSON(ctx, t, s, "getUpdates", poll(0, 0))
	var list []json.RawMessage
	if err := json.Unmarshal(r.Result, &list); err != nil || len(list) != 4 {
		t.Fatalf("result = %s (%v), want 4 entries", r.Result, err)
	}
	var first struct {
		UpdateID int64 `json:"update_id"`
	}
	json.Unmarshal(list[0], &first)
	if first.UpdateID != id || id < 900_000_000 {
		t.Errorf("first id %d, PushUpdate returned %d", first.UpdateID, id)
	}
	if string(list[1]) != raw || string(list[2]) != `"not an update"` {
		t.Errorf("raw updates changed: %s %s", list[1], list[2])
	}
	if !strings.Contains(string(list[3]), fmt.Sprintf(`"update_id":%d`, id+1002)) || !strings.Contains(string(next.Raw), `"text":"after"`) {
		t.Errorf("update after raw ones = %s", list[3])
	}
	// The chat of the callback became known, so the bot can answer there.
	b := newBot(t, s)
	if _, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: carol.ID, Text: "thanks"}); err != nil {
		t.Errorf("reply to a pushed callback's chat: %v", err)
	}
}

// TestBotPollsAndReplies runs the go-telegram/bot poller against the fake.
func TestBotPollsAndReplies(t *testing.T) {
	s := newServer(t)
	ctx, cancel := context.WithCancel(timeout(t))
	echo := func(ctx context.Context, b *bot.Bot, u *models.Update) {
		if u.Message != nil {
			b.SendMessage(ctx, &bot.SendMessageParams{ChatID: u.Message.Chat.ID, Text: "echo: " + u.Message.Text})
		}
	}
	b, err := bot.New(testToken, bot.WithServerURL(s.URL()), bot.WithSkipGetMe(), bot.WithDefaultHandler(echo))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { b.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	s.SendText(aliceChat(), alice(), "ping")
	err = s.Wait(ctx, func() bool {
		msgs := s.BotMessages(aliceChat().ID)
		return len(msgs) == 1 && msgs[0].Text == "echo: ping"
	})
	if err != nil {
		t.Fatalf("no echo: %v; calls %+v", err, s.Calls(""))
	}
	if err := s.Wait(ctx, func() bool { return s.PendingUpdates() == 0 }); err != nil {
		t.Errorf("update never confirmed: %v", err)
	}
}

func TestEditTextQueuesEditedMessage(t *testing.T) {
	s := newServer(t)
	m := s.SendText(aliceChat(), alice(), "teh")
	s.EditText(aliceChat().ID, m.ID, "the")
	list := updates(t, postJSON(timeout(t), t, s, "getUpdates", poll(0, 0)))
	if len(list) != 2 || !strings.Contains(string(list[1]["edited_message"]), `"text":"the"`) {
		t.Fatalf("updates = %v", list)
	}
	if got := s.Messages(aliceChat().ID)[0]; got.Text != "the" || got.Edits != 1 {
		t.Errorf("message = %+v", got)
	}
}
