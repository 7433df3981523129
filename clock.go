package ryo

import (
	"context"
	"time"
)

// Clock is time as the parts that schedule work see it. Tests pass a manual
// clock; everything else uses SystemClock.
type Clock interface {
	Now() time.Time
	// Timer fires once, d from now; stop cancels it.
	Timer(d time.Duration) (c <-chan time.Time, stop func() bool)
}

// SystemClock is the real time.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// Timer is time.NewTimer.
func (SystemClock) Timer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Sleep waits d on clock c, or until ctx ends, and reports whether it
// waited in full.
func Sleep(ctx context.Context, c Clock, d time.Duration) bool {
	fired, stop := c.Timer(d)
	defer stop()
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	}
}

// Backoff is how long to wait after the n-th failure in a row: from half a
// second, doubling, up to 30 seconds.
func Backoff(n int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}
