package memory_test

import (
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// Whatever a query holds — the syntax of PostgreSQL's text search, quotes,
// backslashes, a NUL, only punctuation or emoji, invisible marks, 10,000
// characters — it is words to look for: the search neither fails nor
// finds what the words do not say.
func TestSearchHistoryQueryIsOnlyWords(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	say(t, db, p, 1, "The deploy is on Friday")
	say(t, db, p, 2, "İstanbul trip is booked")
	say(t, db, p, 3, "Die Straße ist gesperrt")
	say(t, db, p, 4, "a b c ! & | ( ) : * ' \\ <-> 😀")
	for _, tt := range []struct{ query, want string }{
		{"a & !b", ""},
		{"deploy:*", "The deploy is on Friday"},
		{"deploy' | 'trip", "İstanbul trip is booked|The deploy is on Friday"},
		{"'", ""}, {"\\", ""}, {"(", ""}, {"|", ""}, {"<->", ""}, {"!!!", ""}, {"😀😀", ""},
		{"deploy\\", "The deploy is on Friday"},
		{"dep\x00loy", "The deploy is on Friday"},
		{"\u200fdeploy\u200d", "The deploy is on Friday"},
		{strings.Repeat("deploy ", 1500), "The deploy is on Friday"},
		{"İSTANBUL", "İstanbul trip is booked"},
		{"istanbul", "İstanbul trip is booked"},
		{"STRASSE", "Die Straße ist gesperrt"},
	} {
		if got := strings.Join(search(t, db, p, tt.query), "|"); got != tt.want {
			t.Errorf("SearchHistory(%.40q) = %q; want %q", tt.query, got, tt.want)
		}
	}
}

// A word is found however it is encoded: an accent precomposed or
// combining, Latin typed full-width or katakana half-width by a Japanese
// keyboard, and scripts whose letters carry vowel signs (Hindi).
func TestSearchHistoryFindsAWordHoweverItIsEncoded(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	say(t, db, p, 1, "Meet at the café at noon")
	say(t, db, p, 2, "Meet at the cafe\u0301 by the river")
	say(t, db, p, 3, "The server is down again")
	say(t, db, p, 4, "किताब मेज़ पर है")
	say(t, db, p, 5, "カフェで会いましょう")
	for _, tt := range []struct{ query, want string }{
		{"café", "Meet at the cafe\u0301 by the river|Meet at the café at noon"},
		{"cafe\u0301", "Meet at the cafe\u0301 by the river|Meet at the café at noon"},
		{"ｓｅｒｖｅｒ", "The server is down again"},
		{"किताब", "किताब मेज़ पर है"},
		{"ｶﾌｪ", "カフェで会いましょう"},
	} {
		if got := strings.Join(search(t, db, p, tt.query), "|"); got != tt.want {
			t.Errorf("SearchHistory(%q) = %q; want %q", tt.query, got, tt.want)
		}
	}
}
