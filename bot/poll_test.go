package bot

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
)

func TestDecodeUpdates(t *testing.T) {
	body := `{"ok":true,"result":[
		{"update_id":987654321,"message":{"message_id":4821,"date":1,"chat":{"id":7123456789,"type":"private"},"text":"hi"}},
		{"update_id":987654322,"callback_query":{"id":"c","from":{"id":7123456789},"message":{"message_id":512377,"date":1,"chat":{"id":-1001234567890,"type":"supergroup"}}}},
		{"update_id":987654323,"poll":{"id":"p"}},
		{"no_id":true},
		"not an object",
		{"update_id":987654324,"message":{"chat":"broken"}}
	]}`
	got, err := decodeUpdates(200, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	ups := got.updates
	if len(got.unreadable) != 2 || string(got.unreadable[0]) != `{"no_id":true}` {
		t.Errorf("unreadable = %q; want the update without an id and the one that is no object, for the dead letter", got.unreadable)
	}
	want := []struct {
		id, chat int64
		kind     string
	}{{987654321, 7123456789, "message"}, {987654322, -1001234567890, "callback_query"}, {987654323, 0, "poll"}, {987654324, 0, "message"}}
	if len(ups) != len(want) {
		t.Fatalf("got %d updates; want %d: %+v", len(ups), len(want), ups)
	}
	for i, w := range want {
		if ups[i].ID != w.id || ups[i].ChatID != w.chat || ups[i].Kind != w.kind {
			t.Errorf("update %d = {%d %d %s}; want %+v", i, ups[i].ID, ups[i].ChatID, ups[i].Kind, w)
		}
	}
}

func TestDecodeUpdatesErrors(t *testing.T) {
	_, err := decodeUpdates(429, []byte(`{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`))
	var apiErr *apiError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != 7 || pollBackoff(err, 1) != 7*time.Second {
		t.Fatalf("429 = %v; want retry after exactly 7s", err)
	}
	if _, err := decodeUpdates(502, []byte("<html>bad gateway</html>")); err == nil {
		t.Fatal("a proxy's HTML page was taken for updates")
	}
	if got, err := decodeUpdates(200, []byte(`{"ok":true,"result":[{"update_id":"12"}]}`)); err != nil || len(got.updates) != 0 || len(got.unreadable) != 1 {
		t.Fatalf("an update_id that is no number = %+v, %v; want it kept for the dead letter, and nothing to confirm", got, err)
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 4: 4 * time.Second, 20: 30 * time.Second} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %v; want %v", n, got, want)
		}
	}
}

func FuzzDecodeUpdates(f *testing.F) {
	f.Add([]byte(`{"ok":true,"result":[{"update_id":987654321,"message":{"chat":{"id":-1001234567890}}}]}`))
	f.Add([]byte(`{"ok":false,"error_code":429,"parameters":{"retry_after":3}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodeUpdates(200, body)
		if err == nil {
			for _, u := range got.updates {
				if u.ID <= 0 || len(u.Raw) == 0 {
					t.Fatalf("accepted an update without an id or body: %+v", u)
				}
			}
		}
	})
}

func FuzzParseCommand(f *testing.F) {
	f.Add("/start@ryo_test_bot hello", 0, 19)
	f.Add("привет /help", 7, 5)
	f.Fuzz(func(t *testing.T, text string, offset, length int) {
		b := &Bot{}
		b.me.Username = "ryo_test_bot"
		m := &models.Message{Text: text, Entities: []models.MessageEntity{{Type: models.MessageEntityTypeBotCommand, Offset: offset, Length: length}}}
		c, ok := b.parseCommand(m) // must not panic on any offsets
		if ok && strings.Contains(c.name, "@") {
			t.Fatalf("command name %q keeps its @target", c.name)
		}
	})
}
