package memory_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A chosen tool serves one turn of its person, in its chat and topic only:
// the turn takes it (again when it runs again after an interruption),
// storing the turn's answer deletes it, and it lapses on its own.
func TestForcedToolServesOneTurn(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	db.Clock = clock
	ann, bob := int64(7_123_456_789), int64(7_198_765_432)
	for _, id := range []int64{ann, bob} {
		if _, err := db.SaveUser(c, ryo.User{ID: id, FirstName: "P"}, true); err != nil {
			t.Fatal(err)
		}
	}
	group := ryo.Place{ChatID: -1001234567890}
	topic := ryo.Place{ChatID: -1001234567890, Thread: 1<<31 + 3}
	if err := db.ForceTool(c, ann, group, "statistics", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, other := range []struct {
		person int64
		place  ryo.Place
	}{{bob, group}, {ann, topic}, {ann, ryo.Place{ChatID: ann}}} {
		if tool, err := db.TakeForcedTool(c, other.person, other.place, 1); err != nil || tool != "" {
			t.Fatalf("TakeForcedTool(%d, %+v) = %q, %v; the tool is Ann's in the group only", other.person, other.place, tool, err)
		}
	}
	const turn, next = 987_654_321, 987_654_322
	for _, id := range []int64{turn, next} {
		raw := json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"message_id":1,"chat":{"id":%d}}}`, id, group.ChatID))
		if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: id, ChatID: group.ChatID, Kind: "message", Raw: raw}}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // the turn, and the turn again after a crash
		if tool, err := db.TakeForcedTool(c, ann, group, turn); err != nil || tool != "statistics" {
			t.Fatalf("TakeForcedTool = %q, %v", tool, err)
		}
	}
	if tool, err := db.TakeForcedTool(c, ann, group, next); err != nil || tool != "" {
		t.Fatalf("the next turn took %q, %v; the tool serves one turn", tool, err)
	}
	if _, ok, _ := db.ForcedToolFor(c, ann, group); ok {
		t.Fatal("a tool taken by a turn still shows as waiting")
	}
	// Chosen again while the turn runs: it waits for the message after.
	if err := db.ForceTool(c, ann, group, "finance", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveTurnAnswer(c, turn, group, "The mean is 15.4.", nil); err != nil {
		t.Fatal(err)
	}
	if f, ok, err := db.ForcedToolFor(c, ann, group); err != nil || !ok || f.Tool != "finance" {
		t.Fatalf("ForcedToolFor = %+v, %v, %v; want finance still waiting", f, ok, err)
	}
	if tool, _ := db.TakeForcedTool(c, ann, group, next); tool != "finance" {
		t.Fatalf("the next turn took %q; want finance", tool)
	}
	if err := db.SaveTurnAnswer(c, next, group, "Done.", nil); err != nil {
		t.Fatal(err)
	}
	if waiting, err := db.UnforceTool(c, ann, group); err != nil || waiting {
		t.Fatalf("UnforceTool = %v, %v; nothing waits", waiting, err)
	}
	// It lapses after its time, and /use off then says nothing waited.
	if err := db.ForceTool(c, ann, group, "statistics", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Minute)
	if tool, _ := db.TakeForcedTool(c, ann, group, 3); tool != "" {
		t.Fatalf("a lapsed tool was taken: %q", tool)
	}
	if err := db.ForceTool(c, ann, group, "statistics", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if waiting, err := db.UnforceTool(c, ann, group); err != nil || !waiting {
		t.Fatalf("UnforceTool = %v, %v; statistics was waiting", waiting, err)
	}
	if tool, _ := db.TakeForcedTool(c, ann, group, 4); tool != "" {
		t.Fatalf("a dropped tool was taken: %q", tool)
	}
	// Forgetting Ann forgets her choice.
	if err := db.ForceTool(c, ann, group, "statistics", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ForgetPerson(c, ann); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.ForcedToolFor(c, ann, group); ok {
		t.Fatal("/forgetme kept the chosen tool")
	}
}

// A turn that took the chosen tool and was interrupted past the tool's ten
// minutes (a crash, a long outage) still gets it when it runs again, and
// storing its answer then clears it: the choice lapses only while it
// waits. Another turn of the same person meanwhile, in another topic,
// does not take it from it either.
func TestForcedToolTakenOutlivesItsLapse(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	db.Clock = clock
	ann := int64(7_123_456_789)
	if _, err := db.SaveUser(c, ryo.User{ID: ann, FirstName: "Ann"}, true); err != nil {
		t.Fatal(err)
	}
	topic := ryo.Place{ChatID: -1009876543210, Thread: 1<<31 + 3}
	other := ryo.Place{ChatID: -1009876543210, Thread: 1<<31 + 9}
	const turn, elsewhere = int64(1<<32 + 1), int64(1<<32 + 2)
	for _, id := range []int64{turn, elsewhere} {
		raw := json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"message_id":1,"chat":{"id":%d}}}`, id, topic.ChatID))
		if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: id, ChatID: topic.ChatID, Kind: "message", Raw: raw}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ForceTool(c, ann, topic, "statistics", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(9 * time.Minute)
	if tool, err := db.TakeForcedTool(c, ann, topic, turn); err != nil || tool != "statistics" {
		t.Fatalf("TakeForcedTool = %q, %v", tool, err)
	}
	clock.Advance(5 * time.Minute) // the turn is cut short; ryo comes back later
	if tool, err := db.TakeForcedTool(c, ann, other, elsewhere); err != nil || tool != "" {
		t.Fatalf("Ann's turn in another topic took %q, %v", tool, err)
	}
	if tool, err := db.TakeForcedTool(c, ann, topic, turn); err != nil || tool != "statistics" {
		t.Fatalf("the turn run again took %q, %v; want the statistics it had taken", tool, err)
	}
	if err := db.SaveTurnAnswer(c, turn, topic, "The mean is 15.4.", nil); err != nil {
		t.Fatal(err)
	}
	if tool, err := db.TakeForcedTool(c, ann, topic, turn); err != nil || tool != "" {
		t.Fatalf("after its answer was stored the turn took %q, %v", tool, err)
	}
}
