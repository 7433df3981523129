package clocktest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Clock is a manual clock. The zero value is not usable; call New.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*timer
	changed chan struct{} // closed and replaced when a timer is armed or stopped
}

type timer struct {
	at time.Time
	c  chan time.Time
}

// New returns a clock that reads start.
func New(start time.Time) *Clock {
	return &Clock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Timer arms a timer that fires when the clock reaches d from now; a
// timer for zero or less fires at once.
func (c *Clock) Timer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{at: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- c.now
		return t.c, func() bool { return false }
	}
	c.timers = append(c.timers, t)
	c.notify()
	return t.c, func() bool { return c.stop(t) }
}

func (c *Clock) stop(t *timer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.timers {
		if x == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			c.notify()
			return true
		}
	}
	return false
}

// Advance moves the clock d forward, firing the timers it passes.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- t.at
	}
	c.timers = kept
	c.notify()
}

// Next returns when the earliest armed timer fires, and false when none is
// armed.
func (c *Clock) Next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	next := c.timers[0].at
	for _, t := range c.timers[1:] {
		if t.at.Before(next) {
			next = t.at
		}
	}
	return next, true
}

// WaitNext blocks until a timer is armed and returns when the earliest
// fires.
func (c *Clock) WaitNext(ctx context.Context) (time.Time, error) {
	for {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		if next, ok := c.Next(); ok {
			return next, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("clocktest: no timer armed: %w", ctx.Err())
		}
	}
}

// WaitArmed blocks until a timer that fires at `at` is armed: a sign that
// the code under test went to sleep until then.
func (c *Clock) WaitArmed(ctx context.Context, at time.Time) error {
	for {
		c.mu.Lock()
		changed := c.changed
		armed := false
		for _, t := range c.timers {
			armed = armed || t.at.Equal(at)
		}
		c.mu.Unlock()
		if armed {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("clocktest: no timer armed for %v: %w", at, ctx.Err())
		}
	}
}

func (c *Clock) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}
