package bot

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/tools"
)

// A quota as an admin might mistype it, or someone hostile write it: only
// plain decimal limits from 1 to a billion are read, and what is read
// writes back as itself.
func TestParseQuotaHostileLimits(t *testing.T) {
	for _, in := range []string{"٥/day", "５/day", "1e3/day", "0x10/day", "9223372036854775807/day", "9223372036854775808/day",
		"-1/day", "0/hour", "5/day,", "5/day;6/hour", "5/week", "5/day, 6/day", "5 tokens tokens/day", "1_000/day",
		"5/day\u202e", "5\x00/day", strings.Repeat("9", 400) + "/day", "kk/day", "k/day", "5kk/day"} {
		if q, err := ParseQuota(in); err == nil {
			t.Errorf("ParseQuota(%q) = %q; want it refused", in, q.String())
		}
	}
	for in, want := range map[string]string{"+5/day": "5/day", "007/hour": "7/hour", " 5 / DAY ": "5/day", "1000000000 tokens/day": "1000000000 tokens/day"} {
		q, err := ParseQuota(in)
		if err != nil || q.String() != want {
			t.Errorf("ParseQuota(%q) = %q, %v; want %q", in, q.String(), err, want)
			continue
		}
		if back, err := ParseQuota(q.String()); err != nil || back.String() != want {
			t.Errorf("%q does not read back: %q, %v", want, back.String(), err)
		}
	}
}

// A person at exactly their limit may not ask; one short of it may.
func TestQuotaAtExactlyTheLimit(t *testing.T) {
	now := at(14, 30)
	marks := []memory.UsageMark{{At: at(14, 0), Tokens: 999}, {At: at(14, 10), Tokens: 1}}
	for quota, over := range map[string]bool{"2/hour": true, "3/hour": false, "1000 tokens/hour": true, "1001 tokens/hour": false} {
		q, _ := ParseQuota(quota)
		if _, got := q.over(marks, now); got != over {
			t.Errorf("%s with 2 answers of 1000 tokens: over %v; want %v", quota, got, over)
		}
	}
}

// In a zone half an hour or three quarters off UTC, "tomorrow" is the
// zone's tomorrow, at the day's turn as well.
func TestQuotaMessageInHalfHourZones(t *testing.T) {
	india, nepal := time.FixedZone("IST", 5*3600+1800), time.FixedZone("+0545", 5*3600+2700)
	now := time.Date(2026, 3, 9, 18, 20, 0, 0, time.UTC) // 23:50 in India, 00:05 on the 10th in Nepal
	for _, c := range []struct {
		until time.Time
		loc   *time.Location
		want  string
	}{
		{now.Add(20 * time.Minute), india, "tomorrow at 00:10 IST"},
		{now.Add(5 * time.Minute), india, "at 23:55 IST"},
		{now.Add(20 * time.Minute), nepal, "at 00:25 +0545"},
		{now.Add(10*time.Second + 5*time.Minute), india, "at 23:56 IST"}, // rounded up: at that minute they can
	} {
		got := quotaMessage(overrun{Limit{N: 1, Per: time.Hour}, c.until}, now, c.loc)
		if !strings.Contains(got, "you can ask again "+c.want+".") {
			t.Errorf("until %v in %s: %q; want %q", c.until, c.loc, got, c.want)
		}
	}
}

// The chart of a month with one day, or every day, of usage, and of
// numbers far past a person's: it draws, and shows the numbers as they are.
func TestStatsChartOfOneDayThirtyDaysAndHugeNumbers(t *testing.T) {
	now := time.Date(2026, 3, 9, 23, 59, 0, 0, time.UTC)
	today := now.Truncate(day)
	one := memory.UsageReport{Days: []memory.UsageDay{{Day: today, Model: "qwen3:8b", Turns: 1}}, Models: []memory.ModelUsage{{Model: "qwen3:8b"}}}
	var month memory.UsageReport
	for i := range 31 { // the 31st is older than the chart
		month.Days = append(month.Days, memory.UsageDay{Day: today.AddDate(0, 0, -i), Model: "llama3.2", Turns: math.MaxInt32 + int64(i)})
	}
	month.Models = []memory.ModelUsage{{Model: "llama3.2"}}
	for name, r := range map[string]memory.UsageReport{"one day": one, "thirty days of huge numbers": month} {
		raw := statsChart(r, now)
		if strings.Count(string(raw), `"label"`) != 30 {
			t.Errorf("%s: the chart has not 30 days: %s", name, raw)
		}
		if _, err := tools.DrawChart(raw); err != nil {
			t.Errorf("%s: the chart does not draw: %v", name, err)
		}
	}
	if raw := statsChart(month, now); !strings.Contains(string(raw), `"value":2147483647}`) || strings.Contains(string(raw), "2147483677") {
		t.Errorf("the month's chart shows other numbers: %s", raw)
	}
}
