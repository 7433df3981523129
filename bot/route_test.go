package bot

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/go-telegram/bot/models"
)

// Only JSON that is not an object is malformed; an object is an update,
// even one of no kind the bot knows.
func TestDecodeUpdateMalformed(t *testing.T) {
	for _, raw := range []string{``, `{`, `null`, `[1,2]`, `"message"`, `42`, `true`, "\xff"} {
		if _, _, err := decodeUpdate([]byte(raw)); !errors.Is(err, errMalformed) {
			t.Errorf("decodeUpdate(%q) = %v; want malformed", raw, err)
		}
	}
	for _, raw := range []string{`{}`, `{"update_id":1}`, `{"update_id":"x","message":"y"}`} {
		upd, _, err := decodeUpdate([]byte(raw))
		if err != nil {
			t.Errorf("decodeUpdate(%q) = %v; want an update", raw, err)
		}
		if r := testBot().classify(&upd); r.what != verdictIgnore {
			t.Errorf("%q is %s; want ignored", raw, r.what)
		}
	}
}

// A field this version cannot read costs that field, never the message:
// neither a mismatched type (which encoding/json reads past) nor an error
// of go-telegram's own UnmarshalJSON (which stops the objects around it, and
// is no *json.UnmarshalTypeError).
func TestDecodeUpdateInPart(t *testing.T) {
	cases := []struct {
		name, raw string
		skipped   []string
		check     func(u models.Update) bool
	}{{
		name:    "a number that became a string",
		raw:     `{"update_id":1,"message":{"message_id":"x","from":{"id":7123456789,"first_name":"Mira"},"chat":{"id":7123456789,"type":"private"},"date":5,"text":"hi"}}`,
		skipped: []string{"message.message_id"},
		check:   func(u models.Update) bool { return u.Message.Text == "hi" && u.Message.From.ID == 7123456789 },
	}, {
		name:    "a new kind of forward origin, before the text",
		raw:     `{"update_id":1,"message":{"message_id":3,"chat":{"id":1,"type":"private"},"date":5,"forward_origin":{"type":"guest"},"text":"hi"}}`,
		skipped: []string{"message.forward_origin"},
		check:   func(u models.Update) bool { return u.Message.Text == "hi" && u.Message.ForwardOrigin == nil },
	}, {
		name:    "a callback's message with a bad field keeps the data after it",
		raw:     `{"update_id":1,"callback_query":{"id":"q","from":{"id":1},"message":{"message_id":"x","date":5,"chat":{"id":-100}},"chat_instance":"c","data":"act:a:y"}}`,
		skipped: []string{"callback_query.message.message_id"},
		check: func(u models.Update) bool {
			q := u.CallbackQuery
			return q.Data == "act:a:y" && q.Message.Message != nil && q.Message.Message.Chat.ID == -100
		},
	}, {
		name:    "an inaccessible message with a bad field",
		raw:     `{"update_id":1,"callback_query":{"id":"q","from":{"id":1},"message":{"message_id":"x","date":0,"chat":{"id":-100}},"data":"d"}}`,
		skipped: []string{"callback_query.message.message_id"},
		check: func(u models.Update) bool {
			q := u.CallbackQuery
			return q.Data == "d" && q.Message.Message == nil && q.Message.InaccessibleMessage.Chat.ID == -100
		},
	}, {
		name:    "a new kind of reaction drops that reaction only",
		raw:     `{"update_id":1,"message_reaction":{"chat":{"id":-100,"type":"supergroup"},"message_id":2,"date":5,"new_reaction":[{"type":"star"},{"type":"emoji","emoji":"👍"}]}}`,
		skipped: []string{"message_reaction.new_reaction[0]"},
		check: func(u models.Update) bool {
			r := u.MessageReaction.NewReaction
			return len(r) == 1 && r[0].ReactionTypeEmoji.Emoji == "👍" && u.MessageReaction.MessageID == 2
		},
	}, {
		name:    "a broken entity drops that entity only",
		raw:     `{"update_id":1,"message":{"message_id":3,"chat":{"id":-100,"type":"supergroup"},"date":5,"text":"@a @b","entities":[{"type":"mention","offset":"0","length":2},{"type":"mention","offset":3,"length":2}]}}`,
		skipped: []string{"message.entities[0]"},
		check:   func(u models.Update) bool { return len(u.Message.Entities) == 1 && u.Message.Entities[0].Offset == 3 },
	}, {
		name:    "a new member status",
		raw:     `{"update_id":1,"my_chat_member":{"chat":{"id":-100,"type":"supergroup"},"from":{"id":1},"date":5,"old_chat_member":{"status":"member","user":{"id":2}},"new_chat_member":{"status":"guest","user":{"id":2}}}}`,
		skipped: []string{"my_chat_member.new_chat_member"},
		check: func(u models.Update) bool {
			return u.MyChatMember.Chat.ID == -100 && u.MyChatMember.OldChatMember.Member != nil
		},
	}, {
		name:    "a message that is not an object is no message",
		raw:     `{"update_id":1,"message":[]}`,
		skipped: []string{"message"},
		check:   func(u models.Update) bool { return u.Message == nil },
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, skipped, err := decodeUpdate([]byte(c.raw))
			if err != nil || !slices.Equal(skipped, c.skipped) || !c.check(u) {
				got, _ := json.Marshal(u)
				t.Fatalf("decodeUpdate = %s, %q, %v; want %q left out", got, skipped, err, c.skipped)
			}
		})
	}
}

