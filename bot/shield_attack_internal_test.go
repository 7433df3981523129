package bot

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

// shielded is a process func whose first attempt runs a shielded piece of
// work that waits to be released, then asks to be tried again; later
// attempts report their context and wait for it to end or be released.
type shielded struct {
	inShield chan context.Context
	release  chan struct{}
	after    chan context.Context // the first attempt's context once the shield ended
	later    chan context.Context
	done     chan struct{}
}

func newShielded() *shielded {
	return &shielded{inShield: make(chan context.Context, 1), release: make(chan struct{}),
		after: make(chan context.Context, 1), later: make(chan context.Context, 10), done: make(chan struct{})}
}

func (s *shielded) process(ctx context.Context, j *job) afterRun {
	if j.attempt == 1 {
		j.w.shield(func() {
			s.inShield <- ctx
			select {
			case <-s.release:
			case <-ctx.Done():
			}
		})
		s.after <- ctx
		return afterRun{retryIn: time.Millisecond} // an outage: tried again
	}
	s.later <- ctx
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	return afterRun{}
}

func receive(t *testing.T, ch chan context.Context, what string) context.Context {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", what)
		return nil
	}
}

// A call-off that comes while a confirmed action's tool runs ends the
// attempt once the tool returns, with its cause; the next attempt of the
// same update (after an outage) is not called off by it.
func TestShieldAttackAPendingCallOffEndsOnlyItsOwnAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newShielded()
	d := newDispatcher(ctx, ryo.SystemClock{}, 2, s.process)
	defer d.wait()
	defer d.close()
	defer close(s.done)

	d.enqueue(attackGroup, 9000000001)
	first := receive(t, s.inShield, "shielded run")
	d.callOff(attackGroup, memory.ErrLeaseLost)
	if first.Err() != nil {
		t.Fatalf("the shielded tool was cut short: %v", context.Cause(first))
	}
	close(s.release)
	after := receive(t, s.after, "end of the shield")
	if !errors.Is(context.Cause(after), memory.ErrLeaseLost) {
		t.Fatalf("after the shield the attempt's cause is %v; want ErrLeaseLost", context.Cause(after))
	}
	second := receive(t, s.later, "second attempt")
	if second.Err() != nil {
		t.Fatalf("the next attempt was called off by the first's pending call-off: %v", context.Cause(second))
	}
}

// A shutdown while a shielded tool runs with a call-off pending still ends
// the tool at once.
func TestShieldAttackShutdownEndsAShieldedToolWithACallOffPending(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := newShielded()
	d := newDispatcher(ctx, ryo.SystemClock{}, 2, s.process)
	d.enqueue(attackGroup, 9000000002)
	first := receive(t, s.inShield, "shielded run")
	d.callOff(attackGroup, memory.ErrLeaseLost)
	cancel()
	ended(t, first)
	receive(t, s.after, "end of the shield")
	d.close()
	waited := make(chan struct{})
	go func() { d.wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the dispatcher did not stop")
	}
	close(s.done)
}

// attempt(nil), ending an attempt, racing with a call-off leaves nothing
// behind for the next attempt, shielded or not.
func TestShieldAttackCallOffRacingTheEndOfAnAttemptLeaksNothing(t *testing.T) {
	w := &worker{}
	for i := range 2000 {
		_, c1 := context.WithCancelCause(context.Background())
		w.attempt(c1)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); w.callOff(memory.ErrLeaseLost) }()
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				w.shield(func() {})
			}
			w.attempt(nil)
		}()
		wg.Wait()
		next, c2 := context.WithCancelCause(context.Background())
		w.attempt(c2)
		w.shield(func() {})
		if next.Err() != nil {
			t.Fatalf("round %d: the next attempt was called off: %v", i, context.Cause(next))
		}
		w.attempt(nil)
		c2(nil)
	}
}

// A chat lost stays fenced while heartbeats still find something of it
// here held elsewhere, however long; once none does it is forgotten after
// memory.Affinity; taken back here it is not fenced at all.
func TestShieldAttackALostChatIsFencedOnlyWhileItIsStillHere(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	l := &leases{r: &memory.Replica{ID: "r1"}}
	l.seen([]string{"r1", "r2"}, t0)
	l.took(attackGroup, t0)
	l.took(attackDM, t0)
	if lost := l.renewed(nil, []int64{attackGroup, attackDM}, t0.Add(time.Second)); len(lost) != 2 {
		t.Fatalf("lost = %v", lost)
	}
	at := t0.Add(time.Second)
	for range 5 { // the group's update still waits here; the private chat's is gone
		at = at.Add(memory.Affinity / 2)
		l.renewed(nil, []int64{attackGroup}, at)
	}
	if err := l.fence(attackGroup, at); !errors.Is(err, memory.ErrLeaseLost) {
		t.Fatalf("the group still here is not fenced: %v", err)
	}
	if err := l.fence(attackDM, at); err != nil {
		t.Fatalf("the private chat, nothing of it here any more for longer than the affinity, is still fenced: %v", err)
	}
	// Nothing of the group here any more: forgotten after the affinity.
	l.renewed(nil, nil, at.Add(memory.Affinity))
	if err := l.fence(attackGroup, at.Add(memory.Affinity)); err != nil {
		t.Fatalf("the group, nothing of it here any more, is still fenced: %v", err)
	}
	// Lost again, and taken back here while something of it waits: not fenced.
	l.took(attackGroup, at.Add(2*memory.Affinity))
	l.renewed(nil, []int64{attackGroup}, at.Add(2*memory.Affinity+time.Second))
	took := at.Add(2*memory.Affinity + 2*time.Second)
	l.took(attackGroup, took)
	// A heartbeat sent before the take returns after it, still finding it held elsewhere.
	l.renewed(nil, []int64{attackGroup}, took.Add(-time.Millisecond))
	if err := l.fence(attackGroup, took.Add(time.Second)); err != nil {
		t.Fatalf("the group taken back here is fenced: %v", err)
	}
}
