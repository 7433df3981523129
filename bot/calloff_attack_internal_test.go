package bot

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

// A supergroup and a private chat, with real-shaped ids.
const (
	attackGroup = int64(-1001234567890123)
	attackDM    = int64(7380414414)
)

// calls is a process func whose runs report their start with their
// context and wait for it to end or to be released.
type calls struct {
	started chan runCtx
	release chan struct{}
	done    chan int64 // the runs that returned
}

type runCtx struct {
	id  int64
	ctx context.Context
}

func newCalls() *calls {
	return &calls{started: make(chan runCtx, 100), release: make(chan struct{}), done: make(chan int64, 100)}
}

func (c *calls) process(ctx context.Context, j *job) afterRun {
	c.started <- runCtx{j.id, ctx}
	defer func() { c.done <- j.id }()
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return afterRun{}
}

func (c *calls) next(t *testing.T) runCtx {
	t.Helper()
	select {
	case r := <-c.started:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no update started")
		return runCtx{}
	}
}

func ended(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run was not called off")
	}
}

// beat does what stayPresent does with a heartbeat's answer.
func beat(l *leases, d *dispatcher, held, taken []int64, sent time.Time) {
	for _, chat := range l.renewed(held, taken, sent) {
		d.callOff(chat, memory.ErrLeaseLost)
	}
}

// A chat lost, then taken back here: the turn started after it was taken
// back runs on when a heartbeat sent before the take — which still saw the
// other replica's lease — returns after it. Only a heartbeat sent after
// the take, that finds the chat taken, calls it off.
func TestCallOffAttackAStaleHeartbeatDoesNotCallOffATurnOfAChatTakenBack(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCalls()
	d := newDispatcher(ctx, ryo.SystemClock{}, 4, c.process)
	defer d.wait()
	defer d.close()
	defer close(c.release)
	t0 := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	l := &leases{r: &memory.Replica{ID: "r1"}}
	l.seen([]string{"r1", "r2"}, t0)

	idle := make(chan int64, 10)
	d.idle = func(chat int64) { idle <- chat }
	l.took(attackGroup, t0)
	d.enqueue(attackGroup, 901)
	first := c.next(t)
	beat(l, d, nil, []int64{attackGroup}, t0.Add(time.Second)) // taken over
	ended(t, first.ctx)
	<-c.done
	if !errors.Is(context.Cause(first.ctx), memory.ErrLeaseLost) {
		t.Fatalf("called off for %v", context.Cause(first.ctx))
	}
	<-idle // the bot looks at a chat again only once nothing of it runs here

	// The other replica failed: the chat is taken back here, and its
	// update runs again.
	l.took(attackGroup, t0.Add(3*time.Second))
	d.enqueue(attackGroup, 901)
	again := c.next(t)
	if again.id != 901 {
		t.Fatalf("update %d ran; want 901 again", again.id)
	}
	// A heartbeat sent at 2 s, before the take, returns only now.
	beat(l, d, nil, []int64{attackGroup}, t0.Add(2*time.Second))
	if err := again.ctx.Err(); err != nil {
		t.Fatalf("the turn of the chat taken back was called off by a heartbeat sent before the take: %v", context.Cause(again.ctx))
	}
	if err := l.fence(attackGroup, t0.Add(3500*time.Millisecond)); err != nil {
		t.Fatalf("the chat taken back is fenced: %v", err)
	}
	// One sent at 2.5 s that saw the take, and then renewed it.
	beat(l, d, []int64{attackGroup}, nil, t0.Add(2500*time.Millisecond))
	if err := again.ctx.Err(); err != nil {
		t.Fatalf("called off by a heartbeat that renewed the chat: %v", err)
	}
	// One sent after the take that finds it taken again calls it off.
	beat(l, d, nil, []int64{attackGroup}, t0.Add(4*time.Second))
	ended(t, again.ctx)
}

// Calling a chat off ends its turn and its presses running here — not
// those of other chats, not what waits in its queue, and not what starts
// after it.
func TestCallOffAttackCallOffEndsOnlyWhatRunsOfTheChatNow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCalls()
	d := newDispatcher(ctx, ryo.SystemClock{}, 4, c.process)
	defer d.wait()
	defer d.close()
	defer close(c.release)

	d.enqueue(attackGroup, 1)
	d.enqueuePress(attackGroup, 2)
	d.enqueue(attackDM, 3)
	runs := map[int64]context.Context{}
	for range 3 {
		r := c.next(t)
		runs[r.id] = r.ctx
	}
	d.enqueue(attackGroup, 4) // waits behind 1
	d.callOff(attackGroup, memory.ErrLeaseLost)
	ended(t, runs[1])
	ended(t, runs[2])
	if runs[3].Err() != nil {
		t.Fatal("another chat's turn was called off")
	}
	next := c.next(t)
	if next.id != 4 {
		t.Fatalf("update %d ran; want 4", next.id)
	}
	if next.ctx.Err() != nil {
		t.Fatal("the update waiting in the chat's queue started called off")
	}
	// A chat whose id differs only in sign is another chat.
	d.callOff(-attackDM, memory.ErrLeaseLost)
	if runs[3].Err() != nil {
		t.Fatal("calling off chat -id ended chat id's turn")
	}
}

// callOff racing with runs that end: every run that ends leaves nothing
// behind, a run is called off only while it runs, and a run that starts
// once callOff returned is not called off by it.
func TestCallOffAttackCallOffRacingRunsThatEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wrong atomic.Int64
	var stop atomic.Bool
	var offs, finished atomic.Int64
	const n = 3000
	all := make(chan struct{})
	process := func(ctx context.Context, j *job) afterRun {
		defer func() {
			if finished.Add(1) == n {
				close(all)
			}
		}()
		if j.id%3 == 0 {
			<-ctx.Done() // waits to be called off (or for the end)
		}
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), memory.ErrLeaseLost) && !stop.Load() {
			wrong.Add(1)
		}
		return afterRun{}
	}
	d := newDispatcher(ctx, ryo.SystemClock{}, 8, process)
	chats := []int64{attackGroup, attackDM, -4123456789}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			for _, chat := range chats {
				d.callOff(chat, memory.ErrLeaseLost)
				offs.Add(1)
			}
		}
	}()
	for i := int64(1); i <= n; i++ {
		if i%2 == 0 {
			d.enqueuePress(chats[i%3], i)
		} else {
			d.enqueue(chats[i%3], i)
		}
	}
	select {
	case <-all:
	case <-time.After(60 * time.Second):
		t.Fatalf("%d of %d runs ended", finished.Load(), n)
	}
	stop.Store(true)
	wg.Wait()
	d.close()
	d.wait()
	if w := wrong.Load(); w != 0 {
		t.Errorf("%d runs ended for another cause", w)
	}
	d.mu.Lock()
	left := len(d.calls)
	d.mu.Unlock()
	if left != 0 {
		t.Errorf("%d chats' runs left behind in calls", left)
	}
	if offs.Load() == 0 {
		t.Error("no callOff raced")
	}

	// After a callOff has returned, a run that starts is not ended by it.
	c := newCalls()
	d2 := newDispatcher(ctx, ryo.SystemClock{}, 2, c.process)
	defer d2.wait()
	defer d2.close()
	defer close(c.release)
	d2.callOff(attackGroup, memory.ErrLeaseLost)
	d2.enqueue(attackGroup, 77)
	if r := c.next(t); r.ctx.Err() != nil {
		t.Fatal("a run that started after callOff returned was called off")
	}
}
