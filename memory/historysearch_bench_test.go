package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// BenchmarkSearchHistory searches a busy group's topic of 100,000 messages,
// in a database holding as many of another chat's, for the words people
// ask about — common, rare, absent, several at once — and for Japanese,
// matched inside the text. Each reports the median and the 99th
// percentile of one search.
//
//	go test ./memory -run '^$' -bench SearchHistory -benchtime 200x
func BenchmarkSearchHistory(b *testing.B) {
	url := memorytest.URL(b)
	db := memorytest.OpenURL(b, url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	busy := ryo.Place{ChatID: -1001234567890, Thread: 4294967301}
	// Sentences from a pool of words, one in 50 naming a rare word; one in
	// 7 written in Japanese.
	memorytest.Exec(b, url, `
insert into chats (id, type, title) values (-1001234567890, 'supergroup', 'Busy'), (-1009876543210, 'supergroup', 'Other');
insert into users (id, first_name) values (5000000001, 'Alice');
insert into messages (chat_id, thread_id, sender_id, role, kind, text, created_at)
select c.id, case when c.id = -1001234567890 then 4294967301 else 0 end, 5000000001,
	case when g % 3 = 0 then 'assistant' else 'user' end, case when g % 3 = 0 then 'assistant' else 'user' end,
	case when g % 7 = 0 then '明日の会議は東京で行います ' || g
	else (array['the','deploy','moved','to','monday','after','review','of','database','backup','plans','for','release','notes',
		'and','tests','broke','again','coffee','lunch','meeting','budget','invoice','server','kernel','update'])[1 + g % 26] || ' ' ||
		(array['staging','production','laptop','printer','wiki','calendar','ticket','branch','docker','postgres','vacation','holiday','weekend'])[1 + (g / 26) % 13] || ' ' ||
		(array['tomorrow','yesterday','soon','later','today','tonight','now'])[1 + (g / 338) % 7] ||
		case when g % 50 = 0 then ' zanzibar' else '' end || ' #' || g end,
	now() - make_interval(secs => 100000 - g)
from generate_series(1, 100000) g cross join (values (-1001234567890::bigint), (-1009876543210::bigint)) c(id);
analyze messages;`)
	for _, set := range []struct {
		name    string
		queries []string
	}{
		{"words", []string{"deploy", "zanzibar", "database backup plans", "nonexistentword", "Kernel update tonight?"}},
		{"unspaced", []string{"東京の会議", "会議"}},
		{"long-unspaced", []string{longUnspaced}},
		{"long-words", []string{longWords}},
	} {
		b.Run(set.name, func(b *testing.B) {
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				q := set.queries[i%len(set.queries)]
				start := time.Now()
				hits, err := db.SearchHistory(ctx, busy, q, 0, 5)
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if q != "nonexistentword" && !strings.HasPrefix(set.name, "long") && len(hits) == 0 {
					b.Fatalf("%q found nothing", q)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// The longest queries the tool lets through: 200 different Chinese
// characters, each pair of them a term matched inside every message's
// text, and 200 characters of short words that start many.
var (
	longUnspaced = kanji(200)
	longWords    = strings.Repeat("the dep mov mon aft rev dat bac pla rel not tes bro aga cof lun mee bud inv ser ", 3)[:200]
)

// kanji is n different Chinese characters.
func kanji(n int) string {
	r := make([]rune, n)
	for i := range r {
		r[i] = rune(0x4e00 + 37*i)
	}
	return string(r)
}
