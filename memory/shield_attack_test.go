package memory_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// confirmed stores a held action of the group and confirms it.
func confirmed(t *testing.T, db *memory.DB, update int64, id string) {
	t.Helper()
	held(t, db, update, id, id+"-key", time.Now().Add(time.Hour))
	if _, ok, err := db.Decide(ctx(t), memory.Decision{ID: id, Actor: alice.ID, Update: update + 1, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
}

// A lone process, never joined, starts a confirmed action: nothing fences it.
func TestShieldAttackALoneProcessStartsAConfirmedAction(t *testing.T) {
	db := memorytest.Open(t)
	confirmed(t, db, 9000000001, "act-lone")
	if got, err := db.StartAction(ctx(t), "act-lone"); err != nil || got.State != ryo.ActionRunning {
		t.Fatalf("StartAction = %s, %v; want it running", got.State, err)
	}
}

// A replica whose lease of the chat ran out (its heartbeat came late, or
// it let the chat go) while nobody else took it still starts the action:
// the lease row names it.
func TestShieldAttackAReplicaWhoseLeaseRanOutUntakenStartsTheAction(t *testing.T) {
	a, _, ra, _, url := twoReplicas(t)
	c := ctx(t)
	if ok, _, err := ra.TakeChat(c, group.ID, false); !ok || err != nil {
		t.Fatalf("TakeChat = %v, %v", ok, err)
	}
	confirmed(t, a, 9000000001, "act-late")
	memorytest.Exec(t, url, `update chat_leases set until = now() - interval '1 hour'`)
	if got, err := a.StartAction(c, "act-late"); err != nil || got.State != ryo.ActionRunning {
		t.Fatalf("StartAction with its lease run out, untaken = %s, %v; want it running", got.State, err)
	}
}

// An action a command asked for in a private chat, started by the replica
// holding that private chat.
func TestShieldAttackACommandsActionInAPrivateChatStartsOnItsHolder(t *testing.T) {
	a, _, ra, _, _ := twoReplicas(t)
	c := ctx(t)
	dm := int64(7380414414)
	if ok, _, err := ra.TakeChat(c, dm, false); !ok || err != nil {
		t.Fatalf("TakeChat = %v, %v", ok, err)
	}
	args := json.RawMessage(`{"memory_id":4242}`)
	if _, err := a.SaveCommandAction(c, 9000000005, ryo.Place{ChatID: dm}, ryo.Action{ID: "act-forget", Requester: alice.ID, CallID: "u9000000005-cmd",
		Tool: "forget", Args: args, ArgsHash: "h", Key: "forget-key", Reason: "destructive", Origin: ryo.OriginCommand, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Decide(c, memory.Decision{ID: "act-forget", Actor: alice.ID, Update: 9000000006, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if got, err := a.StartAction(c, "act-forget"); err != nil || got.State != ryo.ActionRunning {
		t.Fatalf("StartAction = %s, %v; want it running", got.State, err)
	}
}

// The action asked again after an interrupted run, once confirmed, is
// started by the replica holding the chat.
func TestShieldAttackAnActionAskedAgainStartsOnTheHolder(t *testing.T) {
	a, _, ra, _, _ := twoReplicas(t)
	c := ctx(t)
	if ok, _, err := ra.TakeChat(c, group.ID, false); !ok || err != nil {
		t.Fatalf("TakeChat = %v, %v", ok, err)
	}
	confirmed(t, a, 9000000001, "act-first")
	if _, err := a.StartAction(c, "act-first"); err != nil {
		t.Fatal(err)
	}
	_, again, err := a.InterruptAction(c, "act-first", ryo.Message{}, ryo.Action{ID: "act-again", Requester: alice.ID, CallID: "c1", Tool: "wipe",
		Args: json.RawMessage(`{"what":"notes"}`), ArgsHash: "h", Key: "act-first-key-again", Reason: "destructive", UpdateID: 9000000002,
		ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || again.ID != "act-again" || again.Place.ChatID != group.ID {
		t.Fatalf("InterruptAction = %+v, %v", again, err)
	}
	if _, ok, err := a.Decide(c, memory.Decision{ID: "act-again", Actor: alice.ID, Update: 9000000003, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if got, err := a.StartAction(c, "act-again"); err != nil || got.State != ryo.ActionRunning {
		t.Fatalf("StartAction of the action asked again = %s, %v; want it running", got.State, err)
	}
}