// Nothing in a message that names no chat, no sender or odd entities can
// make the routing panic, and none of it is answered.
func TestRouteOddMessages(t *testing.T) {
	for name, raw := range map[string]string{
		"no chat":             `{"update_id":1,"message":{"message_id":1,"from":{"id":7123456789},"date":5,"text":"hi"}}`,
		"a chat of no kind":   `{"update_id":1,"message":{"message_id":1,"from":{"id":7123456789},"chat":{"id":5,"type":"guest"},"date":5,"text":"hi"}}`,
		"no sender":           `{"update_id":1,"message":{"message_id":1,"chat":{"id":5,"type":"private"},"date":5,"text":"hi"}}`,
		"an empty sender":     `{"update_id":1,"message":{"message_id":1,"from":{},"chat":{"id":5,"type":"private"},"date":5,"text":"hi"}}`,
		"a channel's message": `{"update_id":1,"message":{"message_id":1,"sender_chat":{"id":-1009876543210,"type":"channel"},"chat":{"id":-1009876543210,"type":"channel"},"date":5,"text":"hi"}}`,
		"a reply with no sender": `{"update_id":1,"message":{"message_id":2,"from":{"id":7123456789},"chat":{"id":-100,"type":"supergroup"},"date":5,"text":"hi",` +
			`"reply_to_message":{"message_id":1,"chat":{"id":-100,"type":"supergroup"},"date":4}}}`,
		"entities past the end": `{"update_id":1,"message":{"message_id":1,"from":{"id":7123456789},"chat":{"id":-100,"type":"supergroup"},"date":5,"text":"hi",` +
			`"entities":[{"type":"mention","offset":9223372036854775807,"length":9223372036854775807},{"type":"text_mention","offset":-1,"length":1}]}}`,
		"a callback with nothing": `{"update_id":1,"callback_query":{}}`,
		"a membership in no chat": `{"update_id":1,"my_chat_member":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			checkRoute(t, testBot(), []byte(raw))
			upd, _, _ := decodeUpdate([]byte(raw))
			if r := testBot().classify(&upd); r.what == verdictAnswer || r.what == verdictCommand {
				t.Errorf("%s is %s (%s)", name, r.what, r.why)
			}
		})
	}
}

// A lone surrogate reads as U+FFFD, one UTF-16 unit like the surrogate: the
// mention after it is still found.
func TestMentionAfterALoneSurrogate(t *testing.T) {
	raw := `{"update_id":1,"message":{"message_id":1,"from":{"id":7123456789,"first_name":"Mira"},"chat":{"id":-100,"type":"supergroup"},"date":5,` +
		`"text":"\ud800 @ryo_test_bot hi","entities":[{"type":"mention","offset":2,"length":13}]}}`
	upd, _, err := decodeUpdate([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if r := testBot().classify(&upd); r.what != verdictAnswer {
		t.Fatalf("verdict %s (%s); want answer", r.what, r.why)
	}
}

// A message sent on behalf of a chat comes from that chat; the stand-in
// Telegram puts in from is left behind.
func TestSenderOf(t *testing.T) {
	group := &models.Chat{ID: -1001234567890, Type: models.ChatTypeSupergroup, Title: "Rust Learners", Username: "rust_learners"}
	anon := &models.User{ID: 1087968824, IsBot: true, FirstName: "Group", Username: "GroupAnonymousBot"}
	m := &models.Message{From: anon, SenderChat: group, Chat: *group}
	got := senderOf(m)
	if got.ID != group.ID || got.FirstName != group.Title || got.Username != group.Username || got.IsBot {
		t.Fatalf("senderOf = %+v; want the group", got)
	}
	if w := withSender(m, got); w.From != got || m.From != anon {
		t.Fatal("withSender changed the message it was given")
	}
	if senderOf(&models.Message{}) != nil || senderOf(&models.Message{From: &models.User{}}) != nil {
		t.Fatal("a message with no sender has one")
	}
}
