package memory_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// Whatever a query holds — the syntax of PostgreSQL's text search, quotes,
// backslashes, a NUL, only punctuation or emoji, invisible marks, 10,000
// characters — it is words to look for, or without words the characters
// as written: the search neither fails nor finds what they do not say.
func TestSearchHistoryQueryIsOnlyWords(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	say(t, db, p, 1, "The deploy is on Friday")
	say(t, db, p, 2, "İstanbul trip is booked")
	say(t, db, p, 3, "Die Straße ist gesperrt")
	const symbols = "a b c ! & | ( ) : * ' \\ <-> 😀"
	say(t, db, p, 4, symbols)
	for _, tt := range []struct{ query, want string }{
		{"a & !b", ""},
		{"deploy:*", "The deploy is on Friday"},
		{"deploy' | 'trip", "İstanbul trip is booked|The deploy is on Friday"},
		{"'", symbols}, {"\\", symbols}, {"(", symbols}, {"|", symbols}, {"<->", symbols}, {"😀", symbols},
		{"!!!", ""}, {"😀😀", ""}, {"' OR 1=1 --", ""},
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

// A search looks only where it is asked from: a person's private chat and
// a group they share with ryo are two pasts; the General topic (thread 0)
// and a topic are two; a basic group's past stays its own when it becomes
// a supergroup (Telegram gives it a new chat id, and ryo keeps no link
// between the two). What /forgetme deleted and what retention swept are
// not found; ryo's answers and others' words stay.
func TestSearchHistoryScope(t *testing.T) {
	db := memorytest.Open(t)
	clock := clocktest.New(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	db.Clock = clock
	bob := ryo.User{ID: 7000000002, FirstName: "Bob"}
	private := ryo.Chat{ID: alice.ID, Type: ryo.ChatPrivate}
	basic := ryo.Chat{ID: -4012345678, Type: ryo.ChatGroup}
	general, topic := ryo.Place{ChatID: group.ID}, ryo.Place{ChatID: group.ID, Thread: 1}
	write := func(c ryo.Chat, p ryo.Place, who *ryo.User, id int, text string, context bool) {
		t.Helper()
		save := db.SaveUserMessage
		if context {
			save = db.SaveContextMessage
		}
		if _, err := save(ctx(t), c, ryo.Message{Place: p, Sender: who, Kind: ryo.KindUser, Text: text, TelegramID: id}); err != nil {
			t.Fatal(err)
		}
	}
	write(private, ryo.Place{ChatID: private.ID}, &alice, 1, "secret plan in private", false)
	write(basic, ryo.Place{ChatID: basic.ID}, &alice, 1, "plan from the basic group", false)
	write(group, general, &alice, 1, "Alice's plan in General", false)
	write(group, general, &bob, 2, "Bob's plan in General", false)
	write(group, general, &bob, 3, "Bob's chatter about the plan", true)
	write(group, topic, &bob, 4, "Bob's plan in topic one", false)
	if _, err := db.SaveAnswer(ctx(t), ryo.Message{Place: general, Kind: ryo.KindAssistant, Text: "Noted the plan, Alice", TelegramID: 5},
		nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		p    ryo.Place
		want string
	}{
		{ryo.Place{ChatID: private.ID}, "secret plan in private"},
		{ryo.Place{ChatID: basic.ID}, "plan from the basic group"},
		{ryo.Place{ChatID: group.ID}, "Noted the plan, Alice|Bob's chatter about the plan|Bob's plan in General|Alice's plan in General"},
		{topic, "Bob's plan in topic one"},
		{ryo.Place{ChatID: group.ID, Thread: 1 << 32}, ""},
	} {
		if got := strings.Join(search(t, db, tt.p, "plan"), "|"); got != tt.want {
			t.Errorf("SearchHistory(%+v) = %q; want %q", tt.p, got, tt.want)
		}
	}
	if _, err := db.ForgetPerson(ctx(t), alice.ID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(31 * 24 * time.Hour)
	if _, err := db.Sweep(ctx(t), memory.Retention{Context: 30 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []ryo.Place{{ChatID: private.ID}, {ChatID: basic.ID}} {
		if got := search(t, db, p, "plan"); len(got) != 0 {
			t.Errorf("after /forgetme SearchHistory(%+v) = %q", p, got)
		}
	}
	if got, want := strings.Join(search(t, db, general, "plan"), "|"), "Noted the plan, Alice|Bob's plan in General"; got != want {
		t.Errorf("after /forgetme and retention, SearchHistory(General) = %q; want %q", got, want)
	}
}

// A search while the place is being written to sees a consistent past:
// it never fails, and finds what was there before it began.
func TestSearchHistoryWhileWriting(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	say(t, db, p, 1, "the first deploy")
	done := make(chan error)
	go func() {
		for i := range 200 {
			if _, err := db.SaveUserMessage(ctx(t), group, ryo.Message{Place: p, Sender: &alice, Kind: ryo.KindUser,
				Text: fmt.Sprintf("deploy number %d", i), TelegramID: 100 + i}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 50 {
		hits, err := db.SearchHistory(ctx(t), p, "deploy", 0, 10)
		if err != nil || len(hits) == 0 {
			t.Fatalf("SearchHistory while writing = %d hits, %v", len(hits), err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A query of short words or of emoji alone is looked for, not dropped as
// no query at all (which the tool reports as nothing found): a word of two
// letters as a whole word, and a query without words as written, inside
// the text. Among other words, short ones are left out as before.
func TestSearchHistoryShortWordsAndEmoji(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	say(t, db, p, 1, "The AI review is on Monday")
	say(t, db, p, 2, "She said the main plan is fine")
	say(t, db, p, 3, "Release done 🎉")
	say(t, db, p, 4, "Ship it 🚀🎉")
	for _, tt := range []struct{ query, want string }{
		{"AI", "The AI review is on Monday"},
		{"ai?", "The AI review is on Monday"},
		{"🎉", "Ship it 🚀🎉|Release done 🎉"},
		{"🚀🎉", "Ship it 🚀🎉"},
		{"AI plan", "She said the main plan is fine"},
	} {
		if got := strings.Join(search(t, db, p, tt.query), "|"); got != tt.want {
			t.Errorf("SearchHistory(%q) = %q; want %q", tt.query, got, tt.want)
		}
	}
}
