package stages

import "time"

// pace decides how often a turn may show progress. Each chat has a budget
// of calls (about one a second in private chats, twenty a minute in
// groups) shared by the status edits, drafts, typing and the answer, so
// progress is shown at a pace that leaves room for the rest:
//
//   - a base interval by chat: every 1.5 s in private chats, 5 s in groups;
//   - while the reply streams, long enough for a useful piece of new text
//     at the model's measured speed — a slow model's edits come less often,
//     up to a cap (6 s private, 15 s groups);
//   - after the first minute, twice as far apart: long streams of edits are
//     what Telegram punishes with long bans;
//   - nothing in the first interval, so a quick answer costs no edit at all.
type pace struct {
	base, cap time.Duration
	began     time.Time
	next      time.Time // the earliest next progress

	// The reply's growth, to measure the model's speed.
	grewAt   time.Time
	grewFrom int
	rate     float64 // UTF-16 units a second, smoothed; 0 until measured
}

// Pace settings.
const (
	privateBase = 1500 * time.Millisecond
	privateCap  = 6 * time.Second
	groupBase   = 5 * time.Second
	groupCap    = 15 * time.Second
	usefulText  = 80 // units of new reply text worth an edit
	slowDown    = time.Minute
)

func newPace(private bool, began, now time.Time) *pace {
	p := &pace{base: groupBase, cap: groupCap, began: began}
	if private {
		p.base, p.cap = privateBase, privateCap
	}
	p.next = now.Add(p.base)
	return p
}

// soon lets the next progress go at once: a resumed turn must replace what
// its status message showed before the interruption.
func (p *pace) soon(now time.Time) { p.next = now }

// due reports whether progress may be shown at now.
func (p *pace) due(now time.Time) bool { return !now.Before(p.next) }

// grew records the reply's length at now, to measure the model's speed.
func (p *pace) grew(now time.Time, units int) {
	if p.grewAt.IsZero() || units < p.grewFrom {
		p.grewAt, p.grewFrom = now, units
		return
	}
	dt := now.Sub(p.grewAt)
	if dt < 250*time.Millisecond {
		return
	}
	speed := float64(units-p.grewFrom) / dt.Seconds()
	if p.rate == 0 {
		p.rate = speed
	} else {
		p.rate = 0.7*p.rate + 0.3*speed
	}
	p.grewAt, p.grewFrom = now, units
}

// shown records progress shown at now and sets when the next may go.
func (p *pace) shown(now time.Time, streaming bool) {
	p.next = now.Add(p.interval(now, streaming))
}

func (p *pace) interval(now time.Time, streaming bool) time.Duration {
	d := p.base
	if streaming && p.rate > 0 {
		d = max(d, time.Duration(min(usefulText/p.rate, p.cap.Seconds())*float64(time.Second)))
	}
	d = min(d, p.cap)
	if now.Sub(p.began) > slowDown {
		d *= 2
	}
	return d
}
