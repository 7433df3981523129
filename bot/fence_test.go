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
	lost := func(chat int64, at time.Time) bool { return l.fence(chat, at) != nil }

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
	l.renewed([]int64{chat}, []int64{other}, t0.Add(3*time.Second)) // other was taken over meanwhile
	if lost(chat, t0.Add(5*time.Second)) {
		t.Fatal("a chat the heartbeat renewed is fenced")
	}
	if !lost(other, t0.Add(3*time.Second)) {
		t.Fatal("a chat the heartbeat found taken over is not fenced")
	}
	l.took(other, t0.Add(4*time.Second))
	l.renewed(nil, []int64{other}, t0.Add(3500*time.Millisecond)) // a heartbeat sent before the take returns after it
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
	l.renewed(nil, []int64{other}, t0.Add(9*time.Second))
	if !lost(other, t0.Add(9*time.Second)) {
		t.Fatal("a chat lost is not fenced")
	}
	l.renewed(nil, nil, t0.Add(9*time.Second+memory.Affinity))
	if lost(other, t0.Add(9*time.Second+memory.Affinity)) {
		t.Fatal("a chat lost long ago is still fenced")
	}
	l.seen([]string{"r1"}, t0.Add(time.Minute))
	l.took(chat, t0.Add(time.Minute))
	if !lost(chat, t0.Add(time.Minute+fenceAfter)) {
		t.Fatal("a replica alone at its last heartbeat is not fenced when it froze")
	}
}

// A chat lost while an update of it still waits here — claimed, and
// waiting out an outage for longer than memory.Affinity — stays fenced as
// long as each heartbeat finds it held elsewhere: forgotten, the update
// would run here once its wait ended and speak in the chat the other
// replica answers in.
func TestAChatLostWhileItsUpdateWaitsHereStaysFenced(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	chat := int64(-1001234567890123)
	l := &leases{r: &memory.Replica{ID: "r1"}}
	l.seen([]string{"r1", "r2"}, t0)
	l.took(chat, t0)
	l.renewed(nil, []int64{chat}, t0.Add(time.Second)) // taken over
	for at := t0.Add(2 * time.Second); at.Before(t0.Add(3 * memory.Affinity)); at = at.Add(time.Second) {
		l.renewed(nil, []int64{chat}, at) // its update still waits here, the chat held elsewhere
	}
	if !errors.Is(l.fence(chat, t0.Add(3*memory.Affinity)), memory.ErrLeaseLost) {
		t.Fatal("a chat lost while its update waits here is no longer fenced after a minute")
	}
	l.renewed(nil, nil, t0.Add(3*memory.Affinity+time.Second)) // nothing of it here any more
	l.renewed(nil, nil, t0.Add(4*memory.Affinity+2*time.Second))
	if l.fence(chat, t0.Add(4*memory.Affinity+2*time.Second)) != nil {
		t.Fatal("a chat lost long ago, with nothing of it here, is still fenced")
	}
}

// A heartbeat sent while a chat was held here, that returns after the chat
// was let go, does not make the replica believe it holds the chat again:
// the chat would then be fenced a minute long as lost — a trace or an
// admin's notice sent there from another chat refused, and the turn that
// sent it dropped as if another replica answered it — though nobody took
// it and this replica speaks there as any other.
func TestAHeartbeatThatRacedWithAReleaseDoesNotFenceTheChat(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	chat := int64(7380414414)
	l := &leases{r: &memory.Replica{ID: "r1"}}
	l.seen([]string{"r1", "r2"}, t0)
	l.took(chat, t0)
	sent := t0.Add(time.Second) // the heartbeat renews the chat's lease…
	l.gave(chat)                // …as its last update ends here and it is let go
	l.renewed([]int64{chat}, nil, sent)
	l.renewed(nil, nil, t0.Add(2*time.Second)) // the next one: the chat is let go
	for _, at := range []time.Duration{2 * time.Second, time.Second + fenceAfter, 30 * time.Second} {
		if err := l.fence(chat, t0.Add(at)); err != nil {
			t.Fatalf("a chat let go, and taken by nobody, is fenced %v later: %v", at, err)
		}
	}
	l.took(chat, t0.Add(3*time.Second)) // taken again, released, a late heartbeat again
	l.gave(chat)
	l.took(chat, t0.Add(4*time.Second))
	l.renewed([]int64{chat}, nil, t0.Add(3500*time.Millisecond))
	if err := l.fence(chat, t0.Add(4*time.Second+fenceAfter-time.Millisecond)); err != nil {
		t.Fatalf("a chat taken again after a heartbeat was sent lost its own take's confirmation: %v", err)
	}
}

// A chat taken as a heartbeat was sent, whose take reached the database
// after the heartbeat did, is not taken over: the heartbeat did not renew
// it, as it did not hold it yet, and nobody else holds it. Were it fenced
// as lost, the turn just queued there would end as if another replica
// answered it, and run again (a take waits for a pool connection under
// load; the heartbeat has its own).
func TestAChatTakenAsAHeartbeatRanIsNotFencedAsTakenOver(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	chat := int64(7380414414)
	l := &leases{r: &memory.Replica{ID: "r1"}}
	l.seen([]string{"r1", "r2"}, t0)
	l.took(chat, t0)
	l.renewed(nil, nil, t0.Add(time.Millisecond)) // the take reached the database after this heartbeat
	if err := l.fence(chat, t0.Add(time.Millisecond)); err != nil {
		t.Fatalf("a chat taken as a heartbeat ran is fenced: %v", err)
	}
	l.renewed([]int64{chat}, nil, t0.Add(time.Second))
	if err := l.fence(chat, t0.Add(time.Second+fenceAfter-time.Millisecond)); err != nil {
		t.Fatalf("a chat the heartbeat renewed is fenced: %v", err)
	}
}
