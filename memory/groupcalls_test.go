package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// The calls one process makes in a group reach another through the
// database — calls that still count, in that group, by someone else —
// once the first has written them down, also when it stops right after.
func TestGroupCallsReachAnotherProcess(t *testing.T) {
	db := memorytest.Open(t)
	before, after := memory.NewGroupCalls(db), memory.NewGroupCalls(db)
	runCtx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { before.Run(runCtx); close(ran) }()

	now := db.Now()
	const other = int64(-1009876543210)
	before.Record(group.ID, now.Add(time.Minute))
	before.Record(group.ID, now.Add(30*time.Second))
	before.Record(group.ID, now.Add(-time.Second)) // no longer counts
	before.Record(other, now.Add(time.Minute))
	stop()
	<-ran

	got, err := after.Others(ctx(t), group.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("the next process sees %v, want the 2 calls that still count", got)
	}
	mine, err := before.Others(ctx(t), group.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != 0 {
		t.Fatalf("a process is shown its own calls: %v", mine)
	}
}
