package memory_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// An excerpt is cut between the characters a person sees, never inside
// one: not between a flag's two letters, inside a family emoji joined by
// zero width joiners, or between a letter and its accent.
func TestSearchHistoryExcerptKeepsCharactersWhole(t *testing.T) {
	db := memorytest.Open(t)
	p := ryo.Place{ChatID: group.ID}
	for i, fill := range []string{"🇯🇵", "👨‍👩‍👧", "e\u0301", "👍🏽"} {
		for _, lead := range []int{0, 1, 2, 3} {
			text := strings.Repeat(fill, 150) + strings.Repeat("x", lead) + " needle " + strings.Repeat(fill, 150)
			say(t, db, p, 10*i+lead+1, text)
			hits, err := db.SearchHistory(ctx(t), p, "needle", 0, 1)
			if err != nil || len(hits) != 1 {
				t.Fatalf("SearchHistory = %v, %v", hits, err)
			}
			ex := hits[0].Excerpt
			mid := strings.TrimSuffix(strings.TrimPrefix(ex, "…"), "…")
			before, after, ok := strings.Cut(mid, " needle ")
			if !ok || utf8.RuneCountInString(ex) > memory.MaxExcerpt ||
				strings.ReplaceAll(strings.TrimRight(before, "x"), fill, "") != "" || strings.ReplaceAll(after, fill, "") != "" {
				t.Errorf("excerpt of %q and %d×x cuts a character: %q", fill, lead, ex)
			}
		}
	}
}

// A message of a megabyte is cut around its match, wherever the match
// is and whichever of the query's terms it does not hold.
func TestExcerptOfAMegabyte(t *testing.T) {
	if ex := memory.Excerpt(megabyte, megabyteTerms); !strings.HasSuffix(ex, "слово needle") {
		t.Fatalf("excerpt = %.40q…; want it to end with the match", ex)
	}
}

// BenchmarkExcerptOfAMegabyte cuts a megabyte's excerpt for a query of
// 200 terms, all but one absent from it.
//
//	go test ./memory -run '^$' -bench ExcerptOfAMegabyte
func BenchmarkExcerptOfAMegabyte(b *testing.B) {
	for b.Loop() {
		memory.Excerpt(megabyte, megabyteTerms)
	}
}

var (
	megabyte      = strings.Repeat("слово ", 170_000) + "needle"
	megabyteTerms = append(pairs(kanji(201)), "needle")
)

// pairs are the overlapping pairs of characters of s.
func pairs(s string) []string {
	r := []rune(s)
	var out []string
	for i := 0; i+1 < len(r); i++ {
		out = append(out, string(r[i:i+2]))
	}
	return out
}
