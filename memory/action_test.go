package memory_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// held stores a turn that asks for an action and returns the action.
func held(t *testing.T, db *memory.DB, update int64, id, key string, expires time.Time) ryo.Action {
	t.Helper()
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID}
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: update, ChatID: group.ID, Kind: "message", Raw: json.RawMessage(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	say(t, db, place, int(update), "delete the notes")
	a, err := db.SaveHeldAnswer(c, update, place, "I'll delete them once you confirm.", json.RawMessage(`{}`), ryo.Action{
		ID: id, Requester: alice.ID, CallID: "c1", Tool: "wipe", Args: json.RawMessage(`{"what":"notes"}`), ArgsHash: "h",
		Key: key, Reason: "destructive", ExpiresAt: expires,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func result(key, status string) ryo.Message {
	return ryo.Message{Place: ryo.Place{ChatID: group.ID}, Kind: ryo.KindToolResult, Text: "__tool_result__ wipe {\"status\":\"" + status + "\"}",
		Metadata: json.RawMessage(`{"idempotency_key":"` + key + `","status":"` + status + `"}`)}
}

func TestHeldAnswerStoresTheActionOnce(t *testing.T) {
	db := memorytest.Open(t)
	a := held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	if a.State != ryo.ActionPending || a.RequesterName != "Alice" || string(a.Args) != `{"what": "notes"}` || a.CreatedAt.IsZero() {
		t.Fatalf("held action = %+v", a)
	}
	again, err := db.SaveHeldAnswer(ctx(t), 1, ryo.Place{ChatID: group.ID}, "again", nil, ryo.Action{
		ID: "act2", Requester: alice.ID, CallID: "c1", Tool: "wipe", Args: json.RawMessage(`{}`), Key: "k1", Reason: "destructive",
		ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || again.ID != "act1" {
		t.Fatalf("second SaveHeldAnswer = %+v, %v; want the first action", again, err)
	}
	if got, ok, err := db.TurnAction(ctx(t), 1); !ok || err != nil || got.ID != "act1" {
		t.Fatalf("TurnAction = %+v, %v, %v", got, ok, err)
	}
	if err := db.SaveActionPrompt(ctx(t), "act1", 55, 54); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.Action(ctx(t), "act1"); got.PromptID != 55 || got.FileID != 54 {
		t.Fatalf("prompt ids = %d, %d", got.PromptID, got.FileID)
	}
}

// Many presses at once, confirming and cancelling: exactly one decides.
func TestConcurrentPressesDecideOnce(t *testing.T) {
	db := memorytest.Open(t)
	held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	var wg sync.WaitGroup
	var mu sync.Mutex
	decided := 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: int64(100 + i), Confirm: i%2 == 0,
				Result: result("k1", "cancelled")}, result("k1", "cancelled"))
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				decided++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	a, _, _ := db.Action(ctx(t), "act1")
	if decided != 1 || a.Open() || a.DecidedBy != alice.ID || a.DeciderName != "Alice" || a.DecidedAt.IsZero() {
		t.Fatalf("%d presses decided; action %+v", decided, a)
	}
	events, err := db.ActionEvents(ctx(t), 10, 0)
	if err != nil || len(events) != 2 || events[1].Event != "requested" || events[0].Actor != "Alice" {
		t.Fatalf("audit = %+v, %v; want requested then one decision", events, err)
	}
}

func TestConfirmThenFinishStoresTheResultOnce(t *testing.T) {
	db := memorytest.Open(t)
	held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	if _, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 2, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	for range 2 {
		a, err := db.FinishAction(ctx(t), "act1", result("k1", "ok"), "ok")
		if err != nil || a.State != ryo.ActionExecuted || a.ResultStatus != "ok" || a.ExecutedAt.IsZero() {
			t.Fatalf("FinishAction = %+v, %v", a, err)
		}
	}
	if m, found, err := db.ToolResult(ctx(t), "k1"); !found || err != nil || m.Text == "" {
		t.Fatalf("ToolResult = %+v, %v, %v", m, found, err)
	}
	events, _ := db.ActionEvents(ctx(t), 10, 0)
	if len(events) != 3 || events[0].Event != "executed" || events[1].Event != "confirmed" {
		t.Fatalf("audit = %+v; want requested, confirmed, executed once", events)
	}
}

func TestCancelStoresACancelledResult(t *testing.T) {
	db := memorytest.Open(t)
	held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	a, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 2, Result: result("k1", "cancelled")}, ryo.Message{})
	if !ok || err != nil || a.State != ryo.ActionCancelled {
		t.Fatalf("Decide = %+v, %v, %v", a, ok, err)
	}
	if m, found, _ := db.ToolResult(ctx(t), "k1"); !found || m.Text != result("k1", "cancelled").Text {
		t.Fatalf("stored result = %+v, %v", m, found)
	}
	// A later confirm changes nothing.
	if a, ok, _ := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 3, Confirm: true}, ryo.Message{}); ok || a.State != ryo.ActionCancelled {
		t.Fatalf("confirm after cancel = %+v, %v", a, ok)
	}
}

