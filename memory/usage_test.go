package memory_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// usageDB is a store on a manual clock that reads 23:30 UTC, half an hour
// before midnight, with Alice and Carol known.
func usageDB(t *testing.T) (*memory.DB, *clocktest.Clock) {
	t.Helper()
	db := memorytest.Open(t)
	clock := clocktest.New(time.Date(2026, 3, 9, 23, 30, 0, 0, time.UTC))
	db.Clock = clock
	for _, u := range []ryo.User{alice, carol} {
		if _, err := db.SaveUser(ctx(t), u, false); err != nil {
			t.Fatal(err)
		}
	}
	return db, clock
}

var carol = ryo.User{ID: 8999999999, FirstName: "‮Carol <b>", Username: "carol"}

// use records one turn of 100 tokens in and 20 out, and 1.5 s of model time.
func use(t *testing.T, db *memory.DB, update, chat, person int64, model string, tools ...string) {
	t.Helper()
	if err := db.RecordUsage(ctx(t), memory.Usage{UpdateID: update, ChatID: chat, UserID: person, Model: model,
		PromptTokens: 100, ReplyTokens: 20, ModelTime: 1500 * time.Millisecond, Tools: tools}); err != nil {
		t.Fatal(err)
	}
}

func TestUsageReportCountsDaysAcrossMidnightUTC(t *testing.T) {
	db, clock := usageDB(t)
	const otherGroup = -1009876543210
	clock.Advance(-40 * 24 * time.Hour) // before the 30 days
	use(t, db, 9000000005, group.ID, alice.ID, "qwen3:8b")
	clock.Advance(40 * 24 * time.Hour)
	use(t, db, 9000000001, group.ID, alice.ID, "qwen3:8b", "calculate", "create_chart")
	use(t, db, 9000000002, group.ID, carol.ID, "qwen3:8b", "calculate")
	use(t, db, 9000000002, group.ID, carol.ID, "qwen3:8b", "calculate") // run again: counted once
	use(t, db, 9000000003, otherGroup, alice.ID, "llama3.2")
	clock.Advance(time.Hour) // 00:30 the next day
	use(t, db, 9000000004, group.ID, carol.ID, "llama3.2", "web_search")

	r, err := db.UsageReport(ctx(t), memory.UsageScope{ChatID: group.ID})
	if err != nil {
		t.Fatal(err)
	}
	if r.Today.Turns != 1 || r.Today.People != 1 || r.Today.ToolCalls != 1 {
		t.Errorf("today = %+v; want the one turn after midnight", r.Today)
	}
	want := memory.UsageTotals{Turns: 3, People: 2, PromptTokens: 300, ReplyTokens: 60, ModelTime: 4500 * time.Millisecond, ToolCalls: 4}
	if r.Week != want || r.Month != want {
		t.Errorf("week %+v, month %+v; want %+v", r.Week, r.Month, want)
	}
	day1 := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	wantDays := []memory.UsageDay{{day1, "qwen3:8b", 2, 240}, {day1.AddDate(0, 0, 1), "llama3.2", 1, 120}}
	if !slices.Equal(r.Days, wantDays) {
		t.Errorf("days = %+v; want %+v", r.Days, wantDays)
	}
	if len(r.Models) != 2 || r.Models[0].Model != "qwen3:8b" || r.Models[0].Turns != 2 {
		t.Errorf("models = %+v", r.Models)
	}
	if len(r.People) != 2 || r.People[0].Person.ID != carol.ID || r.People[0].Person.FirstName != carol.FirstName || r.People[0].Turns != 2 {
		t.Errorf("people = %+v; want Carol (64-bit id, name as stored) first", r.People)
	}
	wantTools := []memory.ToolUsage{{"calculate", 2}, {"create_chart", 1}, {"web_search", 1}}
	if !slices.Equal(r.Tools, wantTools) {
		t.Errorf("tools = %+v; want %+v", r.Tools, wantTools)
	}

	everyone, err := db.UsageReport(ctx(t), memory.UsageScope{})
	if err != nil {
		t.Fatal(err)
	}
	if everyone.Month.Turns != 4 {
		t.Errorf("everywhere: %d turns; want 4", everyone.Month.Turns)
	}
	hers, err := db.UsageReport(ctx(t), memory.UsageScope{UserID: alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if hers.Month.Turns != 2 || len(hers.People) != 1 || hers.People[0].Person.ID != alice.ID {
		t.Errorf("Alice's own: %+v", hers)
	}
}

func TestPersonTurnsAreTheWindowsOwn(t *testing.T) {
	db, clock := usageDB(t)
	use(t, db, 9000000001, group.ID, alice.ID, "m")
	clock.Advance(time.Hour)
	use(t, db, 9000000002, alice.ID, alice.ID, "m")
	use(t, db, 9000000003, group.ID, carol.ID, "m")
	marks, err := db.PersonTurns(ctx(t), alice.ID, clock.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 || marks[0].Tokens != 120 || !marks[0].At.Equal(clock.Now()) {
		t.Errorf("the last hour = %+v; want the one turn just now", marks)
	}
	if marks, _ = db.PersonTurns(ctx(t), alice.ID, clock.Now().Add(-24*time.Hour)); len(marks) != 2 {
		t.Errorf("the last day = %+v; want both chats' turns", marks)
	}
}

func TestForgettingAPersonAnonymisesTheirGroupUsage(t *testing.T) {
	db, _ := usageDB(t)
	use(t, db, 9000000001, group.ID, alice.ID, "m")
	use(t, db, 9000000002, alice.ID, alice.ID, "m")
	if _, err := db.ForgetPerson(ctx(t), alice.ID); err != nil {
		t.Fatal(err)
	}
	r, err := db.UsageReport(ctx(t), memory.UsageScope{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Month.Turns != 1 || r.Month.People != 0 || len(r.People) != 0 {
		t.Errorf("after /forgetme: %+v; want the group's turn, no one's", r.Month)
	}
}

func TestExportHoldsAPersonsUsageByDay(t *testing.T) {
	db, clock := usageDB(t)
	use(t, db, 9000000001, group.ID, alice.ID, "m", "calculate")
	clock.Advance(time.Hour) // past midnight UTC
	use(t, db, 9000000002, group.ID, alice.ID, "m")
	use(t, db, 9000000003, group.ID, alice.ID, "m")
	use(t, db, 9000000004, group.ID, carol.ID, "m")
	e, err := db.Export(ctx(t), alice.ID, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := []memory.ExportUsage{
		{Day: "2026-03-10", ChatID: group.ID, Model: "m", Answers: 2, PromptTokens: 200, ReplyTokens: 40, ModelMS: 3000},
		{Day: "2026-03-09", ChatID: group.ID, Model: "m", Answers: 1, PromptTokens: 100, ReplyTokens: 20, ModelMS: 1500, ToolCalls: 1},
	}
	if !slices.Equal(e.Usage, want) {
		t.Errorf("usage = %+v; want %+v", e.Usage, want)
	}
}

func TestUsageIsSweptAfterItsRetention(t *testing.T) {
	db, clock := usageDB(t)
	use(t, db, 9000000001, group.ID, alice.ID, "m")
	clock.Advance(48 * time.Hour)
	use(t, db, 9000000002, group.ID, alice.ID, "m")
	s, err := db.Sweep(ctx(t), memory.Retention{Usage: 24 * time.Hour})
	if err != nil || s.Usage != 1 {
		t.Fatalf("swept %+v, %v; want the old turn", s, err)
	}
}

func TestPersonQuotaSetAndRemoved(t *testing.T) {
	db, _ := usageDB(t)
	if err := db.SetPersonQuota(ctx(t), carol.ID, "50/day", alice.ID); err != nil {
		t.Fatal(err)
	}
	q, ok, err := db.QuotaOf(ctx(t), carol.ID)
	if err != nil || !ok || q.Limits != "50/day" || q.SetBy != alice.ID {
		t.Fatalf("quota = %+v, %v, %v", q, ok, err)
	}
	if err := db.SetPersonQuota(ctx(t), carol.ID, "", alice.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.QuotaOf(ctx(t), carol.ID); ok {
		t.Error("a removed quota is still there")
	}
}

// What decides a person's quota is read in one: the quota an admin gave
// them, with or without the bot knowing them, and their role and tier.
func TestQuotaStanding(t *testing.T) {
	db, _ := usageDB(t)
	stranger := int64(8_999_999_998)
	check := func(person int64, want memory.QuotaStanding) {
		t.Helper()
		if got, err := db.QuotaStandingOf(ctx(t), person); err != nil || got != want {
			t.Fatalf("QuotaStandingOf(%d) = %+v, %v; want %+v", person, got, err, want)
		}
	}
	check(carol.ID, memory.QuotaStanding{Known: true, Role: ryo.RoleUser})
	check(stranger, memory.QuotaStanding{})
	for _, person := range []int64{carol.ID, stranger} {
		if err := db.SetPersonQuota(ctx(t), person, "50/day", alice.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetTier(ctx(t), carol.ID, "guest", alice.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetAccess(ctx(t), carol.ID, ryo.RoleAdmin, true, alice.ID); err != nil {
		t.Fatal(err)
	}
	check(carol.ID, memory.QuotaStanding{Limits: "50/day", Own: true, Known: true, Role: ryo.RoleAdmin, Tier: "guest"})
	check(stranger, memory.QuotaStanding{Limits: "50/day", Own: true})
}
