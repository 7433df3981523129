package delivery

import (
	"context"
	"errors"
	"slices"
	"time"
)

// class is how much a call matters to the person, which decides what goes
// first and what may be dropped.
type class int

const (
	// urgent calls — final answers, confirmation prompts, command replies,
	// answers to button presses — go first and are never dropped.
	urgent class = iota
	// status calls post a turn's status message: never dropped, but after
	// urgent calls; the turn withdraws one that has not gone out when its
	// answer is ready, and sends the answer instead.
	status
	// progress calls — status edits and drafts — merge (the latest wins)
	// and are dropped first when the budget is short.
	progress
	// typing calls are chat actions: dropped when they cannot go soon.
	typing
)

// droppable reports whether calls of the class may be merged or dropped.
func (c class) droppable() bool { return c >= progress }

// Headroom kept for calls that are never dropped: progress and typing
// calls go only while this much budget would be left.
const (
	chatReserve   = 1
	groupReserve  = 5
	globalReserve = 7
)

// How long droppable calls may wait before they are not worth sending.
const (
	progressLife = 5 * time.Second
	typingLife   = 2 * time.Second
)

// Errors that end calls without sending them.
var (
	errSuperseded = errors.New("superseded by a newer call")
	errExpired    = errors.New("dropped: no budget in time")
	errStopped    = errors.New("telegram engine stopped")
)

// apiCall is one Telegram call on its way through the schedule.
type apiCall struct {
	chat     int64  // 0 for calls that belong to no chat
	class    class  //
	key      string // calls with the same key in one chat merge: the latest wins
	method   string
	creating bool // sending it twice would show the person something twice
	upload   int  // bytes of a file it sends, which its deadline makes room for
	call     func(ctx context.Context) error
	ctx      context.Context // the caller's: a queued job is withdrawn when it ends
	done     func(error)     // told the outcome once, outside the schedule's lock

	seq       uint64
	notBefore time.Time // retry backoff
	expires   time.Time // droppable calls: give up after
	attempts  int       // failed tries, 429s not counted
	queued    bool
	floor     uint64 // its chat's fair-queueing floor before it went, restored if it must go again

	// While it is on its way: its counts in the windows, told when its
	// answer came back.
	minute, global *counted
}

// chatState is one chat's queue and budget.
type chatState struct {
	id      int64
	queue   []*apiCall
	busy    bool       // a call is in flight: a chat's calls go one at a time, in order
	flying  []*apiCall // the calls in flight: one at most, but any number for calls of no chat
	bucket  bucket
	minute  window    // groups only
	learned time.Time // when the calls other processes made here were last read
	paused  time.Time
	floor   uint64 // fair queueing: the chat's next call counts as queued no earlier than this
}

// schedule decides which call goes next. It is plain data: the engine
// holds its lock and tells it the time, so tests drive it with any clock.
type schedule struct {
	limits   limits
	chats    map[int64]*chatState
	waiting  map[int64]*chatState // chats with queued calls
	global   window
	paused   time.Time // everything waits until then
	lastHit  hit       // the last 429, to tell a bot-wide limit from a chat's
	seq      uint64
	finished []finished // calls ended by the schedule, to be told outside the lock
	stopped  bool       // the engine stopped: nothing more is queued
	swept    time.Time  // when idle chats were last forgotten
}

type hit struct {
	chat      int64
	at, until time.Time // when the 429 came, and until when it asked to wait
}

type finished struct {
	j   *apiCall
	err error
}

func newSchedule(l limits) *schedule {
	return &schedule{limits: l, chats: map[int64]*chatState{}, waiting: map[int64]*chatState{},
		global: newWindow(l.PerSecond, time.Second)}
}

func (s *schedule) chat(id int64) *chatState {
	c := s.chats[id]
	if c == nil {
		c = &chatState{id: id, bucket: newBucket(s.limits.ChatEvery, s.limits.ChatBurst)}
		if isGroup(id) {
			c.minute = newWindow(s.limits.GroupPerMinute, time.Minute)
		}
		s.chats[id] = c
	}
	return c
}

// isGroup tells groups from private chats: Telegram gives groups,
// supergroups and channels negative ids.
func isGroup(chat int64) bool { return chat < 0 }