// A press after the time ran out expires the action instead of deciding
// it; the sweep expires the others and stores their results.
func TestExpiry(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Now()
	clock := clocktest.New(now)
	db.Clock = clock
	held(t, db, 1, "act1", "k1", now.Add(time.Minute))
	held(t, db, 2, "act2", "k2", now.Add(time.Minute))
	held(t, db, 3, "act3", "k3", now.Add(time.Hour))
	now = now.Add(2 * time.Minute)
	clock.Advance(2 * time.Minute)
	a, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 9, Confirm: true}, result("k1", "cancelled"))
	if ok || err != nil || a.State != ryo.ActionExpired {
		t.Fatalf("late press = %+v, %v, %v; want expired", a, ok, err)
	}
	expired, err := db.ExpireActions(ctx(t), func(a ryo.Action) ryo.Message { return result(a.Key, "cancelled") })
	if err != nil || len(expired) != 1 || expired[0].ID != "act2" {
		t.Fatalf("ExpireActions = %+v, %v; want act2 only", expired, err)
	}
	for _, key := range []string{"k1", "k2"} {
		if _, found, _ := db.ToolResult(ctx(t), key); !found {
			t.Errorf("no result stored for expired %s", key)
		}
	}
	if a, _, _ := db.Action(ctx(t), "act3"); !a.Open() {
		t.Fatalf("act3 = %s; want still pending", a.State)
	}
	// Decided actions whose prompt was sent are unsettled until settled.
	if err := db.SaveActionPrompt(ctx(t), "act2", 77, 0); err != nil {
		t.Fatal(err)
	}
	unsettled, err := db.UnsettledActions(ctx(t))
	if err != nil || len(unsettled) != 1 || unsettled[0].ID != "act2" {
		t.Fatalf("UnsettledActions = %+v, %v; want act2 (act1 has no prompt)", unsettled, err)
	}
	if err := db.SettleAction(ctx(t), "act2"); err != nil {
		t.Fatal(err)
	}
	if unsettled, _ := db.UnsettledActions(ctx(t)); len(unsettled) != 0 {
		t.Fatalf("UnsettledActions after settling = %+v", unsettled)
	}
}

func TestRefusalIsAudited(t *testing.T) {
	bob := ryo.User{ID: 1002, FirstName: "Bob"}
	db := memorytest.Open(t)
	held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	if _, err := db.SaveUser(ctx(t), bob, false); err != nil {
		t.Fatal(err)
	}
	if err := db.RefuseAction(ctx(t), "act1", bob.ID); err != nil {
		t.Fatal(err)
	}
	events, err := db.ActionEvents(ctx(t), 1, group.ID)
	if err != nil || len(events) != 1 || events[0].Event != "refused" || events[0].ActorID != bob.ID || events[0].Action.Tool != "wipe" {
		t.Fatalf("audit = %+v, %v", events, err)
	}
	if a, _, _ := db.Action(ctx(t), "act1"); !a.Open() {
		t.Fatal("a refused press changed the action")
	}
	if events, _ := db.ActionEvents(ctx(t), 10, 42); len(events) != 0 {
		t.Fatalf("another chat's audit shows %+v", events)
	}
}
