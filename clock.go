package ryo

import "time"

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