// add queues j. A queued droppable call with the same key is replaced: j
// takes its place in line and its content wins.
func (s *schedule) add(j *apiCall) {
	c := s.chat(j.chat)
	s.seq++
	j.seq = s.seq
	if j.class.droppable() && s.outranked(c, j) {
		s.end(j, errSuperseded)
		return
	}
	if j.key != "" {
		for i, q := range c.queue {
			if q.key != j.key || !q.class.droppable() {
				continue
			}
			if j.class.droppable() {
				j.seq = q.seq
			}
			c.queue = append(c.queue[:i:i], c.queue[i+1:]...)
			s.end(q, errSuperseded)
			break
		}
	}
	j.queued = true
	c.queue = append(c.queue, j)
	s.waiting[c.id] = c
}

// outranked reports whether a call that is never dropped, with j's key,
// is queued or in flight in chat c: progress must not land after it and
// undo what it showed.
func (s *schedule) outranked(c *chatState, j *apiCall) bool {
	if j.key == "" {
		return false
	}
	for _, q := range slices.Concat(c.queue, c.flying) {
		if q.key == j.key && !q.class.droppable() {
			return true
		}
	}
	return false
}

// requeue puts a call that must be tried again back at the front of its
// chat's line, unless a newer call with its key replaced it meanwhile.
func (s *schedule) requeue(j *apiCall) {
	c := s.chat(j.chat)
	for i, q := range c.queue {
		if j.key == "" || q.key != j.key {
			continue
		}
		if j.class.droppable() {
			s.end(j, errSuperseded)
			return
		}
		if q.class.droppable() {
			c.queue = append(c.queue[:i:i], c.queue[i+1:]...)
			s.end(q, errSuperseded)
		}
		break
	}
	j.queued = true
	c.queue = append([]*apiCall{j}, c.queue...)
	c.floor = j.floor // it keeps its place in line
	s.waiting[c.id] = c
}

// withdraw takes a queued call out of line. It reports false when the call
// is not queued: in flight or finished.
func (s *schedule) withdraw(j *apiCall) bool {
	if !j.queued {
		return false
	}
	c := s.chats[j.chat]
	for i, q := range c.queue {
		if q == j {
			c.queue = append(c.queue[:i:i], c.queue[i+1:]...)
			j.queued = false
			return true
		}
	}
	return false
}

// end finishes j without sending it.
func (s *schedule) end(j *apiCall, err error) {
	j.queued = false
	s.finished = append(s.finished, finished{j, err})
}

// takeFinished returns the calls ended since the last call, for the engine
// to tell their callers.
func (s *schedule) takeFinished() []finished {
	f := s.finished
	s.finished = nil
	return f
}

// next picks the call to send now and spends its budget, or says when to
// look again (zero: when something changes).
func (s *schedule) next(now time.Time) (*apiCall, time.Time) {
	var best *apiCall
	var bestKey uint64
	var wake time.Time
	later := func(t time.Time) {
		if wake.IsZero() || t.Before(wake) {
			wake = t
		}
	}
	for id, c := range s.waiting {
		s.dropDead(c, now)
		if len(c.queue) == 0 {
			delete(s.waiting, id)
			continue
		}
		for _, j := range c.queue {
			if j.class.droppable() && !j.expires.IsZero() {
				later(j.expires) // it is dropped then, and its caller told
			}
		}
		if c.busy {
			continue // its call's end wakes the engine
		}
		j, retry := s.candidate(c, now)
		if !retry.IsZero() {
			later(retry) // a call that is never dropped waits out a backoff
		}
		if j == nil {
			continue
		}
		at, ok := s.readyAt(c, j, now)
		if !ok {
			continue // a call on its way must come back first; its end wakes the engine
		}
		if at.After(now) {
			later(at)
			continue
		}
		if key := max(j.seq, c.floor); best == nil || j.class < best.class || j.class == best.class && key < bestKey {
			best, bestKey = j, key
		}
	}
	s.sweep(now)
	if best == nil {
		return nil, wake
	}
	s.spend(best, now)
	return best, time.Time{}
}

// sweep forgets, once a minute, the chats that have nothing queued or in
// flight and a full budget: their state says nothing any more.
func (s *schedule) sweep(now time.Time) {
	if now.Sub(s.swept) < time.Minute {
		return
	}
	s.swept = now
	for id, c := range s.chats {
		if s.idle(c, now) {
			delete(s.chats, id)
		}
	}
}

func (s *schedule) idle(c *chatState, now time.Time) bool {
	return len(c.flying) == 0 && len(c.queue) == 0 && c.bucket.full(now) && c.minute.empty(now) && !c.paused.After(now)
}

