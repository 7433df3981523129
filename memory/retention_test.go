package memory_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// The sweeps' tests: what is a little past its retention goes, what is a
// little inside it stays, and nothing else is touched.

var (
	sweepStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	bob        = ryo.User{ID: 7345678901, FirstName: "Bob", Username: "bob"}
	bobsChat   = ryo.Chat{ID: bob.ID, Type: ryo.ChatPrivate}
)

// sweepDB is a store on a manual clock that reads sweepStart.
func sweepDB(t *testing.T) (*memory.DB, *clocktest.Clock) {
	t.Helper()
	db := memorytest.Open(t)
	clock := clocktest.New(sweepStart)
	db.Clock = clock
	return db, clock
}

// sweep sweeps with r, failing the test on an error.
func sweep(t *testing.T, db *memory.DB, r memory.Retention) memory.Swept {
	t.Helper()
	s, err := db.Sweep(ctx(t), r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inbox stores updates ids as messages of the group, and claims them.
func inbox(t *testing.T, db *memory.DB, ids ...int64) {
	t.Helper()
	for _, id := range ids {
		if _, err := db.StoreUpdates(ctx(t), []memory.InboxUpdate{{ID: id, ChatID: group.ID, Sender: alice.ID, Kind: "message",
			Raw: json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"text":"hi"}}`, id))}}); err != nil {
			t.Fatal(err)
		}
	}
}

func claim(t *testing.T, db *memory.DB, id int64) {
	t.Helper()
	if _, ok, err := db.ClaimUpdate(ctx(t), id); !ok || err != nil {
		t.Fatalf("claim %d: %v, %v", id, ok, err)
	}
}

func finish(t *testing.T, db *memory.DB, id int64) {
	t.Helper()
	claim(t, db, id)
	if err := db.FinishUpdate(ctx(t), id, memory.StateDone, ""); err != nil {
		t.Fatal(err)
	}
}

func inInbox(t *testing.T, db *memory.DB, id int64) bool {
	return memory.Count(t, db, `select count(*) from updates where update_id = $1`, id) == 1
}

func inDeadLetter(t *testing.T, db *memory.DB, id int64) bool {
	return memory.Count(t, db, `select count(*) from dead_letters where update_id = $1`, id) == 1
}

// Done updates go a week after they were done, with what their turns
// remembered; updates still waiting or being handled, and failed ones
// whose dead letter waits for an admin, stay however old. Dead letters
// retried a week ago go once their update is done.
func TestSweepUpdates(t *testing.T) {
	db, clock := sweepDB(t)
	c := ctx(t)
	const week = 7 * 24 * time.Hour
	inbox(t, db, 1, 2, 3, 4, 5, 6, 7)
	finish(t, db, 1) // done at the start: past the week
	if err := db.SaveTurnStatus(c, 1, ryo.Place{ChatID: group.ID}, 501); err != nil {
		t.Fatal(err)
	}
	claim(t, db, 4) // being handled since the start
	for _, id := range []int64{5, 6, 7} {
		claim(t, db, id)
		if err := db.FailUpdate(c, id, "it broke"); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int64{6, 7} { // an admin retried them; 6 is done since, 7 waits again
		if _, err := db.Revive(c, id); err != nil {
			t.Fatal(err)
		}
	}
	finish(t, db, 6)
	clock.Advance(time.Second)
	finish(t, db, 2) // done a second later: inside the week when the sweep runs

	if got := sweep(t, db, memory.Retention{}); got.Total() != 0 {
		t.Fatalf("a sweep that keeps everything forever deleted %+v", got)
	}
	clock.Advance(week - time.Second/2)
	got := sweep(t, db, memory.Retention{Updates: week})
	if got != (memory.Swept{Updates: 2, DeadLetters: 1}) {
		t.Errorf("swept %+v; want updates 1 and 6, and 6's dead letter", got)
	}
	for id, want := range map[int64]bool{1: false, 2: true, 3: true, 4: true, 5: true, 6: false, 7: true} {
		if inInbox(t, db, id) != want {
			t.Errorf("update %d in the inbox: %v; want %v", id, !want, want)
		}
	}
	for id, want := range map[int64]bool{5: true, 6: false, 7: true} {
		if inDeadLetter(t, db, id) != want {
			t.Errorf("update %d in the dead letter: %v; want %v", id, !want, want)
		}
	}
	if turn, err := db.Turn(c, 1); err != nil || turn.StatusMessageID != 0 {
		t.Errorf("the swept update's turn = %+v, %v; want it gone with it", turn, err)
	}
	if got := sweep(t, db, memory.Retention{Updates: week}); got.Total() != 0 {
		t.Errorf("a second sweep deleted %+v", got)
	}
}

// Views go a day after their list was sent.
func TestSweepViews(t *testing.T) {
	db, clock := sweepDB(t)
	save := func(id string) {
		if err := db.SaveView(ctx(t), memory.View{ID: id, Kind: "memories", Viewer: alice.ID, Chat: alice.ID}); err != nil {
			t.Fatal(err)
		}
	}
	save("old")
	clock.Advance(time.Second)
	save("young")
	clock.Advance(24*time.Hour - time.Second/2)
	if got := sweep(t, db, memory.Retention{Views: 24 * time.Hour}); got != (memory.Swept{Views: 1}) {
		t.Errorf("swept %+v; want the old view", got)
	}
	for id, want := range map[string]bool{"old": false, "young": true} {
		if _, ok, err := db.View(ctx(t), id); ok != want || err != nil {
			t.Errorf("view %s kept: %v, %v; want %v", id, ok, err, want)
		}
	}
}

// settled records that action id's prompt shows its outcome.
func settled(t *testing.T, db *memory.DB, id string) {
	t.Helper()
	if err := db.SaveActionPrompt(ctx(t), id, 900, 0); err != nil {
		t.Fatal(err)
	}
	if err := db.SettleAction(ctx(t), id); err != nil {
		t.Fatal(err)
	}
}

func decide(t *testing.T, db *memory.DB, id string, yes bool) {
	t.Helper()
	if _, ok, err := db.Decide(ctx(t), memory.Decision{ID: id, Actor: alice.ID, Update: 99, Confirm: yes}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("decide %s: %v, %v", id, ok, err)
	}
}

func running(t *testing.T, db *memory.DB, id string) {
	t.Helper()
	if _, err := db.StartAction(ctx(t), id); err != nil {
		t.Fatal(err)
	}
}

func executed(t *testing.T, db *memory.DB, id string) {
	t.Helper()
	decide(t, db, id, true)
	running(t, db, id)
	if _, err := db.FinishAction(ctx(t), id, ryo.Message{}, "ok"); err != nil {
		t.Fatal(err)
	}
}

// Actions go, with their audit log, ninety days after they ended: run,
// interrupted, cancelled or expired. Actions that wait for a yes (even
// past their time), are confirmed or running, or whose prompt still shows
// its buttons, stay.
func TestSweepActions(t *testing.T) {
	db, clock := sweepDB(t)
	const keep = 90 * 24 * time.Hour
	for i, id := range []string{"executed", "cancelled", "expired", "interrupted", "pending", "confirmed", "running", "unsettled", "young"} {
		expires := sweepStart.Add(time.Hour)
		if id == "expired" {
			expires = sweepStart.Add(time.Minute)
		}
		held(t, db, int64(i+1), id, "k-"+id, expires)
	}
	executed(t, db, "executed")
	settled(t, db, "executed")
	decide(t, db, "cancelled", false)
	decide(t, db, "confirmed", true)
	decide(t, db, "running", true)
	running(t, db, "running")
	decide(t, db, "interrupted", true)
	running(t, db, "interrupted")
	again := ryo.Action{ID: "again", Requester: alice.ID, UpdateID: 99, CallID: "c1", Tool: "wipe", Args: json.RawMessage(`{}`),
		Key: "k-again", Reason: "destructive", ExpiresAt: sweepStart.Add(time.Hour)}
	if _, _, err := db.InterruptAction(ctx(t), "interrupted", ryo.Message{}, again); err != nil {
		t.Fatal(err)
	}
	executed(t, db, "unsettled")
	if err := db.SaveActionPrompt(ctx(t), "unsettled", 901, 0); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := db.ExpireActions(ctx(t), func(ryo.Action) ryo.Message { return ryo.Message{} }); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	executed(t, db, "young") // ended a second after the others
	settled(t, db, "young")
	if a, _, _ := db.Action(ctx(t), "expired"); a.State != ryo.ActionExpired {
		t.Fatalf("expired is %s", a.State)
	}
	if n := memory.Count(t, db, `select count(*) from action_events`); n == 0 {
		t.Fatal("no audit log to sweep")
	}

	clock.Advance(keep - time.Second/2)
	got := sweep(t, db, memory.Retention{Actions: keep})
	if got != (memory.Swept{Actions: 4}) {
		t.Errorf("swept %+v; want executed, cancelled, expired, interrupted", got)
	}
	var kept []string
	for _, id := range []string{"executed", "cancelled", "expired", "interrupted", "pending", "confirmed", "running", "unsettled", "young", "again"} {
		if _, ok, err := db.Action(ctx(t), id); err != nil {
			t.Fatal(err)
		} else if ok {
			kept = append(kept, id)
		}
	}
	if want := []string{"pending", "confirmed", "running", "unsettled", "young", "again"}; !slices.Equal(kept, want) {
		t.Errorf("kept %v; want %v", kept, want)
	}
	if n := memory.Count(t, db, `select count(*) from action_events
		where action_id in ('executed', 'cancelled', 'expired', 'interrupted')`); n != 0 {
		t.Errorf("%d audit entries of swept actions are left", n)
	}
	if n := memory.Count(t, db, `select count(*) from action_events where action_id = 'young'`); n != 4 {
		t.Errorf("the young action has %d audit entries; want its 4", n)
	}
	if a, _, _ := db.Action(ctx(t), "again"); a.RetryOf != "" {
		t.Errorf("the action asked again still names the swept one: %q", a.RetryOf)
	}
}

// Expired memories are deleted, not hidden, whatever else is kept forever;
// those whose time is not up, and those without one, stay.
func TestSweepExpiredMemories(t *testing.T) {
	db, clock := sweepDB(t)
	remember := func(content string, expires time.Time) ryo.Memory {
		m, err := db.Remember(ctx(t), ryo.Memory{Scope: ryo.ScopeUser, Owner: alice.ID, Chat: alice.ID, Content: content,
			AddedBy: alice.ID, Expires: expires})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	gone := remember("the parcel comes on Monday", sweepStart.Add(time.Hour))
	soon := remember("the meeting is on Friday", sweepStart.Add(time.Hour+time.Second))
	always := remember("my name is Alice", time.Time{})
	clock.Advance(time.Hour)
	if got := sweep(t, db, memory.Retention{}); got != (memory.Swept{Memories: 1}) {
		t.Errorf("swept %+v; want the expired memory", got)
	}
	for _, m := range []struct {
		ryo.Memory
		want bool
	}{{gone, false}, {soon, true}, {always, true}} {
		if _, ok, _ := db.Memory(ctx(t), ryo.PersonShelf(alice.ID), m.ID); ok != m.want {
			t.Errorf("%q kept: %v; want %v", m.Content, ok, m.want)
		}
	}
}

// Group messages kept as context only go a month after they were written;
// the messages of the group's conversation with the bot — what people
// asked, what it answered, the tools' results — stay however old.
func TestSweepContext(t *testing.T) {
	db, clock := sweepDB(t)
	c := ctx(t)
	const month = 30 * 24 * time.Hour
	place := ryo.Place{ChatID: group.ID}
	context := func(tgID int, text string) ryo.Message {
		m, err := db.SaveContextMessage(c, group, ryo.Message{Place: place, Sender: &alice, Kind: ryo.KindUser, Text: text,
			TelegramID: tgID, UpdateID: int64(tgID)})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	old := context(1, "lunch at noon?")
	say(t, db, place, 2, "@ryo what time is it?")
	if _, err := db.FinishTurn(c, ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "It is noon.", UpdateID: 2}, []string{"time"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ current_time {}", UpdateID: 2}, "key-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveUserMessage(c, bobsChat, ryo.Message{Place: ryo.Place{ChatID: bob.ID}, Sender: &bob, Kind: ryo.KindUser,
		Text: "a private word", TelegramID: 3, UpdateID: 3}); err != nil {
		t.Fatal(err)
	}
	learned, err := db.Remember(c, ryo.Memory{Scope: ryo.ScopeGroup, Owner: alice.ID, Chat: group.ID, Content: "lunch is at noon",
		Source: old.ID, AddedBy: alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	context(4, "sure")

	clock.Advance(month - time.Second/2)
	if got := sweep(t, db, memory.Retention{Context: month}); got != (memory.Swept{Context: 1}) {
		t.Errorf("swept %+v; want the old context message", got)
	}
	want := "@ryo what time is it?|It is noon.|__tool_result__ current_time {}|sure"
	if got := texts(t, db, place, 100); got != want {
		t.Errorf("the group's history is %q; want %q", got, want)
	}
	if got := texts(t, db, ryo.Place{ChatID: bob.ID}, 100); got != "a private word" {
		t.Errorf("Bob's private chat is %q", got)
	}
	if m, ok, _ := db.Memory(c, ryo.GroupShelf(group.ID), learned.ID); !ok || m.Source != 0 {
		t.Errorf("the memory learned from a swept message: %+v, kept %v; want kept, its source cleared", m, ok)
	}
}

// A sweep deletes in batches until nothing is left past its retention.
func TestSweepInBatches(t *testing.T) {
	db, clock := sweepDB(t)
	for i := range 7 {
		if err := db.SaveView(ctx(t), memory.View{ID: fmt.Sprint("v", i), Kind: "memories", Viewer: alice.ID, Chat: alice.ID}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(2 * time.Hour)
	if got := sweep(t, db, memory.Retention{Views: time.Hour, Batch: 2}); got.Views != 7 {
		t.Errorf("swept %d views in batches of 2; want all 7", got.Views)
	}
}

// tables counts the rows of every table that holds what ryo keeps.
func tables(t *testing.T, db *memory.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"users", "chats", "chat_topics", "messages", "message_tags", "memories", "actions",
		"action_events", "views", "updates", "turns", "dead_letters"} {
		out[table] = memory.Count(t, db, `select count(*) from `+table)
	}
	return out
}

// Each retention sweeps its own tables and nothing else, however old
// everything is.
func TestEachSweepTouchesOnlyItsOwn(t *testing.T) {
	const long = 1000 * 24 * time.Hour
	for _, tt := range []struct {
		name string
		r    memory.Retention
		own  []string // the tables it deletes from
	}{
		{"updates", memory.Retention{Updates: time.Hour}, []string{"updates", "turns"}},
		{"views", memory.Retention{Views: time.Hour}, []string{"views"}},
		{"actions", memory.Retention{Actions: time.Hour}, []string{"actions", "action_events"}},
		{"context", memory.Retention{Context: time.Hour}, []string{"messages"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, clock := sweepDB(t)
			people(t, db)
			clock.Advance(long)
			before := tables(t, db)
			if got := sweep(t, db, tt.r); got.Total() == 0 {
				t.Fatal("swept nothing")
			}
			after := tables(t, db)
			for table, n := range before {
				switch {
				case slices.Contains(tt.own, table) && after[table] >= n:
					t.Errorf("%s: %d rows before, %d after; want fewer", table, n, after[table])
				case !slices.Contains(tt.own, table) && after[table] != n:
					t.Errorf("%s: %d rows before, %d after; want them untouched", table, n, after[table])
				}
			}
		})
	}
}
