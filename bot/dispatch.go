package bot

import (
	"context"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
)

// job is one update on its way through the dispatcher, with what its
// earlier attempts in this process learned.
type job struct {
	chat    int64
	id      int64
	press   bool      // a button press, on a lane of its own
	attempt int       // 1 for the first run in this process
	since   time.Time // when the current run of failures began; zero when none
	claimed bool
	raw     []byte
	w       *worker // the slot it runs in
	told    bool    // a press answered while it waits for an outage to end
	gaveWay bool    // a turn that moved to the end of its chat's queue once, for someone else's
	// finished: its turn marked it done with its answer (talk.finished)
	finished bool

	queued time.Time // when it reached the dispatcher
}

// afterRun is what became of one attempt at a job.
type afterRun struct {
	retryIn time.Duration // try again after this long; 0 when no attempt follows here
	inChat  bool          // a press whose conversation goes on in its chat's queue
}

// dispatcher runs updates: those of one chat strictly in order, one at a
// time; different chats in parallel, at most `workers` at once. Button
// presses each run on their own, beside their chat's messages, with slots
// of their own, so that a press is answered at once even while long turns
// hold every worker: what a press changes is decided by one atomic step in
// the database, which needs no ordering. When a press lets a conversation
// go on (a yes to an action), the rest of it moves to the end of its
// chat's queue, where it keeps its place among the chat's turns. A chat
// with work has one goroutine that drains its queue and exits when it is
// empty. An update that must wait (an outage) gives its slot back while it
// waits, so one stuck chat never holds up the others.
type dispatcher struct {
	ctx     context.Context // ends the running updates
	clock   ryo.Clock
	slots   slots // for the chats' queues
	presses slots // for button presses
	process func(ctx context.Context, j *job) afterRun

	// idle is told, from the lane's goroutine, when a chat's last lane
	// ended: nothing of the chat waits or runs here any more. It may be nil.
	idle func(chat int64)

	mu     sync.Mutex
	queues map[lane][]*job // waiting jobs; a key exists while the lane's goroutine runs
	lanes  map[int64]int   // how many lanes of each chat have a goroutine
	queued map[int64]bool  // update ids waiting or running
	// calls are the running updates of each chat.
	calls  map[int64]map[*job]bool
	closed bool
	wg     sync.WaitGroup
}

func newDispatcher(ctx context.Context, clock ryo.Clock, workers int, process func(context.Context, *job) afterRun) *dispatcher {
	return &dispatcher{
		ctx:     ctx,
		clock:   clock,
		slots:   make(slots, workers),
		presses: make(slots, workers),
		process: process,
		queues:  map[lane][]*job{},
		lanes:   map[int64]int{},
		queued:  map[int64]bool{},
		calls:   map[int64]map[*job]bool{},
	}
}

// lane is a queue of updates run in order: a chat's, or one button press.
type lane struct {
	chat  int64
	press int64 // the press's update id; 0 for the chat's messages
}

// enqueue adds update id of chat to the end of the chat's queue. An update
// already waiting or running is not added twice.
func (d *dispatcher) enqueue(chat, id int64) { d.add(lane{chat: chat}, &job{chat: chat, id: id}) }

// enqueuePress runs button press id of chat on its own.
func (d *dispatcher) enqueuePress(chat, id int64) {
	d.add(lane{chat: chat, press: id}, &job{chat: chat, id: id, press: true})
}

func (d *dispatcher) add(l lane, j *job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.queued[j.id] {
		return
	}
	d.queued[j.id] = true
	j.queued = d.clock.Now()
	d.push(l, j)
}

// push appends j to lane l, starting the lane's goroutine if it has none.
// d.mu is held.
func (d *dispatcher) push(l lane, j *job) {
	q, running := d.queues[l]
	d.queues[l] = append(q, j)
	if !running {
		d.lanes[l.chat]++
		d.wg.Add(1)
		go d.run(l)
	}
}

func (d *dispatcher) run(l lane) {
	defer d.wg.Done()
	for {
		j, ok, last := d.next(l)
		if !ok {
			if last && d.idle != nil {
				d.idle(l.chat)
			}
			return
		}
		out, ok := d.runJob(j)
		if !ok {
			return
		}
		d.mu.Lock()
		if out.inChat && !d.closed {
			j.press = false
			d.push(lane{chat: j.chat}, j) // still queued: it goes on there
		} else {
			delete(d.queued, j.id)
		}
		d.mu.Unlock()
	}
}

