package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
)

// addShapes seeds f with every update fixture, the unstorable ones too.
func addShapes(f *testing.F) {
	for _, dir := range []string{"testdata/updates", "testdata/updates/unstorable"} {
		for _, raw := range loadShapes(f, dir, testFill) {
			f.Add(raw)
		}
	}
}

// testBot is a bot that can classify updates: it needs nothing but who it is.
func testBot() *Bot {
	return &Bot{me: ryo.User{ID: 7900000001, Username: testFill["{{bot}}"], FirstName: "Ryo", IsBot: true}}
}

// FuzzInboxUpdate checks what the poller stores of a raw update: its id,
// kind and chat read without a panic, the bytes kept as they came, and
// nothing stored that the router then calls malformed — a stored update is
// always handled or ignored, never failed for its shape.
func FuzzInboxUpdate(f *testing.F) {
	addShapes(f)
	f.Add([]byte(`{"update_id":1}`))
	f.Add([]byte(`{"update_id":-5,"message":{}}`))
	f.Add([]byte(`{"update_id":1e3,"message":{"chat":{"id":"x"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		u, ok := inboxUpdate(raw)
		body := append(append([]byte(`{"ok":true,"result":[`), raw...), "]}"...)
		got, err := decodeUpdates(200, body)
		ups := got.updates
		if !ok {
			if json.Valid(raw) && err == nil && (len(ups) > 0 || len(got.unreadable) != 1) {
				t.Fatalf("decodeUpdates = %+v for an update inboxUpdate refuses; want it kept apart for the dead letter", got)
			}
			return
		}
		if u.ID <= 0 || !bytes.Equal(u.Raw, raw) || !isKindOf(u.Kind, raw) || u.Kind != "unknown" && !kindName(u.Kind) {
			t.Fatalf("inboxUpdate = %+v", u)
		}
		if err != nil || len(ups) != 1 || ups[0].ID != u.ID {
			t.Fatalf("decodeUpdates = %+v, %v; want the update alone", ups, err)
		}
		if _, _, err := decodeUpdate(raw); err != nil {
			t.Fatalf("the inbox stores an update the router calls malformed: %v", err)
		}
	})
}

// isKindOf reports whether kind is one of the keys of the update raw other
// than update_id, or "unknown" when it has none or its first cannot name a
// kind. (Which key, when there are several, is up to poll.go; Telegram
// sends one.)
func isKindOf(kind string, raw []byte) bool {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	delete(fields, "update_id")
	if _, ok := fields[kind]; ok {
		return true
	}
	first, _ := firstKind(raw)
	return kind == "unknown" && (len(fields) == 0 || !kindName(first))
}

// FuzzRoute mutates the real update shapes and runs the routing decision
// on them: it never panics and always comes to a verdict with a reason and
// what that verdict needs to act on.
func FuzzRoute(f *testing.F) {
	addShapes(f)
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"update_id":1,"message":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkRoute(t, testBot(), raw)
	})
}

func checkRoute(t *testing.T, b *Bot, raw []byte) {
	upd, skipped, err := decodeUpdate(raw)
	if err != nil {
		var fields map[string]json.RawMessage
		if !errors.Is(err, errMalformed) || json.Unmarshal(raw, &fields) == nil && fields != nil {
			t.Fatalf("an object was called malformed: %v", err)
		}
		return
	}
	for _, s := range skipped {
		if s == "" {
			t.Fatalf("a field left out has no name: %q", skipped)
		}
	}
	r := b.classify(&upd)
	if r.what.String() == "unknown" || r.why == "" {
		t.Fatalf("no verdict: %+v", r)
	}
	checkCarries(t, r)
	b.addressee(raw) // must not panic
}

// checkCarries checks that a verdict carries what its handling reads.
func checkCarries(t *testing.T, r route) {
	switch r.what {
	case verdictKeep, verdictAnswer, verdictUnreadable, verdictCommand:
		if r.msg == nil || r.msg.From == nil || r.msg.From.ID == 0 || !knownChat(r.msg.Chat) {
			t.Fatalf("%s without a message, a sender or a chat: %+v", r.what, r.msg)
		}
		if r.msg.From.IsBot {
			t.Fatalf("%s for a bot's message", r.what)
		}
		placeOf(r.msg)
		_ = (&Bot{}).userMessage(1, r.msg)
	case verdictPress:
		if r.press == nil {
			t.Fatal("a press without its query")
		}
	case verdictMembership:
		if r.member == nil || !knownChat(r.member.Chat) {
			t.Fatalf("a membership without its chat: %+v", r.member)
		}
	}
}

// FuzzEntities runs messages with any text and any entity — offsets past
// the end or negative, lengths that overflow, text that is not UTF-8 —
// through the routing decision, in every kind of chat.
func FuzzEntities(f *testing.F) {
	f.Add("@ryo_test_bot hi", "mention", 0, 13, "supergroup")
	f.Add("/help@ryo_test_bot", "bot_command", 0, 18, "private")
	f.Add("héllo 🦀 @ryo_test_bot", "mention", 9, 13, "group")
	f.Add("x", "text_mention", -1, 1<<62, "supergroup")
	f.Add("\xff\xfe", "mention", 1, 1, "supergroup")
	f.Fuzz(func(t *testing.T, text, kind string, offset, length int, chat string) {
		e := models.MessageEntity{Type: models.MessageEntityType(kind), Offset: offset, Length: length}
		m := &models.Message{ID: 1, Chat: models.Chat{ID: -1001234567890, Type: models.ChatType(chat)},
			From: &models.User{ID: 7123456789, FirstName: "Mira"}, Text: text, Entities: []models.MessageEntity{e}}
		for _, m := range []*models.Message{m, asCaption(m)} {
			r := testBot().classify(&models.Update{ID: 1, Message: m})
			if r.what.String() == "unknown" || r.why == "" {
				t.Fatalf("no verdict: %+v", r)
			}
			checkCarries(t, r)
		}
	})
}

func asCaption(m *models.Message) *models.Message {
	c := *m
	c.Text, c.Entities, c.Caption, c.CaptionEntities = "", nil, m.Text, m.Entities
	c.Photo = []models.PhotoSize{{FileID: "p", Width: 1, Height: 1}}
	return &c
}

// An update's kind, and so the queue it runs in, is its first key after
// update_id, whatever order a map would give.
func TestInboxUpdateKindIsTheFirstKey(t *testing.T) {
	for raw, want := range map[string]string{
		`{"update_id":5,"message":{"chat":{"id":-1001234567890}},"callback_query":{"message":{"chat":{"id":7}}}}`: "message",
		`{"callback_query":{"message":{"chat":{"id":7123456789}}},"update_id":5,"message":{}}`:                    "callback_query",
		`{"update_id":5}`: "unknown",
	} {
		for range 20 {
			if u, ok := inboxUpdate(json.RawMessage(raw)); !ok || u.Kind != want {
				t.Fatalf("inboxUpdate(%s) = %+v, %v; want kind %s", raw, u, ok, want)
			}
		}
	}
	if u, _ := inboxUpdate(json.RawMessage(`{"update_id":5,"message":{"chat":{"id":-1001234567890}}}`)); u.ChatID != -1001234567890 {
		t.Fatalf("chat = %d", u.ChatID)
	}
}
