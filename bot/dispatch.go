package bot

import (
	"context"
	"sync"
	"time"
)

// job is one update on its way through the dispatcher, with what its
// earlier attempts in this process learned.
type job struct {
	chat    int64
	id      int64
	attempt int       // 1 for the first run in this process
	since   time.Time // when the current run of failures began; zero when none
	claimed bool
	raw     []byte
}

// dispatcher runs updates: those of one chat strictly in order, one at a
// time; different chats in parallel, at most `workers` at once. Button
// presses each run on their own, beside their chat's messages, so that a
// press is answered at once even while a long turn runs in the chat: what a
// press changes is decided by one atomic step in the database, which needs
// no ordering. A chat with
// work has one goroutine that drains its queue and exits when it is empty.
// An update that must wait (an outage) gives its slot back while it waits,
// so one stuck chat never holds up the others.
type dispatcher struct {
	ctx     context.Context // ends the running updates
	slots   chan struct{}
	process func(ctx context.Context, j *job) (retryIn time.Duration)

	mu     sync.Mutex
	queues map[lane][]int64 // waiting update ids; a key exists while the lane's goroutine runs
	queued map[int64]bool   // update ids waiting or running
	closed bool
	wg     sync.WaitGroup
}

func newDispatcher(ctx context.Context, workers int, process func(context.Context, *job) time.Duration) *dispatcher {
	return &dispatcher{
		ctx:     ctx,
		slots:   make(chan struct{}, workers),
		process: process,
		queues:  map[lane][]int64{},
		queued:  map[int64]bool{},
	}
}

// lane is a queue of updates run in order: a chat's, or one button press.
type lane struct {
	chat  int64
	press int64 // the press's update id; 0 for the chat's messages
}

// enqueue adds update id of chat to the end of the chat's queue. An update
// already waiting or running is not added twice.
func (d *dispatcher) enqueue(chat, id int64) { d.add(lane{chat: chat}, id) }

// enqueuePress runs button press id of chat on its own.
func (d *dispatcher) enqueuePress(chat, id int64) { d.add(lane{chat: chat, press: id}, id) }

func (d *dispatcher) add(l lane, id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.queued[id] {
		return
	}
	d.queued[id] = true
	q, running := d.queues[l]
	d.queues[l] = append(q, id)
	if !running {
		d.wg.Add(1)
		go d.run(l)
	}
}

func (d *dispatcher) run(l lane) {
	defer d.wg.Done()
	for {
		id, ok := d.next(l)
		if !ok {
			return
		}
		if !d.runJob(&job{chat: l.chat, id: id}) {
			return
		}
		d.mu.Lock()
		delete(d.queued, id)
		d.mu.Unlock()
	}
}

// runJob runs j until it is finished, waiting between attempts without a
// slot. It returns false when the dispatcher stops first.
func (d *dispatcher) runJob(j *job) bool {
	ctx := context.WithValue(d.ctx, idleKey{}, d.idle)
	for j.attempt = 1; ; j.attempt++ {
		if !d.acquire() {
			return false
		}
		wait := d.process(ctx, j)
		<-d.slots
		if wait == 0 {
			return true
		}
		if !sleep(d.ctx, wait) || d.isClosed() {
			return false
		}
	}
}

// idleKey carries, in an update's context, the way to give its slot back
// for a while.
type idleKey struct{}

// idle runs fn with the caller's slot given back, so that other chats'
// updates run while it waits (for Telegram to take an answer, say); it
// takes a slot again before it returns, whatever happened meanwhile.
func (d *dispatcher) idle(fn func() error) error {
	<-d.slots
	defer func() { d.slots <- struct{}{} }()
	return fn()
}

// idle runs fn without holding a worker slot when ctx is an update's. Only
// the goroutine that runs the update may call it, and not from within fn:
// the slot is that goroutine's. (The status loop of a turn, which runs
// beside it, never does.)
func idle(ctx context.Context, fn func() error) error {
	if give, ok := ctx.Value(idleKey{}).(func(func() error) error); ok {
		return give(fn)
	}
	return fn()
}

// acquire takes a slot, unless the dispatcher stops first.
func (d *dispatcher) acquire() bool {
	select {
	case d.slots <- struct{}{}:
	case <-d.ctx.Done():
		return false
	}
	if d.isClosed() {
		<-d.slots
		return false
	}
	return true
}

func (d *dispatcher) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// next takes the lane's next update, or ends the lane's goroutine.
func (d *dispatcher) next(l lane) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queues[l]
	if len(q) == 0 || d.closed {
		delete(d.queues, l)
		return 0, false
	}
	d.queues[l] = q[1:]
	return q[0], true
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
