package memory_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
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

// The longest query the tool lets through is bounded work: 200 different
// Chinese characters are at most 16 pairs, each a scan of the place's text
// (199 took 3.7 s over a topic of 100,000 messages), and 200 characters of
// words at most 32 stems; the query's first words are the ones kept.
func TestHistoryTermsAreBounded(t *testing.T) {
	var words []string
	for i := range 60 {
		words = append(words, fmt.Sprintf("w%03dx", i))
	}
	for _, tt := range []struct {
		query       string
		first       string
		pairs, stem int
	}{
		{kanji(200), string([]rune(kanji(2))), 16, 0},
		{strings.Join(words, " "), "w000x", 0, 32},
		{kanji(40) + " " + strings.Join(words, " "), "w000x", 16, 32},
	} {
		terms, inside := memory.HistoryTerms(tt.query)
		pairs := 0
		for _, in := range inside {
			if in {
				pairs++
			}
		}
		if pairs != tt.pairs || len(terms)-pairs != tt.stem || !slices.Contains(terms, tt.first) {
			t.Errorf("HistoryTerms(%.20q…) = %d pairs and %d stems, %q…; want %d and %d, with %q", tt.query, pairs, len(terms)-pairs,
				terms[:min(3, len(terms))], tt.pairs, tt.stem, tt.first)
		}
	}
}
