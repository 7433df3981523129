package memory_test

import (
	"encoding/json"
	"strings"
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
	if a.State != ryo.ActionPending || a.RequesterName != "Alice" || string(a.Args) != `{"what":"notes"}` || a.CreatedAt.IsZero() {
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
	if a, err := db.FinishAction(ctx(t), "act1", result("k1", "ok"), "ok"); err != nil || a.State != ryo.ActionConfirmed {
		t.Fatalf("FinishAction before StartAction = %+v, %v; want it still confirmed: only a run that started finishes", a, err)
	}
	for range 2 {
		a, err := db.StartAction(ctx(t), "act1")
		if err != nil || a.State != ryo.ActionRunning || a.StartedAt.IsZero() {
			t.Fatalf("StartAction = %+v, %v", a, err)
		}
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
	if len(events) != 4 || events[0].Event != "executed" || events[1].Event != "started" || events[2].Event != "confirmed" {
		t.Fatalf("audit = %+v; want requested, confirmed, started, executed once", events)
	}
	if a, err := db.StartAction(ctx(t), "act1"); err != nil || a.State != ryo.ActionExecuted {
		t.Fatalf("StartAction after it finished = %+v, %v; want it left executed", a, err)
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
	events, err := db.RefusedPresses(ctx(t), 1, group.ID)
	if err != nil || len(events) != 1 || events[0].Event != "refused" || events[0].ActorID != bob.ID || events[0].Action.Tool != "wipe" || events[0].Times != 1 {
		t.Fatalf("refused presses = %+v, %v", events, err)
	}
	if a, _, _ := db.Action(ctx(t), "act1"); !a.Open() {
		t.Fatal("a refused press changed the action")
	}
	if events, _ := db.RefusedPresses(ctx(t), 10, 42); len(events) != 0 {
		t.Fatalf("another chat's audit shows %+v", events)
	}
}

// A flood of refused presses is one counted entry per person and action,
// and never pushes the real decisions out of the audit log.
func TestRefusedPressesCannotFloodTheAudit(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Now()
	clock := clocktest.New(now)
	db.Clock = clock
	held(t, db, 1, "act1", "k1", now.Add(time.Hour))
	mallory, eve := ryo.User{ID: 7123456789, FirstName: "Mallory"}, ryo.User{ID: 7234567890, FirstName: "Eve"}
	for _, u := range []ryo.User{mallory, eve} {
		if _, err := db.SaveUser(ctx(t), u, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 2, Result: result("k1", "cancelled")}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	for i := range 500 {
		clock.Advance(time.Second)
		who := mallory.ID
		if i%100 == 0 {
			who = eve.ID
		}
		if err := db.RefuseAction(ctx(t), "act1", who); err != nil {
			t.Fatal(err)
		}
	}
	events, err := db.ActionEvents(ctx(t), 2, group.ID)
	if err != nil || len(events) != 2 || events[0].Event != ryo.EventCancelled || events[1].Event != ryo.EventRequested {
		t.Fatalf("audit after a flood of presses = %+v, %v; want the no and the request", events, err)
	}
	refused, err := db.RefusedPresses(ctx(t), 10, group.ID)
	if err != nil || len(refused) != 2 {
		t.Fatalf("refused presses = %+v, %v; want one entry each for Mallory and Eve", refused, err)
	}
	if r := refused[0]; r.ActorID != mallory.ID || r.Times != 495 || !r.At.Equal(clock.Now().Truncate(time.Microsecond)) {
		t.Errorf("Mallory's entry = %+v; want 495 presses, the last at %v", r, clock.Now())
	}
	if r := refused[1]; r.ActorID != eve.ID || r.Times != 5 {
		t.Errorf("Eve's entry = %+v; want 5 presses", r)
	}
	all, _ := db.ActionEvents(ctx(t), 1000, 0)
	if all, _ := db.RefusedPresses(ctx(t), 1000, 0); len(all) != 2 {
		t.Errorf("%d refused entries after 500 refused presses; want 2", len(all))
	}
	if len(all) != 2 {
		t.Errorf("%d audit entries beside the refused presses; want 2", len(all))
	}
}

// An action found running after a crash, whose tool cannot tell whether
// it happened, ends interrupted: the model is told the outcome is
// unknown, and the same call is asked of the person anew, once however
// often this is run.
func TestInterruptAskAgainOnce(t *testing.T) {
	db := memorytest.Open(t)
	held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	again := ryo.Action{ID: "act2", Requester: alice.ID, UpdateID: 3, CallID: "c1", Tool: "wipe", Args: json.RawMessage(`{"what":"notes"}`),
		ArgsHash: "h", Key: "k1-again", Reason: "destructive", ExpiresAt: time.Now().Add(time.Hour)}
	if old, ask, err := db.InterruptAction(ctx(t), "act1", result("k1", "interrupted"), again); err != nil || old.State != ryo.ActionPending || ask.ID != "" {
		t.Fatalf("InterruptAction on a pending action = %+v, %+v, %v; want nothing changed nor asked", old, ask, err)
	}
	if _, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 2, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if _, err := db.StartAction(ctx(t), "act1"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		again.ID = "act2"
		old, ask, err := db.InterruptAction(ctx(t), "act1", result("k1", "interrupted"), again)
		if err != nil || old.State != ryo.ActionInterrupted || ask.ID != "act2" || ask.State != ryo.ActionPending || ask.RetryOf != "act1" || ask.UpdateID != 3 {
			t.Fatalf("InterruptAction = %+v, %+v, %v", old, ask, err)
		}
		again.ID = "act3" // run again, it finds the ask it made
	}
	if m, found, _ := db.ToolResult(ctx(t), "k1"); !found || !strings.Contains(m.Text, "interrupted") {
		t.Fatalf("the model's result = %+v, %v; want that it was interrupted", m, found)
	}
	if a, err := db.StartAction(ctx(t), "act1"); err != nil || a.State != ryo.ActionInterrupted {
		t.Fatalf("StartAction on an interrupted action = %+v, %v", a, err)
	}
	if got, ok, _ := db.TurnAction(ctx(t), 3); !ok || got.ID != "act2" {
		t.Fatalf("TurnAction(3) = %+v; want the ask", got)
	}
}

// An interrupted action whose prompt does not show it yet is one the sweep
// settles, like every other outcome: otherwise a prompt Telegram could not
// be reached to edit keeps its buttons for good.
func TestInterruptedActionIsSettledBySweep(t *testing.T) {
	db := memorytest.Open(t)
	held(t, db, 1, "act1", "k1", time.Now().Add(time.Hour))
	if err := db.SaveActionPrompt(ctx(t), "act1", 7_000_001, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := db.Decide(ctx(t), memory.Decision{ID: "act1", Actor: alice.ID, Update: 2, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if _, err := db.StartAction(ctx(t), "act1"); err != nil {
		t.Fatal(err)
	}
	again := ryo.Action{ID: "act2", Requester: alice.ID, UpdateID: 2, CallID: "c1", Tool: "wipe", Args: json.RawMessage(`{"what":"notes"}`),
		ArgsHash: "h", Key: "k1-again", Reason: "destructive", ExpiresAt: time.Now().Add(time.Hour)}
	if _, _, err := db.InterruptAction(ctx(t), "act1", result("k1", "interrupted"), again); err != nil {
		t.Fatal(err)
	}
	unsettled, err := db.UnsettledActions(ctx(t))
	if err != nil || len(unsettled) != 1 || unsettled[0].ID != "act1" {
		t.Fatalf("UnsettledActions = %+v, %v; want the interrupted act1", unsettled, err)
	}
}

// A held call's arguments come back as the model wrote them: the key
// order, the spacing and the digits of a JSON body are what the API is
// sent once the person confirms.
func TestActionKeepsTheArgumentsAsWritten(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID}
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: 1, ChatID: group.ID, Kind: "message", Raw: json.RawMessage(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	say(t, db, place, 1, "add Rex")
	args := `{"body":{"name":"Rex","photoUrls":["https://petshop.example/photos/rex.jpg"],"status":"pending","price":1.50e2}}`
	a, err := db.SaveHeldAnswer(c, 1, place, "I'll add Rex once you confirm.", json.RawMessage(`{}`), ryo.Action{
		ID: "act1", Requester: alice.ID, CallID: "c1", Tool: "petshop_add_pet", Args: json.RawMessage(args), ArgsHash: "h",
		Key: "k1", Reason: "policy", ExpiresAt: time.Now().Add(time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := db.Action(c, a.ID); err != nil || string(got.Args) != args {
		t.Fatalf("stored arguments %s, %v; want %s", got.Args, err, args)
	}
}
