package clocktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestTimersFireAsTimePasses(t *testing.T) {
	c := clocktest.New(t0)
	late, _ := c.Timer(3 * time.Second)
	early, _ := c.Timer(time.Second)
	stopped, stop := c.Timer(2 * time.Second)
	if !stop() || stop() {
		t.Fatal("stop must report true once, for an armed timer")
	}
	if next, ok := c.Next(); !ok || !next.Equal(t0.Add(time.Second)) {
		t.Fatalf("Next = %v, %v", next, ok)
	}
	c.Advance(2 * time.Second)
	if !fired(early) || fired(late) || fired(stopped) {
		t.Fatal("after 2s only the 1s timer may fire")
	}
	c.Advance(time.Second)
	if !fired(late) || !c.Now().Equal(t0.Add(3*time.Second)) {
		t.Fatal("the 3s timer did not fire at 3s")
	}
	if _, ok := c.Next(); ok {
		t.Fatal("no timer is armed any more")
	}
	now, _ := c.Timer(0)
	if !fired(now) {
		t.Fatal("a timer for no time fires at once")
	}
}

func TestWaitForTimers(t *testing.T) {
	c := clocktest.New(t0)
	go c.Timer(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.WaitArmed(ctx, t0.Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if next, err := c.WaitNext(ctx); err != nil || !next.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("WaitNext = %v, %v", next, err)
	}
	short, cancelShort := context.WithCancel(context.Background())
	cancelShort()
	if err := c.WaitArmed(short, t0.Add(time.Hour)); err == nil {
		t.Fatal("WaitArmed returned without the timer")
	}
}