// dropDead ends queued calls whose caller gave up, and droppable calls
// whose time ran out.
func (s *schedule) dropDead(c *chatState, now time.Time) {
	kept := c.queue[:0]
	for _, j := range c.queue {
		switch {
		case j.ctx != nil && j.ctx.Err() != nil:
			s.end(j, j.ctx.Err())
		case j.class.droppable() && !j.expires.IsZero() && !now.Before(j.expires):
			s.end(j, errExpired)
		default:
			kept = append(kept, j)
			continue
		}
	}
	clear(c.queue[len(kept):])
	c.queue = kept
}

// candidate is the call the chat would send next: its oldest call that is
// never dropped — those keep their order — unless that one waits out a
// retry backoff, until retry; then its best droppable call.
func (s *schedule) candidate(c *chatState, now time.Time) (next *apiCall, retry time.Time) {
	var first, drop *apiCall
	for _, j := range c.queue {
		switch {
		case !j.class.droppable() && first == nil:
			first = j
		case j.class.droppable() && (drop == nil || j.class < drop.class || j.class == drop.class && j.seq < drop.seq):
			drop = j
		}
	}
	if first == nil || drop == nil || !first.notBefore.After(now) {
		if first != nil {
			return first, time.Time{}
		}
		return drop, time.Time{}
	}
	return drop, first.notBefore
}

// readyAt is when j may go: after any pause and backoff, once every budget
// it draws on allows it. Droppable calls need headroom left for the rest.
// ok is false when j must wait for calls on their way to come back.
func (s *schedule) readyAt(c *chatState, j *apiCall, now time.Time) (time.Time, bool) {
	at := latest(now, j.notBefore, c.paused, s.paused)
	chat, group, global := 1, 1, 1
	if j.class.droppable() {
		chat, group, global = 1+chatReserve, 1+groupReserve, 1+globalReserve
	}
	minute, ok := c.minute.readyAt(at, group)
	if c.id != 0 {
		at = latest(at, c.bucket.readyAt(at, chat), minute)
	}
	all, allOK := s.global.readyAt(at, global)
	return latest(at, all), ok && allOK
}

func latest(t time.Time, more ...time.Time) time.Time {
	for _, m := range more {
		if m.After(t) {
			t = m
		}
	}
	return t
}

// spend takes j out of line, marks its chat busy and charges the budgets.
func (s *schedule) spend(j *apiCall, now time.Time) {
	c := s.chats[j.chat]
	s.withdraw(j)
	c.busy = c.id != 0 // calls of no chat need no order among them
	c.flying = append(c.flying, j)
	j.floor, c.floor = c.floor, s.seq+1
	if c.id != 0 {
		c.bucket.take(now)
		j.minute = c.minute.take()
	}
	j.global = s.global.take()
}

// released ends j's flight at now, when its answer came: the chat may send
// again, and the budgets start letting time pass for it. It forgets chats
// that have nothing queued and a full budget.
//
// A call Telegram refused with a 429 was not counted by Telegram: it gives
// its budget back, so that it goes again exactly when the pause ends.
func (s *schedule) released(j *apiCall, now time.Time, refused bool) {
	c := s.chats[j.chat]
	c.flying = slices.DeleteFunc(c.flying, func(q *apiCall) bool { return q == j })
	c.busy = false
	if refused {
		c.bucket.refund(now)
		c.minute.drop(j.minute)
		s.global.drop(j.global)
	} else {
		c.bucket.answered(now)
		c.minute.answered(j.minute, now)
		s.global.answered(j.global, now)
	}
	j.minute, j.global = nil, nil
	if s.idle(c, now) {
		delete(s.chats, c.id)
		delete(s.waiting, c.id)
	}
}

// tooMany handles a 429: the chat, or everything, waits exactly retryAfter
// from now. Telegram does not say which limit was hit. A call that belongs
// to no chat can only have hit the bot-wide one; so have, most likely, 429s
// in two chats within a second that ask for the same wait, as one limiter
// would. Otherwise the chat alone waits: a group over its twenty a minute
// must not stop every other chat.
func (s *schedule) tooMany(j *apiCall, retryAfter time.Duration, now time.Time) {
	until := now.Add(retryAfter)
	last := s.lastHit
	s.lastHit = hit{chat: j.chat, at: now, until: until}
	together := !last.at.IsZero() && last.chat != j.chat && now.Sub(last.at) < time.Second &&
		(until.Sub(last.until)).Abs() <= time.Second
	if j.chat == 0 || together {
		s.paused = latest(s.paused, until)
		return
	}
	c := s.chat(j.chat)
	c.paused = latest(c.paused, until)
}
