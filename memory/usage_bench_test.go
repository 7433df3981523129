package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// BenchmarkUsageReport counts /stats over 1,000,000 turns of the last 40
// days: 200 chats (one busy group holding a tenth of them), 5,000 people,
// four models, a tool call in every third turn. It reports a busy group's
// report, a person's own, everyone's (/stats all) and a quota's look at a
// person's last day.
//
//	go test ./memory -run '^$' -bench UsageReport -benchtime 20x
func BenchmarkUsageReport(b *testing.B) {
	url := memorytest.URL(b)
	db := memorytest.OpenURL(b, url)
	now := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	db.Clock = clocktest.New(now)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	memorytest.Exec(b, url, `
insert into users (id, first_name) select 7000000000 + g, 'Person ' || g from generate_series(1, 5000) g;
insert into usage (update_id, chat_id, user_id, model, prompt_tokens, reply_tokens, model_ms, tools, at)
select 9000000000 + g,
	case when g % 10 = 0 then -1001234567890 else -1001000000000 - g % 199 end,
	7000000000 + 1 + (g * 7919) % 5000,
	(array['qwen3:8b', 'llama3.2', 'gemma3:12b', 'mistral'])[1 + g % 4],
	800 + g % 2000, 20 + g % 300, 500 + g % 9000,
	case when g % 3 = 0 then array['calculate', (array['create_chart', 'web_search', 'remember'])[1 + g % 3]] else '{}' end,
	timestamptz '2026-03-09 12:00:00+00' - make_interval(secs => g * 3.456)
from generate_series(1::bigint, 1000000::bigint) g;
analyze usage;`)
	for _, c := range []struct {
		name  string
		scope memory.UsageScope
	}{
		{"group", memory.UsageScope{ChatID: -1001234567890}},
		{"person", memory.UsageScope{UserID: 7000000042}},
		{"everyone", memory.UsageScope{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				r, err := db.UsageReport(ctx, c.scope)
				if err != nil || r.Month.Turns == 0 {
					b.Fatalf("%+v, %v", r.Month, err)
				}
			}
		})
	}
	b.Run("quota", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.PersonTurns(ctx, 7000000042, now.Add(-24*time.Hour)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
