package memory_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

// A confirmed action is started only by the replica holding its chat: one
// that lost the chat (it froze, and another took the chat over, whose
// turn runs the action) is told so, and leaves the action confirmed for
// the holder — started by both, the tool would run twice, or the holder
// would find it running and ask the person again.
func TestOnlyTheChatsHolderStartsAConfirmedAction(t *testing.T) {
	a, b, ra, rb, _ := twoReplicas(t)
	c := ctx(t)
	if ok, _, err := ra.TakeChat(c, group.ID, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	held(t, a, 1, "act1", "k1", time.Now().Add(time.Hour))
	if _, ok, err := a.Decide(c, memory.Decision{ID: "act1", Actor: alice.ID, Update: 2, Confirm: true}, ryo.Message{}); !ok || err != nil {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if err := ra.ReleaseChat(c, group.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := rb.TakeChat(c, group.ID, true); !ok || err != nil {
		t.Fatalf("r2 TakeChat = %v, %v", ok, err)
	}
	if got, err := a.StartAction(c, "act1"); !errors.Is(err, memory.ErrLeaseLost) {
		t.Fatalf("r1 StartAction after losing the chat = %s, %v; want ErrLeaseLost", got.State, err)
	}
	if got, _, _ := a.Action(c, "act1"); got.State != ryo.ActionConfirmed {
		t.Fatalf("action %s after the refused start; want it left confirmed for the holder", got.State)
	}
	if got, err := b.StartAction(c, "act1"); err != nil || got.State != ryo.ActionRunning {
		t.Fatalf("r2 StartAction = %s, %v; want it running", got.State, err)
	}
}
