package bot

import (
	"context"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

// A chat taken over, then taken back here while the attempt called off
// there is still ending (its model connection closing, what it did being
// stored): the update queued again runs again, after that attempt, in
// order. Before, it was dropped as already waiting, and waited until the
// chat's queue drained and the replica looked at the chat again.
func TestAnUpdateTakenBackWhileItsCalledOffAttemptEndsRunsAgain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ending := make(chan struct{}) // holds the called-off attempt in its ending
	started := make(chan context.Context, 10)
	d := newDispatcher(ctx, ryo.SystemClock{}, 4, func(ctx context.Context, j *job) afterRun {
		started <- ctx
		<-ctx.Done()
		<-ending
		return afterRun{}
	})
	defer d.wait()
	defer d.close()
	next := func() context.Context {
		t.Helper()
		select {
		case c := <-started:
			return c
		case <-time.After(10 * time.Second):
			t.Fatal("the update did not run")
			return nil
		}
	}

	d.enqueue(attackGroup, 901)
	first := next()
	d.callOff(attackGroup, memory.ErrLeaseLost) // taken over
	<-first.Done()
	d.enqueue(attackGroup, 901) // taken back, while the attempt called off still ends
	close(ending)
	again := next()
	if again.Err() != nil {
		t.Fatalf("the update run again here started called off: %v", context.Cause(again))
	}
	d.callOff(attackGroup, context.Canceled) // let it end
}
