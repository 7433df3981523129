package bot

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/intake"
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

// FuzzInboxUpdate checks that the inbox never stores an update the router
// then calls malformed: a stored update is always handled or ignored, never
// failed for its shape.
func FuzzInboxUpdate(f *testing.F) {
	addShapes(f)
	f.Add([]byte(`{"update_id":1}`))
	f.Add([]byte(`{"update_id":1e3,"message":{"chat":{"id":"x"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, ok := intake.Read(raw); !ok {
			return
		}
		if _, _, err := decodeUpdate(raw); err != nil {
			t.Fatalf("the inbox stores an update the router calls malformed: %v", err)
		}
	})
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
