package bot

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
)

// gate is a process func whose calls report their start and wait to be
// released.
type gate struct {
	started chan int64
	mu      sync.Mutex
	release map[int64]chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan int64, 100), release: map[int64]chan struct{}{}}
}

func (g *gate) ch(id int64) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release[id] == nil {
		g.release[id] = make(chan struct{})
	}
	return g.release[id]
}

func (g *gate) process(ctx context.Context, j *job) afterRun {
	g.started <- j.id
	select {
	case <-g.ch(j.id):
	case <-ctx.Done():
	}
	return afterRun{}
}

func (g *gate) next(t *testing.T) int64 {
	t.Helper()
	select {
	case id := <-g.started:
		return id
	case <-time.After(10 * time.Second):
		t.Fatal("no update started")
		return 0
	}
}

func (g *gate) none(t *testing.T) {
	t.Helper()
	select {
	case id := <-g.started:
		t.Fatalf("update %d started while it should wait", id)
	default:
	}
}

func TestDispatcherKeepsChatOrderAndRunsChatsInParallel(t *testing.T) {
	g := newGate()
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 4, g.process)
	d.enqueue(1, 11)
	d.enqueue(1, 12)
	d.enqueue(2, 21)
	first, second := g.next(t), g.next(t)
	if !(first == 11 && second == 21 || first == 21 && second == 11) {
		t.Fatalf("started %d and %d; want 11 and 21 (one per chat)", first, second)
	}
	g.none(t) // 12 waits for 11
	close(g.ch(21))
	g.none(t)
	close(g.ch(11))
	if id := g.next(t); id != 12 {
		t.Fatalf("started %d after 11 finished; want 12", id)
	}
	close(g.ch(12))
	d.close()
	d.wait()
}

// A button press is answered while its chat's turn still runs, and two
// presses do not wait for each other either.
func TestPressesRunBesideTheirChat(t *testing.T) {
	g := newGate()
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 4, g.process)
	d.enqueue(1, 11)
	if id := g.next(t); id != 11 {
		t.Fatalf("started %d; want 11", id)
	}
	d.enqueuePress(1, 12)
	d.enqueuePress(1, 13)
	first, second := g.next(t), g.next(t)
	if first+second != 25 {
		t.Fatalf("started %d and %d; want the presses 12 and 13 while 11 runs", first, second)
	}
	d.enqueue(1, 14)
	g.none(t) // the chat's next message still waits for 11
	for _, id := range []int64{11, 12, 13} {
		close(g.ch(id))
	}
	if id := g.next(t); id != 14 {
		t.Fatalf("started %d; want 14", id)
	}
	close(g.ch(14))
	d.close()
	d.wait()
}

// Presses have slots of their own: a press is answered while every worker
// waits on a slow model.
func TestPressesDoNotWaitForWorkers(t *testing.T) {
	g := newGate()
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 1, g.process)
	d.enqueue(1, 11)
	g.next(t) // holds the only worker
	d.enqueue(2, 21)
	d.enqueuePress(3, 31)
	if id := g.next(t); id != 31 {
		t.Fatalf("started %d; want the press 31 while 11 holds the worker", id)
	}
	g.none(t) // 21 waits for the worker
	close(g.ch(31))
	close(g.ch(11))
	if id := g.next(t); id != 21 {
		t.Fatalf("started %d; want 21", id)
	}
	close(g.ch(21))
	d.close()
	d.wait()
}

// A press whose conversation goes on is decided on its own lane, then goes
// on at the end of its chat's queue, once, with what it learned.
func TestPressGoesOnInItsChatsQueue(t *testing.T) {
	g := newGate()
	runs := make(chan job, 10)
	decided := make(chan struct{})
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 4, func(ctx context.Context, j *job) afterRun {
		runs <- *j
		if j.id == 12 && j.press {
			<-decided
			j.claimed = true
			return afterRun{inChat: true}
		}
		return g.process(ctx, j)
	})
	d.enqueue(1, 11)
	<-runs
	g.next(t)
	d.enqueuePress(1, 12)
	if r := <-runs; r.id != 12 || !r.press {
		t.Fatalf("ran %+v; want the press 12 on its own lane", r)
	}
	d.enqueue(1, 13)
	close(decided)
	d.enqueuePress(1, 12) // delivered again: it is still queued
	g.none(t)
	close(g.ch(11))
	if r := <-runs; r.id != 13 {
		t.Fatalf("ran %+v after 11; want 13, queued before the press went on", r)
	}
	g.next(t)
	close(g.ch(13))
	if r := <-runs; r.id != 12 || r.press || !r.claimed {
		t.Fatalf("ran %+v; want 12 again in the chat's queue, claimed, no longer a press", r)
	}
	g.next(t)
	close(g.ch(12))
	d.close()
	d.wait()
	if len(runs) > 0 {
		t.Fatalf("ran %+v once more", <-runs)
	}
}

func TestDispatcherBoundsConcurrency(t *testing.T) {
	g := newGate()
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 2, g.process)
	for chat := int64(1); chat <= 3; chat++ {
		d.enqueue(chat, chat*10)
	}
	a, b := g.next(t), g.next(t)
	g.none(t) // the third chat waits for a slot
	close(g.ch(a))
	c := g.next(t)
	if c == a || c == b {
		t.Fatalf("started %d again", c)
	}
	close(g.ch(b))
	close(g.ch(c))
	d.close()
	d.wait()
}

func TestDispatcherDoesNotQueueAnUpdateTwice(t *testing.T) {
	g := newGate()
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 1, g.process)
	d.enqueue(1, 11)
	d.enqueue(1, 12)
	d.enqueue(1, 12) // delivered again while waiting
	g.next(t)
	close(g.ch(11))
	if id := g.next(t); id != 12 {
		t.Fatalf("got %d; want 12", id)
	}
	close(g.ch(12))
	d.close()
	d.wait()
	g.none(t)
}

func TestDispatcherCloseLeavesWaitingUpdates(t *testing.T) {
	g := newGate()
	ctx, cancel := context.WithCancel(context.Background())
	d := newDispatcher(ctx, ryo.SystemClock{}, 1, g.process)
	d.enqueue(1, 11)
	d.enqueue(1, 12)
	g.next(t)
	d.close()
	cancel() // the running update is interrupted; 12 never starts
	d.wait()
	g.none(t)
}

// Chats waiting for a slot do not start once the dispatcher is closed.
func TestDispatcherCloseStopsWaitingChats(t *testing.T) {
	g := newGate()
	d := newDispatcher(context.Background(), ryo.SystemClock{}, 1, g.process)
	d.enqueue(1, 11)
	d.enqueue(2, 21)
	first := g.next(t)
	d.close()
	close(g.ch(first))
	d.wait()
	g.none(t)
}

// An update that must wait gives its slot to other chats meanwhile.
func TestDispatcherWaitingUpdateFreesTheSlot(t *testing.T) {
	runs := make(chan int64, 10)
	ctx, cancel := context.WithCancel(context.Background())
	d := newDispatcher(ctx, ryo.SystemClock{}, 1, func(ctx context.Context, j *job) afterRun {
		runs <- j.id
		if j.id == 11 {
			return afterRun{retryIn: time.Hour} // an outage: try again much later
		}
		return afterRun{}
	})
	d.enqueue(1, 11)
	if id := <-runs; id != 11 {
		t.Fatalf("ran %d; want 11", id)
	}
	d.enqueue(2, 21)
	select {
	case id := <-runs:
		if id != 21 {
			t.Fatalf("ran %d; want 21", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting update kept the only slot")
	}
	d.close()
	cancel()
	d.wait()
}
