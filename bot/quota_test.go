package bot

import (
	"testing"
	"time"

	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

func TestParseQuotaReadsWhatStringWrites(t *testing.T) {
	for in, want := range map[string]string{
		"50/day":                         "50/day",
		" 10/Hour , 20k tokens/day":      "10/hour, 20000 tokens/day",
		"none":                           "none",
		"5/h,100 tokens/d":               "5/hour, 100 tokens/day",
		"1000000000 tokens/hour, 3/day ": "1000000000 tokens/hour, 3/day",
	} {
		q, err := ParseQuota(in)
		if err != nil || q.String() != want {
			t.Errorf("ParseQuota(%q) = %q, %v; want %q", in, q.String(), err, want)
		}
	}
	for _, bad := range []string{"0/day", "50", "50/week", "-1/hour", "5/day,6/day", "lots/day", "1000000001/day"} {
		if q, err := ParseQuota(bad); err == nil {
			t.Errorf("ParseQuota(%q) = %v; want an error", bad, q)
		}
	}
}

func TestParseQuotasFollowsTheTiersFormat(t *testing.T) {
	q, err := ParseQuotas("20/hour,100/day; guest=5/hour;member=none", []string{"default", "guest", "member"})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Of("guest").String(); got != "5/hour" {
		t.Errorf("guest: %s", got)
	}
	if got := q.Of("member").String(); got != "none" {
		t.Errorf("member: %s", got)
	}
	if got := q.Of("default").String(); got != "20/hour, 100/day" {
		t.Errorf("default: %s", got)
	}
	for _, bad := range []string{"vip=5/day", "5/day;6/day", "guest=5/day;guest=6/day", "guest=5"} {
		if _, err := ParseQuotas(bad, []string{"default", "guest"}); err == nil {
			t.Errorf("ParseQuotas(%q) took it", bad)
		}
	}
	if q, _ := ParseQuotas("", nil); !q.Empty() {
		t.Error("no RYO_QUOTA is not empty")
	}
}

// at is a time on 9 March 2026, UTC.
func at(h, m int) time.Time { return time.Date(2026, 3, 9, h, m, 0, 0, time.UTC) }

func TestQuotaFreesWhenEnoughTurnsLeaveTheWindow(t *testing.T) {
	marks := []memory.UsageMark{
		{At: at(1, 0).Add(-2 * time.Hour), Tokens: 5000}, // 23:00 the day before
		{At: at(13, 59).Add(30 * time.Second), Tokens: 5000},
		{At: at(14, 10), Tokens: 5000},
		{At: at(14, 20), Tokens: 5000},
	}
	now := at(14, 30)
	cases := []struct {
		quota string
		over  bool
		until time.Time
	}{
		{"4/day", true, at(23, 0)},                                     // the oldest leaves at 23:00
		{"3/day", true, at(13, 59).Add(24*time.Hour + 30*time.Second)}, // two must leave: the second at 13:59:30 tomorrow
		{"5/day", false, time.Time{}},
		{"3/hour", true, at(14, 59).Add(30 * time.Second)},
		{"4/hour", false, time.Time{}},
		{"10000 tokens/hour", true, at(15, 10)}, // 15000 used: two turns must leave
		{"3/hour, 4/day", true, at(23, 0)},      // the one that frees last
	}
	for _, c := range cases {
		q, err := ParseQuota(c.quota)
		if err != nil {
			t.Fatal(err)
		}
		o, over := q.over(marks, now)
		if over != c.over || !o.until.Equal(c.until) {
			t.Errorf("%s: over %v until %v; want %v until %v", c.quota, over, o.until, c.over, c.until)
		}
	}
}

func TestQuotaUsedCountsEachWindow(t *testing.T) {
	marks := []memory.UsageMark{{At: at(1, 0), Tokens: 1500}, {At: at(14, 10), Tokens: 20000}}
	q, _ := ParseQuota("3/day, 10/hour, 50k tokens/day")
	if got, want := q.used(lang.Printer{}, marks, at(14, 30)), "used 2 of 3 answers a day, 1 of 10 answers an hour, 21,500 of 50,000 tokens a day"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestQuotaMessageSaysWhenToTheMinute(t *testing.T) {
	now := at(14, 30)
	berlin := time.FixedZone("CET", 3600)
	cases := []struct {
		o    overrun
		loc  *time.Location
		want string
	}{
		{overrun{Limit{N: 50, Per: day}, at(23, 0)}, time.UTC,
			"🙏 You've used today's 50 answers; you can ask again at 23:00 UTC. Your message is kept."},
		{overrun{Limit{N: 10, Per: time.Hour}, at(14, 59).Add(30 * time.Second)}, time.UTC,
			"🙏 You've used this hour's 10 answers; you can ask again at 15:00 UTC. Your message is kept."},
		{overrun{Limit{N: 20000, Tokens: true, Per: day}, at(23, 30)}, berlin,
			"🙏 You've used today's 20,000 tokens; you can ask again tomorrow at 00:30 CET. Your message is kept."},
	}
	for _, c := range cases {
		if got := quotaMessage(lang.Printer{}, c.o, now, c.loc); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// A quota written with k is kept as its full number, which must read back:
// else the person's every turn fails on a quota that cannot be read.
func TestParseQuotaRefusesKWhatItCouldNotReadBack(t *testing.T) {
	for _, in := range []string{"1000001k tokens/day", "2000000k/hour", "999999999k/day"} {
		q, err := ParseQuota(in)
		if err != nil {
			continue // refused: fine
		}
		if _, err := ParseQuota(q.String()); err != nil {
			t.Errorf("ParseQuota(%q) = %q, which does not read back: %v", in, q.String(), err)
		}
	}
	if q, err := ParseQuota("1000000k tokens/day"); err != nil || q.String() != "1000000000 tokens/day" {
		t.Errorf("ParseQuota(1000000k tokens/day) = %q, %v", q.String(), err)
	}
}