// runJob runs j until it is finished, or must go on in its chat's queue,
// waiting between attempts without a slot. It returns false when the
// dispatcher stops first.
func (d *dispatcher) runJob(j *job) (afterRun, bool) {
	pool := d.slots
	if j.press {
		pool = d.presses
	}
	j.w = &worker{pool: pool}
	for j.attempt = 1; ; j.attempt++ {
		if !d.acquire(pool) {
			return afterRun{}, false
		}
		out := d.runOnce(j)
		<-pool
		if out.retryIn == 0 {
			return out, true
		}
		if !ryo.Sleep(d.ctx, d.clock, out.retryIn) || d.isClosed() {
			return afterRun{}, false
		}
	}
}

// runOnce runs one attempt at j, which callOff may end early.
func (d *dispatcher) runOnce(j *job) afterRun {
	ctx, cancel := context.WithCancelCause(d.ctx)
	defer cancel(nil)
	j.w.attempt(cancel)
	defer j.w.attempt(nil)
	d.mu.Lock()
	if d.calls[j.chat] == nil {
		d.calls[j.chat] = map[*job]bool{}
	}
	d.calls[j.chat][j] = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.calls[j.chat], j)
		if len(d.calls[j.chat]) == 0 {
			delete(d.calls, j.chat)
		}
		d.mu.Unlock()
	}()
	return d.process(ctx, j)
}

// callOff ends what runs of chat's updates now, their context cancelled
// with cause — once a confirmed action's tool they run has ended (shield).
// What waits in the chat's queue is not touched.
func (d *dispatcher) callOff(chat int64, cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for j := range d.calls[chat] {
		j.w.callOff(cause)
	}
}

// slots bounds how many updates run at once: an update holds one while it
// runs.
type slots chan struct{}

// worker is the slot an update runs in. An update that waits on something
// slow but cheap — Telegram taking its turn — gives its slot back while it
// waits, with idle, so that other chats' updates run meanwhile. A nil
// worker holds no slot: work outside the dispatcher, such as the sweep.
type worker struct {
	pool slots

	mu       sync.Mutex
	cancel   context.CancelCauseFunc // ends the attempt running; nil between attempts
	shielded bool                    // a confirmed action's tool runs
	pending  error                   // a call-off that came while shielded
}

// attempt notes what ends the attempt starting, or nil once it ended.
func (w *worker) attempt(cancel context.CancelCauseFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancel, w.pending = cancel, nil
}

// callOff ends the attempt running, with cause: at once, or once the
// shielded work running ends.
func (w *worker) callOff(cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.shielded:
		w.pending = cause
	case w.cancel != nil:
		w.cancel(cause)
	}
}

// shield runs fn out of a call-off's reach — a confirmed action's tool,
// which cut short could leave its work half done; the call-off comes once
// fn returns. A shutdown still ends it, as before. A nil worker (work
// outside the dispatcher) is never called off.
func (w *worker) shield(fn func()) {
	if w == nil {
		fn()
		return
	}
	w.mu.Lock()
	w.shielded = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.shielded = false
		if w.pending != nil && w.cancel != nil {
			w.cancel(w.pending)
		}
		w.pending = nil
	}()
	fn()
}

// idle runs fn with w's slot given back, and takes a slot again before it
// returns, whatever happened meanwhile. Only the goroutine that runs the
// update may call it, and not from within fn. (The status loop of a turn,
// which runs beside it, never does.)
func (w *worker) idle(fn func() error) error {
	if w == nil {
		return fn()
	}
	<-w.pool
	defer func() { w.pool <- struct{}{} }()
	return fn()
}

// acquire takes a slot of pool, unless the dispatcher stops first.
func (d *dispatcher) acquire(pool slots) bool {
	select {
	case pool <- struct{}{}:
	case <-d.ctx.Done():
		return false
	}
	if d.isClosed() {
		<-pool
		return false
	}
	return true
}

func (d *dispatcher) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// next takes the lane's next update, or ends the lane's goroutine; last
// says then that it was the chat's last lane.
func (d *dispatcher) next(l lane) (j *job, ok, last bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queues[l]
	if len(q) == 0 || d.closed {
		delete(d.queues, l)
		d.lanes[l.chat]--
		if d.lanes[l.chat] == 0 {
			delete(d.lanes, l.chat)
			return nil, false, true
		}
		return nil, false, false
	}
	d.queues[l] = q[1:]
	return q[0], true, false
}

// busy reports whether any update of chat waits or runs here.
func (d *dispatcher) busy(chat int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lanes[chat] > 0
}

// running returns the chats with updates waiting or running here.
func (d *dispatcher) running() []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	chats := make([]int64, 0, len(d.lanes))
	for chat := range d.lanes {
		chats = append(chats, chat)
	}
	return chats
}

// close stops starting updates, and retrying those that wait; they stay
// unfinished in the inbox for the next start. It does not wait.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
}

// wait blocks until every lane's goroutine has ended.
func (d *dispatcher) wait() { d.wg.Wait() }
