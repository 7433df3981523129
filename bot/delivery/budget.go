package delivery

import (
	"slices"
	"time"
)

// limits are the flood limits the bot keeps to. Telegram publishes about
// one message a second in a chat (short bursts tolerated), twenty a minute
// in a group and thirty a second in all; edits, drafts and chat actions
// count too. The defaults stay a little under those.
//
// Telegram counts a call when it arrives, which is some time after it was
// sent and before its answer came back; calls sent evenly can arrive
// bunched. So the budgets count each call from when it is sent until its
// answer is back, and only then let time pass for it: however the calls
// were delayed on the way, Telegram never counts more than the bot did.
type limits struct {
	ChatEvery      time.Duration // sustained spacing of calls in one chat
	ChatBurst      int           // calls one chat may make at once
	GroupPerMinute int           // calls in one group in any 60 seconds
	PerSecond      int           // calls in all chats in any second
}

// defaultLimits are Telegram's published limits less a margin.
func defaultLimits() limits {
	return limits{ChatEvery: 1100 * time.Millisecond, ChatBurst: 3, GroupPerMinute: 19, PerSecond: 28}
}

// bucket is a token bucket: burst tokens at most, one back every `every`.
// The zero bucket is full; a bucket with no `every` never runs out.
type bucket struct {
	every  time.Duration
	burst  int
	tokens float64   // at `at`; below zero while calls are owed
	at     time.Time // zero: full
}

func newBucket(every time.Duration, burst int) bucket {
	return bucket{every: every, burst: max(burst, 1)}
}

// level is how many tokens there are at now.
func (b *bucket) level(now time.Time) float64 {
	if b.at.IsZero() || b.every <= 0 {
		return float64(b.burst)
	}
	return min(float64(b.burst), b.tokens+float64(now.Sub(b.at))/float64(b.every))
}

// readyAt is when the bucket holds need tokens (need <= burst), or now.
func (b *bucket) readyAt(now time.Time, need int) time.Time {
	missing := float64(min(need, b.burst)) - b.level(now)
	if missing <= 0 {
		return now
	}
	return now.Add(time.Duration(missing * float64(b.every)))
}

// take spends a token for a call sent at now.
func (b *bucket) take(now time.Time) {
	if b.every > 0 {
		b.tokens, b.at = b.level(now)-1, now
	}
}

// answered counts the token of a call taken at its sending as spent only
// at now, when its answer came: the time on the way refills nothing. (The
// chat sends one call at a time, so nothing else drew on the bucket
// meanwhile.)
func (b *bucket) answered(now time.Time) {
	if b.every > 0 && !b.at.IsZero() {
		b.at = now
	}
}

// refund gives back the token of a call taken at its sending that
// Telegram refused, at now, when its answer came.
func (b *bucket) refund(now time.Time) {
	if b.every > 0 && !b.at.IsZero() {
		b.tokens, b.at = min(float64(b.burst), b.tokens+1), now
	}
}

// full reports whether the bucket has refilled, so its state can be
// forgotten.
func (b *bucket) full(now time.Time) bool { return b.level(now) >= float64(b.burst) }

// window allows at most n calls in any span of `per`. A call counts from
// when it is sent until `per` after its answer. A zero n allows
// everything.
type window struct {
	n      int
	per    time.Duration
	calls  []*counted
	others []time.Time // until when each call other processes made counts
}

// counted is a call a window counts: until zero while it is on its way.
type counted struct{ until time.Time }

func newWindow(n int, per time.Duration) window { return window{n: n, per: per} }

// forget drops calls that left the window.
func (w *window) forget(now time.Time) {
	w.calls = slices.DeleteFunc(w.calls, func(c *counted) bool { return !c.until.IsZero() && !now.Before(c.until) })
	w.others = slices.DeleteFunc(w.others, func(until time.Time) bool { return !now.Before(until) })
}

// readyAt is when, from t on, need more calls fit in the window (need <=
// n). ok is false when calls on their way must come back first. It changes
// nothing: t may lie ahead.
func (w *window) readyAt(t time.Time, need int) (at time.Time, ok bool) {
	if w.n <= 0 {
		return t, true
	}
	in := 0
	var leave []time.Time
	for _, until := range w.others {
		if until.After(t) {
			in++
			leave = append(leave, until)
		}
	}
	for _, c := range w.calls {
		switch {
		case c.until.IsZero():
			in++
		case c.until.After(t):
			in++
			leave = append(leave, c.until)
		}
	}
	over := in + min(need, w.n) - w.n
	if over <= 0 {
		return t, true
	}
	if len(leave) < over {
		return time.Time{}, false
	}
	slices.SortFunc(leave, time.Time.Compare)
	return leave[over-1], true
}

// take counts a call being sent; answered is told when it came back.
func (w *window) take() *counted {
	if w.n <= 0 {
		return nil
	}
	c := &counted{}
	w.calls = append(w.calls, c)
	return c
}

// answered starts the time a call's count has left, at now.
func (w *window) answered(c *counted, now time.Time) {
	if c != nil {
		c.until = now.Add(w.per)
		w.forget(now)
	}
}

// drop forgets a call that Telegram did not count.
func (w *window) drop(c *counted) {
	w.calls = slices.DeleteFunc(w.calls, func(q *counted) bool { return q == c })
}

func (w *window) empty(now time.Time) bool {
	w.forget(now)
	return len(w.calls) == 0 && len(w.others) == 0
}
