package bot

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// lockedLog collects a logger's lines from any goroutine.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) lines(with string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, with) {
			out = append(out, line)
		}
	}
	return out
}

// What is past its retention is swept when the bot starts and every hour
// after, on the bot's clock, and the log says how much went — counts only.
func TestRetainSweepsAtStartAndEveryHour(t *testing.T) {
	db := memorytest.Open(t)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := clocktest.New(start.Add(-time.Hour))
	db.Clock = clock
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	view := func(id string) {
		if err := db.SaveView(ctx, memory.View{ID: id, Kind: "memories", Viewer: 7123456789, Chat: 7123456789}); err != nil {
			t.Fatal(err)
		}
	}
	kept := func(id string) bool {
		_, ok, err := db.View(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	view("stale") // an hour old when the bot starts
	clock.Advance(time.Hour)
	view("fresh")
	log := &lockedLog{}
	b := &Bot{cfg: Config{Clock: clock, Retention: memory.Retention{Views: 30 * time.Minute}}, db: db,
		log: slog.New(slog.NewTextHandler(log, nil))}
	loop, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { b.retain(loop); close(done) }()
	defer func() { stop(); <-done }()

	if err := clock.WaitArmed(ctx, start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if kept("stale") || !kept("fresh") {
		t.Fatalf("after the sweep at start: stale kept %v, fresh kept %v; want only fresh", kept("stale"), kept("fresh"))
	}
	clock.Advance(time.Hour)
	if err := clock.WaitArmed(ctx, start.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if kept("fresh") {
		t.Fatal("the sweep an hour later kept a view past its retention")
	}
	lines := log.lines("deleted what is past its retention")
	if len(lines) != 2 || !strings.Contains(lines[0], "views=1") || !strings.Contains(lines[1], "views=1") {
		t.Fatalf("logged %q; want one line with views=1 for each sweep", lines)
	}
	for _, line := range lines {
		if strings.Contains(line, "stale") || strings.Contains(line, "fresh") {
			t.Errorf("the log names what it deleted: %s", line)
		}
	}
}
