package bot

import (
	"errors"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
)

// A replica speaks in a chat it answers in only while the database said,
// recently enough, that it holds the chat: not once it froze or its
// heartbeats stopped for longer than fenceAfter, not once a heartbeat found
// the chat taken over. A chat it never held (someone's private chat a trace
// goes to) or let go is not fenced. A replica alone at its last heartbeat
// is fenced as well: another may have started while it was frozen.
func TestTheFenceHoldsWhatTheReplicaCannotBeSureOf(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	chat, other := int64(-1001234567890), int64(7380414414)
	l := &leases{r: &memory.Replica{ID: "r1"}}
	l.seen([]string{"r1", "r2"}, t0)
	lost := func(chat int64, at time.Time) bool { return errors.Is(l.fence(chat, at), memory.ErrLeaseLost) }

	if lost(chat, t0) {
		t.Fatal("a chat never taken here is fenced")
	}
	l.took(chat, t0)
	l.took(other, t0)
	if lost(chat, t0.Add(fenceAfter-time.Millisecond)) {
		t.Fatal("a chat just taken is fenced")
	}
	if !lost(chat, t0.Add(fenceAfter)) {
		t.Fatal("a chat not confirmed for fenceAfter (the replica froze) is not fenced")
	}
	l.renewed([]int64{chat}, t0.Add(3*time.Second)) // other was taken over meanwhile
	if lost(chat, t0.Add(5*time.Second)) {
		t.Fatal("a chat the heartbeat renewed is fenced")
	}
	if !lost(other, t0.Add(3*time.Second)) {
		t.Fatal("a chat the heartbeat did not renew is not fenced")
	}
	l.took(other, t0.Add(4*time.Second))
	l.renewed(nil, t0.Add(3500*time.Millisecond)) // a heartbeat sent before the take returns after it
	if lost(other, t0.Add(4*time.Second)) {
		t.Fatal("a chat taken after a heartbeat was sent is fenced when the heartbeat returns")
	}
	if !lost(other, t0.Add(4*time.Second+fenceAfter)) {
		t.Fatal("a chat taken and then not confirmed is not fenced")
	}
	l.gave(chat)
	if lost(chat, t0.Add(3*time.Second)) {
		t.Fatal("a chat let go is fenced")
	}
	l.renewed(nil, t0.Add(9*time.Second))
	if !lost(other, t0.Add(9*time.Second)) {
		t.Fatal("a chat lost is not fenced")
	}
	l.renewed(nil, t0.Add(9*time.Second+memory.Affinity))
	if lost(other, t0.Add(9*time.Second+memory.Affinity)) {
		t.Fatal("a chat lost long ago is still fenced")
	}
	l.seen([]string{"r1"}, t0.Add(time.Minute))
	l.took(chat, t0.Add(time.Minute))
	if !lost(chat, t0.Add(time.Minute+fenceAfter)) {
		t.Fatal("a replica alone at its last heartbeat is not fenced when it froze")
	}
}
