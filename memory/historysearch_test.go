package memory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

func search(t *testing.T, db *memory.DB, p ryo.Place, query string) []string {
	t.Helper()
	hits, err := db.SearchHistory(ctx(t), p, query, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Excerpt)
	}
	return out
}

// Of two equal matches the recent one ranks first; other chats', other
// topics' messages and tool results are never found; any language is.
func TestSearchHistory(t *testing.T) {
	db := memorytest.Open(t)
	clock := clocktest.New(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	db.Clock = clock
	topic := ryo.Place{ChatID: group.ID, Thread: 4294967301} // past 2^32
	other := ryo.Place{ChatID: group.ID, Thread: 9}
	say(t, db, topic, 1, "The deploy is planned for Friday")
	clock.Advance(200 * 24 * time.Hour)
	say(t, db, topic, 2, "The deploy moved to Monday")
	say(t, db, topic, 3, "Встреча завтра в Москве")
	say(t, db, topic, 4, "明日の会議は東京で行います")
	say(t, db, other, 5, "Another topic's deploy")
	if _, err := db.SaveContextMessage(ctx(t), group, ryo.Message{Place: topic, Sender: &alice, Kind: ryo.KindUser,
		Text: "chatter about the rollback", TelegramID: 2147483647}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveUserMessage(ctx(t), ryo.Chat{ID: -1009876543210, Type: ryo.ChatSupergroup},
		ryo.Message{Place: ryo.Place{ChatID: -1009876543210, Thread: 4294967301}, Sender: &alice, Kind: ryo.KindUser,
			Text: "Another chat's deploy", TelegramID: 6}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveToolResult(ctx(t), ryo.Message{Place: topic, Kind: ryo.KindToolResult,
		Text: `__tool_result__ calculate {"deploy":1}`}, "k1"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ query, want string }{
		{"deploy", "The deploy moved to Monday|The deploy is planned for Friday"},
		{"deploys?", "The deploy moved to Monday|The deploy is planned for Friday"},
		{"встречи в Москве", "Встреча завтра в Москве"},
		{"東京", "明日の会議は東京で行います"},
		{"会議", "明日の会議は東京で行います"},
		{"rollback", "chatter about the rollback"},
		{"nothing here", ""},
		{"!!", ""},
	} {
		if got := strings.Join(search(t, db, topic, tt.query), "|"); got != tt.want {
			t.Errorf("SearchHistory(%q) = %q; want %q", tt.query, got, tt.want)
		}
	}
	hits, err := db.SearchHistory(ctx(t), topic, "deploy", 0, 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("SearchHistory limit 1 = %v, %v", hits, err)
	}
	m := hits[0].Message
	if m.TelegramID != 2 || m.Place != topic || m.Sender == nil || m.Sender.Name() != "Alice (@alice)" || !m.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("hit = %+v; want Telegram message 2 by Alice, now", m)
	}
	if hits, _ := db.SearchHistory(ctx(t), topic, "deploy", m.ID, 10); len(hits) != 1 || hits[0].Message.TelegramID != 1 {
		t.Fatalf("SearchHistory skipping the asking message = %+v", hits)
	}
}

// A much better old match beats a poor recent one: recency only halves.
func TestSearchHistoryRelevanceOutweighsAge(t *testing.T) {
	db := memorytest.Open(t)
	clock := clocktest.New(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	db.Clock = clock
	p := ryo.Place{ChatID: group.ID}
	say(t, db, p, 1, "Our invoice template lives in the finance folder")
	clock.Advance(400 * 24 * time.Hour)
	for i := range 8 {
		say(t, db, p, 10+i, "folder cleanup round")
	}
	got := search(t, db, p, "invoice template folder")
	if len(got) == 0 || got[0] != "Our invoice template lives in the finance folder" {
		t.Fatalf("SearchHistory = %q; want the old full match first", got)
	}
}

// A long message is cut around the match, within MaxExcerpt characters.
func TestSearchHistoryExcerpt(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	long := strings.Repeat("слово ", 100) + "ключевое место " + strings.Repeat("хвост ", 100)
	say(t, db, p, 1, long)
	got := search(t, db, p, "ключевое")
	if len(got) != 1 || len([]rune(got[0])) > memory.MaxExcerpt || !strings.Contains(got[0], "ключевое место") ||
		!strings.HasPrefix(got[0], "…") || !strings.HasSuffix(got[0], "…") {
		t.Fatalf("excerpt = %q (%d characters)", got, len([]rune(strings.Join(got, ""))))
	}
}
