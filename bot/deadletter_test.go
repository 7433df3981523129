package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// An update that crashed the process every time it was started is given up
// after RYO_MAX_ATTEMPTS starts: it waits in the dead letter, with its raw
// JSON and how often it was tried, instead of crashing the bot again; once
// revived, it is answered.
func TestCrashLoopEndsInTheDeadLetter(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	c := context.Background()
	msg := map[string]any{"message_id": 4321, "date": time.Now().Unix(), "text": "poison",
		"chat": map[string]any{"id": dm.ID, "type": "private"}, "from": map[string]any{"id": alice.ID, "first_name": "Alice"}}
	id := tg.PushUpdate(map[string]any{"message": msg})
	raw, _ := json.Marshal(map[string]any{"update_id": id, "message": msg})
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: id, ChatID: dm.ID, Kind: "message", Raw: raw}}); err != nil {
		t.Fatal(err)
	}
	// Two runs before this one claimed it and died while handling it.
	for range 2 {
		if _, _, err := db.ClaimUpdate(c, id); err != nil {
			t.Fatal(err)
		}
	}
	var fixed atomic.Bool
	logs := run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		if !fixed.Load() {
			return agent.Output{}, fmt.Errorf("the model was asked for an update that was given up")
		}
		return agent.Output{Text: "answered at last"}, nil
	}), 2)
	waitFor(t, tg, "the apology", botSays(tg, "something went wrong"))
	waitFor(t, tg, "the dead letter", func() bool { n, _ := db.DeadCount(c); return n == 1 })
	letters, _, err := db.DeadLetters(c, 0, 10)
	if err != nil || letters[0].UpdateID != id || letters[0].Stage != memory.DeadAtProcess || letters[0].Attempts != 3 ||
		!strings.Contains(letters[0].Error, "gave up after 3 attempts") {
		t.Fatalf("dead letter = %+v, %v", letters, err)
	}
	if !strings.Contains(logs.String(), "kept in the dead letter") {
		t.Fatalf("the log does not say where the update went:\n%s", logs.String())
	}
	fixed.Store(true)
	if _, err := db.Revive(c, id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tg, "the answer after the revival", botSays(tg, "answered at last"))
}

// What PostgreSQL's jsonb refuses and Telegram may still send — the escape
// \u0000, bytes that are not UTF-8, a lone surrogate — does not refuse the
// update: the person is answered.
func TestUpdatesJSONBWouldRefuseAreAnswered(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	got := make(chan string, 3)
	run(t, tg, db, answerFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
		got <- in.History[len(in.History)-1].Text
		return agent.Output{Text: "read you"}, nil
	}), 5)
	for i, text := range []string{`nul \u0000 inside`, "bad \xff byte", `lone \ud800 surrogate`} {
		tg.PushRawUpdate(json.RawMessage(fmt.Sprintf(
			`{"update_id":%d,"message":{"message_id":%d,"date":%d,"text":"%s","chat":{"id":%d,"type":"private"},"from":{"id":%d,"is_bot":false,"first_name":"A\u0000lice"}}}`,
			987654321+i, 5001+i, time.Now().Unix(), text, dm.ID, alice.ID)))
		select {
		case text := <-got:
			if strings.ContainsRune(text, 0) || !strings.ContainsRune(text, '\uFFFD') {
				t.Errorf("the model was shown %q; want U+FFFD in place of what PostgreSQL refuses", text)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("update %d was not answered", i)
		}
	}
	if n, _ := db.DeadCount(context.Background()); n != 0 {
		t.Fatalf("%d updates in the dead letter; want none", n)
	}
}

// An update whose first key holds the escape \u0000 is read as an update of
// a kind the bot does not know: stored (the NUL written as U+FFFD) and
// ignored. Neither the inbox nor the dead letter may be handed a kind
// PostgreSQL's text refuses: that would stop intake for everyone, as the
// batch would never be stored.
func TestNULInAnUpdatesFirstKeyDoesNotStallIntake(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	logs := run(t, tg, db, echo(), 5)
	tg.PushRawUpdate(json.RawMessage(`{"update_id":987654400,"\u0000message":{"message_id":4001,"date":1763812345,` +
		fmt.Sprintf(`"chat":{"id":%d,"type":"private"},"from":{"id":%d,"is_bot":false,"first_name":"Alice"},"text":"odd"}}`, dm.ID, alice.ID)))
	tg.SendText(dm, alice, "hello after the odd one")
	waitFor(t, tg, "the message after the odd update answered", botSays(tg, "You said: hello after the odd one"))
	if strings.Contains(logs.String(), "polling Telegram failed") {
		t.Fatalf("intake stalled on the odd update; log:\n%s", logs)
	}
}

// An update whose update_id cannot be read (a string here: a proxy or a
// local Bot API server could send one) is not lost: its neighbours confirm
// it to Telegram, so it is kept in the dead letter under an id of its own,
// logged once, and its sender told, even when Telegram sends it again.
func TestUpdateWithoutReadableIDIsKeptInTheDeadLetter(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	logs := run(t, tg, db, echo(), 5)
	raw := json.RawMessage(fmt.Sprintf(`{"update_id":"987654400","message":{"message_id":4002,"date":%d,`+
		`"chat":{"id":%d,"type":"private"},"from":{"id":%d,"is_bot":false,"first_name":"Alice"},"text":"lost words"}}`,
		time.Now().Unix(), dm.ID, alice.ID))
	tg.PushRawUpdate(raw)
	tg.PushRawUpdate(raw) // sent again
	tg.SendText(dm, alice, "and this one")
	waitFor(t, tg, "the neighbouring message answered", botSays(tg, "You said: and this one"))
	waitFor(t, tg, "the sender told", botSays(tg, bot.RefusedNotice))
	letters, total, err := db.DeadLetters(context.Background(), 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || letters[0].UpdateID != memory.UnreadableID(raw) || letters[0].UpdateID >= 0 || string(letters[0].Raw) != string(raw) {
		t.Fatalf("dead letter = %d %+v; want the update, as sent, under a negative id of its own", total, letters)
	}
	if n := strings.Count(logs.String(), "the inbox refused an update"); n != 1 {
		t.Fatalf("logged %d times; want once:\n%s", n, logs)
	}
}

// An update nested deeper than encoding/json reads (valid JSON all the
// same; PostgreSQL's jsonb takes it) does not make the whole getUpdates
// answer unreadable: the message after it is answered, and it is kept in
// the dead letter.
func TestDeeplyNestedUpdateDoesNotStallIntake(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	logs := run(t, tg, db, echo(), 5)
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	tg.PushRawUpdate(json.RawMessage(fmt.Sprintf(`{"update_id":987654400,"message":{"message_id":4001,"date":%d,`+
		`"chat":{"id":%d,"type":"private"},"from":{"id":%d,"is_bot":false,"first_name":"Alice"},"text":"deep","x":%s}}`,
		time.Now().Unix(), dm.ID, alice.ID, deep)))
	tg.SendText(dm, alice, "hello after the deep one")
	waitFor(t, tg, "the message after the deep update answered", botSays(tg, "You said: hello after the deep one"))
	if n, err := db.DeadCount(context.Background()); err != nil || n != 1 {
		t.Fatalf("dead letters = %d, %v; want the deep update kept", n, err)
	}
	if strings.Contains(logs.String(), "polling Telegram failed") {
		t.Fatalf("intake stalled on the deep update; log:\n%s", logs)
	}
}
