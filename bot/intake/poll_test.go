package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
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
	ups := got.Updates
	if len(got.Unreadable) != 2 || string(got.Unreadable[0]) != `{"no_id":true}` {
		t.Errorf("unreadable = %q; want the update without an id and the one that is no object, for the dead letter", got.Unreadable)
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
	if got, err := decodeUpdates(200, []byte(`{"ok":true,"result":[{"update_id":"12"}]}`)); err != nil || len(got.Updates) != 0 || len(got.Unreadable) != 1 {
		t.Fatalf("an update_id that is no number = %+v, %v; want it kept for the dead letter, and nothing to confirm", got, err)
	}
}

func FuzzDecodeUpdates(f *testing.F) {
	f.Add([]byte(`{"ok":true,"result":[{"update_id":987654321,"message":{"chat":{"id":-1001234567890}}}]}`))
	f.Add([]byte(`{"ok":false,"error_code":429,"parameters":{"retry_after":3}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodeUpdates(200, body)
		if err == nil {
			for _, u := range got.Updates {
				if u.ID <= 0 || len(u.Raw) == 0 {
					t.Fatalf("accepted an update without an id or body: %+v", u)
				}
			}
		}
	})
}

// An update's kind, and so the queue it runs in, is its first key after
// update_id, whatever order a map would give.
func TestReadKindIsTheFirstKey(t *testing.T) {
	for raw, want := range map[string]string{
		`{"update_id":5,"message":{"chat":{"id":-1001234567890}},"callback_query":{"message":{"chat":{"id":7}}}}`: "message",
		`{"callback_query":{"message":{"chat":{"id":7123456789}}},"update_id":5,"message":{}}`:                    "callback_query",
		`{"update_id":5}`: "unknown",
	} {
		for range 20 {
			if u, ok := Read(json.RawMessage(raw)); !ok || u.Kind != want {
				t.Fatalf("Read(%s) = %+v, %v; want kind %s", raw, u, ok, want)
			}
		}
	}
	if u, _ := Read(json.RawMessage(`{"update_id":5,"message":{"chat":{"id":-1001234567890}}}`)); u.ChatID != -1001234567890 {
		t.Fatalf("chat = %d", u.ChatID)
	}
}

// FuzzRead checks what the poller stores of a raw update: its id, kind
// and chat read without a panic, the bytes kept as they came, and an update
// without a readable id kept apart for the dead letter. (The bot's own
// FuzzInboxUpdate checks that the router takes whatever Read takes.)
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"update_id":987654321,"message":{"message_id":4821,"date":1,"chat":{"id":7123456789,"type":"private"},"text":"hi"}}`))
	f.Add([]byte(`{"update_id":987654322,"callback_query":{"id":"c","from":{"id":7123456789},"message":{"message_id":512377,"date":1,"chat":{"id":-1001234567890,"type":"supergroup"}}}}`))
	f.Add([]byte(`{"update_id":1}`))
	f.Add([]byte(`{"update_id":-5,"message":{}}`))
	f.Add([]byte(`{"update_id":1e3,"message":{"chat":{"id":"x"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		u, ok := Read(raw)
		body := append(append([]byte(`{"ok":true,"result":[`), raw...), "]}"...)
		got, err := decodeUpdates(200, body)
		ups := got.Updates
		if !ok {
			if json.Valid(raw) && err == nil && (len(ups) > 0 || len(got.Unreadable) != 1) {
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
